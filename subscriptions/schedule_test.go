package subscriptions

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// cycleDates lists the due dates of cycles 1..n, as RFC 3339.
func cycleDates(start string, p Period, n int) []string {
	var out []string
	for c := 1; c <= n; c++ {
		out = append(out, p.CycleDate(at(start), c).Format(time.RFC3339))
	}
	return out
}

func sameDates(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: cycle %d falls due %s, want %s", what, i+1, got[i], want[i])
		}
	}
}

func TestDailyCycles(t *testing.T) {
	sameDates(t, "every day", cycleDates("2026-02-27T09:30:00Z", Period{'D', 1}, 4),
		[]string{"2026-02-27T09:30:00Z", "2026-02-28T09:30:00Z", "2026-03-01T09:30:00Z", "2026-03-02T09:30:00Z"})
	sameDates(t, "every 14 days", cycleDates("2026-12-25T08:00:00Z", Period{'D', 14}, 3),
		[]string{"2026-12-25T08:00:00Z", "2027-01-08T08:00:00Z", "2027-01-22T08:00:00Z"})
}

func TestWeeklyCycles(t *testing.T) {
	sameDates(t, "every week", cycleDates("2028-02-22T18:00:00Z", Period{'W', 1}, 3),
		[]string{"2028-02-22T18:00:00Z", "2028-02-29T18:00:00Z", "2028-03-07T18:00:00Z"})
	sameDates(t, "every 4 weeks", cycleDates("2026-11-20T10:00:00Z", Period{'W', 4}, 3),
		[]string{"2026-11-20T10:00:00Z", "2026-12-18T10:00:00Z", "2027-01-15T10:00:00Z"})
}

func TestMonthlyCycles(t *testing.T) {
	sameDates(t, "every month", cycleDates("2026-10-15T11:00:00Z", Period{'M', 1}, 4),
		[]string{"2026-10-15T11:00:00Z", "2026-11-15T11:00:00Z", "2026-12-15T11:00:00Z", "2027-01-15T11:00:00Z"})
	sameDates(t, "every 3 months", cycleDates("2026-11-30T12:00:00Z", Period{'M', 3}, 4),
		[]string{"2026-11-30T12:00:00Z", "2027-02-28T12:00:00Z", "2027-05-30T12:00:00Z", "2027-08-30T12:00:00Z"})
}

func TestYearlyCycles(t *testing.T) {
	sameDates(t, "every year", cycleDates("2025-06-01T10:00:00Z", Period{'Y', 1}, 3),
		[]string{"2025-06-01T10:00:00Z", "2026-06-01T10:00:00Z", "2027-06-01T10:00:00Z"})
}

// A start on the 31st bills on the last day of shorter months and goes
// back to the 31st afterwards: each cycle counts from the start, not from
// the cycle before (which would drift to the 28th for good).
func TestMonthEnds(t *testing.T) {
	sameDates(t, "started 31 January", cycleDates("2027-01-31T10:00:00Z", Period{'M', 1}, 5),
		[]string{"2027-01-31T10:00:00Z", "2027-02-28T10:00:00Z", "2027-03-31T10:00:00Z", "2027-04-30T10:00:00Z", "2027-05-31T10:00:00Z"})
	sameDates(t, "started 31 January of a leap year", cycleDates("2028-01-31T10:00:00Z", Period{'M', 1}, 3),
		[]string{"2028-01-31T10:00:00Z", "2028-02-29T10:00:00Z", "2028-03-31T10:00:00Z"})
	sameDates(t, "started 30 August, every 6 months", cycleDates("2026-08-30T10:00:00Z", Period{'M', 6}, 3),
		[]string{"2026-08-30T10:00:00Z", "2027-02-28T10:00:00Z", "2027-08-30T10:00:00Z"})
	sameDates(t, "started 31 December, across the year end", cycleDates("2026-12-31T23:59:59Z", Period{'M', 2}, 3),
		[]string{"2026-12-31T23:59:59Z", "2027-02-28T23:59:59Z", "2027-04-30T23:59:59Z"})
	if got := AddMonths(at("2026-03-31T10:00:00Z"), -1); !got.Equal(at("2026-02-28T10:00:00Z")) {
		t.Errorf("31 March minus a month = %s, want 28 February", got)
	}
}

