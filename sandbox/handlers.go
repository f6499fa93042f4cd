package sandbox

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type link struct {
	Href   string `json:"href"`
	Method string `json:"method,omitempty"`
}

func money(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// intParam reads an integer query parameter with a default and a range; a
// value out of range or not a number is a VALIDATION_ERROR detail.
func intParam(q url.Values, name string, def, lo, hi int) (int, *errorDetail) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, &errorDetail{Field: name, Reason: fmt.Sprintf("must be an integer between %d and %d", lo, hi)}
	}
	return n, nil
}

// pageParams reads offset and limit; the error is already answered.
func (s *Server) pageParams(w http.ResponseWriter, r *http.Request, defLimit, maxLimit int) (offset, limit int, ok bool) {
	q := r.URL.Query()
	var details []errorDetail
	offset, d1 := intParam(q, "offset", 0, 0, 1<<31-1)
	limit, d2 := intParam(q, "limit", defLimit, 1, maxLimit)
	for _, d := range []*errorDetail{d1, d2} {
		if d != nil {
			details = append(details, *d)
		}
	}
	if len(details) > 0 {
		s.writeError(w, info(r), http.StatusBadRequest, "INVALID_REQUEST", "VALIDATION_ERROR", "invalid paging parameters", details...)
		return 0, 0, false
	}
	return offset, limit, true
}

// pageLinks builds self and, while more remain, next links.
func pageLinks(path string, q url.Values, offset, limit, total int, withMethod bool) map[string]link {
	method := ""
	if withMethod {
		method = http.MethodGet
	}
	mk := func(off int) link {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("offset", strconv.Itoa(off))
		v.Set("limit", strconv.Itoa(limit))
		return link{Href: path + "?" + v.Encode(), Method: method}
	}
	links := map[string]link{"self": mk(offset)}
	if offset+limit < total {
		links["next"] = mk(offset + limit)
	}
	return links
}

func window[T any](items []T, offset, limit int) []T {
	if offset >= len(items) {
		return items[:0:0]
	}
	return items[offset:min(len(items), offset+limit)]
}

// ---- groups ----

type groupItem struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Members     []string        `json:"members"`
	Metadata    groupMeta       `json:"metadata"`
	Links       map[string]link `json:"_links"`
}

type groupMeta struct {
	CreatedTime     string `json:"createdTime"`
	LastUpdatedTime string `json:"lastUpdatedTime"`
}

type groupRecord struct {
	GroupID                   string   `json:"groupId"`
	OrganizationID            string   `json:"organizationId"`
	Name                      string   `json:"name"`
	Description               string   `json:"description"`
	CreationDateTime          string   `json:"creationDateTime"`
	UpdatedDateTime           string   `json:"updatedDateTime"`
	Type                      string   `json:"type"`
	SelectedOrganizationCount string   `json:"selectedOrganizationCount"`
	SelectedOrganizationIDs   []string `json:"selectedOrganizationIds"`
}

func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) {
	s.groupList(w, r, r.URL.Query().Get("organizationId"), "/groups")
}

// getGroupOrList serves both /groups/{groupId} and the spec's example path
// form /groups/{organizationId}: group ids are numeric and the organization
// id is not, and a group id wins if they ever collide.
func (s *Server) getGroupOrList(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	for _, g := range s.groups {
		if g.id == id {
			s.writeJSON(w, http.StatusOK, groupRecord{GroupID: g.id, OrganizationID: s.cfg.OrganizationID,
				Name: g.name, Description: g.description,
				CreationDateTime: g.created.Format(time.DateTime), UpdatedDateTime: g.updated.Format(time.DateTime),
				Type: "CUSTOM", SelectedOrganizationCount: strconv.Itoa(len(g.members)),
				SelectedOrganizationIDs: g.members})
			return
		}
	}
	if id == s.cfg.OrganizationID {
		s.groupList(w, r, id, "/groups/"+url.PathEscape(id))
		return
	}
	s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", "group "+id+" was not found")
}

