package subscriptions

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// EndedBefore says whether subscription s, by its record alone, stopped
// billing before from: it is CANCELLED, COMPLETED or SUSPENDED, and its
// last processed cycle (billingCycles.current, dated by its start and
// period) and the retries the schedule allows after it all fall before
// from. Such a subscription has no payment at or after from, so a run
// that pulls only the history since from (--history) may leave its list
// to the backfill.
//
// Anything the record does not say for sure keeps the list: another
// status (an ACTIVE subscription bills, a PENDING or DELINQUENT one is
// about to), no start date, an unknown period, no cycle count. The SDK
// describes billingCycles.current only as the "Current billing cycle"; read
// as the cycle being billed rather than the last one processed, it dates
// the last payment later than it was, which keeps more lists, never fewer.
// A subscription whose period was amended after its start is dated by its
// current period, as the product's schedule projects it (missed_cycle):
// that is why the rule is behind a setting.
func EndedBefore(s platform.Subscription, from time.Time) bool {
	switch strings.ToUpper(s.Status) {
	case "CANCELLED", "COMPLETED", "SUSPENDED":
	default:
		return false
	}
	period, err := ParsePeriod(s.PeriodUnit, s.PeriodLength)
	if err != nil {
		return false
	}
	start, err := time.Parse(time.RFC3339, strings.TrimSpace(s.StartDate))
	if err != nil {
		return false
	}
	current, err := strconv.Atoi(strings.TrimSpace(s.CyclesCurrent))
	if err != nil || current < 1 {
		return false
	}
	unit := string(period.Unit)
	retries := time.Duration(RetryLimit(unit))*(RetryInterval(unit)+RetryTolerance(unit)) + 24*time.Hour
	return period.CycleDate(start, current).Add(retries).Before(from)
}

// ParseHistory reads a --history value: a number of days ("400d") or a Go
// duration ("72h"); "0" pulls every list at once.
func ParseHistory(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("history %q: not a number of days (e.g. 400d) or a duration (e.g. 72h)", v)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("history %q: not a number of days (e.g. 400d) or a duration (e.g. 72h)", v)
	}
	return d, nil
}
