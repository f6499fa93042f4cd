package sandbox

import (
	"strings"
	"time"
)

// Finding kinds of the payments audit (docs/payments-audit.md), each
// computed here from the generated data by the definition in the leading
// comment of queries/findings/<kind>.sql, never from the planting
// decisions of plant_calls.go.
const (
	KindLevel3Incomplete               = "level3_incomplete"
	KindLevel2MissingPO                = "level2_missing_po"
	KindPrepaidCardOnSubscription      = "prepaid_card_on_subscription"
	KindMITWithoutPriorCIT             = "mit_without_prior_cit"
	KindMITMissingReason               = "mit_missing_reason"
	KindMITMissingPreviousTransaction  = "mit_missing_previous_transaction"
	KindRecurringIntervalOverYear      = "recurring_interval_over_year"
	KindHealthcareCardWithoutAmounts   = "healthcare_card_without_amounts"
	KindHealthcareAmountsExceedTotal   = "healthcare_amounts_exceed_total"
	KindBNPLSessionStale               = "bnpl_session_stale"
	KindBNPLAuthorizedNotCaptured      = "bnpl_authorized_not_captured"
	KindBNPLUnsupportedCountryCurrency = "bnpl_unsupported_country_currency"
	KindInstallmentNotCancelled        = "installment_not_cancelled_after_refund"
	KindInstallmentRefundsExceed       = "installment_refunds_exceed_capture"
)

// areaKinds are the kinds areaFindings and its helpers report.
func areaKinds() []string {
	return []string{KindLevel3Incomplete, KindLevel2MissingPO, KindPrepaidCardOnSubscription,
		KindMITWithoutPriorCIT, KindMITMissingReason, KindMITMissingPreviousTransaction, KindRecurringIntervalOverYear,
		KindHealthcareCardWithoutAmounts, KindHealthcareAmountsExceedTotal,
		KindBNPLSessionStale, KindBNPLAuthorizedNotCaptured, KindBNPLUnsupportedCountryCurrency,
		KindInstallmentNotCancelled, KindInstallmentRefundsExceed}
}

// status is the status of the call's answer.
func (c *call) status() string {
	x := c.x
	switch {
	case x != nil && x.decline != nil:
		return "DECLINED"
	case c.kind == callBNPLAuth:
		return x.status
	case (c.kind == callAuth || c.kind == callSale) && x != nil && x.status != "":
		return x.status
	}
	switch c.kind {
	case callAuth, callSale:
		return "AUTHORIZED"
	case callSession:
		return sessionPending
	case callReversal:
		return "REVERSED"
	case callBNPLCapture:
		return "SETTLED"
	case callAccept, callCancel:
		return "ACCEPTED"
	}
	return "PENDING"
}

// answeredNTI is the processorInformation.networkTransactionId of the
// call's answer, "" when it has none.
func (c *call) answeredNTI() string {
	switch c.kind {
	case callAuth, callSale, callCapture, callCredit, callRefund:
		return c.networkID
	}
	return ""
}

func (c *call) initiator() string {
	if c.x == nil {
		return ""
	}
	return c.x.initiator
}

// storesCredential: a CIT storing the card, answered and not declined.
func (c *call) storesCredential() bool {
	return (c.kind == callAuth || c.kind == callSale) && c.initiator() == "customer" &&
		(c.x.storedOnFile || c.x.tokenCreate) && c.succeeded()
}

func sameCard(a, b *card) bool {
	return a != nil && b != nil && a.prefix() == b.prefix() && a.suffix() == b.suffix()
}

var bnplSupported = map[string][]string{"AU": {"AUD"}, "CA": {"CAD", "CAN"}, "NZ": {"NZD"}, "GB": {"GBP"}, "US": {"USD"}}

