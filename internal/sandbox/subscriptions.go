package sandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Subscriptions (spec: Subscription, the subscription state table; facts:
// the subscription operations the spec leaves out).

type subscriptionJSON struct {
	Links                      *linkSet          `json:"_links"`
	ID                         string            `json:"id"`
	ClientReferenceInformation codeRef           `json:"clientReferenceInformation"`
	PlanInformation            subPlanInfo       `json:"planInformation"`
	SubscriptionInformation    subInfo           `json:"subscriptionInformation"`
	PaymentInformation         subPaymentInfo    `json:"paymentInformation"`
	OrderInformation           orderInfo         `json:"orderInformation"`
	ReactivationInformation    *reactivationInfo `json:"reactivationInformation,omitempty"`
}

type codeRef struct {
	Code string `json:"code"`
}

type subPlanInfo struct {
	Code          string     `json:"code"`
	Name          string     `json:"name"`
	BillingPeriod period     `json:"billingPeriod"`
	BillingCycles cyclesInfo `json:"billingCycles"`
}

type subInfo struct {
	Code        string `json:"code"`
	PlanID      string `json:"planId,omitempty"` // absent on a one-time plan
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	StartDate   string `json:"startDate"`
	Status      string `json:"status"`
}

type subPaymentInfo struct {
	Customer idRef `json:"customer"`
}

type idRef struct {
	ID string `json:"id"`
}

type reactivationInfo struct {
	MissedPaymentsCount       string `json:"missedPaymentsCount"`
	MissedPaymentsTotalAmount string `json:"missedPaymentsTotalAmount"`
}

// subLinks are the operations a subscription's state allows.
func subLinks(sub *subscription) *linkSet {
	self := "/rbs/v1/subscriptions/" + sub.id
	links := &linkSet{Self: &link{Href: self, Method: http.MethodGet}}
	switch sub.status {
	case subCancelled, subCompleted:
		return links
	case subActive, subDelinquent:
		links.Suspend = &link{Href: self + "/suspend", Method: http.MethodPost}
	case subSuspended:
		links.Activate = &link{Href: self + "/activate", Method: http.MethodPost}
	}
	links.Update = &link{Href: self, Method: http.MethodPatch}
	links.Cancel = &link{Href: self + "/cancel", Method: http.MethodPost}
	return links
}

func renderSubscription(sub *subscription, detail bool) subscriptionJSON {
	p, t := sub.plan, sub.terms
	sj := subscriptionJSON{
		Links:                      subLinks(sub),
		ID:                         sub.id,
		ClientReferenceInformation: codeRef{Code: sub.clientRef},
		PlanInformation: subPlanInfo{Code: p.code, Name: p.name,
			BillingPeriod: period{Length: strconv.Itoa(t.length), Unit: string(t.unit)},
			BillingCycles: cyclesInfo{Current: strconv.Itoa(sub.current)}},
		SubscriptionInformation: subInfo{Code: sub.code, PlanID: p.id, Name: sub.name, Description: sub.description,
			StartDate: ts(sub.start), Status: sub.status},
		PaymentInformation: subPaymentInfo{Customer: idRef{ID: sub.card.customerID}},
		OrderInformation: orderInfo{
			AmountDetails: amountDetails{Currency: t.currency, BillingAmount: moneyIn(t.amount, t.currency), SetupFee: optMoneyIn(t.setupFee, t.currency)},
			BillTo:        &billToJSON{FirstName: sub.firstName, LastName: sub.lastName}},
	}
	if t.total > 0 {
		sj.PlanInformation.BillingCycles.Total = strconv.Itoa(t.total)
	}
	if detail {
		sj.ReactivationInformation = &reactivationInfo{MissedPaymentsCount: strconv.Itoa(sub.missed),
			MissedPaymentsTotalAmount: moneyIn(int64(sub.missed)*t.amount, t.currency)}
	}
	return sj
}

// subscriptionFilters are the subscription list's filters: the facts'
// status, code and customerId, and the merchant reference the platform's
// SDK also sends.
var subscriptionFilters = []string{"status", "code", "customerId", "clientReferenceInformationCode"}

func (s *Server) listSubscriptions(x *exchange, _ noBody) answer {
	offset, limit, refused := x.page(20, 100, subscriptionFilters...)
	if refused != nil {
		return *refused
	}
	q := x.r.URL.Query()
	filters := url.Values{}
	for _, k := range subscriptionFilters {
		if v := q.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	var subs []*subscription
	if m := x.member; m != nil {
		for _, sub := range m.subs {
			if (filters.Get("status") == "" || strings.EqualFold(filters.Get("status"), sub.status)) &&
				(filters.Get("code") == "" || filters.Get("code") == sub.code) &&
				(filters.Get("customerId") == "" || filters.Get("customerId") == sub.card.customerID) &&
				(filters.Get("clientReferenceInformationCode") == "" || filters.Get("clientReferenceInformationCode") == sub.clientRef) {
				subs = append(subs, sub)
			}
		}
	}
	// Keys in the order encoding/json gives a map: _links, subscriptions,
	// totalCount.
	b := x.buffer()
	b = append(b, `{"_links":`...)
	b = appendLinksMap(b, pageLinks("/rbs/v1/subscriptions", filters, offset, limit, len(subs), true))
	b = appendPageEnd(b, "subscriptions", window(subs, offset, limit), len(subs), func(b []byte, sub *subscription) []byte {
		sj := renderSubscription(sub, false)
		return sj.appendJSON(b)
	})
	return x.encoded(http.StatusOK, b)
}

func (s *Server) getSubscription(x *exchange, _ noBody, sub *subscription) answer {
	return reply(http.StatusOK, renderSubscription(sub, true))
}

// subWriteJSON is the answer of a subscription write.
func (s *Server) subWriteJSON(sub *subscription, status string) map[string]any {
	return map[string]any{"_links": subLinks(sub), "id": sub.id, "submitTimeUtc": s.clockNow(), "status": status,
		"subscriptionInformation": map[string]string{"code": sub.code, "status": sub.status}}
}

// readStart reads subscriptionInformation.startDate: RFC 3339 or a date; a
// start today (by the data clock) or absent starts now; an earlier day is
// invalid.
func readStart(c *checks, d doc, now time.Time) time.Time {
	v := d.str("subscriptionInformation.startDate")
	if v == "" {
		return now
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		t, err = time.Parse(time.DateOnly, v)
	}
	if err != nil {
		c.invalid("subscriptionInformation.startDate", "")
		return now
	}
	t = t.UTC()
	if t.Before(now) {
		if utcDay(t).Before(utcDay(now)) {
			c.invalid("subscriptionInformation.startDate", "INVALID_DATA: the start date is in the past")
		}
		return now
	}
	return t
}

// readCustomer reads the subscription's payment token: only the customer
// token type can be used (spec scope notes).
func readCustomer(c *checks, d doc, m *member, required bool) (card, bool) {
	for _, f := range []string{"paymentInformation.paymentInstrument.id", "paymentInformation.instrumentIdentifier.id", "paymentInformation.card.number"} {
		if d.has(f) {
			c.invalid(f, "INVALID_DATA: only the customer token type can be used")
		}
	}
	id := d.str("paymentInformation.customer.id")
	if id == "" {
		if required {
			c.require(d, "paymentInformation.customer.id")
		}
		return card{}, false
	}
	cd, ok := m.cardOfToken(tokenCustomer, id)
	if !ok {
		c.invalid("paymentInformation.customer.id", "INVALID_DATA: unknown customer token")
	}
	return cd, ok
}

// createSubscription answers POST /rbs/v1/subscriptions (201) with a
// standard plan (subscriptionInformation.planId) or a one-time plan
// (planInformation and orderInformation.amountDetails in the request).
func (s *Server) createSubscription(x *exchange, d doc) answer {
	m := x.member
	now := s.Clock()
	var c checks
	c.require(d, "subscriptionInformation.name")
	planID := d.str("subscriptionInformation.planId")
	oneTime := d.has("planInformation.billingPeriod") || d.has("planInformation.billingCycles")
	var p *plan
	switch {
	case planID != "" && oneTime:
		c.invalid("planInformation", "INVALID_DATA: give a planId or a one-time plan, not both")
	case planID != "":
		var found bool
		if p, found = planTarget.in(x, planID); !found {
			return planTarget.missing(x, planID)
		}
		switch p.status {
		case planDraft:
			c.invalid("subscriptionInformation.planId", "INVALID_DATA: a draft plan cannot be assigned until it is active")
		case planInactive:
			c.invalid("subscriptionInformation.planId", "INVALID_DATA: an inactive plan cannot create new subscriptions")
		}
	case oneTime:
		for _, f := range []string{"planInformation.code", "planInformation.name", "planInformation.description"} {
			if d.has(f) {
				c.invalid(f, "INVALID_DATA: a one-time plan has no code, name or description")
			}
		}
		p = &plan{oneTime: true, status: planActive, created: now, planTerms: readTerms(&c, d, planTerms{}, false)}
	default:
		c.require(d, "subscriptionInformation.planId")
	}
	cd, _ := readCustomer(&c, d, m, true)
	start := readStart(&c, d, now)
	var t planTerms
	if p != nil {
		t = p.planTerms
		if !p.oneTime {
			t = overrideAmounts(&c, d, t)
		}
	}
	code := d.str("subscriptionInformation.code")
	for _, sub := range m.subs {
		if code != "" && sub.code == code {
			c.invalid("subscriptionInformation.code", "DUPLICATE")
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	if code == "" {
		code = nextSubCode(m)
	}
	sub := &subscription{id: m.nextID(now), code: code, clientRef: d.str("clientReferenceInformation.code"),
		name: d.str("subscriptionInformation.name"), description: d.str("subscriptionInformation.description"),
		plan: p, terms: t, start: start, created: now, anchor: start, anchorCycle: 1, status: subPending, card: cd,
		firstName: d.str("orderInformation.billTo.firstName"), lastName: d.str("orderInformation.billTo.lastName")}
	if sub.clientRef == "" {
		sub.clientRef = code
	}
	sub.reschedule(m)
	m.subs = append(m.subs, sub)
	m.subByID[sub.id] = sub
	s.process(m, now)
	return reply(http.StatusCreated, s.subWriteJSON(sub, "COMPLETED"))
}

// overrideAmounts applies a subscription's own billingAmount and setupFee
// over its plan's; the currency stays the plan's.
func overrideAmounts(c *checks, d doc, t planTerms) planTerms {
	if v, ok := c.amountField(d, "orderInformation.amountDetails.billingAmount", false); ok {
		t.amount = v
	}
	if v, ok := c.amountField(d, "orderInformation.amountDetails.setupFee", false); ok {
		t.setupFee = v
	}
	if cur := c.currencyField(d, "orderInformation.amountDetails.currency", false); cur != "" && cur != t.currency {
		c.invalid("orderInformation.amountDetails.currency", "INVALID_DATA: the currency is the plan's")
	}
	return t
}

func nextSubCode(m *member) string {
	used := map[string]bool{}
	for _, sub := range m.subs {
		used[sub.code] = true
	}
	for n := len(m.subs) + 1; ; n++ {
		if c := fmt.Sprintf("SUB-%05d", n); !used[c] {
			return c
		}
	}
}

// badSubState declines an operation the subscription's state does not
// allow.
func badSubState(x *exchange, sub *subscription, what string) answer {
	return x.invalid(fmt.Sprintf("a %s subscription cannot be %s", sub.status, what),
		errorDetail{Field: "subscriptionInformation.status", Reason: "INVALID_STATE:" + sub.status})
}

// patchSubscription answers PATCH /rbs/v1/subscriptions/{id}: name,
// description, reference code, plan (switched only to an active plan),
// start date (while PENDING), amounts and customer token.
func (s *Server) patchSubscription(x *exchange, d doc, sub *subscription) answer {
	m := x.member
	if sub.status == subCancelled || sub.status == subCompleted {
		return badSubState(x, sub, "updated")
	}
	now := s.Clock()
	var c checks
	p, t := sub.plan, sub.terms
	if id := d.str("subscriptionInformation.planId"); id != "" && id != p.id {
		np, found := planTarget.in(x, id)
		switch {
		case !found:
			return planTarget.missing(x, id)
		case np.status != planActive:
			c.invalid("subscriptionInformation.planId", "INVALID_DATA: only an active plan can receive switched subscriptions")
		}
		p, t = np, np.planTerms
	}
	t = overrideAmounts(&c, d, t)
	start := sub.start
	if d.has("subscriptionInformation.startDate") {
		if sub.status != subPending {
			c.invalid("subscriptionInformation.startDate", "INVALID_DATA: only a PENDING subscription's start date can change")
		} else {
			start = readStart(&c, d, now)
		}
	}
	cd, newCard := readCustomer(&c, d, m, false)
	if d.has("subscriptionInformation.name") && d.str("subscriptionInformation.name") == "" {
		c.require(d, "subscriptionInformation.name")
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	if v := d.str("subscriptionInformation.name"); v != "" {
		sub.name = v
	}
	if d.has("subscriptionInformation.description") {
		sub.description = d.str("subscriptionInformation.description")
	}
	if v := d.str("clientReferenceInformation.code"); v != "" {
		sub.clientRef = v
	}
	if newCard {
		sub.card = cd
	}
	sub.plan = p
	if !start.Equal(sub.start) {
		sub.start, sub.anchor, sub.anchorCycle = start, start, 1
	}
	applyTerms(m, sub, t, t.unit != sub.terms.unit || t.length != sub.terms.length)
	s.process(m, now)
	return reply(http.StatusOK, s.subWriteJSON(sub, "ACCEPTED"))
}

// subLifecycle answers POST /rbs/v1/subscriptions/{id}/cancel, /suspend
// and /activate (facts). Cancel ends any subscription not yet ended;
// suspend stops an ACTIVE or DELINQUENT one; activate resumes a SUSPENDED
// one, billing the missed cycles now unless processMissedPayments=false.
func (s *Server) subLifecycle(op string) func(*exchange, noBody, *subscription) answer {
	return func(x *exchange, _ noBody, sub *subscription) answer {
		m := x.member
		now := s.Clock()
		switch op {
		case "cancel":
			if sub.status == subCancelled || sub.status == subCompleted {
				return badSubState(x, sub, "cancelled")
			}
			sub.suspend()
			sub.status = subCancelled
		case "suspend":
			if sub.status != subActive && sub.status != subDelinquent {
				return badSubState(x, sub, "suspended")
			}
			sub.suspend()
		case "activate":
			if sub.status != subSuspended {
				return badSubState(x, sub, "activated")
			}
			processMissed := !strings.EqualFold(x.r.URL.Query().Get("processMissedPayments"), "false")
			missed := sub.missed
			sub.missed, sub.status = 0, subActive
			if !processMissed {
				sub.current += missed
			}
			sub.reschedule(m)
			for _, pm := range sub.payments[sub.firstScheduled():] {
				if processMissed && pm.cycle <= sub.current+missed {
					pm.date = now
				}
			}
			s.process(m, now)
		}
		return reply(http.StatusOK, s.subWriteJSON(sub, "ACCEPTED"))
	}
}
