package sandbox

import (
	"fmt"
	"sort"
	"time"
)

// Settlement and funding (docs/sandbox.md, Settlement): the platform
// settles what was captured in a nightly batch at 00:00 UTC (settled,
// apistate.go), charges fees per card type and interchange level, and the
// bank funds each member per day and currency a few business days after
// the batch. Everything here is a function of the member's transactions
// and of the member's index, so the reporting endpoints
// (reporting_routes.go) and the ground truth (truth_settlement.go) see the
// same settlements, whatever the cache holds.
//
// Planted, by member index (the positions are among the member's
// settleable purchases inside the ground truth window, oldest first):
//
//   - index%3 == 0: the newest purchase of the days before the window that
//     is more than the default 3 business days old at the cut-off is never
//     settled (a finding), and neither is the newest purchase inside the
//     window (still within its days: expected, not a finding); the
//     purchase and refund details list both as Pending;
//   - index%3 == 1: the oldest purchase settles 1.00 more than was captured
//     (settled_amount_mismatch); the second is funded in another currency
//     for the same settled amount (a near-miss);
//   - index%3 == 2: a settlement whose request id no transaction has
//     (settlement_without_capture);
//   - index%4 == 1: the first funding day inside the window with money is
//     funded 1.00 short of purchases - refunds - fees - chargebacks
//     (funding_tieout_mismatch of each group the member belongs to);
//   - index%4 == 3: the first funding day inside the window carries a
//     chargeback of 5.00, netted correctly (a day that ties out).

// DefaultSettlementDays is reconcile's default --settlement-days, which
// the ground truth is written for: a capture is expected to settle within
// this many business days.
const DefaultSettlementDays = 3

// ReportingLookbackDays is how many days before the window reconcile reads
// the purchase and refund details, so that a capture older than the window
// that is still not settled is seen (ingest/settlement.go).
const ReportingLookbackDays = 14

// fundingDelay is the bank's delay: a batch is funded this many business
// days after its day.
const fundingDelay = 2

// Planted amounts, in minor units.
const (
	settledOverBy     = 100 // settled_amount_mismatch
	fundedShortBy     = 100 // funding_tieout_mismatch
	plantedChargeback = 500 // a chargeback netted correctly
	phantomAmount     = 2500
	phantomSeq        = 990001 // resource sequence number of the phantom settlement's id
)

// settlement is one request id's settlement as the purchase and refund
// details show it.
type settlement struct {
	requestID string
	txn       *transaction // nil for a settlement with no transaction behind it, and in the reporting memo
	// of is what the purchase and refund details show of txn, copied so
	// that the reporting memo (reporting_memo.go) holds none of the
	// member's transactions.
	of          settledTxn
	requestTime time.Time
	refund      bool
	pending     bool  // not settled: no batch, fees or funding
	amount      int64 // settled, in minor units of currency
	currency    string
	batchTime   time.Time
	batchID     string
	cardType    string // the platform's three-digit code
	level       string // interchange level the fee was charged at: "LEVEL3" or "STANDARD"
	// Fees in minor units of currency.
	interchange, discount, dues, totalFee int64
	interchangeBP                         int64 // interchange percentage in basis points
	fundingAmount                         int64
	fundingCurrency                       string
	fundingDay                            time.Time
}

// settledTxn is what the purchase and refund details show of the
// transaction behind a settlement (ok false when there is none).
type settledTxn struct {
	ok                                            bool
	amount                                        int64 // authorized, in minor units
	code, reference, rootID, approvalCode, suffix string
}

