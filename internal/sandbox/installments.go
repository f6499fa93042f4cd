package sandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Installments (/fin/v1; spec: installment fields, endpoints, flow, limits).
// The issuer of the sandbox offers a fixed set of plans (installmentPlans)
// on Visa credit cards for purchases of 100.00 or more; each plan expires
// at a fixed time after the business day, so that moving the data clock
// makes plans drop out: a plan expired or expiring within 24 hours of the
// clock is omitted. Answers are 201 with status ACCEPTED; an invalid
// request is 400.

// installmentProvider is the one network provider name accepted.
const installmentProvider = "VISA"

// minInstallmentAmount: smaller purchases get no plans.
const minInstallmentAmount = 10000

type installmentPlan struct {
	id, identifier, name string
	count                int
	consumerFunded       bool
	islamic              bool
	upfrontRate          int64 // basis points of the amount, paid up front
	upfrontFlat          int64 // minor units, paid up front
	monthlyRate          int64 // basis points of the amount, each installment
	expires              time.Duration
	tcVersion            string
}

// installmentPlans (offered on Visa consumer credit cards), their expiry counted from the business day's midnight:
// with the default clock (BusinessDate+1 day 02:00) the 24-month plan
// expires within 24 hours and the 9-month plan has expired, so four are
// offered; the 12-month plan drops out once the clock passes BusinessDate+1
// day 12:00.
var installmentPlans = []installmentPlan{
	{id: "SBX-IP-03M-MERCHANT", identifier: "SBXIP00003", name: "3 monthly installments", count: 3, expires: 180 * 24 * time.Hour, tcVersion: "3.0"},
	{id: "SBX-IP-06M-CONSUMER", identifier: "SBXIP00006", name: "6 monthly installments", count: 6, consumerFunded: true,
		upfrontRate: 150, upfrontFlat: 100, monthlyRate: 50, expires: 90 * 24 * time.Hour, tcVersion: "3.0"},
	{id: "SBX-IP-12M-ISLAMIC", identifier: "SBXIP00012", name: "12 monthly installments, Islamic", count: 12, consumerFunded: true,
		islamic: true, monthlyRate: 40, expires: 60 * time.Hour, tcVersion: "1.2"},
	{id: "SBX-IP-18M-MERCHANT", identifier: "SBXIP00018", name: "18 monthly installments", count: 18, expires: 30 * 24 * time.Hour, tcVersion: "2.1"},
	{id: "SBX-IP-24M-CONSUMER", identifier: "SBXIP00024", name: "24 monthly installments", count: 24, consumerFunded: true,
		monthlyRate: 60, expires: 36 * time.Hour, tcVersion: "3.0"},
	{id: "SBX-IP-09M-EXPIRED", identifier: "SBXIP00009", name: "9 monthly installments", count: 9, expires: 12 * time.Hour, tcVersion: "1.0"},
}

// offeredPlans are the plans visible at now: not expired, not expiring
// within 24 hours.
func (s *Server) offeredPlans(now time.Time) []installmentPlan {
	var out []installmentPlan
	for _, p := range installmentPlans {
		if s.cfg.BusinessDate.Add(p.expires).Sub(now) > 24*time.Hour {
			out = append(out, p)
		}
	}
	return out
}

func eligibleForInstallments(c *card, amount int64) bool {
	rec := c.record()
	return rec != nil && rec.brand == "VISA" && rec.fundingSource == "CREDIT" && rec.platform == "CONSUMER" && amount >= minInstallmentAmount
}

