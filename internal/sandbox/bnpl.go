package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Buy-now-pay-later (spec: the session and authorization fields and
// endpoints, the flow's state table): a session answers PENDING with the
// provider's paymentUrl and a token; the customer approves (or declines)
// at the provider; an authorization carrying the token as preApprovalToken
// is then AUTHORIZED, still PENDING (the customer has not finished: the
// answer carries the redirect address), or FAILED (invalid or missing
// fields, a declined or used session); a capture settles it.
//
// The provider's page is simulated at checkoutPath: the customer's browser
// opens the paymentUrl, and ?decision=approve (the default) or decline
// decides. It needs no platform credentials. Server.Checkout does the same
// from Go.

const checkoutPath = "/sandbox/bnpl/checkout/"

// bnplCountries are the supported countries and currencies; the spec
// writes Canada's currency CAN, so both CAD and CAN are accepted.
var bnplCountries = map[string][]string{"AU": {"AUD"}, "CA": {"CAD", "CAN"}, "NZ": {"NZD"}, "GB": {"GBP"}, "US": {"USD"}}

// Session states at the provider.
const (
	sessionPending  = "PENDING"  // the customer has not decided
	sessionApproved = "APPROVED" // approved: an authorization succeeds
	sessionDeclined = "DECLINED"
	sessionUsed     = "USED" // authorized: the token cannot be used again
)

type bnplSession struct {
	id, token, reconID, code, method, country string
	state                                     string
	amount                                    int64
	currency                                  string
	paymentURL                                string
	created                                   time.Time
	pending                                   *transaction // an authorization that answered PENDING
}

// bnplAmount reads totalAmount, or the sum of the line items' totalAmount
// when it is absent (spec).
func bnplAmount(c *checks, d doc) int64 {
	if d.str("orderInformation.amountDetails.totalAmount") != "" {
		a, _ := c.amountField(d, "orderInformation.amountDetails.totalAmount", true)
		return a
	}
	items := d.list("orderInformation.lineItems")
	if len(items) == 0 {
		c.require(d, "orderInformation.amountDetails.totalAmount")
		return 0
	}
	var sum int64
	for i, it := range items {
		n, err := parseAmount(doc(asMap(it)).str("totalAmount"))
		if err != nil {
			c.invalid(fmt.Sprintf("orderInformation.lineItems[%d].totalAmount", i), "MISSING_FIELD")
			c.missing = true
			continue
		}
		sum += n
	}
	return sum
}

// bnplCommon checks what a session and an authorization share.
func bnplCommon(c *checks, d doc) (amount int64, currency, country string) {
	c.require(d, "paymentInformation.paymentType.name", "paymentInformation.paymentType.method.name")
	if v := d.str("paymentInformation.paymentType.name"); v != "" && v != "INVOICE" {
		c.invalid("paymentInformation.paymentType.name", "")
	}
	amount = bnplAmount(c, d)
	currency = c.currencyField(d, "orderInformation.amountDetails.currency", true)
	country = strings.ToUpper(d.str("orderInformation.billTo.country"))
	if country == "" {
		country = strings.ToUpper(d.str("orderInformation.shipTo.country"))
	}
	if cur, ok := bnplCountries[country]; !ok {
		c.invalid("orderInformation.billTo.country", "INVALID_DATA: not a supported country (AU, CA, NZ, GB, US)")
	} else if currency != "" && !slices.Contains(cur, currency) {
		c.invalid("orderInformation.amountDetails.currency", "INVALID_DATA: not the currency of "+country)
	}
	return amount, currency, country
}

func sessionLinks(id string, used bool) map[string]link {
	self := "/pts/v2/payment-references/" + id
	links := map[string]link{"self": {Href: self, Method: http.MethodGet},
		"status": {Href: "/pts/v2/refresh-payment-status/" + id, Method: http.MethodPost},
		"order":  {Href: "/pts/v2/payments/" + id + "/intents", Method: http.MethodPost}}
	if !used {
		// An authorized session can no longer be updated, so it is not
		// offered the link.
		links["updateSession"] = link{Href: self, Method: http.MethodPatch}
	}
	return links
}

func (ss *bnplSession) json(now time.Time) map[string]any {
	status := sessionPending
	if ss.state == sessionUsed {
		status = "AUTHORIZED"
	}
	return map[string]any{"_links": sessionLinks(ss.id, ss.state == sessionUsed), "id": ss.id, "status": status, "submitTimeUtc": ts(now),
		"reconciliationId": ss.reconID, "clientReferenceInformation": map[string]any{"code": ss.code},
		"orderInformation":     map[string]any{"amountDetails": map[string]any{"totalAmount": moneyIn(ss.amount, ss.currency), "currency": ss.currency}},
		"processorInformation": map[string]any{"paymentUrl": ss.paymentURL, "token": ss.token}}
}

// createSession answers POST /pts/v2/payment-references (201, PENDING).
func (s *Server) createSession(x *exchange, d doc) answer {
	m := x.member
	var c checks
	if !slices.Contains(d.strings("processingInformation.actionList"), "AP_SESSIONS") {
		c.require(d, "processingInformation.actionList")
	}
	amount, currency, country := bnplCommon(&c, d)
	// Shipping fields are mandatory on a session: they appear on the
	// provider's invoice.
	for _, f := range []string{"firstName", "lastName", "address1", "locality", "postalCode", "country"} {
		c.require(d, "orderInformation.shipTo."+f)
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	id, reconID := m.recordIDs(s.gen, now)
	st := m.state(s.gen)
	ss := &bnplSession{id: id, reconID: reconID, code: d.str("clientReferenceInformation.code"),
		method: d.str("paymentInformation.paymentType.method.name"), country: country, state: sessionPending,
		amount: amount, currency: currency, created: now}
	for {
		ss.token = "BNPL-" + m.id + "-" + alnum(st.rng, 20)
		if longestDigitRun(ss.token) < 10 {
			break
		}
	}
	scheme := "http"
	if x.r.TLS != nil {
		scheme = "https"
	}
	ss.paymentURL = scheme + "://" + x.r.Host + checkoutPath + ss.token
	st.sessions[ss.id], st.sessions[ss.token] = ss, ss
	return reply(http.StatusCreated, ss.json(now))
}

// getSession answers GET /pts/v2/payment-references/{id}.
func (s *Server) getSession(x *exchange, _ noBody, ss *bnplSession) answer {
	return reply(http.StatusOK, ss.json(s.Clock()))
}

// updateSession answers PATCH /pts/v2/payment-references/{id}: amount,
// line items and addresses change while the session is not authorized.
func (s *Server) updateSession(x *exchange, d doc, ss *bnplSession) answer {
	if ss.state == sessionUsed {
		return x.refuse("INVALID_STATE:AUTHORIZED", "an authorized session cannot be updated")
	}
	var c checks
	if d.has("orderInformation.amountDetails.totalAmount") || d.has("orderInformation.lineItems") {
		amount := bnplAmount(&c, d)
		if cur := c.currencyField(d, "orderInformation.amountDetails.currency", false); cur != "" && cur != ss.currency {
			c.invalid("orderInformation.amountDetails.currency", "INVALID_DATA: the session's currency cannot change")
		}
		if c.ok() {
			ss.amount = amount
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	return reply(http.StatusOK, ss.json(s.Clock()))
}

// bnplAuth answers a buy-now-pay-later authorization (POST /pts/v2/payments
// with actionList AP_AUTH): always 201, the status saying the outcome.
func (s *Server) bnplAuth(x *exchange, d doc) answer {
	m := x.member
	now := s.Clock()
	st := m.state(s.gen)
	var c checks
	amount, currency, _ := bnplCommon(&c, d)
	c.require(d, "processorInformation.preApprovalToken")
	for _, f := range []string{"firstName", "lastName", "address1", "locality", "postalCode", "country", "email"} {
		c.require(d, "orderInformation.billTo."+f)
	}
	token := d.str("processorInformation.preApprovalToken")
	var ss *bnplSession
	if token != "" {
		if ss = st.sessions[token]; ss == nil || ss.token != token {
			c.invalid("processorInformation.preApprovalToken", "INVALID_DATA: unknown session token")
			ss = nil
		} else if c.ok() && (amount > ss.amount || currency != ss.currency) {
			c.invalid("orderInformation.amountDetails.totalAmount", "INVALID_DATA: more than the session's amount, or another currency")
		}
	}
	id, reconID := m.recordIDs(s.gen, now)
	t := &transaction{id: id, reconciliationID: reconID, time: now, kind: kindAuth, amount: amount,
		currency: currency, code: d.str("clientReferenceInformation.code"), networkTxnID: alnum(st.rng, 16)}
	t.rootID = t.id
	a := &apiTxn{bnpl: ss, commerce: "internet"}
	t.api = a
	status, details := "", []string(nil)
	switch {
	case !c.ok():
		status = "FAILED"
		reason := "INVALID_DATA"
		if c.missing {
			reason = "MISSING_FIELD"
		}
		a.decline = reason
		for _, dt := range c.details {
			details = append(details, dt.Field)
		}
		a.app = appJSON{Name: "ics_ap_auth", ReasonCode: map[bool]string{true: "101", false: "102"}[c.missing], RCode: "-1", RFlag: "DINVALIDDATA", RMessage: "The request has invalid or missing fields"}
	case ss.state == sessionApproved:
		status = "AUTHORIZED"
		ss.state = sessionUsed
		a.app = okApp("ics_ap_auth")
	case ss.state == sessionPending:
		status = "PENDING"
		ss.pending = t
		a.app = appJSON{Name: "ics_ap_auth", ReasonCode: "100", RCode: "1", RFlag: "SOK", RMessage: "Awaiting the customer at the provider"}
	default: // declined by the customer, or the token already authorized
		status = "FAILED"
		a.decline = "PROCESSOR_DECLINED"
		a.app = appJSON{Name: "ics_ap_auth", ReasonCode: "233", RCode: "0", RFlag: "DNOAUTH", RMessage: "The session was declined or already used"}
	}
	a.status = status
	resp := bnplAuthJSON(t, now)
	if status == "FAILED" && len(c.details) > 0 {
		resp["errorInformation"] = map[string]any{"reason": a.decline, "message": a.app.RMessage, "details": c.details}
	}
	a.response = resp
	appendTxn(m, t)
	return reply(http.StatusCreated, resp)
}

// bnplAuthJSON is a buy-now-pay-later authorization's answer in its
// current state, with the spec's links.
func bnplAuthJSON(t *transaction, now time.Time) map[string]any {
	a := t.api
	self := "/pts/v2/payments/" + t.id
	links := map[string]link{"self": {Href: self, Method: http.MethodGet}}
	proc := map[string]any{"transactionId": t.networkTxnID, "responseCode": "00", "responseDetails": strings.ToLower(a.status)}
	switch a.status {
	case "AUTHORIZED":
		links["authReversal"] = link{Href: self + "/reversals", Method: http.MethodPost}
		links["capture"] = link{Href: self + "/captures", Method: http.MethodPost}
		links["status"] = link{Href: "/pts/v2/refresh-payment-status/" + t.id, Method: http.MethodPost}
	case "PENDING":
		links["status"] = link{Href: "/pts/v2/refresh-payment-status/" + t.id, Method: http.MethodPost}
		proc["paymentUrl"] = a.bnpl.paymentURL
		proc["responseCode"] = "01"
	default:
		proc["responseCode"] = "05"
	}
	resp := map[string]any{"_links": links, "id": t.id, "status": a.status, "submitTimeUtc": ts(now),
		"reconciliationId": t.reconciliationID, "clientReferenceInformation": map[string]any{"code": t.code},
		"orderInformation":     map[string]any{"amountDetails": map[string]any{"totalAmount": moneyIn(t.amount, t.currency), "currency": t.currency}},
		"processorInformation": proc}
	if a.decline != "" {
		resp["errorInformation"] = map[string]any{"reason": a.decline, "message": a.app.RMessage}
	}
	return resp
}

// refreshStatus answers POST /pts/v2/refresh-payment-status/{id} and its
// other spelling /pts/v2/status/{id}/refresh, for a session or a
// buy-now-pay-later authorization: a PENDING authorization whose customer
// has since approved becomes AUTHORIZED (declined: FAILED).
func (s *Server) refreshStatus(x *exchange, _ noBody) answer {
	now := s.Clock()
	id := x.r.PathValue("id")
	if t, ok := txnTarget.in(x, id); ok && t.api != nil && t.api.bnpl != nil {
		a := t.api
		if a.status == "PENDING" {
			switch a.bnpl.state {
			case sessionApproved:
				a.status, a.app = "AUTHORIZED", okApp("ics_ap_auth")
				a.bnpl.state, a.bnpl.pending = sessionUsed, nil
			case sessionDeclined:
				a.status, a.decline = "FAILED", "PROCESSOR_DECLINED"
				a.app = appJSON{Name: "ics_ap_auth", ReasonCode: "233", RCode: "0", RFlag: "DNOAUTH", RMessage: "The customer declined at the provider"}
			}
			a.response = bnplAuthJSON(t, t.time)
		}
		return reply(http.StatusOK, bnplAuthJSON(t, now))
	}
	ss, ok := sessionTarget.in(x, id)
	if !ok {
		return sessionTarget.missing(x, id)
	}
	return reply(http.StatusOK, ss.json(now))
}

// createIntent answers POST /pts/v2/payments/{id}/intents, the session's
// order link. Its fields are not shown: the sandbox acknowledges an order
// for the session's amount and keeps nothing.
func (s *Server) createIntent(x *exchange, _ noBody, ss *bnplSession) answer {
	now := s.Clock()
	return reply(http.StatusCreated, map[string]any{"id": x.member.nextID(now), "status": "CREATED", "submitTimeUtc": ts(now),
		"orderInformation":     map[string]any{"amountDetails": map[string]any{"totalAmount": moneyIn(ss.amount, ss.currency), "currency": ss.currency}},
		"processorInformation": map[string]any{"token": ss.token},
		"_links":               map[string]link{"session": {Href: "/pts/v2/payment-references/" + ss.id, Method: http.MethodGet}}})
}

// bnplCapture captures an AUTHORIZED buy-now-pay-later payment, which
// settles it (the flow's state table: AUTHORIZED, capture, SETTLED).
func (s *Server) bnplCapture(x *exchange, d doc, auth *transaction) answer {
	m := x.member
	if auth.api.status != "AUTHORIZED" || auth.reversed || auth.api.captured >= auth.amount {
		return x.refuse("NOT_CAPTURABLE", "payment "+auth.id+" is not an authorized buy-now-pay-later payment")
	}
	var c checks
	amount := auth.amount - auth.api.captured
	if d.has("orderInformation.amountDetails.totalAmount") {
		amount = followAmount(&c, d, auth, auth.amount-auth.api.captured, "orderInformation.amountDetails")
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	id, reconID := m.recordIDs(s.gen, now)
	self := "/pts/v2/captures/" + id
	resp := map[string]any{"_links": map[string]link{"self": {Href: self, Method: http.MethodGet},
		"refund": {Href: self + "/refunds", Method: http.MethodPost}},
		"id": id, "status": "SETTLED", "submitTimeUtc": ts(now), "reconciliationId": reconID,
		"clientReferenceInformation": map[string]any{"code": auth.code},
		"orderInformation":           map[string]any{"amountDetails": map[string]any{"totalAmount": moneyIn(amount, auth.currency), "currency": auth.currency}},
		"processorInformation":       map[string]any{"transactionId": auth.networkTxnID, "responseCode": "00"}}
	auth.api.captured += amount
	appendTxn(m, &transaction{id: id, rootID: auth.id, reconciliationID: reconID, time: now,
		kind: kindCapture, amount: amount, currency: auth.currency, code: auth.code,
		api: &apiTxn{status: "SETTLED", app: okApp("ics_ap_capture"), commerce: "internet", bnpl: auth.api.bnpl, response: resp}})
	return reply(http.StatusCreated, resp)
}

// bnplRefund refunds a settled buy-now-pay-later capture (its answer's
// refund link), in full or in part, up to what its refunds left: the
// provider's refund service, whose fields the spec does not show, so it
// takes the card refund's. No card is involved and no Level II/III data.
func (s *Server) bnplRefund(x *exchange, d doc, capture *transaction, refunded int64) answer {
	m := x.member
	var c checks
	amount := capture.amount - refunded
	if d.has("orderInformation.amountDetails.totalAmount") {
		amount = followAmount(&c, d, capture, amount, "orderInformation.amountDetails")
	} else if amount == 0 {
		c.invalid("orderInformation.amountDetails.totalAmount", "INVALID_DATA: nothing remains to refund")
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	id, reconID := m.recordIDs(s.gen, now)
	code := followCode(d, capture)
	resp := map[string]any{"_links": map[string]link{"self": {Href: "/pts/v2/refunds/" + id, Method: http.MethodGet}},
		"id": id, "status": "PENDING", "submitTimeUtc": ts(now), "reconciliationId": reconID,
		"clientReferenceInformation": map[string]any{"code": code},
		"refundAmountDetails":        refundAmounts(amount, capture.currency),
		"processorInformation":       map[string]any{"transactionId": capture.networkTxnID, "responseCode": "00"}}
	appendTxn(m, &transaction{id: id, rootID: capture.id, reconciliationID: reconID, time: now,
		kind: kindRefund, amount: amount, currency: capture.currency, code: code,
		api: &apiTxn{status: "PENDING", app: okApp("ics_ap_refund"), commerce: "internet", bnpl: capture.api.bnpl, response: resp}})
	return reply(http.StatusCreated, resp)
}

// Checkout is the customer's decision at the provider for the session
// whose token (or paymentUrl) is given.
func (s *Server) Checkout(tokenOrURL string, approve bool) error {
	token := tokenOrURL[strings.LastIndex(tokenOrURL, "/")+1:]
	parts := strings.SplitN(token, "-", 3)
	if len(parts) != 3 || parts[0] != "BNPL" {
		return fmt.Errorf("checkout: %q is not a session token", token)
	}
	idx, ok := s.memberIndex(parts[1])
	if !ok {
		return fmt.Errorf("checkout: %q names no merchant", token)
	}
	m := s.cache.pin(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	var ss *bnplSession
	if m.api != nil {
		ss = m.api.sessions[token]
	}
	if ss == nil || ss.token != token {
		return fmt.Errorf("checkout: no session with token %s", token)
	}
	if ss.state != sessionPending {
		return errors.New("checkout: the session is already " + strings.ToLower(ss.state))
	}
	ss.state = sessionDeclined
	if approve {
		ss.state = sessionApproved
	}
	return nil
}

// checkout serves the provider's page: GET or POST
// /sandbox/bnpl/checkout/{token}?decision=approve|decline.
func (s *Server) checkout(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimPrefix(r.URL.Path, checkoutPath)
	approve := !strings.EqualFold(r.URL.Query().Get("decision"), "decline")
	if err := s.Checkout(token, approve); err != nil {
		s.writeError(w, &reqInfo{}, http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", err.Error())
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"token": token, "decision": map[bool]string{true: "APPROVED", false: "DECLINED"}[approve]})
}
