// Package doctor answers "will a run work with this account?" before a
// night is spent finding out: it checks, read-only and in a few requests,
// that the platform's clock agrees with ours, that the credentials are
// accepted, which group-management path answers and how many members it
// lists, and for each member (or a sample) which endpoint families answer.
// It never writes anything, on the platform or here.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// Options say what to check.
type Options struct {
	Client         *platform.Client
	BaseURL        string       // the platform's, for the clock's look
	HTTPClient     *http.Client // for the clock's look; nil: a default one
	OrganizationID string
	GroupsPath     string   // --groups-path; "" the default paths
	Merchants      []string // --merchants: no discovery, these members
	Sample         int      // members probed; 0: all
	// SearchScope and ScopeID are the run's --search-scope and
	// --search-scope-id: whether one search may cover every member is
	// checked (scope.go), and is a problem only when the run relies on it.
	SearchScope platform.SearchScope
	ScopeID     string
	Now         func() time.Time
}

// Outcome is how one check ended.
type Outcome string

const (
	OK         Outcome = "ok"
	NotEnabled Outcome = "not enabled" // the product is off for the member: a run skips it, not fails
	Refused    Outcome = "refused"     // the credentials were refused (401)
	Failed     Outcome = "failed"      // anything else: the platform's answer says what
	Skipped    Outcome = "not checked"
)

// Check is one line of the report.
type Check struct {
	Outcome Outcome
	Detail  string // what was seen: the path, the counts, the platform's words
	Fix     string // what to do, when not OK
}

// Member is one member's families.
type Member struct {
	MerchantID string
	Families   map[platform.Family]Check
}

// Report is the whole answer.
type Report struct {
	Clock       Check
	Credentials Check
	Discovery   Check
	MembersSeen int // members discovered (or named)
	Members     []Member
	Scopes      []ScopeCheck // one search across members (scope.go)
}

// Maximum clock differences: the platform refuses a request whose Date is
// more than 5 minutes off its clock (HTTP signature), and a JWT lives 2
// minutes from its iat (docs/platform.md, Authentication).
const (
	clockRefused = 5 * time.Minute
	clockWarn    = time.Minute
)

// Run makes the checks.
func Run(ctx context.Context, o Options) *Report {
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Report{Credentials: Check{Outcome: Skipped, Detail: "no request was answered"}}
	r.Clock = clock(ctx, o)
	members := r.discover(ctx, o)
	r.MembersSeen = len(members)
	if o.Sample > 0 && len(members) > o.Sample {
		members = sample(members, o.Sample)
	}
	for _, mid := range members {
		m := Member{MerchantID: mid, Families: map[platform.Family]Check{}}
		for _, f := range platform.Families {
			err := o.Client.Merchant(mid).Probe(ctx, f, o.Now())
			c := classify(err)
			r.noteCredentials(c, err)
			if c.Outcome == NotEnabled {
				c.Fix = fmt.Sprintf("ask the platform to enable %s for %s, or accept that a run reconciles the member without it", f, mid)
			}
			m.Families[f] = c
		}
		r.Members = append(r.Members, m)
	}
	if r.Credentials.Outcome != Refused {
		r.searchScopes(ctx, o)
	}
	return r
}

// Ready reports whether a run would reconcile something: the credentials
// were accepted and at least one member answers at least one family.
func (r *Report) Ready() bool {
	if r.Credentials.Outcome != OK || r.Clock.Outcome == Failed {
		return false
	}
	for _, m := range r.Members {
		for _, c := range m.Families {
			if c.Outcome == OK {
				return true
			}
		}
	}
	return false
}

