package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Follow-on transactions: captures, reversals, voids, refunds, and
// stand-alone credits (spec: Level II and Level III endpoints, device
// wallets: "capture, reversal and credit use the request ID of the earlier
// authorization"). Their answers have the journals' shape (call.response).

// followCode is a follow-on's merchant reference: its own, else the
// original transaction's.
func followCode(d doc, orig *transaction) string {
	if v := d.str("clientReferenceInformation.code"); v != "" {
		return v
	}
	return orig.code
}

// followAmount reads a follow-on's amount and currency: required, the
// currency of the original, at most what remains.
func followAmount(c *checks, d doc, orig *transaction, remaining int64, path string) int64 {
	amount, ok := c.amountField(d, path+".totalAmount", true)
	cur := c.currencyField(d, path+".currency", true)
	if cur != "" && cur != orig.currency {
		c.invalid(path+".currency", "INVALID_DATA: not the currency of the original transaction")
	}
	if ok && (amount == 0 || amount > remaining) {
		c.invalid(path+".totalAmount", fmt.Sprintf("INVALID_DATA: more than the %s that remains", money(remaining)))
	}
	return amount
}

// authorized reports whether t is an approved authorization (API-made or
// generated) and what remains of it to capture.
func authorized(m *member, t *transaction) (bool, int64) {
	if t.kind != kindAuth || t.reversed || t.api != nil && t.api.status != "AUTHORIZED" {
		return false, 0
	}
	if t.api != nil {
		return true, t.amount - t.api.captured
	}
	captured := int64(0)
	for _, o := range m.txns {
		if o.rootID == t.id && o.kind == kindCapture {
			captured += o.amount
		}
	}
	return true, t.amount - captured
}

// capture answers POST /pts/v2/payments/{id}/captures, {id} the
// authorization's transaction id. Partial captures may follow each other
// up to the authorized amount.
func (s *Server) capture(x *exchange, d doc, auth *transaction) answer {
	m := x.member
	if auth.api != nil && auth.api.bnpl != nil {
		return s.bnplCapture(x, d, auth)
	}
	ok, remaining := authorized(m, auth)
	if !ok {
		return x.refuse("NOT_CAPTURABLE", "transaction "+auth.id+" is not an authorization that can be captured")
	}
	now := s.Clock()
	var c checks
	pr := &payReq{d: d, card: *auth.card, currency: auth.currency, code: auth.code}
	if v := d.str("clientReferenceInformation.code"); v != "" {
		pr.code = v
	}
	pr.amount = followAmount(&c, d, auth, remaining, "orderInformation.amountDetails")
	noHealthcare(&c, d)
	readLevel23(&c, d, m, pr)
	if !c.ok() {
		return x.rejected(&c)
	}
	cc := s.newAPICall(m, callCapture, now, pr)
	cc.auth = &call{respID: auth.id}
	resp := cc.response()
	a := &apiTxn{status: "PENDING", app: okApp("ics_bill"), commerce: "internet", level3: pr.level3, response: resp}
	if auth.api != nil {
		a.commerce, a.solution = auth.api.commerce, auth.api.solution
		auth.api.captured += pr.amount
		if auth.api.accept != nil {
			a.accept = auth.api.accept
		}
	}
	t := &transaction{id: cc.respID, rootID: auth.id, reconciliationID: cc.reconcileID, time: now, kind: kindCapture,
		amount: pr.amount, currency: pr.currency, card: auth.card, code: pr.code, networkTxnID: auth.networkTxnID, api: a}
	appendTxn(m, t)
	return reply(http.StatusCreated, resp)
}

// reverse answers POST /pts/v2/payments/{id}/reversals: an authorization
// not captured is reversed in full. An authorization with an installment
// plan selected then needs the plan cancelled (spec).
func (s *Server) reverse(x *exchange, d doc, auth *transaction) answer {
	m := x.member
	ok, remaining := authorized(m, auth)
	if auth.api != nil && auth.api.bnpl != nil && auth.api.status == "AUTHORIZED" && !auth.reversed && auth.api.captured == 0 {
		ok, remaining = true, auth.amount
	}
	if !ok || remaining != auth.amount {
		return x.refuse("NOT_REVERSIBLE", "transaction "+auth.id+" is not an authorization that can be reversed (captured, reversed, or not authorized)")
	}
	var c checks
	if d.has("reversalInformation.amountDetails.totalAmount") {
		followAmount(&c, d, auth, auth.amount, "reversalInformation.amountDetails")
	}
	noHealthcare(&c, d)
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	id, reconID := m.recordIDs(s.gen, now)
	code := followCode(d, auth)
	resp := map[string]any{"_links": map[string]any{"self": link{Href: "/pts/v2/reversals/" + id, Method: http.MethodGet}},
		"id": id, "status": "REVERSED", "submitTimeUtc": ts(now), "reconciliationId": reconID,
		"clientReferenceInformation": map[string]any{"code": code},
		"reversalAmountDetails":      map[string]any{"reversedAmount": moneyIn(auth.amount, auth.currency), "currency": auth.currency},
		"processorInformation":       map[string]any{"responseCode": "00"}}
	a := &apiTxn{status: "REVERSED", app: okApp("ics_auth_reversal"), commerce: "internet", response: resp}
	auth.reversed = true
	if auth.api != nil {
		a.commerce = auth.api.commerce
		if auth.api.accept != nil {
			auth.api.accept.needsCancel = true
		}
	}
	appendTxn(m, &transaction{id: id, rootID: auth.id, reconciliationID: reconID, time: now,
		kind: kindReversal, amount: auth.amount, currency: auth.currency, card: auth.card, code: code, api: a})
	return reply(http.StatusCreated, resp)
}

