package doctor

import (
	"context"
	"fmt"

	"github.com/reconcile/reconcile/internal/platform"
)

// NotAllowed: the platform refused one search across members to this key.
const NotAllowed Outcome = "not allowed"

// ScopeCheck is whether the key may list every member's transactions in one
// Transaction Search (run --search-scope account or reseller): one search
// a night instead of one a member.
type ScopeCheck struct {
	Scope platform.SearchScope
	ID    string // the account or reseller ID searched
	Check
}

// searchScopes probes one search across the members of each scope, acting
// for the organization: the reseller portfolio ScopeID (default the
// organization) and, when ScopeID is given, the merchant account ScopeID.
// A refusal is no problem of the account (a run searches member by member)
// unless the run is set to rely on it (Options.SearchScope).
func (r *Report) searchScopes(ctx context.Context, o Options) {
	if o.OrganizationID == "" {
		return
	}
	for _, sc := range []platform.SearchScope{platform.SearchReseller, platform.SearchAccount} {
		id := o.ScopeID
		if id == "" || (sc == platform.SearchReseller && o.SearchScope != platform.SearchReseller) {
			id = o.OrganizationID // as a run's default
		}
		c := ScopeCheck{Scope: sc, ID: id}
		if sc == platform.SearchAccount && o.ScopeID == "" {
			c.Check = Check{Outcome: Skipped, Detail: "give --search-scope-id ACCOUNT to check a merchant account"}
			r.Scopes = append(r.Scopes, c)
			continue
		}
		err := o.Client.Merchant(o.OrganizationID).ProbeSearchAcross(ctx, sc, id, o.Now())
		c.Check = classify(err)
		if c.Outcome == NotEnabled || c.Outcome == Failed {
			// 400 or 403: not this key's to search (the platform's
			// status for it is unverified).
			c.Outcome = NotAllowed
		}
		switch {
		case c.Outcome == OK:
			c.Detail = fmt.Sprintf("%s:%s answers: --search-scope %s makes one search a night for every member", sc.Field(), id, sc)
			c.Fix = ""
		case o.SearchScope == sc:
			c.Fix = fmt.Sprintf("the key may not search %s %s at once: drop --search-scope %s (each member is then searched on its own, as a run does anyway when this search fails)", sc, id, sc)
		default:
			c.Fix = "" // informational: a run searches member by member
		}
		if c.Outcome != Refused {
			r.noteCredentials(c.Check, err)
		}
		r.Scopes = append(r.Scopes, c)
	}
}
