package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // searchTimezoneListed reads IANA names on any host
)

// ---- transaction records ----

type appJSON struct {
	Name             string `json:"name"`
	ReasonCode       string `json:"reasonCode"`
	RCode            string `json:"rCode"`
	RFlag            string `json:"rFlag"`
	ReconciliationID string `json:"reconciliationId,omitempty"`
	RMessage         string `json:"rMessage"`
}

// appInfo is applicationInformation. Its status is a detail's only (SDK
// TssV2TransactionsGet200ResponseApplicationInformation); a summary carries
// status at its top level (SDK
// TssV2TransactionsPost201ResponseEmbeddedApplicationInformation has none).
type appInfo struct {
	Status       string    `json:"status,omitempty"`
	ReasonCode   string    `json:"reasonCode"`
	RCode        string    `json:"rCode"`
	RFlag        string    `json:"rFlag"`
	Applications []appJSON `json:"applications"`
}

type cardSummary struct {
	Prefix string `json:"prefix"`
	Suffix string `json:"suffix"`
	Type   string `json:"type"`
}

// txnPaymentInfo is paymentInformation. In a summary (SDK
// TssV2TransactionsPost201ResponseEmbeddedPaymentInformation) the customer
// is {customerId} (SDK Ptsv2refreshpaymentstatusidPaymentInformationCustomer)
// and there is no instrument identifier; a detail (SDK
// TssV2TransactionsGet200ResponsePaymentInformation) has customer
// {customerId, id}, instrumentIdentifier {id} and paymentInstrument {id}.
type txnPaymentInfo struct {
	Card                 *cardSummary `json:"card,omitempty"` // absent on buy-now-pay-later payments
	Customer             *txnCustomer `json:"customer,omitempty"`
	InstrumentIdentifier *idRef       `json:"instrumentIdentifier,omitempty"`
	PaymentInstrument    *idRef       `json:"paymentInstrument,omitempty"`
}

type txnCustomer struct {
	CustomerID string `json:"customerId,omitempty"`
	ID         string `json:"id,omitempty"`
}

type txnProcessing struct {
	PaymentSolution       string `json:"paymentSolution,omitempty"`
	CommerceIndicator     string `json:"commerceIndicator"`
	BusinessApplicationID string `json:"businessApplicationId,omitempty"`
	// AuthorizationOptions, in a transaction detail only: the credential
	// on file detail of a payment made through the API, including which
	// previous transaction id an MIT used (the merchant's, or the one
	// stored with the token).
	AuthorizationOptions map[string]any `json:"authorizationOptions,omitempty"`
}

type txnAmount struct {
	TotalAmount string `json:"totalAmount"`
	Currency    string `json:"currency"`
}

type txnOrder struct {
	AmountDetails txnAmount `json:"amountDetails"`
}

type summaryJSON struct {
	ID                         string          `json:"id"`
	SubmitTimeUtc              string          `json:"submitTimeUtc,omitempty"` // empty in a detail, which spells it submitTimeUTC
	MerchantID                 string          `json:"merchantId"`
	Status                     string          `json:"status"`
	ApplicationInformation     appInfo         `json:"applicationInformation"`
	OrderInformation           txnOrder        `json:"orderInformation"`
	PaymentInformation         txnPaymentInfo  `json:"paymentInformation"`
	ProcessingInformation      txnProcessing   `json:"processingInformation"`
	ClientReferenceInformation codeRef         `json:"clientReferenceInformation"`
	Links                      map[string]link `json:"_links,omitempty"`
}

type detailJSON struct {
	summaryJSON
	// SubmitTimeUTC is so spelled in a transaction detail (the SDK's
	// model), unlike the search results' submitTimeUtc.
	SubmitTimeUTC               string         `json:"submitTimeUTC"`
	RootID                      string         `json:"rootId"`
	ReconciliationID            string         `json:"reconciliationId"`
	RecurringPaymentInformation map[string]any `json:"recurringPaymentInformation,omitempty"`
	TokenInformation            map[string]any `json:"tokenInformation,omitempty"`
	InstallmentInformation      map[string]any `json:"installmentInformation,omitempty"`
	ErrorInformation            map[string]any `json:"errorInformation,omitempty"`
	ProcessorInformation        map[string]any `json:"processorInformation,omitempty"`
}