// A start on 29 February bills on 28 February in common years and on 29
// February again in leap years; weekly and daily schedules cross 29
// February like any other day.
func TestLeapYears(t *testing.T) {
	sameDates(t, "yearly from 29 February", cycleDates("2028-02-29T09:00:00Z", Period{'Y', 1}, 6),
		[]string{"2028-02-29T09:00:00Z", "2029-02-28T09:00:00Z", "2030-02-28T09:00:00Z", "2031-02-28T09:00:00Z",
			"2032-02-29T09:00:00Z", "2033-02-28T09:00:00Z"})
	sameDates(t, "monthly from 29 January of a common year", cycleDates("2027-01-29T09:00:00Z", Period{'M', 1}, 3),
		[]string{"2027-01-29T09:00:00Z", "2027-02-28T09:00:00Z", "2027-03-29T09:00:00Z"})
	sameDates(t, "daily across 29 February", cycleDates("2028-02-28T09:00:00Z", Period{'D', 1}, 3),
		[]string{"2028-02-28T09:00:00Z", "2028-02-29T09:00:00Z", "2028-03-01T09:00:00Z"})
	sameDates(t, "every 2 years from 29 February", cycleDates("2024-02-29T09:00:00Z", Period{'Y', 2}, 3),
		[]string{"2024-02-29T09:00:00Z", "2026-02-28T09:00:00Z", "2028-02-29T09:00:00Z"})
}