// void answers POST /pts/v2/{payments|captures|credits|refunds}/{id}/voids:
// a sale, capture, credit or refund is voided until it settles in the
// nightly batch (00:00 UTC after it was submitted). On /pts/v2/payments an
// authorization nothing was captured of is voided too: the spec's
// healthcare answer offers that void link on an AUTHORIZED authorization,
// and a link offered must work. It then ends as a reversal would.
func (s *Server) void(kinds ...txnKind) func(*exchange, doc, *transaction) answer {
	return func(x *exchange, d doc, t *transaction) answer {
		m := x.member
		now := s.Clock()
		kindOK := false
		for _, k := range kinds {
			kindOK = kindOK || t.kind == k
		}
		voidsAuth := t.kind == kindAuth && slices.Contains(kinds, kindSale)
		if voidsAuth {
			ok, remaining := authorized(m, t)
			if !ok || remaining != t.amount {
				return x.refuse("NOT_VOIDABLE", "authorization "+t.id+" was captured, reversed or not approved: it cannot be voided")
			}
			kindOK = true
		}
		switch {
		case !kindOK || t.api != nil && t.api.decline != "":
			return x.refuse("NOT_VOIDABLE", "transaction "+t.id+" cannot be voided through this path")
		case t.voided:
			return x.refuse("NOT_VOIDABLE", "transaction "+t.id+" is already voided")
		case !voidsAuth && settled(t.time, now):
			return x.refuse("NOT_VOIDABLE", "transaction "+t.id+" has settled and cannot be voided")
		}
		var c checks
		noHealthcare(&c, d)
		if !c.ok() {
			return x.rejected(&c)
		}
		id, reconID := m.recordIDs(s.gen, now)
		code := followCode(d, t)
		resp := map[string]any{"_links": map[string]any{"self": link{Href: "/pts/v2/voids/" + id, Method: http.MethodGet}},
			"id": id, "status": "VOIDED", "submitTimeUtc": ts(now), "reconciliationId": reconID,
			"clientReferenceInformation": map[string]any{"code": code},
			"voidAmountDetails":          map[string]any{"voidAmount": moneyIn(t.amount, t.currency), "currency": t.currency}}
		t.voided = true
		if voidsAuth {
			t.reversed = true
			if t.api != nil && t.api.accept != nil {
				t.api.accept.needsCancel = true
			}
		}
		appendTxn(m, &transaction{id: id, rootID: t.rootID, reconciliationID: reconID, time: now,
			kind: kindVoid, amount: t.amount, currency: t.currency, card: t.card, code: code,
			api: &apiTxn{status: "VOIDED", app: okApp("ics_void"), commerce: "internet", response: resp}})
		return reply(http.StatusCreated, resp)
	}
}