// details renders a plan for a purchase of amount (minor units).
func (p installmentPlan) details(amount int64, currency string) map[string]any {
	base := amount / int64(p.count)
	lastBase := amount - base*int64(p.count-1)
	var upfront, perInst int64
	if p.consumerFunded {
		upfront = p.upfrontFlat + amount*p.upfrontRate/10000
		perInst = amount * p.monthlyRate / 10000
	}
	recurring := perInst * int64(p.count)
	ad := map[string]any{
		"currency": currency, "totalFeeAmount": money(upfront + recurring), "totalUpfrontFeeAmount": money(upfront),
		"totalRecurringFeeAmount": money(recurring), "totalPlanAmount": money(amount + upfront + recurring),
		"lastInstallmentAmount": money(lastBase + perInst), "interestRate": fmt.Sprintf("%d.%02d", p.monthlyRate*12/100, p.monthlyRate*12%100),
		"firstInstallment": map[string]any{"amount": money(base), "feeAmount": money(perInst), "upfrontFeeAmount": money(upfront),
			"totalAmountExcludingUpfrontFee": money(base + perInst)},
		"lastInstallment": map[string]any{"amount": money(lastBase), "feeAmount": money(perInst)},
	}
	funded := "MERCHANT"
	if p.consumerFunded {
		// Fees exist only when the consumer funds the plan; the actual
		// percentage is ratePercentage divided by 100.
		funded = "CONSUMER"
		var fees []map[string]any
		if upfront > 0 {
			fees = append(fees, map[string]any{"type": "CONSUMER_UPFRONT", "ratePercentage": pct(p.upfrontRate), "flatFeeAmount": money(p.upfrontFlat)})
		}
		ad["fees"] = append(fees, map[string]any{"type": "CONSUMER", "monthlyRatePercentage": pct(p.monthlyRate)})
	}
	d := map[string]any{"planId": p.id, "identifier": p.identifier, "planName": p.name, "planType": "ISSUER_DEFAULT",
		"totalCount": strconv.Itoa(p.count), "frequency": "MONTHLY", "fundedBy": []string{funded}, "amountDetails": ad,
		"termsAndConditions": []map[string]any{{"tncUrl": "https://sandbox.invalid/installments/terms/" + p.id,
			"version": p.tcVersion, "languageCode": "en", "text": "Sandbox terms and conditions of " + p.name + "."}}}
	if p.islamic {
		d["isIslamicPlan"] = true
	}
	return d
}

func pct(bp int64) string { return fmt.Sprintf("%d.%02d", bp/100, bp%100) }

// installmentCard reads the card of an installments request: a full card
// number, or one stored-token identifier.
func installmentCard(c *checks, d doc, m *member) (card, bool) {
	if num := d.str("paymentInformation.card.number"); num != "" {
		if !luhnValid(num) || len(num) < 13 || len(num) > 19 {
			c.invalid("paymentInformation.card.number", "")
			return card{}, false
		}
		return cardFromPAN(num, "", 12, 2030), true
	}
	for _, tok := range []struct {
		field string
		kind  byte
	}{{"customer", tokenCustomer}, {"instrumentIdentifier", tokenInstrument}, {"paymentInstrument", tokenPaymentInstrument}} {
		if id := d.str("paymentInformation." + tok.field + ".id"); id != "" {
			if cd, ok := m.cardOfToken(tok.kind, id); ok {
				return cd, true
			}
			c.invalid("paymentInformation."+tok.field+".id", "INVALID_DATA: unknown token")
			return card{}, false
		}
	}
	c.require(d, "paymentInformation.card.number")
	return card{}, false
}

func checkProvider(c *checks, d doc) {
	c.require(d, "processingInformation.installmentServiceProvider")
	if v := d.str("processingInformation.installmentServiceProvider"); v != "" && !strings.EqualFold(v, installmentProvider) {
		c.invalid("processingInformation.installmentServiceProvider", "")
	}
}

// fieldLen is the spec's longest value of an installment field.
type fieldLen struct {
	path string
	max  int
}

// maxLens checks field lengths, in the order given (so that the details
// of an answer come in the same order every time).
func maxLens(c *checks, d doc, limits ...fieldLen) {
	for _, l := range limits {
		if len(d.str(l.path)) > l.max {
			c.invalid(l.path, fmt.Sprintf("INVALID_DATA: longer than %d", l.max))
		}
	}
}

// getInstallmentPlans answers POST /fin/v1/plans/.
func (s *Server) getInstallmentPlans(x *exchange, d doc) answer {
	m := x.member
	var c checks
	checkProvider(&c, d)
	cd, _ := installmentCard(&c, d, m)
	amount, _ := c.amountField(d, "orderInformation.amountDetails.totalAmount", true)
	currency := c.currencyField(d, "orderInformation.amountDetails.currency", true)
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	plans := []map[string]any{}
	if eligibleForInstallments(&cd, amount) {
		for _, p := range s.offeredPlans(now) {
			plans = append(plans, p.details(amount, currency))
		}
	}
	return reply(http.StatusCreated, map[string]any{"id": m.nextID(now), "submitTimeUtc": ts(now), "status": "ACCEPTED",
		"processorInformation":   map[string]any{"responseCode": "00"},
		"installmentInformation": map[string]any{"planDetails": plans}})
}

// acceptance links an authorization to the plan selected for it.
type acceptance struct {
	id, planID, tcVersion string
	auth                  *transaction
	byCode, byNTI         bool // the identifiers the select request sent
	cancelled             bool
	refunded              int64
	needsCancel           bool // the authorization was reversed or refunded: the plan must be cancelled
}

