package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/platform"
)

// One Transaction Search for the whole portfolio (PullOptions.SearchScope):
// where the key may search a reseller portfolio or a merchant account at
// once, the members stage makes that one search (in pages of 2,500) before
// it fans out, and each member takes its transactions from it instead of
// making a search of its own. At 50 members that is 1 request a night
// instead of 50; in production the platform's rate limit, not the CPU,
// sets how long a night takes.
//
// Nothing is lost for it: a member the shared search found no transaction
// of is searched on its own, since it may not be under the account or
// portfolio searched (a --merchants list may name any MID); and if the
// shared search fails (the key may not search so widely: 400 or 403), it
// is logged and every member searches on its own, as without the setting.

// sharedSearch makes the run's one search across members (when
// PullOptions.SearchScope asks for one) and keeps each member's
// transactions, by merchant ID; none when every member searches on its own.
func (r *puller) sharedSearch(ctx context.Context, members []groups.Member) {
	r.shared = nil
	scope := r.opts.SearchScope
	if scope == "" || scope == platform.SearchMember {
		return
	}
	wanted := make(map[string]bool, len(members))
	for _, m := range members {
		wanted[m.MerchantID] = true
	}
	started := time.Now()
	byMerchant := map[string][]platform.TransactionSummary{}
	found, others := 0, 0
	api := r.opts.Client.Merchant(r.opts.SearchActor)
	for t, err := range api.SearchAcross(ctx, scope, r.opts.SearchScopeID, r.window.Start, r.window.End) {
		if err == nil && found-others >= r.sharedMax() {
			err = fmt.Errorf("more than %d transactions: too many to hold for the members (split the run with --shard, or search member by member)", r.sharedMax())
		}
		if err != nil {
			r.log.Warn("the search across members failed: each member searches on its own",
				"search_scope", string(scope), "search_scope_id", r.opts.SearchScopeID, "error", err.Error())
			return
		}
		found++
		if !wanted[t.MerchantID] {
			others++ // another shard's, or a merchant not reconciled
			continue
		}
		byMerchant[t.MerchantID] = append(byMerchant[t.MerchantID], t)
	}
	r.sharedMu.Lock()
	r.shared = byMerchant
	r.sharedMu.Unlock()
	r.log.Info("searched across members", "search_scope", string(scope), "search_scope_id", r.opts.SearchScopeID,
		"transactions", found, "members_with_transactions", len(byMerchant), "not_reconciled_here", others,
		"duration", time.Since(started).Round(time.Millisecond).String())
}

// sharedTransactions are member mid's transactions of the shared search;
// false when it has to search on its own (no shared search, or none of its
// transactions in it).
// A member takes its list once, and the shared search lets go of it: the
// shared transactions leave memory as the members are pulled (a member
// pulled again after a rolled-back span searches on its own).
func (r *puller) sharedTransactions(mid string) ([]platform.TransactionSummary, bool) {
	r.sharedMu.Lock()
	defer r.sharedMu.Unlock()
	list := r.shared[mid]
	delete(r.shared, mid)
	return list, len(list) > 0
}

// maxSharedTransactions bounds the transactions one search across members
// holds in memory until the members take them (a summary and its raw JSON
// are about 1.5 KB: 200,000 are about 300 MiB). A portfolio with more in
// the window falls back to one search a member (or is split into shards,
// each of which holds its own members' share).
const maxSharedTransactions = 200_000

func (r *puller) sharedMax() int {
	if r.sharedLimit > 0 {
		return r.sharedLimit
	}
	return maxSharedTransactions
}

// validSearchScope checks the scope options before any request.
func validSearchScope(o PullOptions) error {
	if o.SearchScope == "" || o.SearchScope == platform.SearchMember {
		return nil
	}
	if o.SearchScopeID == "" {
		return fmt.Errorf("search scope %s: no %s ID to search", o.SearchScope, o.SearchScope)
	}
	if o.SearchActor == "" {
		return fmt.Errorf("search scope %s: no merchant ID to act for", o.SearchScope)
	}
	return nil
}
