package sandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Recurring billing plans (spec: Plan, the plan state table, recurring
// billing endpoints, Errors).

type planJSON struct {
	Links            *linkSet  `json:"_links"`
	ID               string    `json:"id"`
	PlanInformation  planInfo  `json:"planInformation"`
	OrderInformation orderInfo `json:"orderInformation"`
}

type planInfo struct {
	Code          string      `json:"code"`
	Status        string      `json:"status"`
	Name          string      `json:"name"`
	Description   string      `json:"description,omitempty"`
	BillingPeriod period      `json:"billingPeriod"`
	BillingCycles *cyclesInfo `json:"billingCycles,omitempty"`
}

type period struct {
	Length string `json:"length"`
	Unit   string `json:"unit"`
}

type cyclesInfo struct {
	Total   string `json:"total,omitempty"`
	Current string `json:"current,omitempty"`
}

type orderInfo struct {
	AmountDetails amountDetails `json:"amountDetails"`
	BillTo        *billToJSON   `json:"billTo,omitempty"`
}

type amountDetails struct {
	Currency      string `json:"currency"`
	BillingAmount string `json:"billingAmount"`
	SetupFee      string `json:"setupFee,omitempty"`
}

type billToJSON struct {
	FirstName          string `json:"firstName"`
	LastName           string `json:"lastName"`
	Address1           string `json:"address1,omitempty"`
	Locality           string `json:"locality,omitempty"`
	AdministrativeArea string `json:"administrativeArea,omitempty"`
	PostalCode         string `json:"postalCode,omitempty"`
	Country            string `json:"country,omitempty"`
	Email              string `json:"email,omitempty"`
}

func renderPlan(p *plan) planJSON {
	self := "/rbs/v1/plans/" + p.id
	links := &linkSet{Self: &link{Href: self, Method: http.MethodGet}}
	switch p.status {
	case planActive:
		links.Update = &link{Href: self, Method: http.MethodPatch}
		links.Deactivate = &link{Href: self + "/deactivate", Method: http.MethodPost}
	case planDraft:
		links.Update = &link{Href: self, Method: http.MethodPatch}
		links.Activate = &link{Href: self + "/activate", Method: http.MethodPost}
	case planInactive:
		// An inactive plan cannot be amended: only activation is offered.
		links.Activate = &link{Href: self + "/activate", Method: http.MethodPost}
	}
	pj := planJSON{Links: links, ID: p.id,
		PlanInformation: planInfo{Code: p.code, Status: p.status, Name: p.name, Description: p.description,
			BillingPeriod: period{Length: strconv.Itoa(p.length), Unit: string(p.unit)}},
		OrderInformation: orderInfo{AmountDetails: amountDetails{Currency: p.currency, BillingAmount: moneyIn(p.amount, p.currency), SetupFee: optMoneyIn(p.setupFee, p.currency)}}}
	if p.total > 0 {
		pj.PlanInformation.BillingCycles = &cyclesInfo{Total: strconv.Itoa(p.total)}
	}
	return pj
}

func (s *Server) listPlans(x *exchange, _ noBody) answer {
	offset, limit, refused := x.page(20, 100, "filters", "code", "status", "name")
	if refused != nil {
		return *refused
	}
	query := x.r.URL.Query()
	q := url.Values{}
	var filters []filterTerm
	if f := query.Get("filters"); f != "" {
		var err error
		if filters, err = parseFilters(f); err != nil {
			return x.validationError("invalid filters", errorDetail{Field: "filters", Reason: err.Error()})
		}
		q.Set("filters", f)
	}
	// The SDK's filters (PlansApi.getPlans): code and status equal, case
	// aside; name a prefix of the plan's name ("first sub string or full
	// string"). They combine with filters and with each other by AND.
	code, status, name := query.Get("code"), query.Get("status"), query.Get("name")
	for k, v := range map[string]string{"code": code, "status": status, "name": name} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var plans []*plan
	out := make([]planJSON, 0, limit)
	if m := x.member; m != nil {
		for _, p := range m.plans {
			if matchFilters(filters, p) && (code == "" || strings.EqualFold(code, p.code)) &&
				(status == "" || strings.EqualFold(status, p.status)) &&
				(name == "" || hasPrefixFold(p.name, name)) {
				plans = append(plans, p)
			}
		}
		for _, p := range window(plans, offset, limit) {
			out = append(out, renderPlan(p))
		}
	}
	return reply(http.StatusOK, map[string]any{
		"_links": pageLinks("/rbs/v1/plans", q, offset, limit, len(plans), true), "totalCount": len(plans), "plans": out,
	})
}

// hasPrefixFold reports whether s begins with prefix, case aside.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func (s *Server) getPlan(x *exchange, _ noBody, p *plan) answer {
	return reply(http.StatusOK, renderPlan(p))
}