// refund answers POST /pts/v2/payments/{id}/refunds (a sale) and
// /pts/v2/captures/{id}/refunds (a capture): a follow-on credit of at most
// what was captured and not yet refunded. Level II and III data may ride
// on it as on any credit.
func (s *Server) refund(x *exchange, d doc, orig *transaction) answer {
	m := x.member
	if (orig.kind != kindSale && orig.kind != kindCapture) || orig.voided || orig.api != nil && orig.api.decline != "" {
		return x.refuse("NOT_REFUNDABLE", "transaction "+orig.id+" is not a sale or capture that can be refunded")
	}
	refunded := refundedOf(m, orig)
	if orig.api != nil && orig.api.bnpl != nil {
		return s.bnplRefund(x, d, orig, refunded)
	}
	now := s.Clock()
	var c checks
	pr := &payReq{d: d, card: *orig.card, currency: orig.currency, code: orig.code}
	if v := d.str("clientReferenceInformation.code"); v != "" {
		pr.code = v
	}
	pr.amount = followAmount(&c, d, orig, orig.amount-refunded, "orderInformation.amountDetails")
	noHealthcare(&c, d)
	readLevel23(&c, d, m, pr)
	if !c.ok() {
		return x.rejected(&c)
	}
	// Once a plan was selected, a refunded authorization needs the
	// installment plan cancelled (spec).
	if auth := m.txnByID[orig.rootID]; auth != nil && auth.api != nil && auth.api.accept != nil {
		auth.api.accept.needsCancel = true
	}
	call := s.newAPICall(m, callCredit, now, pr)
	resp := call.response()
	self := "/pts/v2/refunds/" + call.respID
	resp["_links"] = map[string]any{"self": link{Href: self, Method: http.MethodGet}, "void": link{Href: self + "/voids", Method: http.MethodPost}}
	delete(resp, "creditAmountDetails")
	resp["refundAmountDetails"] = refundAmounts(pr.amount, pr.currency)
	appendTxn(m, &transaction{id: call.respID, rootID: orig.id, reconciliationID: call.reconcileID, time: now, kind: kindRefund,
		amount: pr.amount, currency: pr.currency, card: orig.card, code: pr.code, networkTxnID: call.networkID,
		api: &apiTxn{status: "PENDING", app: okApp("ics_credit"), commerce: "internet", level3: pr.level3, response: resp}})
	return reply(http.StatusCreated, resp)
}

// refundedOf is what the refunds of t that stand have refunded.
func refundedOf(m *member, t *transaction) int64 {
	refunded := int64(0)
	for _, o := range m.txns {
		if o.kind == kindRefund && o.rootID == t.id && !o.voided {
			refunded += o.amount
		}
	}
	return refunded
}

// credit answers POST /pts/v2/credits: a stand-alone credit to a card,
// with the Level II fields the spec requires (billing address and card)
// unless the account has relaxed requirements.
func (s *Server) credit(x *exchange, d doc) answer {
	m := x.member
	now := s.Clock()
	var c checks
	pr := &payReq{d: d, code: d.str("clientReferenceInformation.code")}
	if a, ok := c.amountField(d, "orderInformation.amountDetails.totalAmount", true); ok {
		pr.amount = a
	}
	pr.currency = c.currencyField(d, "orderInformation.amountDetails.currency", true)
	relaxed := m.settings.RelaxedRequirements
	readInstrument(&c, d, m, pr, relaxed)
	pr.bill = readBillTo(d)
	if pr.source == "card" && !relaxed {
		for _, f := range billToFields {
			// One list of the spec spells the state field
			// administrationArea: either spelling is accepted.
			if f == "administrativeArea" && d.str("orderInformation.billTo.administrationArea") != "" {
				pr.bill.state = d.str("orderInformation.billTo.administrationArea")
				continue
			}
			c.require(d, "orderInformation.billTo."+f)
		}
	}
	noHealthcare(&c, d)
	readLevel23(&c, d, m, pr)
	if !c.ok() {
		return x.rejected(&c)
	}
	call := s.newAPICall(m, callCredit, now, pr)
	resp := call.response()
	appendTxn(m, &transaction{id: call.respID, rootID: call.respID, reconciliationID: call.reconcileID, time: now, kind: kindCredit,
		amount: pr.amount, currency: pr.currency, card: call.card, code: pr.code, networkTxnID: call.networkID,
		api: &apiTxn{status: "PENDING", app: okApp("ics_credit"), commerce: "internet", level3: pr.level3, response: resp}})
	return reply(http.StatusCreated, resp)
}

// getPayment answers GET on the self links of /pts/v2 answers with the
// answer as it was given; for a generated call, the journal's answer.
func (s *Server) getPayment(x *exchange, _ noBody) answer {
	id := x.r.PathValue("id")
	kind := strings.Split(strings.TrimPrefix(x.r.URL.Path, "/pts/v2/"), "/")[0]
	var resp map[string]any
	if t, ok := txnTarget.in(x, id); ok && selfKind(t) == kind {
		if t.api != nil {
			resp = t.api.response
		} else {
			// A generated call: the answer its journal line holds.
			for _, c := range x.member.calls {
				if c.respID == id {
					resp = c.response()
				}
			}
		}
	}
	if resp == nil {
		return x.notFound(fmt.Sprintf("%s %s was not found", strings.TrimSuffix(kind, "s"), id))
	}
	return reply(http.StatusOK, resp)
}

// selfKind is the collection a transaction's self link names.
func selfKind(t *transaction) string {
	switch t.kind {
	case kindCapture:
		return "captures"
	case kindCredit:
		return "credits"
	case kindRefund:
		return "refunds"
	case kindReversal:
		return "reversals"
	case kindVoid:
		return "voids"
	}
	return "payments"
}
