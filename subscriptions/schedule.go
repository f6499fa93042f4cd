package subscriptions

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The billing-schedule rules: when each cycle of a subscription falls due,
// which cycles are due by a cut-off, what the documented retry schedule
// allows, whether a period respects the platform's 12-month limit, and
// what a cycle's amount is worth per month. They are written from the
// interface spec alone, never from the sandbox's code, so that a test
// comparing the two schedules means something (see docs/billing.md).
//
// The rules, each with its unit test in schedule_test.go:
//
//   - Cycle n of a subscription falls due n-1 periods after its start
//     date, always counted from the start date (never from the previous
//     cycle), keeping the start's time of day.
//   - D and W periods are whole days (a week is 7 days).
//   - M and Y periods (a year is 12 months) keep the start's day of the
//     month; in a month too short for it the cycle falls on the month's
//     last day, and the next month goes back to the start's day: a
//     subscription started on 31 January bills on 28 (or 29) February,
//     31 March, 30 April. A start on 29 February bills on 28 February in
//     common years and on 29 February in leap years.
//   - A cycle is due by a cut-off when it falls strictly before it; a
//     fixed-number plan has no cycle after its total.

// Period is a billing period: Length units of D (days), W (weeks), M
// (months) or Y (years).
type Period struct {
	Unit   byte // 'D', 'W', 'M' or 'Y'
	Length int
}

// ParsePeriod reads the platform's billingPeriod (unit in any case, length
// as a numeric string).
func ParsePeriod(unit, length string) (Period, error) {
	u := strings.ToUpper(strings.TrimSpace(unit))
	if len(u) != 1 || !strings.Contains("DWMY", u) {
		return Period{}, fmt.Errorf("billing period unit %q: want D, W, M or Y", unit)
	}
	n, err := strconv.Atoi(strings.TrimSpace(length))
	if err != nil || n < 1 {
		return Period{}, fmt.Errorf("billing period length %q: want a whole number of at least 1", length)
	}
	return Period{Unit: u[0], Length: n}, nil
}

func (p Period) String() string { return strconv.Itoa(p.Length) + " " + string(p.Unit) }

// Advance moves t forward by n periods (backward for a negative n).
func (p Period) Advance(t time.Time, n int) time.Time {
	switch p.Unit {
	case 'D':
		return t.AddDate(0, 0, p.Length*n)
	case 'W':
		return t.AddDate(0, 0, 7*p.Length*n)
	case 'Y':
		return AddMonths(t, 12*p.Length*n)
	default:
		return AddMonths(t, p.Length*n)
	}
}

// CycleDate is when cycle number cycle (1-based) of a schedule starting at
// start falls due.
func (p Period) CycleDate(start time.Time, cycle int) time.Time {
	return p.Advance(start, cycle-1)
}

// AddMonths moves t by n calendar months, keeping its day of the month
// where the target month has it and taking the month's last day where it
// does not (time.AddDate would roll 31 January + 1 month into March).
func AddMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	// time.Date normalises a month outside 1..12 into the right year.
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	return first.AddDate(0, 0, min(d, daysIn(first.Year(), first.Month()))-1)
}