// groupList answers with the organization's groups whatever merchant the
// request acts for: the key belongs to the organization. Asking for another
// organization's groups is 403, as the spec's permissions rule it.
func (s *Server) groupList(w http.ResponseWriter, r *http.Request, org, path string) {
	ri := info(r)
	if org == "" {
		s.writeError(w, ri, http.StatusBadRequest, "INVALID_REQUEST", "VALIDATION_ERROR", "organizationId is required",
			errorDetail{Field: "organizationId", Reason: "MISSING_FIELD"})
		return
	}
	if org != s.cfg.OrganizationID {
		s.writeError(w, ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED", "no access to the groups of organization "+org)
		return
	}
	offset, limit, ok := s.pageParams(w, r, 100, 1000)
	if !ok {
		return
	}
	page := window(s.groups, offset, limit)
	items := make([]groupItem, 0, len(page))
	for _, g := range page {
		items = append(items, groupItem{ID: g.id, Name: g.name, Description: g.description, Members: g.members,
			Metadata: groupMeta{CreatedTime: ts(g.created), LastUpdatedTime: ts(g.updated)},
			Links:    map[string]link{"self": {Href: "/group-management/v1/groups/" + g.id}}})
	}
	q := url.Values{}
	if path == "/groups" {
		q.Set("organizationId", org)
	}
	links := pageLinks(path, q, offset, limit, len(s.groups), false)
	if next, ok := links["next"]; ok && path != "/groups" {
		// The next page is named in the query form, which every client reads.
		nq := url.Values{"organizationId": {org}, "offset": {strconv.Itoa(offset + limit)}, "limit": {strconv.Itoa(limit)}}
		next.Href = "/groups?" + nq.Encode()
		links["next"] = next
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"organizationId": org, "count": len(items), "totalCount": len(s.groups),
		"_embedded": map[string]any{"groups": items}, "_links": links,
	})
}

// ---- plans ----

type planJSON struct {
	Links            map[string]link `json:"_links"`
	ID               string          `json:"id"`
	PlanInformation  planInfo        `json:"planInformation"`
	OrderInformation orderInfo       `json:"orderInformation"`
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

func optMoney(c int64) string {
	if c == 0 {
		return ""
	}
	return money(c)
}

func renderPlan(p *plan) planJSON {
	self := "/rbs/v1/plans/" + p.id
	links := map[string]link{"self": {Href: self, Method: http.MethodGet}}
	switch p.status {
	case planActive:
		links["update"] = link{Href: self, Method: http.MethodPatch}
		links["deactivate"] = link{Href: self + "/deactivate", Method: http.MethodPost}
	case planDraft:
		links["update"] = link{Href: self, Method: http.MethodPatch}
		links["activate"] = link{Href: self + "/activate", Method: http.MethodPost}
	case planInactive:
		// An inactive plan cannot be amended: only activation is offered.
		links["activate"] = link{Href: self + "/activate", Method: http.MethodPost}
	}
	pj := planJSON{Links: links, ID: p.id,
		PlanInformation: planInfo{Code: p.code, Status: p.status, Name: p.name, Description: p.description,
			BillingPeriod: period{Length: strconv.Itoa(p.length), Unit: string(p.unit)}},
		OrderInformation: orderInfo{AmountDetails: amountDetails{Currency: p.currency, BillingAmount: money(p.amount), SetupFee: optMoney(p.setupFee)}}}
	if p.total > 0 {
		pj.PlanInformation.BillingCycles = &cyclesInfo{Total: strconv.Itoa(p.total)}
	}
	return pj
}

func (s *Server) listPlans(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := s.pageParams(w, r, 20, 100)
	if !ok {
		return
	}
	var plans []*plan
	if m := info(r).member; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		plans = m.plans
	}
	out := make([]planJSON, 0, limit)
	for _, p := range window(plans, offset, limit) {
		out = append(out, renderPlan(p))
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"_links": pageLinks("/rbs/v1/plans", url.Values{}, offset, limit, len(plans), true), "totalCount": len(plans), "plans": out,
	})
}

func (s *Server) getPlan(w http.ResponseWriter, r *http.Request) {
	ri := info(r)
	id := r.PathValue("id")
	if m := ri.member; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if p, ok := m.planByID[id]; ok {
			s.writeJSON(w, http.StatusOK, renderPlan(p))
			return
		}
	}
	s.writeError(w, ri, http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", "plan "+id+" was not found")
}