// Problems are the checks that did not pass, each with its fix, in the
// order a person would work through them.
func (r *Report) Problems() []Check {
	var out []Check
	for _, c := range []Check{r.Clock, r.Credentials, r.Discovery} {
		if c.Outcome != OK && c.Outcome != Skipped {
			out = append(out, c)
		}
	}
	for _, sc := range r.Scopes {
		if sc.Fix != "" {
			out = append(out, sc.Check)
		}
	}
	seen := map[string]bool{}
	for _, m := range r.Members {
		for _, f := range platform.Families {
			if c := m.Families[f]; c.Outcome != OK && c.Fix != "" && !seen[c.Fix] && c.Outcome != Refused {
				seen[c.Fix] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func (r *Report) noteCredentials(c Check, err error) {
	switch {
	case c.Outcome == Refused:
		r.Credentials = Check{Outcome: Refused, Detail: platformWords(err),
			Fix: "check --key-id and the secret (or the P12 and --auth), and that --portfolio-id names the key's owner; a key of the test environment does not work in production"}
	case r.Credentials.Outcome == Skipped && err == nil, r.Credentials.Outcome == Skipped && c.Outcome == NotEnabled,
		r.Credentials.Outcome == Skipped && c.Outcome == Failed && isAPIError(err):
		// Any answer other than 401 means the signature was accepted.
		r.Credentials = Check{Outcome: OK, Detail: "accepted"}
	}
}

// discover lists the members: those named (--merchants), or those of the
// organization's groups, trying each group list path until one answers.
func (r *Report) discover(ctx context.Context, o Options) []string {
	if len(o.Merchants) > 0 {
		r.Discovery = Check{Outcome: Skipped, Detail: fmt.Sprintf("--merchants names %d members; no group is listed", len(o.Merchants))}
		return slices.Clone(o.Merchants)
	}
	paths := []string{o.GroupsPath}
	if o.GroupsPath == "" {
		paths = []string{platform.DefaultGroupsPath, platform.GroupsPathForm}
	}
	var tried []string
	for _, p := range paths {
		groups, members := 0, map[string]bool{}
		var err error
		for g, gerr := range o.Client.Merchant(o.OrganizationID).GroupsAt(ctx, o.OrganizationID, p) {
			if gerr != nil {
				err = gerr
				break
			}
			groups++
			for _, m := range g.Members {
				members[m] = true
			}
		}
		if err == nil {
			r.noteCredentials(Check{Outcome: OK}, nil)
			r.Discovery = Check{Outcome: OK, Detail: fmt.Sprintf("GET %s: %d groups, %d members", shown(p, o.OrganizationID), groups, len(members))}
			if len(members) == 0 {
				r.Discovery = Check{Outcome: Failed, Detail: r.Discovery.Detail,
					Fix: "the organization's groups have no member: add members to a group, or name them with --merchants"}
			}
			out := make([]string, 0, len(members))
			for m := range members {
				out = append(out, m)
			}
			sort.Strings(out)
			return out
		}
		// A refused listing names each request it made and the answer.
		attempts := []platform.GroupsAttempt{{Target: shown(p, o.OrganizationID), Err: err}}
		var gu *platform.GroupsUnavailableError
		if errors.As(err, &gu) && len(gu.Tried) > 0 {
			attempts = gu.Tried
		}
		refused := false
		for _, a := range attempts {
			c := classify(a.Err)
			r.noteCredentials(c, a.Err)
			refused = refused || c.Outcome == Refused
			tried = append(tried, fmt.Sprintf("GET %s: %s", a.Target, platformWords(a.Err)))
		}
		if refused {
			r.Discovery = Check{Outcome: Skipped, Detail: "the credentials were refused"}
			return nil
		}
	}
	r.Discovery = Check{Outcome: Failed, Detail: strings.Join(tried, "; "),
		Fix: "group management did not answer: name the members with --merchants MID,MID (or @FILE), give the path your account uses with --groups-path, or ask for Group Management to be enabled for the key"}
	return nil
}

// shown is a group list path template with the organization put in.
func shown(template, org string) string {
	return strings.ReplaceAll(template, "{organizationId}", org)
}

// clock compares the platform's Date header with our clock, on an
// unsigned request (any answer carries a Date).
func clock(ctx context.Context, o Options) Check {
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 20 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(o.BaseURL, "/")+"/", nil)
	if err != nil {
		return Check{Outcome: Failed, Detail: err.Error(), Fix: "check --base-url"}
	}
	sent := o.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return Check{Outcome: Failed, Detail: "the platform did not answer: " + err.Error(), Fix: "check --base-url and that this machine reaches it (proxy, firewall)"}
	}
	resp.Body.Close()
	theirs, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return Check{Outcome: Skipped, Detail: "the platform's answer has no Date header to compare with"}
	}
	// Date has whole seconds: compare with the middle of the exchange.
	ours := sent.Add(o.Now().Sub(sent) / 2)
	skew := theirs.Sub(ours).Round(time.Second)
	detail := "the platform's clock agrees with ours"
	if abs(skew) > time.Second { // Date has whole seconds
		direction := "ahead of"
		if skew < 0 {
			direction = "behind"
		}
		detail = fmt.Sprintf("the platform's clock is %s %s ours", abs(skew), direction)
	}
	switch {
	case abs(skew) > clockRefused:
		return Check{Outcome: Failed, Detail: detail, Fix: "set this machine's clock (NTP): the platform refuses requests dated more than 5 minutes from its own"}
	case abs(skew) > clockWarn:
		return Check{Outcome: OK, Detail: detail + " (a JWT lives 2 minutes: keep the clock within a minute, NTP)"}
	}
	return Check{Outcome: OK, Detail: detail}
}

// classify reads a probe's error.
func classify(err error) Check {
	switch {
	case err == nil:
		return Check{Outcome: OK}
	case platform.IsStatus(err, http.StatusUnauthorized):
		return Check{Outcome: Refused, Detail: platformWords(err)}
	}
	if _, off := platform.NotEnabled(err); off {
		return Check{Outcome: NotEnabled, Detail: platformWords(err)}
	}
	return Check{Outcome: Failed, Detail: platformWords(err), Fix: "see the platform's answer: " + platformWords(err)}
}

func isAPIError(err error) bool {
	var ae *platform.APIError
	return errors.As(err, &ae)
}

// platformWords is what the platform said: its status and message where it
// answered, else the failure.
func platformWords(err error) string {
	var ae *platform.APIError
	if errors.As(err, &ae) {
		words := strings.TrimSpace(ae.Reason + " " + ae.Message)
		if words == "" {
			words = http.StatusText(ae.HTTPStatus)
		}
		return fmt.Sprintf("%d %s", ae.HTTPStatus, words)
	}
	return err.Error()
}

// sample takes n members spread over the sorted list, first and last
// included, so a sample of a large portfolio sees its whole range.
func sample(members []string, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, members[i*(len(members)-1)/max(n-1, 1)])
	}
	return slices.Compact(out)
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