// applications gives a transaction's applications and overall status. A
// capture, credit or paid recurring payment is PENDING (awaiting
// settlement), an authorization AUTHORIZED, a decline DECLINED (docs/dev/wire.md).
func (t *transaction) applications() (status, rcode string, apps []appJSON) {
	if t.api != nil {
		app := t.api.app
		app.ReconciliationID = t.reconciliationID
		if t.kind == kindSale && t.api.decline == "" {
			// A sale is an authorization and its capture, as the
			// generated sales show it.
			bill := okApp("ics_bill")
			bill.ReconciliationID = t.reconciliationID
			return t.api.status, app.RCode, []appJSON{app, bill}
		}
		return t.api.status, app.RCode, []appJSON{app}
	}
	ok := func(name, msg string) appJSON {
		return appJSON{Name: name, ReasonCode: "100", RCode: "1", RFlag: "SOK", ReconciliationID: t.reconciliationID, RMessage: msg}
	}
	switch t.kind {
	case kindSubFailed:
		reason, flag, msg := "203", "DCARDREFUSED", "General decline of the card"
		if t.doNotRetry {
			reason, flag, msg = "205", "DCARDREFUSED", "Stolen or lost card: do not retry"
		}
		return "DECLINED", "0", []appJSON{{Name: "ics_auth", ReasonCode: reason, RCode: "0", RFlag: flag, ReconciliationID: t.reconciliationID, RMessage: msg}}
	case kindAuth:
		return "AUTHORIZED", "1", []appJSON{ok("ics_auth", "Request was processed successfully.")}
	case kindCapture:
		return "PENDING", "1", []appJSON{ok("ics_bill", "Request was processed successfully.")}
	case kindCredit:
		return "PENDING", "1", []appJSON{ok("ics_credit", "Request was processed successfully.")}
	default: // kindSale, kindSubPaid
		return "PENDING", "1", []appJSON{ok("ics_auth", "Request was processed successfully."), ok("ics_bill", "Request was processed successfully.")}
	}
}

func (t *transaction) summary(mid string) summaryJSON {
	status, rcode, apps := t.applications()
	reason, flag := "100", "SOK"
	if rcode == "0" {
		reason, flag = apps[0].ReasonCode, apps[0].RFlag
	}
	ci, solution := "internet", ""
	if t.sub != nil {
		ci = "recurring"
	}
	if t.api != nil {
		ci, solution = t.api.commerce, t.api.solution
	}
	var pi txnPaymentInfo
	if t.card != nil {
		pi.Card = &cardSummary{Prefix: t.card.prefix(), Suffix: t.card.suffix(), Type: t.card.cardType()}
		if t.card.customerID != "" {
			pi.Customer = &txnCustomer{CustomerID: t.card.customerID}
		}
	}
	return summaryJSON{ID: t.id, SubmitTimeUtc: ts(t.time), MerchantID: mid, Status: status,
		ApplicationInformation:     appInfo{ReasonCode: reason, RCode: rcode, RFlag: flag, Applications: apps},
		OrderInformation:           txnOrder{AmountDetails: txnAmount{TotalAmount: moneyIn(t.amount, t.currency), Currency: t.currency}},
		PaymentInformation:         pi,
		ProcessingInformation:      txnProcessing{CommerceIndicator: ci, PaymentSolution: solution},
		ClientReferenceInformation: codeRef{Code: t.code},
		Links:                      map[string]link{"transactionDetail": {Href: "/tss/v2/transactions/" + t.id, Method: http.MethodGet}},
	}
}