// detail is the installmentInformation of the authorization's record.
func (a *acceptance) detail() map[string]any {
	status := "ACTIVE"
	switch {
	case a.cancelled:
		status = "CANCELLED"
	case a.needsCancel:
		status = "CANCELLATION_REQUIRED"
	}
	return map[string]any{"id": a.id, "planId": a.planID, "status": status}
}

const authOpts = "processingInformation.authorizationOptions."

// paymentIdentifier checks that a request names the payment by its PAR or
// by exactly one token identifier, and that it is the authorization's.
func paymentIdentifier(c *checks, d doc, auth *transaction) {
	parID := d.str("paymentInformation.paymentAccountReference.id")
	var tokens []string
	for _, f := range []string{"tokenInformation.transientTokenJwt", "paymentInformation.customer.id",
		"paymentInformation.instrumentIdentifier.id", "paymentInformation.paymentInstrument.id", "tokenInformation.jti"} {
		if d.str(f) != "" {
			tokens = append(tokens, f)
		}
	}
	switch {
	case parID == "" && len(tokens) == 0:
		c.require(d, "paymentInformation.paymentAccountReference.id")
	case parID != "" && len(tokens) > 0, len(tokens) > 1:
		c.invalid("paymentInformation", "INVALID_DATA: either the payment account reference or exactly one token identifier")
	case parID != "":
		maxLens(c, d, fieldLen{"paymentInformation.paymentAccountReference.id", 29})
		if auth != nil && auth.card != nil && parID != par(auth.card) {
			c.invalid("paymentInformation.paymentAccountReference.id", "INVALID_DATA: not the authorization's card")
		}
	case auth != nil && auth.card != nil:
		f := tokens[0]
		v := d.str(f)
		if (f == "paymentInformation.customer.id" && v != auth.card.customerID) ||
			(f == "paymentInformation.instrumentIdentifier.id" && v != auth.card.instrumentID) ||
			(f == "paymentInformation.paymentInstrument.id" && v != auth.card.paymentInstrumentID) {
			c.invalid(f, "INVALID_DATA: not the authorization's card")
		}
	}
}

