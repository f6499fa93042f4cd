package ingest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
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

// TestPlansPulledWhenNeeded: a member's plan list is pulled the first
// night, then not again while the stored one is younger than the maximum
// age and every subscription is unchanged and names a stored plan; the
// schedules projected from the stored plans are those of the pulled ones.
// A subscription naming a plan not stored, the maximum age, a maximum age
// of 0 and a full refresh each pull it again.
func TestPlansPulledWhenNeeded(t *testing.T) {
	var mu sync.Mutex
	pulls := map[string]int{} // plan-list requests (first pages) by merchant
	env := sandboxtest.Start(t, sandbox.Config{Seed: 11, Scale: sandbox.Scale{Members: 3, Subscriptions: 15, Groups: 1}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "GET" && r.URL.Path == "/rbs/v1/plans" && r.URL.Query().Get("offset") == "0" {
					mu.Lock()
					pulls[r.Header.Get("v-c-merchant-id")]++
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
	s := storetest.Open(t)
	t0 := time.Now().UTC()
	n := 0
	billing := map[string]bool{} // members with recurring billing enabled
	run := func(now time.Time, maxAge time.Duration, full bool) map[string]int {
		t.Helper()
		n++
		mu.Lock()
		clear(pulls)
		mu.Unlock()
		opts := PullOptions{Client: env.Client, RunID: fmt.Sprintf("r%d", n), Window: store.WindowFor(cfg.BusinessDate, 3),
			Now: now, Concurrency: 2, PaymentLists: 2, PlansMaxAge: maxAge, FullRefresh: full}
		statuses, err := PullMembers(ctx, s, opts, members)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range statuses {
			if st.Status != store.MemberOK {
				t.Fatalf("run %d: member %s %s: %s", n, st.MerchantID, st.Status, st.Error)
			}
			billing[st.MerchantID] = !slices.ContainsFunc(st.NotEnabled, func(e NotEnabled) bool {
				return e.Product == ProductRecurringBilling
			})
		}
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range pulls {
			out[k] = v
		}
		return out
	}
	table := func(q string) string {
		t.Helper()
		rows, err := s.ReadPool().QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var b strings.Builder
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const schedulesQ = `SELECT merchant_id, subscription_id, period_unit, period_length, cycles_total, start_date, cycles_due,
		last_due_date, next_due_date, monthly_amount, currency, problem FROM subscription_schedules ORDER BY ALL`
	const plansQ = `SELECT merchant_id, plan_id, status, billing_amount, currency FROM plans ORDER BY ALL`
	week := 7 * 24 * time.Hour
	all := func(what string, got map[string]int) {
		t.Helper()
		if len(billing) != len(members) || len(got) < 2 {
			t.Fatalf("%s: plan lists pulled %v; want those of at least two members with recurring billing", what, got)
		}
		for _, m := range members {
			// (A member without recurring billing is answered "not enabled"
			// whether or not it asks for its plans.)
			if want := 1; billing[m.MerchantID] && got[m.MerchantID] != want {
				t.Errorf("%s: member %s pulled its plans %d times, want %d (%v)", what, m.MerchantID, got[m.MerchantID], want, got)
			}
		}
	}

	all("first night", run(t0, week, false))
	schedules, plans := table(schedulesQ), table(plansQ)
	if plans == "" || schedules == "" {
		t.Fatal("the first night stored no plans or no schedules")
	}
	if got := run(t0.Add(time.Hour), week, false); len(got) != 0 {
		t.Errorf("next night, nothing changed: plan lists pulled %v, want none", got)
	}
	if got := table(schedulesQ); got != schedules {
		t.Errorf("schedules projected from the stored plans differ from those of the pulled plans:\n%s\nwant\n%s", got, schedules)
	}
	if got := table(plansQ); got != plans {
		t.Errorf("plans table changed on a night that did not pull them:\n%s\nwant\n%s", got, plans)
	}

	// A plan a subscription names is not stored: that member pulls its list.
	var mid, planID string
	if err := s.ReadPool().QueryRowContext(ctx, `SELECT merchant_id, plan_id FROM subscriptions WHERE plan_id IS NOT NULL ORDER BY ALL LIMIT 1`).
		Scan(&mid, &planID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn().ExecContext(ctx, `DELETE FROM plans WHERE merchant_id = $1 AND plan_id = $2`, mid, planID); err != nil {
		t.Fatal(err)
	}
	if got := run(t0.Add(2*time.Hour), week, false); len(got) != 1 || got[mid] != 1 {
		t.Errorf("plan %s of member %s not stored: plan lists pulled %v, want that member's only", planID, mid, got)
	}
	if got := table(plansQ); got != plans {
		t.Errorf("the plans pulled again are not those of the first night:\n%s\nwant\n%s", got, plans)
	}

	all("older than the maximum age", run(t0.Add(2*week), week, false))
	all("maximum age 0", run(t0.Add(2*week+time.Hour), 0, false))
	all("full refresh", run(t0.Add(2*week+2*time.Hour), week, true))
	if got := table(schedulesQ); got != schedules {
		t.Errorf("schedules after the plans were pulled again differ:\n%s\nwant\n%s", got, schedules)
	}
}