// The spec's limit: the interval between payments cannot exceed 12 months.
func TestTwelveMonthLimit(t *testing.T) {
	for _, c := range []struct {
		p    Period
		want bool
	}{
		{Period{'M', 12}, true}, {Period{'M', 13}, false},
		{Period{'Y', 1}, true}, {Period{'Y', 2}, false},
		{Period{'W', 52}, true}, {Period{'W', 53}, false},
		{Period{'D', 365}, true}, {Period{'D', 366}, false},
		{Period{'D', 1}, true}, {Period{'M', 6}, true},
	} {
		if got := c.p.WithinTwelveMonths(); got != c.want {
			t.Errorf("%s within 12 months = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	for _, c := range []struct {
		unit, length string
		want         Period
		ok           bool
	}{
		{"M", "1", Period{'M', 1}, true}, {"w", "2", Period{'W', 2}, true}, {" Y ", "1", Period{'Y', 1}, true},
		{"Q", "1", Period{}, false}, {"M", "0", Period{}, false}, {"M", "", Period{}, false}, {"", "1", Period{}, false},
	} {
		got, err := ParsePeriod(c.unit, c.length)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParsePeriod(%q, %q) = %v, %v", c.unit, c.length, got, err)
		}
	}
}

// Due lists the cycles strictly before the cut-off, stops at a fixed
// number's total, and names the next cycle.
func TestScheduleDue(t *testing.T) {
	cutoff := at("2026-11-21T00:00:00Z")
	s := Schedule{Start: at("2026-08-20T10:00:00Z"), Period: Period{'M', 1}}
	due, next, ok, cut := s.Due(cutoff)
	if len(due) != 4 || due[3].Number != 4 || !due[3].Due.Equal(at("2026-11-20T10:00:00Z")) || cut {
		t.Fatalf("due %v (cut %v), want cycles 1-4, the 4th on 2026-11-20", due, cut)
	}
	if !ok || next.Number != 5 || !next.Due.Equal(at("2026-12-20T10:00:00Z")) {
		t.Errorf("next %v %v, want cycle 5 on 2026-12-20", next, ok)
	}
	// A cycle falling exactly on the cut-off is not due yet.
	s.Start = at("2026-08-21T00:00:00Z")
	if due, _, _, _ := s.Due(cutoff); len(due) != 3 {
		t.Errorf("a cycle at the cut-off: %d cycles due, want 3", len(due))
	}
	// A fixed number of cycles: no cycle after the total, no next one.
	s = Schedule{Start: at("2026-11-01T10:00:00Z"), Period: Period{'W', 1}, Total: 2}
	if due, _, ok, _ := s.Due(cutoff); len(due) != 2 || ok {
		t.Errorf("2 cycles in total: due %v, next %v", due, ok)
	}
	// Not started yet.
	s = Schedule{Start: at("2026-12-01T10:00:00Z"), Period: Period{'M', 1}}
	if due, next, ok, _ := s.Due(cutoff); len(due) != 0 || !ok || next.Number != 1 {
		t.Errorf("pending: due %v, next %v %v", due, next, ok)
	}
	// A bogus start decades back is bounded.
	s = Schedule{Start: at("1990-01-01T00:00:00Z"), Period: Period{'D', 1}}
	if due, _, _, cut := s.Due(cutoff); len(due) != MaxProjectedCycles || !cut {
		t.Errorf("daily since 1990: %d cycles (cut %v), want %d and cut", len(due), cut, MaxProjectedCycles)
	}
}

// The documented retry schedule: daily once an hour later, weekly 3 times
// a day apart, monthly 5 times 2 days apart, yearly 3 times 15 days apart.
func TestRetrySchedule(t *testing.T) {
	for _, c := range []struct {
		unit     string
		limit    int
		interval time.Duration
	}{
		{"D", 1, time.Hour}, {"W", 3, 24 * time.Hour}, {"M", 5, 48 * time.Hour}, {"Y", 3, 15 * 24 * time.Hour},
		{"m", 5, 48 * time.Hour}, {"?", MaxRetries, time.Hour},
	} {
		if got := RetryLimit(c.unit); got != c.limit {
			t.Errorf("RetryLimit(%q) = %d, want %d", c.unit, got, c.limit)
		}
		if got := RetryInterval(c.unit); got != c.interval {
			t.Errorf("RetryInterval(%q) = %v, want %v", c.unit, got, c.interval)
		}
		if got := RetryTolerance(c.unit); got != c.interval/10 {
			t.Errorf("RetryTolerance(%q) = %v", c.unit, got)
		}
	}
}

// MRR: an amount per period normalised to a month.
func TestMonthlyAmount(t *testing.T) {
	for _, c := range []struct {
		p      Period
		amount int64 // thousandths
		exp    int   // the currency's decimals
		want   int64
	}{
		{Period{'M', 1}, 12340, 2, 12340},
		{Period{'M', 3}, 30000, 2, 10000},
		{Period{'M', 3}, 10000, 2, 3330},     // 3.333… → 3.33
		{Period{'M', 6}, 10000, 2, 1670},     // 1.666… → 1.67
		{Period{'Y', 1}, 120000, 2, 10000},   // a twelfth
		{Period{'Y', 2}, 120000, 2, 5000},    // a twenty-fourth
		{Period{'W', 1}, 12000, 2, 52000},    // × 52 / 12
		{Period{'W', 2}, 12000, 2, 26000},    // × 52 / 24
		{Period{'D', 1}, 1000, 2, 30440},     // × 30.4375 = 30.4375 → 30.44
		{Period{'D', 7}, 7000, 2, 30440},     // × 30.4375 / 7
		{Period{'D', 30}, 30000, 2, 30440},   // × 30.4375 / 30
		{Period{'M', 1}, -12340, 2, -12340},  // a credit stays a credit
		{Period{'M', 3}, 10000, 3, 3333},     // KWD 10.000 / 3 → 3.333
		{Period{'D', 1}, 1000, 3, 30438},     // KWD 30.4375 → 30.438
		{Period{'M', 3}, 1000000, 0, 333000}, // JPY 1000 / 3 → 333
		{Period{'M', 6}, 1000000, 0, 167000}, // JPY 166.67 → 167
	} {
		if got := c.p.MonthlyAmount(c.amount, c.exp); got != c.want {
			t.Errorf("%s: MonthlyAmount(%d, %d) = %d, want %d", c.p, c.amount, c.exp, got, c.want)
		}
	}
}