// planCode answers the next consecutive code after the merchant's last
// specified one (spec: GET plans/code).
func (s *Server) planCode(x *exchange, _ noBody) answer {
	code := "1"
	if m := x.member; m != nil {
		code = nextPlanCode(m)
	}
	return reply(http.StatusOK, map[string]string{"code": code})
}

// planCodeRE is the spec's plan code: digits or letters with dash and dot,
// at most 10 characters.
var planCodeRE = regexp.MustCompile(`^[A-Za-z0-9.-]{1,10}$`)

// nextPlanCode is the code after the last merchant-specified code (the
// last plan in creation order whose code the merchant gave), incremented
// as a counter over its trailing run of digits or letters, skipping codes
// in use. The generated plans' codes (PLN-001, …) count as specified.
func nextPlanCode(m *member) string {
	last := ""
	used := map[string]bool{}
	for _, p := range m.plans {
		used[p.code] = true
		if p.codeGiven {
			last = p.code
		}
	}
	code := last
	for range 1000 {
		next, ok := incrementCode(code)
		if !ok {
			break
		}
		if !used[next] {
			return next
		}
		code = next
	}
	// No consecutive code fits in 10 characters: a fresh one.
	for n := len(m.plans) + 1; ; n++ {
		if c := fmt.Sprintf("SBX%07d", n); !used[c] {
			return c
		}
	}
}

// incrementCode counts code up by one over its trailing run of digits or
// of letters ("PLN-009" → "PLN-010", "AZ" → "BA", "" → "1"); false when
// the result would exceed 10 characters or there is no trailing run.
func incrementCode(code string) (string, bool) {
	if code == "" {
		return "1", true
	}
	b := []byte(code)
	class := func(c byte) byte {
		switch {
		case c >= '0' && c <= '9':
			return '0'
		case c >= 'a' && c <= 'z':
			return 'a'
		case c >= 'A' && c <= 'Z':
			return 'A'
		}
		return 0
	}
	k := class(b[len(b)-1])
	if k == 0 {
		return "", false
	}
	top := map[byte]byte{'0': '9', 'a': 'z', 'A': 'Z'}[k]
	i := len(b) - 1
	for ; i >= 0 && class(b[i]) == k; i-- {
		if b[i] != top {
			b[i]++
			return string(b), true
		}
		b[i] = k
	}
	// Overflow: the run grows by one place ("99" → "100", "ZZ" → "AAA").
	first := k
	if k == '0' {
		first = '1'
	}
	out := string(b[:i+1]) + string(first) + string(b[i+1:])
	return out, len(out) <= 10
}