// areaFindings applies the payments audit's definitions to one member.
func areaFindings(m *member, w0, w1 time.Time, add func(kind, entity string, amount int64, currency string)) {
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	for _, c := range m.calls {
		x := c.x
		if !in(c.time) {
			continue
		}
		switch c.kind {
		case callCapture, callSale, callCredit:
			if c.level3 && x != nil && (x.dropField != "" || x.percent) {
				add(KindLevel3Incomplete, c.respID, c.amount, c.currency)
			}
			if rec := c.card.record(); rec != nil && c.card.entry().outcome == binCompleted && c.po == "" {
				p := strings.ToLower(rec.product)
				if strings.Contains(p, "purchas") || strings.Contains(p, "procure") {
					add(KindLevel2MissingPO, c.respID, c.amount, c.currency)
				}
			}
		}
		if c.kind == callAuth || c.kind == callSale {
			if rec := c.card.record(); rec != nil && rec.health && c.card.entry().outcome == binCompleted && (x == nil || len(x.health) == 0) {
				add(KindHealthcareCardWithoutAmounts, c.respID, c.amount, c.currency)
			}
			if x != nil && len(x.health) > 0 {
				var h, d int64
				for _, a := range x.health {
					// The total: Visa's healthcare, Mastercard's
					// eligible-total; the other types are parts of it.
					if a.typ == "healthcare" || a.typ == "eligible-total" {
						h += a.amount
					} else {
						d += a.amount
					}
				}
				if max(h, d) > c.amount {
					add(KindHealthcareAmountsExceedTotal, c.respID, c.amount, c.currency)
				}
			}
			if c.initiator() == "merchant" {
				mitFindings(m, c, w1, add)
			}
		}
		switch c.kind {
		case callSession:
			if c.time.Before(w1.Add(-bnplStaleAge)) && !sessionUsedBy(m, c, w1) {
				add(KindBNPLSessionStale, c.respID, c.amount, c.currency)
			}
			if !supportedPair(x.country, c.currency) {
				add(KindBNPLUnsupportedCountryCurrency, c.respID, c.amount, c.currency)
			}
		case callBNPLAuth:
			if !supportedPair(x.country, c.currency) {
				add(KindBNPLUnsupportedCountryCurrency, c.respID, c.amount, c.currency)
			}
			if x.status == "AUTHORIZED" && !followedBy(m, c, w1, callBNPLCapture, callReversal) {
				add(KindBNPLAuthorizedNotCaptured, c.respID, c.amount, c.currency)
			}
		}
	}
	installmentFindings(m, w0, w1, add)
	prepaidFindings(m, in, add)
}

func supportedPair(country, currency string) bool {
	for _, cur := range bnplSupported[country] {
		if cur == strings.ToUpper(currency) {
			return true
		}
	}
	return false
}

// sessionUsedBy: an authorization carrying the session's token was
// answered AUTHORIZED or PENDING before the cut-off.
func sessionUsedBy(m *member, s *call, cutoff time.Time) bool {
	for _, a := range m.calls {
		if a.kind == callBNPLAuth && a.x.session == s && a.time.Before(cutoff) && (a.x.status == "AUTHORIZED" || a.x.status == "PENDING") {
			return true
		}
	}
	return false
}

// followedBy: a call of one of kinds followed c before the cut-off.
func followedBy(m *member, c *call, cutoff time.Time, kinds ...callKind) bool {
	for _, f := range m.calls {
		if f.auth == c && f.time.Before(cutoff) {
			for _, k := range kinds {
				if f.kind == k {
					return true
				}
			}
		}
	}
	return false
}

// mitFindings: the credentialed kinds of one MIT inside the window.
func mitFindings(m *member, mit *call, cutoff time.Time, add func(kind, entity string, amount int64, currency string)) {
	x := mit.x
	if x.reason == "" {
		add(KindMITMissingReason, mit.respID, mit.amount, mit.currency)
	}
	prev := x.previous()
	if prev == "" {
		add(KindMITMissingPreviousTransaction, mit.respID, mit.amount, mit.currency)
	}
	var cit, last *call
	for _, c := range m.calls {
		if !c.time.Before(mit.time) {
			continue
		}
		if c.storesCredential() && sameCard(c.card, mit.card) && (cit == nil || c.time.After(cit.time)) {
			cit = c
		}
		if ofCredential(c, mit, prev) && c.succeeded() && (last == nil || c.time.After(last.time)) {
			last = c
		}
	}
	if cit == nil {
		add(KindMITWithoutPriorCIT, mit.respID, mit.amount, mit.currency)
	}
	if strings.EqualFold(x.commerce, "recurring") && last != nil && last.time.Before(mit.time.AddDate(-1, 0, 0)) {
		add(KindRecurringIntervalOverYear, mit.respID, mit.amount, mit.currency)
	}
}