func (t *transaction) detail(mid string) detailJSON {
	sum := t.summary(mid)
	sum.Links = map[string]link{"self": {Href: "/tss/v2/transactions/" + t.id, Method: http.MethodGet}}
	d := detailJSON{SubmitTimeUTC: sum.SubmitTimeUtc, RootID: t.rootID, ReconciliationID: t.reconciliationID,
		ProcessorInformation: map[string]any{"networkTransactionId": t.networkTxnID, "transactionId": t.networkTxnID}}
	sum.SubmitTimeUtc = ""
	sum.ApplicationInformation.Status = sum.Status
	if c := t.card; c != nil && c.customerID != "" {
		sum.PaymentInformation.Customer = &txnCustomer{CustomerID: c.customerID, ID: c.customerID}
		sum.PaymentInformation.InstrumentIdentifier = &idRef{ID: c.instrumentID}
		if c.paymentInstrumentID != "" {
			sum.PaymentInformation.PaymentInstrument = &idRef{ID: c.paymentInstrumentID}
		}
	}
	d.summaryJSON = sum
	if t.approvalCode != "" {
		d.ProcessorInformation["approvalCode"] = t.approvalCode
	}
	if t.sub != nil {
		d.RecurringPaymentInformation = map[string]any{"subscriptionId": t.sub.id, "paymentId": t.pay.id,
			"billingCycle": strconv.Itoa(t.pay.cycle), "paymentType": t.pay.ptype}
	}
	if t.card != nil && t.card.customerID != "" {
		d.TokenInformation = map[string]any{"customer": idRef{ID: t.card.customerID},
			"instrumentIdentifier": map[string]string{"id": t.card.instrumentID, "state": "ACTIVE"},
			"paymentInstrument":    idRef{ID: t.card.paymentInstrumentID}}
	}
	if t.kind == kindSubFailed {
		app := sum.ApplicationInformation.Applications[0]
		d.ErrorInformation = map[string]any{"reason": "PROCESSOR_DECLINED", "message": app.RMessage}
	}
	if a := t.api; a != nil {
		if a.decline != "" {
			d.ErrorInformation = map[string]any{"reason": a.decline, "message": a.app.RMessage}
		}
		if a.par != "" {
			d.ProcessorInformation["paymentAccountReferenceNumber"] = a.par
		}
		if a.tokens != nil {
			d.TokenInformation = a.tokens
		}
		if a.previousTxnID != "" || a.initiator != "" {
			d.ProcessingInformation.AuthorizationOptions = map[string]any{"initiator": map[string]any{
				"type": a.initiator, "merchantInitiatedTransaction": map[string]any{"previousTransactionId": a.previousTxnID}}}
		}
		if a.accept != nil {
			d.InstallmentInformation = a.accept.detail()
		}
	}
	return d
}

func (s *Server) getTransaction(x *exchange, _ noBody, t *transaction) answer {
	return reply(http.StatusOK, t.detail(x.member.id))
}

// ---- Transaction Search ----

// flexInt accepts a JSON number or a numeric string.
type flexInt struct {
	n   int
	set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer: %s", b)
	}
	f.n, f.set = n, true
	return nil
}

type searchRequest struct {
	Save     bool    `json:"save"`
	Name     string  `json:"name"`
	Timezone string  `json:"timezone"`
	Query    string  `json:"query"`
	Offset   flexInt `json:"offset"`
	Limit    flexInt `json:"limit"`
	Sort     string  `json:"sort"`
}

// maxSearchLimit: "The default is 20, the maximum is 2500" (SDK
// src/model/CreateSearchRequest.js, limit).
const maxSearchLimit = 2500

// search answers POST /tss/v2/searches (201, as the platform's other
// creates). Every search is kept (searchStore) so that its self link,
// GET /tss/v2/searches/{id}, answers it again over the data as it is then.
func (s *Server) search(x *exchange, req searchRequest) answer {
	id := searchID()
	a, ok := s.runSearch(x, id, req, http.StatusCreated)
	if ok {
		s.searches.put(id, storedSearch{mid: x.mid, req: req})
	}
	return a
}

// getSearch answers GET /tss/v2/searches/{id}: the search of this
// merchant, run again.
func (s *Server) getSearch(x *exchange, _ noBody) answer {
	id := x.r.PathValue("id")
	st, ok := s.searches.get(id)
	if !ok || st.mid != x.mid {
		return x.notFound("search " + id + " was not found")
	}
	a, _ := s.runSearch(x, id, st.req, http.StatusOK)
	return a
}