// weekend reports whether day d is a Saturday or Sunday.
func weekend(d time.Time) bool {
	wd := d.Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

// addBusinessDays is the n-th business day after day d.
func addBusinessDays(d time.Time, n int) time.Time {
	d = utcDay(d)
	for n > 0 {
		d = d.AddDate(0, 0, 1)
		if !weekend(d) {
			n--
		}
	}
	return d
}

// BusinessDaysBetween counts the business days after day a up to and
// including day b: a capture of Tuesday is 3 business days old on Friday.
func BusinessDaysBetween(a, b time.Time) int {
	n := 0
	for d := utcDay(a).AddDate(0, 0, 1); !d.After(utcDay(b)); d = d.AddDate(0, 0, 1) {
		if !weekend(d) {
			n++
		}
	}
	return n
}

// settlesAsPurchase reports whether t is captured money that settles: a
// capture, an approved sale, a paid recurring payment (the transactions
// whose applications include ics_bill), not voided or reversed.
func settlesAsPurchase(t *transaction) bool {
	if t.voided || t.reversed {
		return false
	}
	switch t.kind {
	case kindSubPaid, kindCapture:
		return true
	case kindSale:
		return t.api == nil || t.api.decline == ""
	}
	return false
}

// settlesAsRefund reports whether t is a credit or refund that settles.
func settlesAsRefund(t *transaction) bool {
	return !t.voided && (t.kind == kindCredit || t.kind == kindRefund)
}

// feeSchedule is the fee of one card type: interchange percentage (basis
// points, standard and Level III) and per item (minor units).
type feeSchedule struct {
	subtype              string // paymentSubtype: VI, MC, AX, DI
	standardBP, level3BP int64
	perItem              int64
}

var feeSchedules = map[string]feeSchedule{
	"001": {"VI", 180, 150, 10},
	"002": {"MC", 190, 155, 10},
	"003": {"AX", 250, 250, 15},
	"004": {"DI", 170, 170, 10},
}

// Fees every card pays on top of interchange, in basis points.
const (
	discountBP = 25
	duesBP     = 13
)

func feesOf(cardType string) feeSchedule {
	if f, ok := feeSchedules[cardType]; ok {
		return f
	}
	return feeSchedule{"VI", 180, 150, 10}
}

// bp is amount × basis points / 10,000, rounded half up.
func bp(amount, points int64) int64 { return (amount*points + 5000) / 10000 }

// level3Settled reports whether t settles at the Level III rate: a
// commercial card whose request carried Level III data.
func level3Settled(t *transaction) bool {
	return t.card != nil && t.card.entry().commercial() && t.api != nil && t.api.level3
}

// batchID is the platform's batch id of a member's batch of day d.
func batchID(memberIdx int, d time.Time) string {
	return fmt.Sprintf("%05d%s", (memberIdx+1)%100000, d.Format("060102"))
}

// settlementPlan is what a member's planting decided, by request id.
type settlementPlan struct {
	held         map[string]bool
	overBy       map[string]int64
	otherFunding map[string]bool
	phantom      *settlement
}

// planSettlements makes member m's planting decisions over the window
// [w0, w1).
func planSettlements(m *member, w0, w1 time.Time) settlementPlan {
	p := settlementPlan{held: map[string]bool{}, overBy: map[string]int64{}, otherFunding: map[string]bool{}}
	var in []*transaction
	for _, t := range m.txns {
		if settlesAsPurchase(t) && !t.time.Before(w0) && t.time.Before(w1) {
			in = append(in, t)
		}
	}
	switch m.index % 3 {
	case 0:
		if len(in) > 0 {
			p.held[in[len(in)-1].id] = true
		}
		bd := w1.AddDate(0, 0, -1)
		for i := len(m.txns) - 1; i >= 0; i-- {
			t := m.txns[i]
			if settlesAsPurchase(t) && t.time.Before(w0) && !t.time.Before(w0.AddDate(0, 0, -ReportingLookbackDays)) &&
				BusinessDaysBetween(t.time, bd) > DefaultSettlementDays {
				p.held[t.id] = true
				break
			}
		}
	case 1:
		if len(in) >= 2 {
			p.overBy[in[0].id] = settledOverBy
			p.otherFunding[in[1].id] = true
		}
	case 2:
		at := w0.Add(10*time.Hour + time.Duration(m.index%60)*time.Minute)
		cur := "USD"
		if len(in) > 0 {
			cur = in[0].currency
		}
		p.phantom = &settlement{requestID: resourceID(at, m.index, phantomSeq), requestTime: at, amount: phantomAmount,
			currency: cur, cardType: "001"}
	}
	return p
}

// settlements lists member m's settlements batched by now, in request
// time order; w0, w1 is the ground truth window the planting is placed in.
func settlements(m *member, now, w0, w1 time.Time) []settlement {
	p := planSettlements(m, w0, w1)
	var out []settlement
	for _, t := range m.txns {
		purchase, refund := settlesAsPurchase(t), settlesAsRefund(t)
		if !purchase && !refund {
			continue
		}
		s := settlement{requestID: t.id, txn: t, requestTime: t.time, refund: refund, amount: t.amount + p.overBy[t.id],
			currency: t.currency, cardType: "001", pending: p.held[t.id]}
		s.of = settledTxn{ok: true, amount: t.amount, code: t.code, reference: t.reconciliationID, rootID: t.rootID,
			approvalCode: t.approvalCode}
		if t.card != nil {
			s.cardType = t.card.cardType()
			s.of.suffix = t.card.suffix()
		}
		if purchase && level3Settled(t) {
			s.level = "LEVEL3"
		}
		out = append(out, s)
	}
	if p.phantom != nil {
		out = append(out, *p.phantom)
	}
	kept := out[:0]
	for _, s := range out {
		if s.requestTime.After(now) {
			continue
		}
		s.batchTime = utcDay(s.requestTime).AddDate(0, 0, 1)
		if s.pending || s.batchTime.After(now) {
			s.pending, s.batchTime, s.level = true, time.Time{}, "STANDARD"
			s.fundingCurrency = s.currency
			kept = append(kept, s)
			continue
		}
		s.batchID = batchID(m.index, s.batchTime)
		if s.level == "" {
			s.level = "STANDARD"
		}
		s.price()
		s.fundingDay = addBusinessDays(s.batchTime, fundingDelay)
		s.fundingCurrency = s.currency
		if p.otherFunding[s.requestID] {
			s.fundingCurrency = otherCurrency(s.currency)
		}
		kept = append(kept, s)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if !kept[i].requestTime.Equal(kept[j].requestTime) {
			return kept[i].requestTime.Before(kept[j].requestTime)
		}
		return kept[i].requestID < kept[j].requestID
	})
	return kept
}

