package ingest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestHistoryBackfill: with --history, a first night leaves the payment
// lists of subscriptions that ended before the history to the backfill and
// still loads every payment of the window; the following nights pull at
// most --backfill-budget of them each, until, within ceil(left/budget)
// nights, the database holds every payment a full pull holds.
func TestHistoryBackfill(t *testing.T) {
	var mu sync.Mutex
	lists := 0 // payment lists requested (first pages)
	env := sandboxtest.Start(t, sandbox.Config{Seed: 3, Scale: sandbox.Scale{Members: 4, Subscriptions: 40, Groups: 1}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "GET" && strings.HasSuffix(r.URL.Path, "/payments") && r.URL.Query().Get("offset") == "0" {
					mu.Lock()
					lists++
					mu.Unlock()
				}
				next.ServeHTTP(w, r)
			})
		}))
	cfg := env.Server.Config()
	var members []groups.Member
	for _, mid := range env.Server.Members() {
		members = append(members, groups.Member{MerchantID: mid})
	}
	ctx := context.Background()
	window := store.WindowFor(cfg.BusinessDate, 3)
	const budget = 4
	n := 0
	run := func(s *store.Store, history time.Duration) int {
		t.Helper()
		n++
		mu.Lock()
		lists = 0
		mu.Unlock()
		opts := PullOptions{Client: env.Client, RunID: fmt.Sprintf("r%d", n), Window: window, Now: time.Now(),
			Concurrency: 2, PaymentLists: 2, History: history, BackfillBudget: budget}
		statuses, err := PullMembers(ctx, s, opts, members)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range statuses {
			if st.Status != store.MemberOK {
				t.Fatalf("run %d: member %s %s: %s", n, st.MerchantID, st.Status, st.Error)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return lists
	}
	dump := func(s *store.Store, q string, args ...any) string {
		t.Helper()
		rows, err := s.ReadPool().QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const paymentsQ = `SELECT concat_ws('|', merchant_id, payment_id, subscription_id, status, payment_type, billing_cycle,
		payment_date, billing_amount, currency, transaction_id) FROM subscription_payments
		WHERE payment_date >= $1 AND payment_date < $2 ORDER BY ALL`
	left := func(s *store.Store) int {
		t.Helper()
		var k int
		if err := s.ReadPool().QueryRowContext(ctx, `SELECT count(*) FROM subscriptions WHERE payments_pulled_at IS NULL`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}

	full := storetest.Open(t)
	all := run(full, 0)
	if left(full) != 0 {
		t.Fatalf("a full pull left %d subscriptions without their list", left(full))
	}
	lean := storetest.Open(t)
	first := run(lean, time.Hour)
	rest := left(lean)
	if rest == 0 || first+rest != all {
		t.Fatalf("first night with --history: %d lists pulled, %d left, of %d; want some left, none lost", first, rest, all)
	}
	far := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, want := dump(lean, paymentsQ, window.Start.Add(-time.Hour), window.End), dump(full, paymentsQ, window.Start.Add(-time.Hour), window.End); got != want {
		t.Errorf("the window's payments with --history differ from a full pull's:\n%s\nwant\n%s", got, want)
	}
	nights := (rest + budget - 1) / budget
	t.Logf("first night: %d of %d lists, %d left to the backfill (%d nights of %d)", first, all, rest, nights, budget)
	for night := 2; left(lean) > 0; night++ {
		if night > nights+1 {
			t.Fatalf("backfill not done after %d more nights (%d left of %d, %d a night)", nights, left(lean), rest, budget)
		}
		before := left(lean)
		pulled := run(lean, time.Hour)
		if pulled > budget || before-left(lean) != min(budget, before) {
			t.Errorf("night %d: %d lists pulled, %d of %d left taken up; want at most %d pulled, and %d taken up",
				night, pulled, before-left(lean), before, budget, min(budget, before))
		}
	}
	if got, want := dump(lean, paymentsQ, far, window.End.AddDate(100, 0, 0)), dump(full, paymentsQ, far, window.End.AddDate(100, 0, 0)); got != want {
		t.Errorf("after the backfill the payments differ from a full pull's:\n%s\nwant\n%s", got, want)
	}
}