// planCode answers the next consecutive code after the merchant's last one
// (codes are PLN-nnn in the sandbox).
func (s *Server) planCode(w http.ResponseWriter, r *http.Request) {
	n := 0
	if m := info(r).member; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range m.plans {
			if v, err := strconv.Atoi(strings.TrimPrefix(p.code, "PLN-")); err == nil && v > n {
				n = v
			}
		}
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"code": fmt.Sprintf("PLN-%03d", n+1)})
}

// ---- subscriptions ----

type subscriptionJSON struct {
	Links                      map[string]link   `json:"_links"`
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
	Code      string `json:"code"`
	PlanID    string `json:"planId"`
	Name      string `json:"name"`
	StartDate string `json:"startDate"`
	Status    string `json:"status"`
}

type subPaymentInfo struct {
	Customer idRef `json:"customer"`
}

type idRef struct {
	ID string `json:"id"`
}

type reactivationInfo struct {
	SkippedPaymentsCount       string `json:"skippedPaymentsCount"`
	SkippedPaymentsTotalAmount string `json:"skippedPaymentsTotalAmount"`
}

func renderSubscription(sub *subscription, detail bool) subscriptionJSON {
	p := sub.plan
	self := "/rbs/v1/subscriptions/" + sub.id
	sj := subscriptionJSON{
		Links:                      map[string]link{"self": {Href: self, Method: http.MethodGet}},
		ID:                         sub.id,
		ClientReferenceInformation: codeRef{Code: sub.code},
		PlanInformation: subPlanInfo{Code: p.code, Name: p.name,
			BillingPeriod: period{Length: strconv.Itoa(p.length), Unit: string(p.unit)},
			BillingCycles: cyclesInfo{Current: strconv.Itoa(sub.current)}},
		SubscriptionInformation: subInfo{Code: sub.code, PlanID: p.id, Name: sub.name, StartDate: ts(sub.start), Status: sub.status},
		PaymentInformation:      subPaymentInfo{Customer: idRef{ID: sub.card.customerID}},
		OrderInformation: orderInfo{
			AmountDetails: amountDetails{Currency: p.currency, BillingAmount: money(p.amount), SetupFee: optMoney(p.setupFee)},
			BillTo:        &billToJSON{FirstName: sub.firstName, LastName: sub.lastName}},
	}
	if p.total > 0 {
		sj.PlanInformation.BillingCycles.Total = strconv.Itoa(p.total)
	}
	if detail {
		sj.ReactivationInformation = &reactivationInfo{SkippedPaymentsCount: strconv.Itoa(sub.missed),
			SkippedPaymentsTotalAmount: money(int64(sub.missed) * p.amount)}
	}
	return sj
}

func (s *Server) listSubscriptions(w http.ResponseWriter, r *http.Request) {
	offset, limit, ok := s.pageParams(w, r, 20, 100)
	if !ok {
		return
	}
	q := r.URL.Query()
	filters := url.Values{}
	for _, k := range []string{"status", "code", "customerId"} {
		if v := q.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	var subs []*subscription
	if m := info(r).member; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, sub := range m.subs {
			if (filters.Get("status") == "" || strings.EqualFold(filters.Get("status"), sub.status)) &&
				(filters.Get("code") == "" || filters.Get("code") == sub.code) &&
				(filters.Get("customerId") == "" || filters.Get("customerId") == sub.card.customerID) {
				subs = append(subs, sub)
			}
		}
	}
	out := make([]subscriptionJSON, 0, limit)
	for _, sub := range window(subs, offset, limit) {
		out = append(out, renderSubscription(sub, false))
	}
	s.writeJSON(w, http.StatusOK, map[string]any{
		"_links":     pageLinks("/rbs/v1/subscriptions", filters, offset, limit, len(subs), true),
		"totalCount": len(subs), "subscriptions": out,
	})
}

func (s *Server) subNotFound(w http.ResponseWriter, r *http.Request, id string) {
	s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", "Subscription "+id+" not found")
}

