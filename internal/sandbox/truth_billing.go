package sandbox

import (
	"sort"
	"strconv"
	"time"
)

// Finding kinds of the billing reconciliation (docs/billing.md). Those
// the planter records (missed_cycle, double_charge, plan_amount_mismatch)
// take their truth from its marks (planted.go); the others are computed
// here from the data by the definition of their queries/findings file,
// with the sandbox's own schedule code (cycleDate, retrySchedule,
// withinAYear, addMonths): the product's projection is written apart, in
// the subscriptions package, so that the comparison means something.
const (
	KindMissedCycle             = "missed_cycle"
	KindDoubleCharge            = "double_charge"
	KindPlanAmountMismatch      = "plan_amount_mismatch"
	KindRetryScheduleBreach     = "retry_schedule_breach"
	KindRetriesExhausted        = "retries_exhausted"
	KindIntervalExceeds12Months = "interval_exceeds_12_months"
)

// billingKinds are the kinds billingFindings reports.
func billingKinds() []string {
	return []string{KindMissedCycle, KindDoubleCharge, KindPlanAmountMismatch, KindRetryScheduleBreach,
		KindRetriesExhausted, KindIntervalExceeds12Months}
}

// cycleEntity is the entity id of a finding about one cycle of a
// subscription.
func cycleEntity(sub *subscription, cycle int) string { return sub.id + ":" + strconv.Itoa(cycle) }

// byTime orders payments as the product does: by date, then payment number.
func byTime(ps []*payment) {
	sort.SliceStable(ps, func(i, j int) bool {
		if !ps[i].date.Equal(ps[j].date) {
			return ps[i].date.Before(ps[j].date)
		}
		return ps[i].number < ps[j].number
	})
}

// billingFindings applies the definitions of the billing kinds to member
// m over the window [w0, w1); w1 is also the cut-off of the schedule
// projection.
func billingFindings(m *member, w0, w1 time.Time, add func(kind, entity string, amount int64, currency string)) {
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	for _, sub := range m.subs {
		t := sub.terms
		byCycle := map[int][]*payment{}
		for _, pm := range sub.payments {
			byCycle[pm.cycle] = append(byCycle[pm.cycle], pm)
		}

		// (missed_cycle: what the planter recorded, planted.go.)

		cycles := make([]int, 0, len(byCycle))
		for c := range byCycle {
			cycles = append(cycles, c)
		}
		sort.Ints(cycles)
		for _, c := range cycles {
			list := append([]*payment{}, byCycle[c]...)
			byTime(list)
			// (double_charge: what the planter recorded, planted.go.)
			// The retries of the cycle's failed payment.
			var base *payment
			var retries, paid []*payment
			for _, pm := range list {
				if pm.status == payPaid {
					paid = append(paid, pm)
				}
				if base == nil && pm.ptype == payStandard && pm.status == payFailed {
					base = pm
				}
				if pm.ptype == payRetry && (pm.status == payPaid || pm.status == payFailed) {
					retries = append(retries, pm)
				}
			}
			if base == nil || len(retries) == 0 {
				continue
			}
			limit, every := retrySchedule(t.unit)
			tolerance := every / 10
			breach, retryInWindow := len(retries) > limit, false
			prev := base.date
			for _, rt := range retries {
				gap := rt.date.Sub(prev)
				if gap < every-tolerance || gap > every+tolerance {
					breach = true
				}
				prev = rt.date
				retryInWindow = retryInWindow || in(rt.date)
			}
			// retry_schedule_breach: retries off the schedule or too many,
			// one of them in the window.
			if breach && retryInWindow {
				add(KindRetryScheduleBreach, cycleEntity(sub, c), base.expected(), base.currency)
			}
			// retries_exhausted: as many retries as the schedule allows,
			// none paid, the last one in the window.
			if len(retries) >= limit && len(paid) == 0 && in(retries[len(retries)-1].date) {
				add(KindRetriesExhausted, cycleEntity(sub, c), base.expected(), base.currency)
			}
		}

		// (plan_amount_mismatch: what the planter recorded, planted.go.)

		// (interval_exceeds_12_months: what the planter recorded, planted.go.)
	}
}

// twelveMonthsAfter is when a payment made at t is 12 months old, as the
// schedule counts months (addMonths): the same day of the month 12 months
// on, clamped to the month's end. A payment on the last day of a month
// shorter than startDay, the day of the month its subscription started on,
// is on a day the schedule clamped and stands for startDay: a yearly
// subscription started on 29 February bills on 28 February 2023 and 29
// February 2024, 12 months apart, where addMonths(t, 12) would say 28
// February 2024.
func twelveMonthsAfter(t time.Time, startDay int) time.Time {
	if t.AddDate(0, 0, 1).Day() != 1 || startDay <= t.Day() {
		return addMonths(t, 12)
	}
	y, m, _ := t.Date()
	first := time.Date(y, m+12, 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(startDay, last)-1)
}

// Legs and classes of the three-way match (docs/billing.md).
const (
	LegTransaction = "transaction" // the platform's transaction (Transaction Search)
	LegJournal     = "journal"     // the merchant's journal of payment notifications

	ClassMissing  = "missing"  // absent, and the payment is on the window's first day: this run is the last to look
	ClassLate     = "late"     // absent, the payment later in the window: it may still come
	ClassMismatch = "mismatch" // present, with another amount, currency or outcome
)

// BillingException is one exception of the three-way match of a
// subscription payment with its transaction and the merchant's journal.
type BillingException struct {
	MerchantID string `json:"merchantId"`
	PaymentID  string `json:"paymentId"`
	Leg        string `json:"leg"`
	Class      string `json:"class"`
}

// billingMatch matches member m's PAID and FAILED payments dated in the
// window [w0, w1) with their transactions and with the notifications of
// the merchant's billing journal, and returns the exceptions.
func (g *generator) billingMatch(m *member, w0, w1 time.Time) []BillingException {
	var out []BillingException
	lastChance := w0.Add(24 * time.Hour)
	for _, sub := range m.subs {
		for _, pm := range sub.payments {
			if (pm.status != payPaid && pm.status != payFailed) || pm.date.Before(w0) || !pm.date.Before(w1) {
				continue
			}
			absent := ClassLate
			if pm.date.Before(lastChance) {
				absent = ClassMissing
			}
			add := func(leg, class string) {
				out = append(out, BillingException{MerchantID: m.id, PaymentID: pm.id, Leg: leg, Class: class})
			}
			switch t, ok := m.txnByID[pm.txnID]; {
			case !ok:
				add(LegTransaction, absent)
			case t.amount != pm.expected() || t.currency != pm.currency || (t.kind == kindSubPaid) != (pm.status == payPaid):
				add(LegTransaction, ClassMismatch)
			}
			switch f := g.noticeFate(m, pm); {
			case !f.journaled:
				add(LegJournal, absent)
			case f.amountDelta != 0 || f.currency != "" || f.flipped:
				add(LegJournal, ClassMismatch)
			}
		}
	}
	return out
}

// sortExceptions orders exceptions by merchant, payment and leg.
func sortExceptions(list []BillingException) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.MerchantID != b.MerchantID {
			return a.MerchantID < b.MerchantID
		}
		if a.PaymentID != b.PaymentID {
			return a.PaymentID < b.PaymentID
		}
		return a.Leg < b.Leg
	})
}
