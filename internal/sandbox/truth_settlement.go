package sandbox

import (
	"sort"
	"time"
)

// Finding kinds of settlement and funding (docs/sandbox.md, Settlement),
// computed here from the settlements and fundings the reporting endpoints
// serve, by the definitions in the leading comments of
// queries/findings/<kind>.sql, at reconcile's default --settlement-days.
const (
	KindCaptureNotSettled        = "capture_not_settled"
	KindSettlementWithoutCapture = "settlement_without_capture"
	KindSettledAmountMismatch    = "settled_amount_mismatch"
	KindFundingTieoutMismatch    = "funding_tieout_mismatch"
)

func settlementKinds() []string {
	return []string{KindCaptureNotSettled, KindSettlementWithoutCapture, KindSettledAmountMismatch, KindFundingTieoutMismatch}
}

// settlementFindings adds member m's settlement findings: a purchase not
// settled more than DefaultSettlementDays business days after its day at
// the window's last day, read over the reporting span (ReportingLookbackDays
// before the window); a settlement requested in the window with no
// transaction behind it; one whose amount or currency differs from its
// transaction's.
func settlementFindings(m *member, asOf, w0, w1 time.Time, add func(kind, entity string, amount int64, currency string)) {
	bd := w1.AddDate(0, 0, -1)
	from := w0.AddDate(0, 0, -ReportingLookbackDays)
	// A settlement with no transaction behind it is judged only for a
	// member with a transaction in the window: with none, the search read
	// nothing to judge it by (as the check says).
	searched := false
	for _, t := range m.txns {
		if !t.time.Before(w0) && t.time.Before(w1) && !t.time.After(asOf) {
			searched = true
			break
		}
	}
	for _, s := range settlements(m, asOf, w0, w1) {
		if s.pending && !s.refund && !s.requestTime.Before(from) && s.requestTime.Before(w1) &&
			BusinessDaysBetween(s.requestTime, bd) > DefaultSettlementDays {
			add(KindCaptureNotSettled, s.requestID, s.amount, s.currency)
		}
		if s.pending || s.requestTime.Before(w0) || !s.requestTime.Before(w1) {
			continue
		}
		switch {
		case s.txn == nil && searched:
			add(KindSettlementWithoutCapture, s.requestID, s.amount, s.currency)
		case s.txn == nil:
		case s.amount != s.txn.amount || s.currency != s.txn.currency:
			add(KindSettledAmountMismatch, s.requestID, s.amount, s.currency)
		}
	}
}

// FundingEntity is the entity id of a funding tie-out: group, day and
// currency.
func FundingEntity(groupID string, day time.Time, currency string) string {
	return groupID + "/" + day.Format(time.DateOnly) + "/" + currency
}

// fundingFindings lists the funding tie-outs that fail, per group (as
// generated), funding day in night's window [w0, w1) and currency: funded differs from
// purchases - refunds - fees - chargebacks. The finding is filed under the
// group's first member (by ID) and its amount is the difference.
func (s *Server) fundingFindings(night, w0, w1 time.Time) []Finding {
	type key struct {
		day time.Time
		cur string
	}
	perMember := make([][]funding, s.cfg.Scale.Members)
	_ = s.forEachMember(func(i int) error {
		s.withMemberOn(i, night, func(m *member) { perMember[i] = fundings(m, nightClock(night), w0, w1, w0, w1) })
		return nil
	})
	var out []Finding
	for _, g := range s.initial {
		if len(g.Members) == 0 {
			continue
		}
		type sums struct{ purchases, refunds, fees, chargebacks, funded int64 }
		by := map[key]*sums{}
		first := g.Members[0]
		for _, mid := range g.Members {
			if mid < first {
				first = mid
			}
			idx, ok := s.memberIndex(mid)
			if !ok {
				continue
			}
			for _, f := range perMember[idx] {
				k := key{f.day, f.currency}
				if by[k] == nil {
					by[k] = &sums{}
				}
				t := by[k]
				t.purchases += f.purchases
				t.refunds += f.refunds
				t.fees += f.fees
				t.chargebacks += f.chargebacks
				t.funded += f.funded
			}
		}
		for k, t := range by {
			if d := t.funded - (t.purchases - t.refunds - t.fees - t.chargebacks); d != 0 {
				out = append(out, Finding{MerchantID: first, EntityID: FundingEntity(g.ID, k.day, k.cur), Amount: moneyIn(d, k.cur), Currency: k.cur})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].MerchantID != out[j].MerchantID {
			return out[i].MerchantID < out[j].MerchantID
		}
		return out[i].EntityID < out[j].EntityID
	})
	return out
}