// readTerms reads and checks the billing fields of a plan body. partial: only
// the fields present are read (an amendment), the rest come from base.
func readTerms(c *checks, d doc, base planTerms, partial bool) planTerms {
	t := base
	lengthP, unitP := "planInformation.billingPeriod.length", "planInformation.billingPeriod.unit"
	if !partial || d.has(lengthP) || d.has(unitP) {
		c.require(d, lengthP, unitP)
		if l, err := strconv.Atoi(d.str(lengthP)); err == nil && l > 0 {
			t.length = l
		} else if d.str(lengthP) != "" {
			c.invalid(lengthP, "")
		}
		switch u := strings.ToUpper(d.str(unitP)); u {
		case "D", "W", "M", "Y":
			t.unit = u[0]
		case "":
		default:
			c.invalid(unitP, "")
		}
		// The interval between payments cannot exceed 12 months (spec).
		if c.ok() && !withinAYear(t.unit, t.length) {
			c.invalid(lengthP, "INVALID_DATA: the interval between payments cannot exceed 12 months")
		}
	}
	totalP := "planInformation.billingCycles.total"
	if !partial || d.has(totalP) {
		c.require(d, totalP)
		// "0" bills indefinitely: the spec does not show how a
		// bill-indefinitely plan is asked for, and 0 is what the
		// response side reads as indefinite (docs/dev/wire.md).
		if n, err := strconv.Atoi(d.str(totalP)); err == nil && n >= 0 && n <= 9999 {
			t.total = n
		} else if d.str(totalP) != "" {
			c.invalid(totalP, "")
		}
	}
	amountP, curP, feeP := "orderInformation.amountDetails.billingAmount", "orderInformation.amountDetails.currency", "orderInformation.amountDetails.setupFee"
	if !partial || d.has(amountP) {
		if v, ok := c.amountField(d, amountP, true); ok {
			t.amount = v
		}
	}
	if !partial || d.has(curP) {
		if v := c.currencyField(d, curP, true); v != "" {
			t.currency = v
		}
	}
	if d.has(feeP) {
		if v, ok := c.amountField(d, feeP, false); ok {
			t.setupFee = v
		}
	} else if !partial {
		t.setupFee = 0
	}
	return t
}

// withinAYear reports whether a billing period of length units is at
// most 12 months: 12 M, 1 Y, 52 W or 365 D.
func withinAYear(unit byte, length int) bool {
	limit := map[byte]int{'D': 365, 'W': 52, 'M': 12, 'Y': 1}[unit]
	return length <= limit
}

// planWriteJSON is the answer of a plan create, amend or state change.
func (s *Server) planWriteJSON(p *plan) map[string]any {
	return map[string]any{"_links": renderPlan(p).Links, "id": p.id, "submitTimeUtc": s.clockNow(),
		"status": "COMPLETED", "planInformation": map[string]string{"code": p.code, "status": p.status}}
}

// codeInUse reports whether a live plan of m other than self has code.
func codeInUse(m *member, code string, self *plan) bool {
	for _, p := range m.plans {
		if p != self && p.code == code {
			return true
		}
	}
	return false
}

