package subscriptions

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// The product's schedule rules against the platform's: the sandbox bills
// with schedule code of its own (internal/sandbox/gen.go, engine.go), written apart
// from this package, so agreement on every payment of a thousand
// subscriptions (month ends included) means the rules are the platform's,
// not a copy of a mistake.
func TestScheduleAgreesWithThePlatform(t *testing.T) {
	scale, err := sandbox.ParseScale("members=10,subscriptions=100,groups=2")
	if err != nil {
		t.Fatal(err)
	}
	business := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	env := sandboxtest.Start(t, sandbox.Config{Seed: 3, Scale: scale, BusinessDate: business})
	srv, client := env.Server, env.Client
	cutoff := business.AddDate(0, 0, 1)
	var payments, monthEnds, units = 0, 0, map[string]int{}
	without := srv.MembersWithoutRecurringBilling()
	for _, mid := range srv.Members() {
		snap, err := Pull(context.Background(), client.Merchant(mid), 4, nil)
		if slices.Contains(without, mid) {
			if _, ok := platform.NotEnabled(err); !ok {
				t.Fatalf("%s lacks Recurring Billing: pull error %v, want one that says not enabled", mid, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range snap.Subscriptions {
			p, err := ParsePeriod(s.PeriodUnit, s.PeriodLength)
			if err != nil {
				t.Fatalf("subscription %s: %v", s.ID, err)
			}
			start, err := time.Parse(time.RFC3339, s.StartDate)
			if err != nil {
				t.Fatal(err)
			}
			units[string(p.Unit)]++
			if start.Day() >= 29 && (p.Unit == 'M' || p.Unit == 'Y') {
				monthEnds++
			}
			total, _ := strconv.Atoi(s.CyclesTotal)
			due, _, _, _ := Schedule{Start: start, Period: p, Total: total}.Due(cutoff)
			processed := 0
			for _, pm := range snap.Payments[s.ID].Payments {
				cycle, _ := strconv.Atoi(pm.BillingCycle)
				got, err := time.Parse(time.RFC3339, pm.BillingStartDate)
				if err != nil {
					t.Fatal(err)
				}
				if want := p.CycleDate(start, cycle); !got.Equal(want) {
					t.Errorf("subscription %s (%s from %s) cycle %d: the platform bills the period from %s, the projection says %s",
						s.ID, p, s.StartDate, cycle, pm.BillingStartDate, want.Format(time.RFC3339))
				}
				if pm.PaymentType == "STANDARD" && (pm.Status == "PAID" || pm.Status == "FAILED") && got.Before(cutoff) {
					processed = max(processed, cycle)
				}
				payments++
			}
			// The platform never processed a cycle the projection does not
			// count as due by the cut-off.
			if (s.Status == "ACTIVE" || s.Status == "COMPLETED") && processed > len(due) {
				t.Errorf("subscription %s: cycle %d processed, only %d due by the projection", s.ID, processed, len(due))
			}
		}
	}
	t.Logf("%d payments, %d month-end starts, subscriptions by unit %v", payments, monthEnds, units)
	if payments < 5000 || monthEnds < 10 || len(units) < 4 {
		t.Errorf("%d payments, %d month-end starts, units %v: the comparison covers too little", payments, monthEnds, units)
	}
}
