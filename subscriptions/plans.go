package subscriptions

import (
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// StoredPlans is what an earlier run stored of a member's plan list.
type StoredPlans struct {
	IDs      map[string]bool // the plans stored, by plan ID
	PulledAt time.Time       // when the list was last pulled (zero: never)
}

// PlansReason says why a member's plan list must be pulled again tonight,
// or "" when the stored plans still stand for it. What the product reads of
// a plan is its terms (period, cycles, amount, setup fee, currency), which
// fill in the terms a subscription's record leaves out (the billing
// schedule), and its amount, which plan_amount_mismatch compares with a
// payment's. The platform changes a plan only when the merchant amends it:
// an amendment applied to existing subscriptions (applyTo ALL) changes
// their records, one applied to new ones (applyTo NEW) reaches a
// subscription only when one is created. So the list is pulled when:
//   - it was never pulled, or was pulled longer than maxAge ago (maxAge
//     <= 0: every night), which bounds how long an amendment that reached
//     no subscription yet goes unseen;
//   - a subscription names a plan that is not stored;
//   - a subscription is new or its record differs from the stored one
//     (prev, by subscription ID; a subscription whose payment list was
//     never pulled counts as new).
func PlansReason(stored StoredPlans, subs []platform.Subscription, prev map[string]*Previous, now time.Time, maxAge time.Duration) string {
	switch {
	case stored.PulledAt.IsZero() || len(stored.IDs) == 0:
		return "never pulled"
	case maxAge <= 0 || now.Sub(stored.PulledAt) > maxAge:
		return "older than the maximum age"
	}
	for _, s := range subs {
		if s.PlanID != "" && !stored.IDs[s.PlanID] {
			return "a subscription's plan is not stored"
		}
	}
	for _, s := range subs {
		p := prev[s.ID]
		if p == nil || p.PulledAt.IsZero() {
			return "a subscription is new"
		}
		if p.Status != s.Status || !sameJSON(p.Raw, s.Raw) {
			return "a subscription changed"
		}
	}
	return ""
}