// createPlan answers POST /rbs/v1/plans (201).
func (s *Server) createPlan(x *exchange, d doc) answer {
	m := x.member
	var c checks
	c.require(d, "planInformation.name")
	t := readTerms(&c, d, planTerms{}, false)
	status := planActive
	switch st := strings.ToUpper(d.str("planInformation.status")); st {
	case "", planActive:
	case planDraft:
		status = planDraft
	default:
		c.invalid("planInformation.status", "")
	}
	code := d.str("planInformation.code")
	if code != "" {
		if !planCodeRE.MatchString(code) {
			c.invalid("planInformation.code", "")
		} else if codeInUse(m, code, nil) {
			c.invalid("planInformation.code", "DUPLICATE")
		}
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	p := &plan{id: m.nextID(now), code: code, codeGiven: code != "", name: d.str("planInformation.name"),
		description: d.str("planInformation.description"), status: status, planTerms: t, created: now}
	if code == "" {
		p.code = nextPlanCode(m)
	}
	m.plans = append(m.plans, p)
	m.planByID[p.id] = p
	return reply(http.StatusCreated, s.planWriteJSON(p))
}

// patchPlan answers PATCH /rbs/v1/plans/{id} under the spec's amend rules:
// a draft plan changes freely; an active plan only its billing period,
// billing cycles and currency; an inactive plan not at all. applyTo ALL
// carries the new terms to the plan's existing subscriptions, NEW (the
// default) to new ones only.
func (s *Server) patchPlan(x *exchange, d doc, p *plan) answer {
	m := x.member
	if p.status == planInactive {
		return x.invalid("an inactive plan cannot be amended: activate it first",
			errorDetail{Field: "planInformation.status", Reason: "INVALID_STATE:" + planInactive})
	}
	var c checks
	applyTo := "NEW"
	if v := strings.ToUpper(d.str("processingInformation.subscriptionBillingOptions.applyTo")); v != "" {
		if v != "ALL" && v != "NEW" {
			c.invalid("processingInformation.subscriptionBillingOptions.applyTo", "")
		}
		applyTo = v
	}
	if p.status == planActive {
		for _, f := range []string{"planInformation.code", "planInformation.name", "planInformation.description",
			"planInformation.status", "orderInformation.amountDetails.billingAmount", "orderInformation.amountDetails.setupFee"} {
			if d.has(f) {
				c.invalid(f, "NOT_AMENDABLE:"+planActive)
			}
		}
	}
	t := readTerms(&c, d, p.planTerms, true)
	code, name, status := p.code, p.name, p.status
	if d.has("planInformation.code") && p.status == planDraft {
		code = d.str("planInformation.code")
		if !planCodeRE.MatchString(code) {
			c.invalid("planInformation.code", "")
		} else if codeInUse(m, code, p) {
			c.invalid("planInformation.code", "DUPLICATE")
		}
	}
	if d.has("planInformation.name") {
		if name = d.str("planInformation.name"); name == "" {
			c.require(d, "planInformation.name")
		}
	}
	if v := strings.ToUpper(d.str("planInformation.status")); v != "" && p.status == planDraft {
		if v != planDraft && v != planActive {
			c.invalid("planInformation.status", "")
		}
		status = v
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	periodChanged := t.unit != p.unit || t.length != p.length
	p.code, p.name, p.status, p.planTerms = code, name, status, t
	if d.has("planInformation.code") {
		p.codeGiven = true
	}
	if d.has("planInformation.description") {
		p.description = d.str("planInformation.description")
	}
	if applyTo == "ALL" {
		for _, sub := range m.subs {
			if sub.plan == p {
				applyTerms(m, sub, t, periodChanged)
			}
		}
	}
	return reply(http.StatusOK, s.planWriteJSON(p))
}

// applyTerms moves a subscription onto new terms. A new period starts
// from the next cycle due, which keeps its date.
func applyTerms(m *member, sub *subscription, t planTerms, periodChanged bool) {
	switch sub.status {
	case subActive, subPending, subDelinquent, subSuspended:
	default:
		return
	}
	next := sub.current + 1
	if sub.status == subSuspended {
		next = sub.current + sub.missed + 1
	}
	if periodChanged {
		at := sub.cycleDate(next)
		if i := sub.firstScheduled(); i < len(sub.payments) {
			at, next = sub.payments[i].date, sub.payments[i].cycle
		}
		sub.anchor, sub.anchorCycle = at, next
	}
	sub.terms = t
	sub.reschedule(m)
}

// planState answers POST /rbs/v1/plans/{id}/activate and /deactivate by
// the state table: draft or inactive → active; active → inactive.
func (s *Server) planState(to string) func(*exchange, noBody, *plan) answer {
	return func(x *exchange, _ noBody, p *plan) answer {
		allowed := map[string]bool{planDraft: to == planActive, planInactive: to == planActive, planActive: to == planInactive}[p.status]
		if !allowed {
			return x.invalid(fmt.Sprintf("a %s plan cannot move to %s", p.status, to),
				errorDetail{Field: "planInformation.status", Reason: "INVALID_STATE:" + p.status})
		}
		p.status = to
		return reply(http.StatusOK, s.planWriteJSON(p))
	}
}

// deletePlan answers DELETE /rbs/v1/plans/{id} (the path and method are not
// shown; this is the platform's REST form). A draft plan may be deleted;
// an active or inactive one only if no subscription was ever assigned.
func (s *Server) deletePlan(x *exchange, _ noBody, p *plan) answer {
	m := x.member
	if p.status != planDraft {
		for _, sub := range m.subs {
			if sub.plan == p {
				return x.invalid("a plan that was ever assigned to a subscription cannot be deleted",
					errorDetail{Field: "id", Reason: "PLAN_ASSIGNED"})
			}
		}
	}
	for i, q := range m.plans {
		if q == p {
			m.plans = append(m.plans[:i:i], m.plans[i+1:]...)
			break
		}
	}
	delete(m.planByID, p.id)
	return reply(http.StatusOK, map[string]any{"id": p.id, "submitTimeUtc": s.clockNow(), "status": "COMPLETED",
		"planInformation": map[string]string{"code": p.code, "status": "DELETED"}})
}