// runSearch answers a search request; false when it was invalid.
func (s *Server) runSearch(x *exchange, id string, req searchRequest, code int) (answer, bool) {
	offset, limit := req.Offset.n, 20
	if req.Limit.set {
		limit = req.Limit.n
	}
	var details []errorDetail
	if limit < 1 || limit > maxSearchLimit {
		details = append(details, errorDetail{Field: "limit", Reason: fmt.Sprintf("must be between 1 and %d", maxSearchLimit)})
	}
	if offset < 0 {
		details = append(details, errorDetail{Field: "offset", Reason: "must not be negative"})
	}
	if !searchTimezoneListed(req.Timezone) {
		details = append(details, errorDetail{Field: "timezone", Reason: fmt.Sprintf("%q is not a supported time zone", req.Timezone)})
	}
	q, err := parseQuery(req.Query, s.Clock())
	if err != nil {
		details = append(details, errorDetail{Field: "query", Reason: err.Error()})
	}
	sortKeys, err := parseSort(req.Sort)
	if err != nil {
		details = append(details, errorDetail{Field: "sort", Reason: err.Error()})
	}
	if len(details) > 0 {
		return x.validationError("invalid search request", details...), false
	}
	var hits []*transaction
	var sums []summaryJSON
	mid := x.mid
	if tm, ok := q.scopeTerm(); ok {
		if refused := s.mayScope(x, q, tm); refused != nil {
			return *refused, false
		}
		var total int
		sums, total = s.searchAcross(q, sortKeys, offset, limit)
		return s.searchAnswer(id, req, code, offset, limit, sums, total), true
	}
	if m := x.member; m != nil {
		for _, t := range m.txns {
			if q.match(t, mid) {
				hits = append(hits, t)
			}
		}
		sort.SliceStable(hits, func(i, j int) bool {
			for _, k := range sortKeys {
				var c int
				if k.field == "id" {
					c = strings.Compare(hits[i].id, hits[j].id)
				} else {
					c = hits[i].time.Compare(hits[j].time)
				}
				if k.desc {
					c = -c
				}
				if c != 0 {
					return c < 0
				}
			}
			return hits[i].id < hits[j].id
		})
		page := window(hits, offset, limit)
		sums = make([]summaryJSON, len(page))
		for i, t := range page {
			sums[i] = t.summary(mid)
		}
	}
	return s.searchAnswer(id, req, code, offset, limit, sums, len(hits)), true
}

// searchAnswer is the answer to a search: a page of summaries of the total
// found.
func (s *Server) searchAnswer(id string, req searchRequest, code, offset, limit int, sums []summaryJSON, total int) answer {
	resp := map[string]any{
		"searchId": id, "save": req.Save, "name": req.Name, "timezone": req.Timezone, "query": req.Query,
		"offset": offset, "limit": limit, "sort": req.Sort, "count": len(sums), "totalCount": total,
		"status": "COMPLETED", "submitTimeUtc": s.now(),
		"_links": map[string]link{"self": {Href: "/tss/v2/searches/" + id, Method: http.MethodGet}},
	}
	if len(sums) > 0 {
		resp["_embedded"] = map[string]any{"transactionSummaries": sums}
	}
	return reply(code, resp)
}

// storedSearch is a search request kept for GET /tss/v2/searches/{id}.
type storedSearch struct {
	mid string
	req searchRequest
}

// searchStore keeps the most recent searches (a bounded FIFO: a client
// reads a search back soon after making it).
type searchStore struct {
	mu    sync.Mutex
	byID  map[string]storedSearch
	order []string
}

const maxStoredSearches = 4096

func newSearchStore() *searchStore { return &searchStore{byID: map[string]storedSearch{}} }

func (st *searchStore) put(id string, v storedSearch) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.byID[id] = v
	st.order = append(st.order, id)
	if len(st.order) > maxStoredSearches {
		delete(st.byID, st.order[0])
		st.order = st.order[1:]
	}
}

func (st *searchStore) get(id string) (storedSearch, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	v, ok := st.byID[id]
	return v, ok
}

