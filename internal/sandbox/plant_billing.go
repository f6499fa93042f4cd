package sandbox

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// The anomalies of recurring billing that the billing reconciliation
// (docs/billing.md) reports, planted on the generated data after the
// subscriptions are drawn and before identifiers are assigned, from
// streams of their own: every draw of gen.go is the same with or without
// them (identifiers, assigned in order by finish, shift where a payment or
// a plan is added or removed).
//
// What is planted, per member other than the first (whose plantings are
// forced, forceBilling):
//
//   - a missed cycle: the PAID payment of one past cycle is gone from the
//     list (the platform never billed it), on ~2% of the subscriptions
//     that have two PAID cycles or more, never on a period of 6 months or
//     more (a gap would then exceed 12 months);
//   - a double charge: a second PAID payment for the same cycle, minutes
//     after the first, with its own transaction, on ~1.5% of the PAID
//     payments of the planting range;
//   - a price off the plan: a PAID payment whose billingAmount is 5-20%
//     above its subscription's and plan's, on ~1.5% of the same payments
//     (its transaction carries the amount billed, so no amount_mismatch
//     follows);
//   - a retry schedule breach on ~30% of the subscriptions with retries: a
//     retry moved off the documented interval (monthly a day early, yearly
//     a week early, daily half an hour early), or on a SUSPENDED
//     subscription whose retries ran out, one retry more than allowed;
//   - a legacy plan, on ~20% of the members: a plan whose period exceeds
//     12 months (created before the limit existed; the create endpoint
//     rejects one now), with one or two subscriptions on it;
//   - the merchant's billing journal (billingJournal) leaves out ~3% of
//     the payment notifications of the planting range, and journals ~2%
//     with another amount (one in four: another currency) and ~1% as the
//     opposite event.
//
// Retries exhausted need no planting: every SUSPENDED subscription that
// did not end on a do-not-retry decline has them.
const (
	rateMissedCycle   = 0.02  // of subscriptions with two PAID cycles or more
	rateDoubleCharge  = 0.015 // of PAID payments in the planting range
	ratePlanAmount    = 0.015 // of PAID payments in the planting range
	rateRetryBreach   = 0.30  // of subscriptions with retries
	rateLegacyPlan    = 0.20  // of members
	rateNoticeMissing = 0.03  // of processed payments in the planting range
	rateNoticeAmount  = 0.02  // of the same
	rateNoticeStatus  = 0.01  // of the same
)

// Stream purposes of the billing plantings, apart from gen.go's list.
const (
	streamBilling uint64 = 64 + iota
	streamBillingJournal
)

// plantBilling plants the billing anomalies of member m (see above).
func (g *generator) plantBilling(m *member) {
	if m.index == 0 {
		// Member 1's subscriptions carry the forced anomalies of
		// forceSubs: random plantings could undo them. Its billing
		// anomalies are forced instead.
		g.forceBilling(m)
		return
	}
	r := g.stream(m.index, streamBilling, 0)
	if r.Float64() < rateLegacyPlan {
		lp := g.legacyPlan(r, m, legacyPeriods[r.IntN(len(legacyPeriods))], r.IntN(2) == 0)
		n := min(1+r.IntN(2), len(m.subs))
		for _, j := range r.Perm(len(m.subs))[:n] {
			m.subs[j] = g.subscription(g.stream(m.index, streamBilling, 1<<32|uint64(j)), j, lp, subOpts{status: subActive})
			m.subs[j].plantedAs = KindIntervalExceeds12Months
		}
	}
	for j, s := range m.subs {
		g.plantSub(g.stream(m.index, streamBilling, 1+uint64(j)), s)
	}
}

// legacyPeriod is the billing period of a legacy plan.
type legacyPeriod struct {
	unit   byte
	length int
}

// legacyPeriods are the periods of legacy plans: each exceeds 12 months.
var legacyPeriods = []legacyPeriod{{'M', 13}, {'M', 18}, {'M', 24}, {'Y', 2}, {'W', 60}, {'D', 400}}

// legacyPlan adds to m a plan created years ago with a period over 12
// months, which the create and amend endpoints would now refuse. Its code
// continues the member's PLN- sequence, so GET plans/code is unchanged in
// kind.
func (g *generator) legacyPlan(r *rand.Rand, m *member, period legacyPeriod, fixed bool) *plan {
	p := &plan{code: fmt.Sprintf("PLN-%03d", len(m.plans)+1), codeGiven: true, status: planActive,
		planTerms: planTerms{unit: period.unit, length: period.length, amount: int64(5000 + r.IntN(95001)), currency: "USD"}}
	if fixed {
		p.total = 2 + r.IntN(4)
	}
	p.name = "Legacy " + periodName(p.unit, p.length)
	p.description = "Legacy plan from before the 12-month limit, billed " + periodName(p.unit, p.length)
	p.created = g.business.AddDate(-(3 + r.IntN(3)), 0, -r.IntN(300)).Add(timeOfDay(r))
	m.plans = append(m.plans, p)
	return p
}

