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
// their terms, one applied to new ones (applyTo NEW) reaches a subscription
// only when one is created. So the list is pulled when:
//   - it was never pulled, or was pulled longer than maxAge ago (maxAge
//     <= 0: every night), which bounds how long an amendment that reached
//     no subscription yet goes unseen;
//   - a subscription names a plan that is not stored;
//   - a subscription is new (prev, by subscription ID, has no pulled
//     record of it) or its terms differ from the stored record's.
//
// A subscription's record changes on most nights (its cycle count moves
// with every payment, its status with a decline): those changes say
// nothing of its plan, and at scale medium they pulled 49 of 50 members'
// plans a night, so only the terms are compared.
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
		if sameJSON(p.Raw, s.Raw) {
			continue
		}
		was, err := platform.DecodeSubscription(p.Raw)
		if err != nil || planTerms(was) != planTerms(s) {
			return "a subscription's terms changed"
		}
	}
	return ""
}

// terms is what a plan amendment can change on a subscription's record.
type terms struct {
	planID, planCode, amount, setupFee, currency, length, unit, total string
}

func planTerms(s platform.Subscription) terms {
	return terms{s.PlanID, s.PlanCode, s.BillingAmount, s.SetupFee, s.Currency, s.PeriodLength, s.PeriodUnit, s.CyclesTotal}
}