func searchID() string {
	a, b := rand.Uint64(), rand.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

type sortKey struct {
	field string
	desc  bool
}

// parseSort reads "id:asc,submitTimeUtc:desc"; empty means newest first.
func parseSort(s string) ([]sortKey, error) {
	if strings.TrimSpace(s) == "" {
		return []sortKey{{field: "submitTimeUtc", desc: true}}, nil
	}
	var out []sortKey
	for _, part := range strings.Split(s, ",") {
		f, dir, _ := strings.Cut(strings.TrimSpace(part), ":")
		f = strings.TrimSpace(f)
		if f != "id" && f != "submitTimeUtc" {
			return nil, fmt.Errorf("unsupported sort field %q (id, submitTimeUtc)", f)
		}
		switch strings.ToLower(strings.TrimSpace(dir)) {
		case "", "asc":
			out = append(out, sortKey{field: f})
		case "desc":
			out = append(out, sortKey{field: f, desc: true})
		default:
			return nil, fmt.Errorf("unsupported sort direction %q", dir)
		}
	}
	return out, nil
}

// query is a disjunction of conjunctions of terms.
type query [][]term

type term struct {
	field            string
	value            string // exact match when !isRange
	isRange          bool
	lo, hi           string // "" = open
	loT, hiT         time.Time
	loIncl, hiIncl   bool
	timeField, exact bool
}

var searchFields = map[string]bool{"submitTimeUtc": true, "merchantId": true, "id": true, "clientReferenceInformation.code": true}

// parseQuery reads the subset of the search syntax the sandbox supports
// (docs/dev/wire.md): field:value and field:[A TO B} terms (either bracket on either
// side, * for an open end) joined by AND or OR, AND binding tighter. Date
// math (NOW, NOW/DAY, NOW-1DAY …) is relative to the data clock, the
// sandbox's "now": that is the instant the generated data is as of.
func parseQuery(s string, now time.Time) (query, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("query is required")
	}
	var q query
	var conj []term
	expectTerm := true
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if !expectTerm {
			word, rest, _ := strings.Cut(s, " ")
			switch strings.ToUpper(word) {
			case "AND":
			case "OR":
				q = append(q, conj)
				conj = nil
			default:
				return nil, fmt.Errorf("expected AND or OR at %q", s)
			}
			s, expectTerm = rest, true
			continue
		}
		colon := strings.IndexByte(s, ':')
		if colon <= 0 {
			return nil, fmt.Errorf("expected field:value at %q", s)
		}
		t := term{field: strings.TrimSpace(s[:colon])}
		if !searchFields[t.field] {
			return nil, fmt.Errorf("unsupported field %q", t.field)
		}
		t.timeField = t.field == "submitTimeUtc"
		s = s[colon+1:]
		switch {
		case strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{"):
			end := strings.IndexAny(s, "]}")
			if end < 0 {
				return nil, fmt.Errorf("unterminated range in %q", s)
			}
			lo, hi, ok := strings.Cut(s[1:end], " TO ")
			if !ok {
				// A single value in brackets, as the guide writes an
				// ISO time: submitTimeUtc:[2022-05-11T03:21:03Z].
				if s[0] != '[' || s[end] != ']' || strings.TrimSpace(s[1:end]) == "" {
					return nil, fmt.Errorf("range %q lacks TO", s[:end+1])
				}
				t.value, s = strings.TrimSpace(s[1:end]), s[end+1:]
				break
			}
			t.isRange, t.loIncl, t.hiIncl = true, s[0] == '[', s[end] == ']'
			t.lo, t.hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
			s = s[end+1:]
		case strings.HasPrefix(s, `"`):
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote in %q", s)
			}
			t.value, s = s[1:1+end], s[2+end:]
		default:
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			t.value, s = s[:end], s[end:]
		}
		if t.timeField {
			var err error
			if t.isRange {
				if t.loT, err = parseTimeValue(t.lo, now); err != nil {
					return nil, err
				}
				if t.hiT, err = parseTimeValue(t.hi, now); err != nil {
					return nil, err
				}
			} else {
				if t.loT, err = parseTimeValue(t.value, now); err != nil {
					return nil, err
				}
			}
		}
		conj = append(conj, t)
		expectTerm = false
	}
	if expectTerm {
		return nil, errors.New("query ends with an operator")
	}
	return append(q, conj), nil
}

