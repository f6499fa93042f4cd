package subscriptions

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// Previous is what an earlier run stored of a subscription and its payment
// list.
type Previous struct {
	Raw      []byte    // the subscription record as the platform sent it
	Status   string    // its status then
	PulledAt time.Time // when its payment list was last pulled
	// NextDue is the earliest payment date of the stored list that was
	// still SCHEDULED or SCHEDULED_SKIPPED; zero if none.
	NextDue time.Time
	// LastFailed is the date of the stored list's latest FAILED payment;
	// zero if none.
	LastFailed time.Time
}

// Terms of the incremental rule.
type Terms struct {
	WindowEnd time.Time     // the run's cut-off
	Now       time.Time     // the run's start
	MaxAge    time.Duration // a list older than this is pulled whatever else holds
}

// PullReason says why a subscription's payment list must be pulled again,
// or "" when what an earlier run stored is still what the platform would
// list. A list changes when a payment falls due (processed, declined,
// retried), when the subscription changes (status, amount, cycles: the
// record then differs), or through a skip or restore by the merchant, which
// nothing on the record shows; MaxAge bounds how long such a change can go
// unseen. So the list is pulled again when:
//   - it was never pulled, or was pulled longer than MaxAge ago;
//   - the subscription record differs from the stored one;
//   - a stored scheduled payment falls due before the run's cut-off;
//   - the subscription is DELINQUENT and its next retry (by the documented
//     retry schedule, from its latest failed payment) falls before the
//     cut-off: retries are not listed in advance;
//   - the subscription is PENDING and its start date is before the cut-off.
//
// This makes a nightly run's requests grow with the day's activity, not with
// the history of every subscription. The reason is logged per member.
func PullReason(prev *Previous, cur platform.Subscription, t Terms) string {
	switch {
	case prev == nil || prev.PulledAt.IsZero():
		return "never pulled"
	case t.MaxAge > 0 && t.Now.Sub(prev.PulledAt) > t.MaxAge:
		return "older than the maximum age"
	case prev.Status != cur.Status:
		return "status changed"
	case !sameJSON(prev.Raw, cur.Raw):
		return "record changed"
	case !prev.NextDue.IsZero() && prev.NextDue.Before(t.WindowEnd):
		return "a payment fell due"
	case cur.Status == "DELINQUENT":
		if prev.LastFailed.IsZero() || prev.LastFailed.Add(RetryInterval(cur.PeriodUnit)).Before(t.WindowEnd) {
			return "a retry fell due"
		}
	case cur.Status == "PENDING":
		start, err := time.Parse(time.RFC3339, cur.StartDate)
		if err != nil || start.Before(t.WindowEnd) {
			return "the first payment fell due"
		}
	}
	return ""
}

// RetryInterval is the time between retries of a declined subscription
// payment by billing frequency (docs/platform.md, "Billing and retry schedules"; the spec's "Retry schedule by
// billing frequency"): daily 1 hour, weekly 1 day, monthly 2 days, yearly
// 15 days. Custom frequencies are not documented; the unit's interval is
// used, and an unknown unit gets the shortest (1 hour), so that it is never
// trusted for too long.
func RetryInterval(unit string) time.Duration {
	switch unit {
	case "W", "w":
		return 24 * time.Hour
	case "M", "m":
		return 48 * time.Hour
	case "Y", "y":
		return 15 * 24 * time.Hour
	}
	return time.Hour
}

// sameJSON compares two JSON texts whatever their whitespace: the database
// keeps records compacted.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
