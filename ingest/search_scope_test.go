package ingest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestSharedSearch: with --search-scope reseller the members stage makes
// one search (acting for the organization) instead of one a member, and
// each member loads the transactions its own search finds; past the bound
// on what one search may hold, every member searches on its own, and loses
// nothing either.
func TestSharedSearch(t *testing.T) {
	var mu sync.Mutex
	searches := map[string]int{} // searches by the merchant acted for
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 4, Subscriptions: 20, Groups: 1}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "POST" && r.URL.Path == "/tss/v2/searches" {
					mu.Lock()
					searches[r.Header.Get("v-c-merchant-id")]++
					mu.Unlock()
				}
				next.ServeHTTP(w, r)
			})
		}))
	cfg := env.Server.Config()
	var members []groups.Member
	for _, mid := range env.Server.Members() {
		members = append(members, groups.NewMember(mid))
	}
	run := func(scope platform.SearchScope, limit int) map[string]int {
		t.Helper()
		clear(searches)
		opts := PullOptions{Client: env.Client, RunID: "r", Window: store.WindowFor(cfg.BusinessDate, 3), Now: time.Now(),
			Concurrency: 2, PaymentLists: 2, SearchScope: scope, SearchScopeID: cfg.OrganizationID, SearchActor: cfg.OrganizationID}
		r, err := newPuller(context.Background(), storetest.Open(t), opts, members)
		if err != nil {
			t.Fatal(err)
		}
		r.sharedLimit = limit
		statuses, err := r.pullMembers(context.Background(), members)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, st := range statuses {
			if st.Status != store.MemberOK {
				t.Fatalf("%s: member %s %s: %s", scope, st.MerchantID, st.Status, st.Error)
			}
			got[st.MerchantID] = st.Transactions
		}
		return got
	}
	want := run(platform.SearchMember, 0)
	for _, mid := range env.Server.Members() {
		if want[mid] == 0 || searches[mid] != 1 {
			t.Fatalf("member-scoped: member %s has %d transactions in %d searches; want some, in 1", mid, want[mid], searches[mid])
		}
	}
	same := func(what string, got map[string]int) {
		t.Helper()
		for mid, n := range want {
			if got[mid] != n {
				t.Errorf("%s: member %s loaded %d transactions, its own search %d", what, mid, got[mid], n)
			}
		}
	}
	same("reseller", run(platform.SearchReseller, 0))
	if searches[cfg.OrganizationID] != 1 || len(searches) != 1 {
		t.Errorf("reseller: searches by merchant acted for %v; want one, for %s", searches, cfg.OrganizationID)
	}
	same("reseller over its bound", run(platform.SearchReseller, 5))
	for _, mid := range env.Server.Members() {
		if searches[mid] != 1 {
			t.Errorf("reseller over its bound: member %s searched %d times; want 1, on its own", mid, searches[mid])
		}
	}
}
