package sandbox

import "time"

// Finding kinds of the Reporting API's interchange clearing levels and
// chargebacks (disputes.go).
const (
	KindClearedBelowSentLevel   = "cleared_below_sent_level"
	KindSubscriptionChargeback  = "subscription_chargeback"
	KindChargebackShareExceeded = "chargeback_share_exceeded"
)

// DefaultChargebackShare is reconcile's default --chargeback-share: the
// Visa Dispute Monitoring Program's standard ratio, 0.9% of the month's
// sales (docs/platform.md). The ground truth applies it.
const DefaultChargebackShare = 0.009

func disputeKinds() []string {
	return []string{KindClearedBelowSentLevel, KindSubscriptionChargeback, KindChargebackShareExceeded}
}

// disputeFindings applies the kinds' definitions to one member's reports
// over the window [w0, w1):
//
//   - cleared_below_sent_level: a clearing record of a transaction in the
//     window that cleared at a lower level than its merchant priced level;
//     entity the request id, amount the transaction's;
//   - subscription_chargeback: a chargeback in the window on a
//     subscription payment's transaction; entity the request id, amount
//     the chargeback's;
//   - chargeback_share_exceeded: the member's chargebacks in the window
//     are at least DefaultChargebackShare of its settled captures and
//     sales in the window (a transaction with a successful ics_bill);
//     entity the member, amount the chargebacks' sum when they are in one
//     currency.
//
// A member that may not read reports (withoutReporting) has none.
func disputeFindings(m *member, business, w0, w1 time.Time, members int, add func(kind, entity string, amount int64, currency string)) {
	if withoutReporting(m.index, members) {
		return
	}
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	for _, c := range clearingsOf(m) {
		if in(c.txn.time) && levelRank(c.cleared) < levelRank(c.priced) {
			add(KindClearedBelowSentLevel, c.txn.id, c.txn.amount, c.txn.currency)
		}
	}
	var count int
	var sum int64
	currencies := map[string]bool{}
	for _, d := range disputesOf(m, business) {
		if d.retrieval || !in(d.time) {
			continue
		}
		count++
		sum += d.amount
		currencies[d.currency] = true
		if d.txn.kind == kindSubPaid && d.txn.pay != nil {
			add(KindSubscriptionChargeback, d.txn.id, d.amount, d.currency)
		}
	}
	if count == 0 {
		return
	}
	captures := 0
	for _, t := range m.txns {
		if in(t.time) && t.settledCapture() {
			captures++
		}
	}
	if float64(count) < DefaultChargebackShare*float64(captures) {
		return
	}
	if len(currencies) == 1 {
		for cur := range currencies {
			add(KindChargebackShareExceeded, m.id, sum, cur)
		}
		return
	}
	add(KindChargebackShareExceeded, m.id, 0, "")
}
