package ingest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
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

// billingRows are a member batch's schedule rows.
type billingRows struct {
	schedules *store.Batch
	expected  *store.Batch
}

// loadSchedules replaces every schedule row of members: a subscription the
// platform no longer lists loses its projection.
func loadSchedules(ctx context.Context, tx *store.Tx, members []string, schedules, expected []*store.Batch) error {
	if len(members) == 0 {
		return nil
	}
	replace := &store.Replace{On: []string{"merchant_id"}}
	for _, m := range members {
		replace.Tuples = append(replace.Tuples, []string{m})
	}
	if err := tx.Load(ctx, schedulesTable, replace, schedules...); err != nil {
		return err
	}
	return tx.Load(ctx, expectedCyclesTable, replace, expected...)
}

// addSchedules projects the schedule of every subscription of the
// snapshot up to cutoff (the run's window end). The terms are the
// subscription's own (what the platform bills it), each missing one taken
// from its plan. A subscription whose schedule cannot be projected (no
// start date, an unknown period) gets a row that says why, and no expected
// cycles; it does not fail the member, whose other data is still good.
func (b *memberBatch) addSchedules(snap *subscriptions.Snapshot, cutoff time.Time, runID string, now time.Time) error {
	rows := billingRows{schedules: schedulesTable.NewBatch(), expected: expectedCyclesTable.NewBatch()}
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
	amount, hasAmount := c.amount("billingAmount", firstNonBlank(s.BillingAmount, plan.BillingAmount))
	fee, hasFee := c.amount("setupFee", firstNonBlank(s.SetupFee, plan.SetupFee))
	currency := firstNonBlank(s.Currency, plan.Currency)
	start, hasStart := c.timestamp("startDate", s.StartDate)
	if c.err != nil {
		return c.err
	}
	row := r.schedules.Str(mid).Str(s.ID)
	// The retry policy closes the row, after what the projection gives.
	policy := func(row *store.Batch) *store.Batch {
		return row.Int32(int32(subscriptions.RetryLimit(unit)), true).Interval(subscriptions.RetryInterval(unit)).
			Interval(subscriptions.RetryTolerance(unit))
	}
	period, perr := subscriptions.ParsePeriod(unit, length)
	problem := ""
	switch {
	case perr != nil:
		problem = perr.Error()
	case !hasStart:
		problem = "no start date"
	}
	if problem != "" {
		n, err := strconv.Atoi(strings.TrimSpace(length))
		row = row.Text(unit).Int32(int32(n), err == nil).Int32(int32(total), total > 0).Time(start, hasStart).Time(cutoff, true).
			Null().Null().Null().Null()
		policy(row).Null().Null().Text(currency).Str(problem).Str(runID).Time(now, true).End()
		return nil
	}
	sched := subscriptions.Schedule{Start: start, Period: period, Total: total}
	due, next, hasNext, cut := sched.Due(cutoff)
	var last time.Time
	if len(due) > 0 {
		last = due[len(due)-1].Due
	}
	row = row.Str(string(period.Unit)).Int32(int32(period.Length), true).Int32(int32(total), total > 0).Time(start, true).
		Time(cutoff, true).Int32(int32(len(due)), true).Time(last, len(due) > 0).Time(next.Due, hasNext).Bool(cut, true)
	policy(row).Bool(period.WithinTwelveMonths(), true).Amount(period.MonthlyAmount(amount, platform.CurrencyExponent(currency)), hasAmount).
		Text(currency).Null().Str(runID).Time(now, true).End()
	for _, cy := range due {
		r.expected.Str(mid).Str(s.ID).Int32(int32(cy.Number), true).Time(cy.Due, true).Amount(amount, hasAmount).
			Amount(fee, hasFee && cy.Number == 1).Text(currency).Str(runID).Time(now, true).End()
	}
	return nil
}