// ofCredential: c is a transaction of the credential mit uses, which names
// prev as its previousTransactionId ("" for none): the call prev names (by
// response id or network transaction id), another MIT naming prev (the
// same chain: most networks want the original CIT's id on every MIT), or a
// CIT or MIT on the same card.
func ofCredential(c, mit *call, prev string) bool {
	if prev != "" && (c.respID == prev || c.answeredNTI() == prev) {
		return true
	}
	if (c.kind != callAuth && c.kind != callSale) || c.initiator() == "" {
		return false
	}
	return prev != "" && c.initiator() == "merchant" && c.x.previous() == prev || sameCard(c.card, mit.card)
}

// succeeded: the call's answer is neither DECLINED nor FAILED (every
// journaled call of the sandbox is answered 201).
func (c *call) succeeded() bool {
	s := c.status()
	if c.kind == callAuth || c.kind == callSale {
		// Approved only: pending, risk-declined and unknown answers are
		// not (statusOutcome).
		return statusOutcome(s) == "approved"
	}
	return s != "DECLINED" && s != "FAILED"
}

// installmentFindings: the installment kinds, per selected plan, over the
// journal up to the cut-off.
func installmentFindings(m *member, w0, w1 time.Time, add func(kind, entity string, amount int64, currency string)) {
	for _, acc := range m.calls {
		if acc.kind != callAccept || !acc.time.Before(w1) {
			continue
		}
		auth := acc.auth
		var undone, cancelled bool
		var captured, refunded int64
		var lastRefund time.Time
		for _, c := range m.calls {
			if !c.time.Before(w1) {
				continue
			}
			switch {
			case c.kind == callCapture && c.auth == auth:
				captured += c.amount
			case c.kind == callReversal && c.auth == auth:
				undone = undone || c.time.After(acc.time)
			case c.kind == callRefund && c.auth != nil && c.auth.kind == callCapture && c.auth.auth == auth:
				undone = undone || c.time.After(acc.time)
				refunded += c.amount
				if c.time.After(lastRefund) {
					lastRefund = c.time
				}
			case c.kind == callCancel && c.x.accept == acc:
				if c.x.refund == 0 {
					cancelled = cancelled || c.time.After(acc.time)
					continue
				}
				refunded += c.x.refund
				if c.time.After(lastRefund) {
					lastRefund = c.time
				}
			}
		}
		if undone && !cancelled {
			add(KindInstallmentNotCancelled, acc.x.acceptID, auth.amount, auth.currency)
		}
		if refunded > captured && !lastRefund.Before(w0) && lastRefund.Before(w1) {
			add(KindInstallmentRefundsExceed, acc.x.acceptID, refunded-captured, auth.currency)
		}
	}
}

// prepaidFindings: live subscriptions charged in the window on a prepaid
// card.
func prepaidFindings(m *member, in func(time.Time) bool, add func(kind, entity string, amount int64, currency string)) {
	for _, s := range m.subs {
		if s.status == subCancelled || s.status == subCompleted {
			continue
		}
		for _, pm := range s.payments {
			t, ok := m.txnByID[pm.txnID]
			if pm.txnID == "" || !ok || !in(t.time) || t.card == nil {
				continue
			}
			if e := t.card.entry(); e.outcome == binCompleted && e.records[0].fundingSource == "PREPAID" {
				add(KindPrepaidCardOnSubscription, s.id, s.terms.amount, s.terms.currency)
				break
			}
		}
	}
}