// parseTimeValue reads a submitTimeUtc value in a form the Transaction
// Search guide ("Filtering Using the submitTimeUtc Field") documents: UNIX
// epoch milliseconds (submitTimeUtc:[1556712000000 TO 1556757600000]) or
// date math (NOW/DAY-1DAY); an ISO 8601 time in UTC (the guide's
// submitTimeUtc:[2022-05-11T03:21:03Z], unverified as a range end); or *
// (an open end, zero time). Anything else (a bare date, a time with an
// offset, seconds since the epoch) is refused.
func parseTimeValue(v string, now time.Time) (time.Time, error) {
	if v == "*" || v == "" {
		return time.Time{}, nil
	}
	if allDigitsString(v) {
		if len(v) < 12 || len(v) > 13 {
			return time.Time{}, fmt.Errorf("cannot read time %q: epoch time is in milliseconds (13 digits)", v)
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("cannot read time %q", v)
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	if strings.HasSuffix(v, "Z") {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC(), nil
		}
	}
	if !strings.HasPrefix(v, "NOW") {
		return time.Time{}, fmt.Errorf("cannot read time %q: want epoch milliseconds, date math (NOW/DAY-1DAY) or yyyy-MM-ddTHH:mm:ssZ", v)
	}
	t, rest := now, v[3:]
	for rest != "" {
		op := rest[0]
		rest = rest[1:]
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		n := 1
		if op != '/' {
			var err error
			if n, err = strconv.Atoi(rest[:i]); err != nil {
				return time.Time{}, fmt.Errorf("cannot read date math %q", v)
			}
		}
		j := i
		for j < len(rest) && rest[j] >= 'A' && rest[j] <= 'Z' {
			j++
		}
		unit := strings.TrimSuffix(rest[i:j], "S")
		rest = rest[j:]
		switch op {
		case '/':
			t = truncateTo(t, unit)
			if t.IsZero() {
				return time.Time{}, fmt.Errorf("unknown unit in %q", v)
			}
		case '+', '-':
			if op == '-' {
				n = -n
			}
			var ok bool
			if t, ok = addUnit(t, unit, n); !ok {
				return time.Time{}, fmt.Errorf("unknown unit in %q", v)
			}
		default:
			return time.Time{}, fmt.Errorf("cannot read date math %q", v)
		}
	}
	return t, nil
}

func allDigitsString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func truncateTo(t time.Time, unit string) time.Time {
	y, m, d := t.Date()
	switch unit {
	case "YEAR":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "MONTH":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "DAY":
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "HOUR":
		return t.Truncate(time.Hour)
	case "MINUTE":
		return t.Truncate(time.Minute)
	case "SECOND":
		return t.Truncate(time.Second)
	}
	return time.Time{}
}

func addUnit(t time.Time, unit string, n int) (time.Time, bool) {
	switch unit {
	case "YEAR":
		return t.AddDate(n, 0, 0), true
	case "MONTH":
		return t.AddDate(0, n, 0), true
	case "DAY":
		return t.AddDate(0, 0, n), true
	case "HOUR":
		return t.Add(time.Duration(n) * time.Hour), true
	case "MINUTE":
		return t.Add(time.Duration(n) * time.Minute), true
	case "SECOND":
		return t.Add(time.Duration(n) * time.Second), true
	}
	return t, false
}

func (q query) match(t *transaction, mid string) bool {
	for _, conj := range q {
		all := true
		for i := range conj {
			if !conj[i].match(t, mid) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func (tm *term) match(t *transaction, mid string) bool {
	if tm.timeField {
		if !tm.isRange {
			return t.time.Equal(tm.loT)
		}
		if !tm.loT.IsZero() && (t.time.Before(tm.loT) || (!tm.loIncl && t.time.Equal(tm.loT))) {
			return false
		}
		if !tm.hiT.IsZero() && (t.time.After(tm.hiT) || (!tm.hiIncl && t.time.Equal(tm.hiT))) {
			return false
		}
		return true
	}
	var v string
	switch tm.field {
	case resellerField, accountField:
		// Every member is under the one portfolio and its one account;
		// the server checked the key owns the one named (mayScope).
		return true
	case "merchantId":
		v = mid
	case "id":
		v = t.id
	case "clientReferenceInformation.code":
		v = t.code
	}
	if !tm.isRange {
		return v == tm.value
	}
	if tm.lo != "*" && tm.lo != "" && (v < tm.lo || (!tm.loIncl && v == tm.lo)) {
		return false
	}
	if tm.hi != "*" && tm.hi != "" && (v > tm.hi || (!tm.hiIncl && v == tm.hi)) {
		return false
	}
	return true
}

// Time zones of a search. The Transaction Search guide's "Supported Time
// Zones" (API column) lists the values a request may set; it is sorted by
// name, has GMT, and has no UTC. listedTimezones are its entries as far as
// they were read (through America/Mexico_City); a name sorting after that is
// accepted when it is an IANA name (the list's form), except UTC and its
// aliases, which the list lacks. Anything else answers 400.
var listedTimezones = map[string]bool{
	"GMT": true, "Africa/Cairo": true, "Africa/Johannesburg": true, "Africa/Tripoli": true, "Africa/Tunis": true,
	"America/Anchorage": true, "America/Bogota": true, "America/Buenos_Aires": true, "America/Chicago": true,
	"America/Denver": true, "America/Edmonton": true, "America/Godthab": true, "America/Halifax": true,
	"America/Indianapolis": true, "America/La_Paz": true, "America/Los_Angeles": true, "America/Mexico_City": true,
}

const lastListedTimezoneRead = "America/Mexico_City"

var utcAliases = map[string]bool{"UTC": true, "Etc/UTC": true, "UCT": true, "Etc/UCT": true, "Zulu": true,
	"Etc/Zulu": true, "Universal": true, "Etc/Universal": true}

// searchTimezoneListed reports whether a search may name tz ("" leaves the
// platform's default: CreateSearchRequest has no required field).
func searchTimezoneListed(tz string) bool {
	switch {
	case tz == "" || listedTimezones[tz]:
		return true
	case utcAliases[tz] || tz <= lastListedTimezoneRead || !strings.Contains(tz, "/"):
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}
