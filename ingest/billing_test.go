package ingest

import (
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/subscriptions"
)

// col reads a named column of a row of t.
func col(t *store.Table, row []any, name string) any {
	for i, c := range t.Columns {
		if c.Name == name {
			return row[i]
		}
	}
	panic("no column " + name)
}

// The projection a member's load writes: the subscription's own terms, each
// missing one from its plan; cycle 1 carries the setup fee; a subscription
// whose schedule cannot be read gets a row saying why and no cycles.
func TestAddSchedules(t *testing.T) {
	cutoff := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	snap := &subscriptions.Snapshot{
		Plans: []platform.Plan{{ID: "p1", PeriodUnit: "W", PeriodLength: "1", CyclesTotal: "3",
			BillingAmount: "5.00", SetupFee: "2.50", Currency: "EUR"}},
		Subscriptions: []platform.Subscription{
			// Its own amount; period, total and currency from the plan.
			{ID: "s1", PlanID: "p1", StartDate: "2026-11-01T09:00:00Z", BillingAmount: "7.00"},
			// Monthly from 31 August: the cut-off comes after 3 cycles.
			{ID: "s2", StartDate: "2026-08-31T09:00:00Z", PeriodUnit: "M", PeriodLength: "1",
				BillingAmount: "30.00", Currency: "USD"},
			{ID: "s3", StartDate: "2026-08-31T09:00:00Z", PeriodUnit: "Q", PeriodLength: "1", BillingAmount: "1.00"},
			{ID: "s4", PeriodUnit: "Y", PeriodLength: "2", BillingAmount: "240.00", Currency: "USD"},
		},
	}
	b := newMemberBatch("m1")
	if err := b.addSchedules(snap, cutoff, "r1", cutoff); err != nil {
		t.Fatal(err)
	}
	sched, exp := schedulesTable, b.billing.expected.Values()
	rows := b.billing.schedules.Values()
	if len(rows) != 4 {
		t.Fatalf("%d schedule rows, want one per subscription", len(rows))
	}
	byID := map[string][]any{}
	for _, r := range rows {
		byID[r[1].(string)] = r
	}
	s1 := byID["s1"]
	if col(sched, s1, "period_unit") != "W" || col(sched, s1, "cycles_total") != int32(3) || col(sched, s1, "cycles_due") != int32(3) ||
		col(sched, s1, "currency") != "EUR" || col(sched, s1, "next_due_date") != nil || col(sched, s1, "monthly_amount") != int64(30330) {
		t.Errorf("s1 (weekly, 3 cycles from the plan, 7.00 of its own): %v", s1)
	}
	if col(sched, s1, "retry_limit") != int32(3) || col(sched, s1, "retry_interval") != 24*time.Hour {
		t.Errorf("s1 retry policy: %v %v", col(sched, s1, "retry_limit"), col(sched, s1, "retry_interval"))
	}
	s2 := byID["s2"]
	if col(sched, s2, "cycles_due") != int32(3) || !col(sched, s2, "next_due_date").(time.Time).Equal(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)) ||
		col(sched, s2, "within_12_months") != true {
		t.Errorf("s2 (monthly from 31 August): %v", s2)
	}
	for _, id := range []string{"s3", "s4"} {
		if r := byID[id]; col(sched, r, "problem") == nil || col(sched, r, "cycles_due") != nil {
			t.Errorf("%s: no projection expected, with the reason: %v", id, r)
		}
	}
	var cycles []string
	for _, r := range exp {
		setup := "-"
		if r[5] != nil {
			setup = "fee"
		}
		cycles = append(cycles, r[1].(string)+" "+r[3].(time.Time).Format("01-02")+" "+setup)
		if r[1] == "s1" && r[4] != int64(7000) {
			t.Errorf("s1 expects %v a cycle, want its own 7.00", r[4])
		}
	}
	want := []string{"s1 11-01 fee", "s1 11-08 -", "s1 11-15 -", "s2 08-31 -", "s2 09-30 -", "s2 10-31 -"}
	if len(cycles) != len(want) {
		t.Fatalf("expected cycles %v, want %v", cycles, want)
	}
	for i := range want {
		if cycles[i] != want[i] {
			t.Errorf("expected cycle %d: %s, want %s", i, cycles[i], want[i])
		}
	}
}