// price fills the fees and the funding amount: a purchase pays
// interchange (per card type and level), discount and dues; a refund
// pays none and is funded negative.
func (s *settlement) price() {
	f := feesOf(s.cardType)
	if s.refund {
		s.fundingAmount = -s.amount
		return
	}
	s.interchangeBP = f.standardBP
	if s.level == "LEVEL3" {
		s.interchangeBP = f.level3BP
	}
	s.interchange = bp(s.amount, s.interchangeBP) + f.perItem
	s.discount = bp(s.amount, discountBP)
	s.dues = bp(s.amount, duesBP)
	s.totalFee = s.interchange + s.discount + s.dues
	s.fundingAmount = s.amount - s.totalFee
}

// otherCurrency is the currency a planted near-miss is funded in.
func otherCurrency(c string) string {
	if c == "EUR" {
		return "USD"
	}
	return "EUR"
}

// funding is one member's funding of a day in a currency (minor units).
type funding struct {
	day                                     time.Time
	currency                                string
	purchases, refunds, fees, chargebacks   int64
	funded                                  int64
	purchaseCount, refundCount, fundedCount int
	bySubtype                               map[string]int64 // funded purchases by paymentSubtype
}

// fundings is member m's funding per day and currency for the days in
// [from, to) whose funding day has come by now, sorted by day, currency.
func fundings(m *member, now, w0, w1, from, to time.Time) []funding {
	return fundingsOf(settlements(m, now, w0, w1), m.index, now, w0, w1, from, to)
}

// fundingsOf is fundings from member index's settlements all (as
// settlements lists them: those requested more than memoLag before
// from and before w0 may be left out, as they are funded before both).
func fundingsOf(all []settlement, index int, now, w0, w1, from, to time.Time) []funding {
	type key struct {
		day time.Time
		cur string
	}
	by := map[key]*funding{}
	get := func(d time.Time, cur string) *funding {
		k := key{d, cur}
		if f := by[k]; f != nil {
			return f
		}
		f := &funding{day: d, currency: cur, bySubtype: map[string]int64{}}
		by[k] = f
		return f
	}
	// The planted day: the first funding day inside the window that has
	// come, whatever range was asked for.
	var planted time.Time
	for _, s := range all {
		if s.pending {
			continue
		}
		d := s.fundingDay
		if !d.Before(w0) && d.Before(w1) && !d.After(now) && (planted.IsZero() || d.Before(planted)) {
			planted = d
		}
	}
	var shortDay, chargebackDay time.Time
	switch index % 4 {
	case 1:
		shortDay = planted
	case 3:
		chargebackDay = planted
	}
	for _, s := range all {
		if s.pending || s.fundingDay.Before(from) || !s.fundingDay.Before(to) || s.fundingDay.After(now) {
			continue
		}
		f := get(s.fundingDay, s.currency)
		if s.refund {
			f.refunds += s.amount
			f.refundCount++
		} else {
			f.purchases += s.amount
			f.fees += s.totalFee
			f.purchaseCount++
			f.bySubtype[feesOf(s.cardType).subtype] += s.amount
		}
		f.fundedCount++
	}
	var out []funding
	for _, f := range by {
		if !chargebackDay.IsZero() && f.day.Equal(chargebackDay) {
			f.chargebacks = plantedChargeback
		}
		f.funded = f.purchases - f.refunds - f.fees - f.chargebacks
		if !shortDay.IsZero() && f.day.Equal(shortDay) {
			f.funded -= fundedShortBy
		}
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].day.Equal(out[j].day) {
			return out[i].day.Before(out[j].day)
		}
		return out[i].currency < out[j].currency
	})
	return out
}