func (s *Server) getSubscription(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if m := info(r).member; m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if sub, ok := m.subByID[id]; ok {
			s.writeJSON(w, http.StatusOK, renderSubscription(sub, true))
			return
		}
	}
	s.subNotFound(w, r, id)
}

type paymentJSON struct {
	ID                   string `json:"id"`
	Status               string `json:"status"`
	PaymentType          string `json:"paymentType"`
	TransactionID        string `json:"transactionID,omitempty"`
	Date                 string `json:"date"`
	Currency             string `json:"currency"`
	BillingStartDate     string `json:"billingStartDate"`
	BillingEndDate       string `json:"billingEndDate"`
	BillingCycle         string `json:"billingCycle"`
	PaymentNumber        string `json:"paymentNumber"`
	BillingAmount        string `json:"billingAmount"`
	SetupFee             string `json:"setupFee,omitempty"`
	SurchargeAmount      string `json:"surchargeAmount,omitempty"`
	SurchargeDescription string `json:"surchargeDescription,omitempty"`
	Modifiable           bool   `json:"modifiable"`
}

func renderPayment(pm *payment) paymentJSON {
	pj := paymentJSON{ID: pm.id, Status: pm.status, PaymentType: pm.ptype, TransactionID: pm.txnID,
		Date: ts(pm.date), Currency: pm.currency, BillingStartDate: ts(pm.periodStart), BillingEndDate: ts(pm.periodEnd),
		BillingCycle: strconv.Itoa(pm.cycle), PaymentNumber: strconv.Itoa(pm.number),
		BillingAmount: money(pm.amount), SetupFee: optMoney(pm.setupFee),
		// Future payments can be skipped or restored; they are all more than
		// two hours after the data clock.
		Modifiable: !pm.processed()}
	if pm.surcharge > 0 {
		pj.SurchargeAmount, pj.SurchargeDescription = money(pm.surcharge), "Card surcharge"
	}
	return pj
}

// listPayments lists every processed payment, then at most
// scheduledPaymentsCount future ones (wire.md).
func (s *Server) listPayments(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q := r.URL.Query()
	var details []errorDetail
	offset, d1 := intParam(q, "offset", 0, 0, 1<<31-1)
	limit, d2 := intParam(q, "limit", 20, 1, 100)
	count, d3 := intParam(q, "scheduledPaymentsCount", 5, 0, 9999)
	for _, d := range []*errorDetail{d1, d2, d3} {
		if d != nil {
			details = append(details, *d)
		}
	}
	if len(details) > 0 {
		s.writeError(w, info(r), http.StatusBadRequest, "INVALID_REQUEST", "VALIDATION_ERROR", "invalid query parameters", details...)
		return
	}
	m := info(r).member
	if m == nil {
		s.subNotFound(w, r, id)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	sub, ok := m.subByID[id]
	if !ok {
		s.subNotFound(w, r, id)
		return
	}
	var listed []*payment
	final := map[int]string{}
	scheduled := 0
	for _, pm := range sub.payments {
		if pm.processed() {
			listed = append(listed, pm)
			final[pm.cycle] = strings.ToLower(pm.status)
		} else if scheduled < count {
			listed = append(listed, pm)
			scheduled++
		}
	}
	// cyclesCompletedCount counts cycles by the status of their last
	// processed payment (a retried cycle counts once).
	completed := map[string]int{}
	for _, st := range final {
		completed[st]++
	}
	out := make([]paymentJSON, 0, limit)
	for _, pm := range window(listed, offset, limit) {
		out = append(out, renderPayment(pm))
	}
	path := "/rbs/v1/subscriptions/" + id + "/payments"
	links := pageLinks(path, url.Values{"scheduledPaymentsCount": {strconv.Itoa(count)}}, offset, limit, len(listed), true)
	links["update"] = link{Href: path, Method: http.MethodPut}
	skip := append([]int{}, sub.skipped...)
	s.writeJSON(w, http.StatusOK, map[string]any{
		"_links": links, "submitTimeUtc": s.now(), "totalCount": len(listed),
		"cyclesCompletedCount": completed, "billingCyclesToSkip": skip, "subscriptionPayment": out,
	})
}