func daysIn(year int, month time.Month) int {
	// Day 0 of the next month is the last day of this one.
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// WithinTwelveMonths reports whether the period respects the platform's
// limit: "the interval between subscription payments cannot exceed 12
// months" (docs/platform.md, Plans; the spec's Plan and Limits). The longest periods
// allowed are 12 M, 1 Y, 52 W and 365 D; 53 weeks (371 days) and 366 days
// exceed a common year, so they are taken as over the limit.
func (p Period) WithinTwelveMonths() bool {
	switch p.Unit {
	case 'D':
		return p.Length <= 365
	case 'W':
		return p.Length <= 52
	case 'M':
		return p.Length <= 12
	case 'Y':
		return p.Length <= 1
	}
	return false
}

// monthsPer is the number of months in one period, as an exact fraction:
// D is 1/30.4375 of a month per day (the mean month of the Gregorian
// calendar, 365.25 / 12 days), W 12/52 of a month per week, M one month,
// Y twelve.
func (p Period) monthsPer() *big.Rat {
	l := int64(p.Length)
	switch p.Unit {
	case 'D':
		return big.NewRat(10000*l, 304375) // l / 30.4375
	case 'W':
		return big.NewRat(12*l, 52)
	case 'Y':
		return big.NewRat(12*l, 1)
	default:
		return big.NewRat(l, 1)
	}
}

// MonthlyAmount normalises an amount billed once per period to a month
// (for MRR): D × 30.4375 / length, W × (52/12) / length, M / length,
// Y / (12 × length). Amounts are in thousandths (platform.ParseAmount);
// the result is rounded to the currency's minor unit (exponent decimals:
// a cent of USD, a yen, a fils of KWD), halves away from zero. Computed
// exactly (no floating point), so the same subscription always adds the
// same cents.
func (p Period) MonthlyAmount(thousandths int64, exponent int) int64 {
	unit := int64(1) // thousandths per minor unit
	for e := min(max(exponent, 0), 3); e < 3; e++ {
		unit *= 10
	}
	q := new(big.Rat).Quo(new(big.Rat).SetInt64(thousandths), p.monthsPer())
	q.Quo(q, new(big.Rat).SetInt64(unit))
	num, den := new(big.Int).Set(q.Num()), q.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	// round(num/den) = floor((2·num + den) / (2·den))
	num.Mul(num, big.NewInt(2)).Add(num, den)
	num.Quo(num, new(big.Int).Mul(den, big.NewInt(2)))
	if neg {
		num.Neg(num)
	}
	return num.Int64() * unit
}

// Cycle is one billing cycle of a schedule.
type Cycle struct {
	Number int
	Due    time.Time
}

// MaxProjectedCycles bounds a projection: a daily schedule started decades
// before the cut-off (or a bogus start date) would otherwise produce
// millions of cycles. A schedule with more due cycles is projected up to
// this many, and Schedule.Due says it was cut.
const MaxProjectedCycles = 10000

// Schedule is a subscription's billing schedule: its start, its period and
// its number of cycles (0 bills indefinitely).
type Schedule struct {
	Start  time.Time
	Period Period
	Total  int
}

// Due lists the cycles that fall due strictly before cutoff, in order, and
// the first cycle after them (ok false when the schedule has none: a
// fixed-number plan whose last cycle is due). cut is true when the list
// was bounded by MaxProjectedCycles.
func (s Schedule) Due(cutoff time.Time) (due []Cycle, next Cycle, ok, cut bool) {
	for n := 1; s.Total <= 0 || n <= s.Total; n++ {
		d := s.Period.CycleDate(s.Start, n)
		if !d.Before(cutoff) {
			return due, Cycle{Number: n, Due: d}, true, false
		}
		if len(due) == MaxProjectedCycles {
			return due, Cycle{}, false, true
		}
		due = append(due, Cycle{Number: n, Due: d})
	}
	return due, Cycle{}, false, false
}

// MaxRetries is the platform's limit on retries of one failed subscription
// payment, whatever the frequency (docs/platform.md, Plans; the spec's Limits).
const MaxRetries = 5

// RetryLimit is how many times a declined subscription payment is retried
// by billing frequency (docs/platform.md, "Billing and retry schedules"; the spec's "Retry schedule by billing
// frequency"): daily once, weekly 3 times, monthly 5 times, yearly 3 times.
// Custom frequencies map by their unit, as RetryInterval does; an unknown
// unit gets the overall limit, MaxRetries.
func RetryLimit(unit string) int {
	switch unit {
	case "D", "d":
		return 1
	case "W", "w", "Y", "y":
		return 3
	}
	return MaxRetries
}

// RetryTolerance is how far a retry may fall from the documented schedule
// (RetryInterval after the attempt before it) and still count as on
// schedule: a tenth of the interval (6 minutes for daily plans, 2.4 hours
// weekly, 4.8 hours monthly, 1.5 days yearly). The platform does not say
// how punctual its retries are; a tenth absorbs batch processing without
// letting a retry a day early pass on a monthly plan.
func RetryTolerance(unit string) time.Duration { return RetryInterval(unit) / 10 }
