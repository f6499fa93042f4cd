package ingest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/subscriptions"
)

// The recurring-billing reconciliation's part of a run (docs/billing.md).
// With each member's load, every subscription's schedule is projected in
// Go, by the subscriptions package's rules, into subscription_schedules and
// expected_cycles: the month-end, leap-year and retry rules then have one
// home and their unit tests, and the checks of queries/findings join plain
// tables. After the checks, the checks package fills the run's
// recurring-billing tables (status log, recoveries, ageing, metrics,
// three-way match) from queries/billing.

// billingRows are a member batch's schedule rows, and the members they
// replace.
type billingRows struct {
	members   []string
	schedules *store.Rows
	expected  *store.Rows
}

func newBillingRows() billingRows {
	return billingRows{
		schedules: &store.Rows{Table: "subscription_schedules", Columns: []string{
			"merchant_id", "subscription_id", "period_unit", "period_length", "cycles_total", "start_date", "cut_off",
			"cycles_due", "last_due_date", "next_due_date", "projection_cut", "retry_limit", "retry_interval",
			"retry_tolerance", "within_12_months", "monthly_amount", "currency", "problem", "run_id", "loaded_at"}},
		expected: &store.Rows{Table: "expected_cycles", Columns: []string{
			"merchant_id", "subscription_id", "cycle", "due_date", "billing_amount", "setup_fee", "currency",
			"run_id", "loaded_at"}},
	}
}

// merge adds another batch's rows.
func (b *billingRows) merge(o billingRows) {
	if b.schedules == nil {
		*b = newBillingRows()
	}
	b.members = append(b.members, o.members...)
	if o.schedules != nil {
		b.schedules.Values = append(b.schedules.Values, o.schedules.Values...)
		b.expected.Values = append(b.expected.Values, o.expected.Values...)
	}
}

// upsert replaces every schedule row of the batch's members: a
// subscription the platform no longer lists loses its projection.
func (b billingRows) upsert(ctx context.Context, tx *store.Tx) error {
	if len(b.members) == 0 {
		return nil
	}
	replace := &store.Replace{Relation: "SELECT unnest(?::VARCHAR[]) AS merchant_id", On: []string{"merchant_id"}, Args: []any{b.members}}
	if err := tx.Upsert(ctx, b.schedules, []string{"merchant_id", "subscription_id"}, replace); err != nil {
		return err
	}
	return tx.Upsert(ctx, b.expected, []string{"merchant_id", "subscription_id", "cycle"}, replace)
}

// addSchedules projects the schedule of every subscription of the
// snapshot up to cutoff (the run's window end). The terms are the
// subscription's own (what the platform bills it), each missing one taken
// from its plan. A subscription whose schedule cannot be projected (no
// start date, an unknown period) gets a row that says why, and no expected
// cycles; it does not fail the member, whose other data is still good.
func (b *memberBatch) addSchedules(snap *subscriptions.Snapshot, cutoff time.Time, runID string, now time.Time) error {
	rows := newBillingRows()
	rows.members = []string{b.merchantID}
	plans := make(map[string]platform.Plan, len(snap.Plans))
	for _, p := range snap.Plans {
		plans[p.ID] = p
	}
	for _, s := range snap.Subscriptions {
		if err := rows.addSubscription(b.merchantID, s, plans[s.PlanID], cutoff, runID, now); err != nil {
			return fmt.Errorf("schedule of subscription %s: %w", s.ID, err)
		}
	}
	b.billing = rows
	return nil
}

func firstNonBlank(values ...string) string {
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func (r *billingRows) addSubscription(mid string, s platform.Subscription, plan platform.Plan, cutoff time.Time, runID string, now time.Time) error {
	var c converter
	unit := strings.ToUpper(strings.TrimSpace(firstNonBlank(s.PeriodUnit, plan.PeriodUnit)))
	length := firstNonBlank(s.PeriodLength, plan.PeriodLength)
	total := 0
	if v := strings.TrimSpace(firstNonBlank(s.CyclesTotal, plan.CyclesTotal)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("billingCycles.total %q: not a number of cycles", v)
		}
		total = n
	}
	amount := c.amount("billingAmount", firstNonBlank(s.BillingAmount, plan.BillingAmount))
	fee := c.amount("setupFee", firstNonBlank(s.SetupFee, plan.SetupFee))
	currency := text(firstNonBlank(s.Currency, plan.Currency))
	start := c.timestamp("startDate", s.StartDate)
	if c.err != nil {
		return c.err
	}
	policy := []any{int32(subscriptions.RetryLimit(unit)), interval(subscriptions.RetryInterval(unit)),
		interval(subscriptions.RetryTolerance(unit))}
	var totalCol any
	if total > 0 {
		totalCol = int32(total)
	}
	period, perr := subscriptions.ParsePeriod(unit, length)
	problem := ""
	switch {
	case perr != nil:
		problem = perr.Error()
	case start == nil:
		problem = "no start date"
	}
	if problem != "" {
		var lengthCol any
		if n, err := strconv.Atoi(strings.TrimSpace(length)); err == nil {
			lengthCol = int32(n)
		}
		r.schedules.Add(append(append([]any{mid, s.ID, text(unit), lengthCol, totalCol, start, cutoff,
			nil, nil, nil, nil}, policy...), nil, nil, currency, problem, runID, now)...)
		return nil
	}
	sched := subscriptions.Schedule{Start: start.(time.Time), Period: period, Total: total}
	due, next, hasNext, cut := sched.Due(cutoff)
	var last, nextAt, monthly any
	if len(due) > 0 {
		last = due[len(due)-1].Due
	}
	if hasNext {
		nextAt = next.Due
	}
	if a, ok := amount.(int64); ok {
		monthly = period.MonthlyAmount(a)
	}
	r.schedules.Add(append(append([]any{mid, s.ID, string(period.Unit), int32(period.Length), totalCol, start, cutoff,
		int32(len(due)), last, nextAt, cut}, policy...), period.WithinTwelveMonths(), monthly, currency, nil, runID, now)...)
	for _, cy := range due {
		var setup any
		if cy.Number == 1 {
			setup = fee
		}
		r.expected.Add(mid, s.ID, int32(cy.Number), cy.Due, amount, setup, currency, runID, now)
	}
	return nil
}

// interval is a duration as a DuckDB INTERVAL for the Appender.
func interval(d time.Duration) duckdb.Interval {
	return duckdb.Interval{Micros: d.Microseconds()}
}
