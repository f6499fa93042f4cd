package platform

import (
	"testing"
	"time"
)

// TestLatencyQuantile: the p95 of the attempts' durations is never under
// the true value and at most one bucket (9 %) over it, from 1 ms to minutes.
func TestLatencyQuantile(t *testing.T) {
	for _, unit := range []time.Duration{time.Millisecond, 37 * time.Millisecond, 3 * time.Second, 2 * time.Minute} {
		var l Latencies
		for i := 1; i <= 1000; i++ { // 1..1000 units: the p95 is the 950th
			l.add(time.Duration(i) * unit)
		}
		want := 950 * unit
		got := l.Quantile(0.95)
		if got < want || float64(got) > 1.0906*float64(want) {
			t.Errorf("p95 of 1..1000 × %v: %v, want %v to 9 %% above", unit, got, want)
		}
		if l.Count() != 1000 {
			t.Errorf("count %d", l.Count())
		}
	}
	var empty Latencies
	if empty.Quantile(0.95) != 0 {
		t.Error("p95 of no attempt is not 0")
	}
}

// TestFamilyOf: a request's family is its endpoint's, whatever path the
// groups were asked at.
func TestFamilyOf(t *testing.T) {
	for _, tc := range []struct {
		limit bodyLimit
		path  string
		want  Family
	}{
		{rbsPageLimit, "/rbs/v1/subscriptions/1/payments", FamilyRecurringBilling},
		{searchPageLimit, "/tss/v2/searches", FamilySearch},
		{detailLimit, "/tss/v2/transactions/1", FamilySearch},
		{binLimit, "/bin/v1/binlookup", FamilyBIN},
		{groupsPageLimit, "/custom/groups/org", FamilyGroups},
		{doLimit, "/rbs/v1/plans", FamilyRecurringBilling},
		{doLimit, "/pts/v2/payments", FamilyOther},
		{doLimit, "/reporting/v3/net-fundings", FamilyReporting},
	} {
		if got := familyOf(tc.limit, tc.path); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestFamilyArraySize: Stats counts each accounted family in an array of
// its own length; a family added to one and not the other would panic.
func TestFamilyArraySize(t *testing.T) {
	var s Stats
	if len(s.families) != len(AccountedFamilies) {
		t.Fatalf("Stats counts %d families, AccountedFamilies has %d", len(s.families), len(AccountedFamilies))
	}
}
