package subscriptions

import (
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// TestPlansReason: the stored plan list stands for tonight's only while it
// is young enough and every subscription is known, unchanged and names a
// stored plan.
func TestPlansReason(t *testing.T) {
	now := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	week := 7 * 24 * time.Hour
	stored := StoredPlans{IDs: map[string]bool{"p1": true}, PulledAt: now.Add(-48 * time.Hour)}
	sub := platform.Subscription{ID: "s1", PlanID: "p1", Status: "ACTIVE", Raw: []byte(`{"id":"s1","planId":"p1"}`)}
	prev := map[string]*Previous{"s1": {Raw: []byte(`{"id": "s1", "subscriptionInformation": {"planId": "p1"}, "planInformation": {"billingCycles": {"current": "3"}}}`),
		Status: "ACTIVE", PulledAt: now.Add(-24 * time.Hour)}}
	other := sub
	other.PlanID = "p2"
	changed := sub
	changed.BillingAmount = "2.00"
	changed.Raw = []byte(`{"id":"s1","subscriptionInformation":{"planId":"p1"},"orderInformation":{"amountDetails":{"billingAmount":"2.00"}}}`)
	moved := sub // its cycle count moved: its terms are the same
	moved.Raw = []byte(`{"id":"s1","subscriptionInformation":{"planId":"p1"},"planInformation":{"billingCycles":{"current":"4"}}}`)
	fresh := sub
	fresh.ID = "s2"
	for _, c := range []struct {
		name   string
		stored StoredPlans
		subs   []platform.Subscription
		maxAge time.Duration
		want   bool
	}{
		{"unchanged", stored, []platform.Subscription{sub}, week, false},
		{"never pulled", StoredPlans{}, []platform.Subscription{sub}, week, true},
		{"too old", StoredPlans{IDs: stored.IDs, PulledAt: now.Add(-week - time.Second)}, []platform.Subscription{sub}, week, true},
		{"every night", stored, []platform.Subscription{sub}, 0, true},
		{"plan not stored", stored, []platform.Subscription{other}, week, true},
		{"subscription's terms changed", stored, []platform.Subscription{changed}, week, true},
		{"subscription's cycle count moved", stored, []platform.Subscription{moved}, week, false},
		{"subscription new", stored, []platform.Subscription{sub, fresh}, week, true},
	} {
		if got := PlansReason(c.stored, c.subs, prev, now, c.maxAge); (got != "") != c.want {
			t.Errorf("%s: reason %q, want a pull: %v", c.name, got, c.want)
		}
	}
}
