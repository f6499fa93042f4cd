package subscriptions

import (
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

func TestPullReason(t *testing.T) {
	end := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	terms := Terms{WindowEnd: end, Now: end.Add(2 * time.Hour), MaxAge: 7 * 24 * time.Hour}
	raw := []byte(`{"id":"s1","subscriptionInformation":{"status":"ACTIVE"}}`)
	cur := platform.Subscription{ID: "s1", Status: "ACTIVE", Raw: raw}
	fresh := Previous{Raw: raw, Status: "ACTIVE", PulledAt: end.Add(-22 * time.Hour), NextDue: end.Add(10 * time.Hour)}

	cases := []struct {
		name string
		prev *Previous
		cur  platform.Subscription
		want bool
	}{
		{"never pulled", nil, cur, true},
		{"unchanged, nothing due before the cut-off", &fresh, cur, false},
		{"unchanged, no payment scheduled at all (completed)", with(fresh, func(p *Previous) { p.NextDue = time.Time{} }), cur, false},
		{"a scheduled payment falls due in the window", with(fresh, func(p *Previous) { p.NextDue = end.Add(-time.Hour) }), cur, true},
		{"pulled longer ago than the maximum age", with(fresh, func(p *Previous) { p.PulledAt = end.Add(-8 * 24 * time.Hour) }), cur, true},
		{"status changed", &fresh, platform.Subscription{ID: "s1", Status: "SUSPENDED", Raw: raw}, true},
		{"record changed", &fresh, platform.Subscription{ID: "s1", Status: "ACTIVE", Raw: []byte(`{"id":"s1","x":1}`)}, true},
		{"delinquent, monthly, failed 3 days ago: a retry fell due",
			with(fresh, func(p *Previous) { p.Status = "DELINQUENT"; p.LastFailed = end.Add(-72 * time.Hour) }),
			platform.Subscription{ID: "s1", Status: "DELINQUENT", PeriodUnit: "M", Raw: raw}, true},
		{"delinquent, monthly, failed an hour ago: next retry after the cut-off",
			with(fresh, func(p *Previous) { p.Status = "DELINQUENT"; p.LastFailed = end.Add(-time.Hour) }),
			platform.Subscription{ID: "s1", Status: "DELINQUENT", PeriodUnit: "M", Raw: raw}, false},
		{"delinquent with no stored failure", with(fresh, func(p *Previous) { p.Status = "DELINQUENT" }),
			platform.Subscription{ID: "s1", Status: "DELINQUENT", PeriodUnit: "M", Raw: raw}, true},
		{"pending, starts after the cut-off", with(fresh, func(p *Previous) { p.Status = "PENDING" }),
			platform.Subscription{ID: "s1", Status: "PENDING", StartDate: "2026-12-01T10:00:00Z", Raw: raw}, false},
		{"pending, started", with(fresh, func(p *Previous) { p.Status = "PENDING" }),
			platform.Subscription{ID: "s1", Status: "PENDING", StartDate: "2026-11-20T10:00:00Z", Raw: raw}, true},
	}
	for _, c := range cases {
		if got := PullReason(c.prev, c.cur, terms); (got != "") != c.want {
			t.Errorf("%s: PullReason = %q, want a reason: %v", c.name, got, c.want)
		}
	}
}

func with(p Previous, f func(*Previous)) *Previous {
	f(&p)
	return &p
}

func TestRetryInterval(t *testing.T) {
	for unit, want := range map[string]time.Duration{"D": time.Hour, "W": 24 * time.Hour, "M": 48 * time.Hour, "Y": 360 * time.Hour, "?": time.Hour} {
		if got := RetryInterval(unit); got != want {
			t.Errorf("RetryInterval(%q) = %v, want %v", unit, got, want)
		}
	}
}