// plantSub plants a subscription's random billing anomalies. Every draw is
// made whatever the subscription is, in a fixed order, so the plantings of
// one subscription never depend on another's.
func (g *generator) plantSub(r *rand.Rand, s *subscription) {
	uMissed, pick := r.Float64(), r.IntN(1<<30)
	uBreach, variant := r.Float64(), r.IntN(2)
	if uMissed < rateMissedCycle {
		g.removePaidCycle(s, pick)
	}
	var inRange []*payment
	for _, pm := range s.payments {
		if pm.status == payPaid && !pm.date.Before(g.plantStart) && pm.date.Before(g.plantEnd) {
			inRange = append(inRange, pm)
		}
	}
	for _, pm := range inRange {
		u, minutes, pct := r.Float64(), 1+r.IntN(59), int64(5+r.IntN(16))
		switch {
		case u < rateDoubleCharge:
			duplicatePayment(s, pm, time.Duration(minutes)*time.Minute)
		case u < rateDoubleCharge+ratePlanAmount:
			pm.amount += pm.amount * pct / 100
			pm.plantedAs = KindPlanAmountMismatch
		}
	}
	if uBreach < rateRetryBreach {
		g.breachRetries(s, variant == 0)
	}
	renumber(s)
}

// removePaidCycle removes one PAID payment of a past cycle, when the
// subscription bills on a schedule the reconciliation projects (ACTIVE,
// DELINQUENT, COMPLETED), has two PAID cycles or more and a period under 6
// months. pick chooses which.
func (g *generator) removePaidCycle(s *subscription, pick int) bool {
	switch s.status {
	case subActive, subDelinquent, subCompleted:
	default:
		return false
	}
	if s.terms.unit == 'Y' || (s.terms.unit == 'M' && s.terms.length >= 6) {
		return false
	}
	var paid []int
	for i, pm := range s.payments {
		if pm.status == payPaid && pm.ptype == payStandard {
			paid = append(paid, i)
		}
	}
	if len(paid) < 2 {
		return false
	}
	i := paid[pick%len(paid)]
	s.missedCycles = append(s.missedCycles, s.payments[i].cycle)
	s.payments = append(s.payments[:i:i], s.payments[i+1:]...)
	return true
}

// duplicatePayment bills pm's cycle a second time, after d, and marks the
// second payment as the double_charge it plants (planted.go).
func duplicatePayment(s *subscription, pm *payment, d time.Duration) *payment {
	dup := pm.again(payPaid, payStandard, pm.date.Add(d))
	dup.plantedAs = KindDoubleCharge
	s.insertAfter(pm, dup)
	return dup
}

// breachRetries takes the retries of the subscription's failed cycle off
// the documented schedule: on a SUSPENDED subscription whose retries ran
// out, with extra (when the unit allows both), one retry more; otherwise
// one retry moved earlier than its interval (weekly retries, a day apart,
// cannot move by whole days, so they only get the extra retry). The time
// of day stays within 08:00-20:00.
func (g *generator) breachRetries(s *subscription, extra bool) {
	var base *payment
	var retries []*payment
	for _, pm := range s.payments {
		switch {
		case pm.ptype == payStandard && pm.status == payFailed:
			base, retries = pm, nil
		case pm.ptype == payRetry && base != nil && pm.cycle == base.cycle:
			retries = append(retries, pm)
		}
	}
	if base == nil || len(retries) == 0 {
		return
	}
	n, every := retrySchedule(s.terms.unit)
	last := retries[len(retries)-1]
	canExtra := s.status == subSuspended && len(retries) == n && s.terms.unit != 'D' && last.date.Add(every).Before(g.asOf)
	shift := map[byte]time.Duration{'D': -30 * time.Minute, 'M': -24 * time.Hour, 'Y': -7 * 24 * time.Hour}[s.terms.unit]
	switch {
	case canExtra && (extra || shift == 0):
		s.insertAfter(last, base.again(payFailed, payRetry, last.date.Add(every)))
	case shift != 0:
		rt := retries[len(retries)/2]
		rt.date = rt.date.Add(shift)
	}
}