// selectPlan answers POST /fin/v1/plan-acceptance/: links an authorization,
// found by its approval code or network transaction id, to a plan on
// offer.
func (s *Server) selectPlan(x *exchange, d doc) answer {
	m := x.member
	now := s.Clock()
	var c checks
	checkProvider(&c, d)
	c.require(d, "installmentInformation.planId")
	maxLens(&c, d, fieldLen{authOpts + "authorizationCode", 6}, fieldLen{authOpts + "networkTransactionId", 20},
		fieldLen{"installmentInformation.planId", 50}, fieldLen{"installmentInformation.tcVersion", 36},
		fieldLen{"installmentInformation.identifier", 10})
	code, nti := d.str(authOpts+"authorizationCode"), d.str(authOpts+"networkTransactionId")
	if code == "" && nti == "" {
		c.require(d, authOpts+"networkTransactionId")
	}
	var auth *transaction
	if c.ok() {
		for _, t := range m.txns {
			if t.kind == kindAuth && t.card != nil && !t.reversed && (t.api == nil || t.api.status == "AUTHORIZED") &&
				(nti != "" && t.networkTxnID == nti || nti == "" && t.approvalCode == code) {
				auth = t
			}
		}
		if auth == nil {
			c.invalid(authOpts+"networkTransactionId", "INVALID_DATA: no authorization with this approval code or network transaction id")
		}
	}
	var plan *installmentPlan
	for _, p := range s.offeredPlans(now) {
		if p.id == d.str("installmentInformation.planId") {
			plan = &p
		}
	}
	switch {
	case plan == nil && d.str("installmentInformation.planId") != "":
		c.invalid("installmentInformation.planId", "INVALID_DATA: not a plan on offer")
	case plan != nil:
		if v := d.str("installmentInformation.tcVersion"); v != "" && v != plan.tcVersion {
			c.invalid("installmentInformation.tcVersion", "INVALID_DATA: not the plan's terms version")
		}
		if v := d.str("installmentInformation.identifier"); v != "" && v != plan.identifier {
			c.invalid("installmentInformation.identifier", "")
		}
	}
	if auth != nil {
		paymentIdentifier(&c, d, auth)
		if !eligibleForInstallments(auth.card, auth.amount) {
			c.invalid(authOpts+"networkTransactionId", "INVALID_DATA: the authorization's card or amount has no installment plans")
		}
		if m.state(s.gen).accepts[auth.id] != nil {
			c.invalid("installmentInformation.planId", "INVALID_DATA: a plan is already selected for this authorization")
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	st := m.state(s.gen)
	a := &acceptance{id: "SBXIA" + m.nextID(now), planID: plan.id, tcVersion: plan.tcVersion, auth: auth, byCode: code != "", byNTI: nti != ""}
	st.accepts[auth.id] = a
	if auth.api != nil {
		auth.api.accept = a
	}
	return reply(http.StatusCreated, map[string]any{"id": m.nextID(now), "submitTimeUtc": ts(now), "status": "ACCEPTED",
		"processorInformation":   map[string]any{"responseCode": "00"},
		"installmentInformation": map[string]any{"id": a.id, "planId": a.planID},
		"paymentInformation":     map[string]any{"paymentAccountReference": map[string]any{"id": par(auth.card)}}})
}

// cancelPlan answers POST /fin/v1/plan-acceptance/cancel/. By network
// transaction id, the select request must have sent it; by authorization
// code the same, with the authorization's time. A refundAmount makes it a
// partial refund (below the order total; all of them together at most the
// captured amount); without one the plan is cancelled.
func (s *Server) cancelPlan(x *exchange, d doc) answer {
	m := x.member
	now := s.Clock()
	var c checks
	checkProvider(&c, d)
	maxLens(&c, d, fieldLen{authOpts + "authorizationCode", 6}, fieldLen{authOpts + "networkTransactionId", 20},
		fieldLen{authOpts + "authorizationDateTime", 20})
	total, _ := c.amountField(d, "orderInformation.amountDetails.totalAmount", true)
	currency := c.currencyField(d, "orderInformation.amountDetails.currency", true)
	code, nti := d.str(authOpts+"authorizationCode"), d.str(authOpts+"networkTransactionId")
	var at time.Time
	switch {
	case nti == "" && code == "":
		c.require(d, authOpts+"networkTransactionId")
	case nti == "":
		// Without the network transaction id, the authorization's time
		// finds the transaction.
		c.require(d, authOpts+"authorizationDateTime")
		if v := d.str(authOpts + "authorizationDateTime"); v != "" {
			var err error
			if at, err = time.Parse(time.RFC3339, v); err != nil {
				c.invalid(authOpts+"authorizationDateTime", "")
			}
		}
	}
	var a *acceptance
	if c.ok() && m.api != nil {
		for _, x := range m.api.accepts {
			switch {
			case nti != "" && x.byNTI && x.auth.networkTxnID == nti:
				a = x
			case nti == "" && x.byCode && x.auth.approvalCode == code && x.auth.time.Truncate(time.Second).Equal(at.UTC()):
				a = x
			}
		}
	}
	if c.ok() && a == nil {
		c.invalid(authOpts+"networkTransactionId", "INVALID_DATA: no plan was selected with this identifier")
	}
	if a != nil {
		paymentIdentifier(&c, d, a.auth)
		if a.cancelled {
			c.invalid("installmentInformation", "INVALID_DATA: the plan is already cancelled")
		}
		if total != 0 && total != a.auth.amount || currency != "" && currency != a.auth.currency {
			c.invalid("orderInformation.amountDetails.totalAmount", "INVALID_DATA: not the order's amount")
		}
	}
	refund, partial := int64(0), d.has("processingInformation.refundOptions.refundAmount")
	if partial {
		maxLens(&c, d, fieldLen{"processingInformation.refundOptions.refundAmount", 19})
		v, ok := c.amountField(d, "processingInformation.refundOptions.refundAmount", true)
		refund = v
		if ok && a != nil {
			captured := int64(0)
			for _, t := range m.txns {
				if t.kind == kindCapture && t.rootID == a.auth.id {
					captured += t.amount
				}
			}
			switch {
			case refund == 0 || refund >= total:
				c.invalid("processingInformation.refundOptions.refundAmount", "INVALID_DATA: a partial refund is below the total order amount")
			case a.refunded+refund > captured:
				c.invalid("processingInformation.refundOptions.refundAmount",
					fmt.Sprintf("INVALID_DATA: partial refunds may not exceed the captured %s", money(captured)))
			}
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	if partial {
		a.refunded += refund
	} else {
		a.cancelled = true
	}
	return reply(http.StatusCreated, map[string]any{"id": m.nextID(now), "submitTimeUtc": ts(now), "status": "ACCEPTED",
		"processorInformation":   map[string]any{"responseCode": "00"},
		"paymentInformation":     map[string]any{"paymentAccountReference": map[string]any{"id": par(a.auth.card)}},
		"installmentInformation": map[string]any{"id": a.id, "planId": a.planID}})
}
