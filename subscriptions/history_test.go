package subscriptions

import (
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// TestEndedBefore: only a subscription whose record says it stopped
// billing, and whose last cycle and its retries fall before the history,
// is left to the backfill; whatever the record does not say keeps it.
func TestEndedBefore(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	base := platform.Subscription{Status: "CANCELLED", PeriodUnit: "M", PeriodLength: "1",
		StartDate: "2025-01-15T10:00:00Z", CyclesCurrent: "6"} // cycle 6: 2025-06-15
	for _, c := range []struct {
		name string
		edit func(*platform.Subscription)
		want bool
	}{
		{"cancelled long ago", func(*platform.Subscription) {}, true},
		{"completed long ago", func(s *platform.Subscription) { s.Status = "COMPLETED" }, true},
		{"suspended long ago", func(s *platform.Subscription) { s.Status = "SUSPENDED" }, true},
		{"active", func(s *platform.Subscription) { s.Status = "ACTIVE" }, false},
		{"delinquent", func(s *platform.Subscription) { s.Status = "DELINQUENT" }, false},
		{"last cycle's retries reach into the history", func(s *platform.Subscription) { // cycle 22 on 2026-10-22, 5 retries 2 days apart
			s.StartDate, s.CyclesCurrent = "2025-01-22T10:00:00Z", "22"
		}, false},
		{"last cycle in the history", func(s *platform.Subscription) { s.CyclesCurrent = "23" }, false}, // 2026-11-15
		{"no cycle count", func(s *platform.Subscription) { s.CyclesCurrent = "" }, false},
		{"no start date", func(s *platform.Subscription) { s.StartDate = "" }, false},
		{"unknown period", func(s *platform.Subscription) { s.PeriodUnit = "Q" }, false},
	} {
		s := base
		c.edit(&s)
		if got := EndedBefore(s, from); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseHistory(t *testing.T) {
	for in, want := range map[string]time.Duration{"400d": 400 * 24 * time.Hour, "72h": 72 * time.Hour, "0": 0} {
		if got, err := ParseHistory(in); err != nil || got != want {
			t.Errorf("ParseHistory(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1d", "x", "1y"} {
		if _, err := ParseHistory(in); err == nil {
			t.Errorf("ParseHistory(%q) accepted", in)
		}
	}
}