// forceBilling makes sure member 1 carries every billing kind, the
// window-bound ones on the business day itself (inside the window whatever
// the lookback), by regenerating ACTIVE subscriptions that carry no other
// planted anomaly (the candidates forceSubs left) on plan 0, a monthly
// plan billed indefinitely, or on a legacy plan.
func (g *generator) forceBilling(m *member) {
	var candidates []int
	for j, s := range m.subs {
		clean := len(s.skipped) == 0 && (s.status == subActive || s.status == subCompleted)
		for _, pm := range s.payments {
			clean = clean && pm.anomaly == anomalyNone
		}
		if clean {
			candidates = append(candidates, j)
		}
	}
	r := g.stream(m.index, streamBilling, 0)
	day := g.business.Add(timeOfDay(r)) // a time on the business day
	latestPaid := func(s *subscription) *payment {
		var out *payment
		for _, pm := range s.payments {
			if pm.status == payPaid {
				out = pm
			}
		}
		return out
	}
	p0 := m.plans[0]
	forced := []struct {
		plan  func() *plan
		opts  subOpts
		plant func(s *subscription)
	}{
		// missed_cycle: cycle 2 of five monthly cycles never billed.
		{nil, subOpts{status: subActive, start: addMonths(day, -4)}, func(s *subscription) {
			for i, pm := range s.payments {
				if pm.cycle == 2 {
					s.missedCycles = append(s.missedCycles, 2)
					s.payments = append(s.payments[:i:i], s.payments[i+1:]...)
					return
				}
			}
		}},
		// double_charge: the cycle due on the business day billed twice.
		{nil, subOpts{status: subActive, anchorB: true}, func(s *subscription) {
			duplicatePayment(s, latestPaid(s), time.Duration(1+r.IntN(59))*time.Minute)
		}},
		// plan_amount_mismatch: the cycle due on the business day billed 10% over.
		{nil, subOpts{status: subActive, anchorB: true}, func(s *subscription) {
			pm := latestPaid(s)
			pm.amount += pm.amount / 10
			pm.plantedAs = KindPlanAmountMismatch
		}},
		// retries_exhausted: failed 10 days ago, the 5th retry failed on the
		// business day.
		{nil, subOpts{status: subSuspended, start: day.AddDate(0, 0, -10), retry: true}, func(*subscription) {}},
		// retry_schedule_breach: failed 3 days ago; its first retry came 3
		// days later (on the business day) instead of 2.
		{nil, subOpts{status: subDelinquent, start: day.AddDate(0, 0, -3)}, func(s *subscription) {
			for _, pm := range s.payments {
				if pm.ptype == payRetry {
					pm.date = pm.date.Add(24 * time.Hour)
				}
			}
		}},
		// interval_exceeds_12_months: a subscription on a legacy plan
		// billed every 18 months.
		{func() *plan { return g.legacyPlan(r, m, legacyPeriods[1], false) }, subOpts{status: subActive}, func(s *subscription) {
			s.plantedAs = KindIntervalExceeds12Months
		}},
	}
	for i, f := range forced {
		if i >= len(candidates) {
			break
		}
		j, p := candidates[i], p0
		if f.plan != nil {
			p = f.plan()
		}
		s := g.subscription(g.stream(m.index, streamBilling, 1<<40|uint64(j)), j, p, f.opts)
		f.plant(s)
		renumber(s)
		m.subs[j] = s
	}
}

// ---- What the merchant's billing journal holds (journal.go writes it) ----

// noticeFate is what a merchant's billing journal holds of one payment's
// notification.
type noticeFate struct {
	journaled   bool   // a notification line exists
	amountDelta int64  // added to billingAmount
	currency    string // instead of the payment's currency
	flipped     bool   // the opposite event (a failure for a PAID payment, a success for a FAILED one)
}

// noticeFate decides, from the payment's id alone, what the journal holds
// of pm's notification: nothing for a payment that is not PAID or FAILED
// or not in the planting range, else a line, planted missing or wrong at
// the notice rates.
func (g *generator) noticeFate(m *member, pm *payment) noticeFate {
	if (pm.status != payPaid && pm.status != payFailed) || pm.date.Before(g.plantStart) || !pm.date.Before(g.plantEnd) {
		return noticeFate{}
	}
	h := fnv.New64a()
	h.Write([]byte(pm.id))
	r := g.stream(m.index, streamBillingJournal, h.Sum64())
	u, delta, other, cur := r.Float64(), int64(1+r.IntN(500)), r.IntN(4) == 0, r.IntN(2)
	f := noticeFate{journaled: true}
	switch {
	case u < rateNoticeMissing:
		f.journaled = false
	case u < rateNoticeMissing+rateNoticeAmount:
		if other {
			f.currency = map[string][2]string{"USD": {"EUR", "GBP"}, "EUR": {"USD", "GBP"}, "GBP": {"USD", "EUR"}}[pm.currency][cur]
		} else {
			f.amountDelta = delta
		}
	case u < rateNoticeMissing+rateNoticeAmount+rateNoticeStatus:
		f.flipped = true
	}
	return f
}
