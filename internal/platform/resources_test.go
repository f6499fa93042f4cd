package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// offsetOf parses the offset and limit of a paged GET, failing the test on a
// missing one.
func offsetOf(t *testing.T, r *http.Request) (offset, limit int) {
	t.Helper()
	var err1, err2 error
	offset, err1 = strconv.Atoi(r.URL.Query().Get("offset"))
	limit, err2 = strconv.Atoi(r.URL.Query().Get("limit"))
	if err1 != nil || err2 != nil {
		t.Errorf("%s: bad offset or limit", r.RequestURI)
	}
	return offset, limit
}

func TestPlansThreePages(t *testing.T) {
	const total = 250
	var offsets []int
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		checkSignature(t, r, nil, testPortfolio)
		if r.URL.Path != "/rbs/v1/plans" || r.Header.Get("v-c-merchant-id") != "child1" {
			t.Errorf("unexpected %s %s", r.Method, r.RequestURI)
		}
		offset, limit := offsetOf(t, r)
		if limit != 100 {
			t.Errorf("limit %d, want 100", limit)
		}
		offsets = append(offsets, offset)
		var plans []string
		for i := offset; i < min(offset+limit, total); i++ {
			// Numbers arrive as JSON numbers for some plans: tolerated.
			cycles := `"12"`
			if i%2 == 1 {
				cycles = `12`
			}
			plans = append(plans, fmt.Sprintf(`{"id":"P%03d","planInformation":{"code":"C%d","status":"ACTIVE","name":"Gold","description":"d",
				"billingPeriod":{"length":"1","unit":"m"},"billingCycles":{"total":%s}},
				"orderInformation":{"amountDetails":{"currency":"USD","billingAmount":"10.00","setupFee":"1.50"}}}`, i, i, cycles))
		}
		next := ""
		if offset+limit < total {
			next = fmt.Sprintf(`,"next":{"href":"/rbs/v1/plans?offset=%d&limit=100","method":"GET"}`, offset+limit)
		}
		writeJSON(w, 200, fmt.Sprintf(`{"_links":{"self":{"href":"/rbs/v1/plans","method":"GET"}%s},"totalCount":%d,"plans":[%s]}`,
			next, total, strings.Join(plans, ",")))
	})
	var got []Plan
	for p, err := range c.Merchant("child1").Plans(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if fmt.Sprint(offsets) != "[0 100 200]" {
		t.Errorf("offsets %v, want [0 100 200]", offsets)
	}
	if len(got) != total {
		t.Fatalf("%d plans, want %d", len(got), total)
	}
	p := got[1]
	want := Plan{ID: "P001", Code: "C1", Status: "ACTIVE", Name: "Gold", Description: "d", PeriodLength: "1", PeriodUnit: "M",
		CyclesTotal: "12", BillingAmount: "10.00", SetupFee: "1.50", Currency: "USD"}
	p.Raw = nil
	if fmt.Sprintf("%+v", p) != fmt.Sprintf("%+v", want) {
		t.Errorf("plan\n%+v\nwant\n%+v", p, want)
	}
	var raw map[string]any
	if err := json.Unmarshal(got[0].Raw, &raw); err != nil || raw["id"] != "P000" {
		t.Errorf("Raw = %s", got[0].Raw)
	}
}

// Breaking out of the loop stops paging.
func TestPlansBreakStopsPaging(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, 200, `{"_links":{"next":{"href":"/rbs/v1/plans?offset=2&limit=100"}},"totalCount":1000,"plans":[{"id":"1"},{"id":"2"}]}`)
	})
	for range c.Merchant("m").Plans(context.Background()) {
		break
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
}

// An error mid-listing is yielded once, after the records before it.
func TestPlansErrorMidway(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("offset") == "0" {
			writeJSON(w, 200, `{"_links":{"next":{"href":"x"}},"totalCount":3,"plans":[{"id":"1"},{"id":"2"}]}`)
			return
		}
		writeJSON(w, 403, `{"status":"FORBIDDEN","reason":"NOT_AUTHORIZED"}`)
	})
	var n, errs int
	for _, err := range c.Merchant("m").Plans(context.Background()) {
		if err != nil {
			errs++
			if !IsStatus(err, 403) || !strings.Contains(err.Error(), "offset 2") {
				t.Errorf("err = %v", err)
			}
			continue
		}
		n++
	}
	if n != 2 || errs != 1 {
		t.Errorf("%d records, %d errors", n, errs)
	}
}

func TestSubscriptions(t *testing.T) {
	sub := func(id string) string {
		return `{"id":"` + id + `","clientReferenceInformation":{"code":"ORDER123"},
		  "planInformation":{"code":"PLN-7","name":"Gold","billingPeriod":{"length":1,"unit":"w"},"billingCycles":{"total":"12","current":3}},
		  "subscriptionInformation":{"code":"AWC-44","planId":"6034873819306413101960","name":"Gold monthly","startDate":"2026-04-13T17:01:42Z","status":"ACTIVE"},
		  "paymentInformation":{"customer":{"id":"C09F2A"}},
		  "orderInformation":{"amountDetails":{"currency":"USD","billingAmount":2.5,"setupFee":"1.00"},"billTo":{"firstName":"Ana"}}}`
	}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		checkSignature(t, r, nil, testPortfolio)
		if r.URL.Path != "/rbs/v1/subscriptions" {
			t.Errorf("path %s", r.URL.Path)
		}
		switch offset, _ := offsetOf(t, r); offset {
		case 0:
			writeJSON(w, 200, `{"_links":{"next":{"href":"/rbs/v1/subscriptions?offset=2&limit=100"}},"totalCount":3,"subscriptions":[`+sub("S1")+`,`+sub("S2")+`]}`)
		case 2:
			writeJSON(w, 200, `{"_links":{},"totalCount":3,"subscriptions":[`+sub("S3")+`]}`)
		default:
			t.Errorf("unexpected offset %d", offset)
			writeJSON(w, 200, `{"subscriptions":[]}`)
		}
	})
	var got []Subscription
	for s, err := range c.Merchant("child1").Subscriptions(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 3 || got[2].ID != "S3" {
		t.Fatalf("got %d subscriptions", len(got))
	}
	s := got[0]
	s.Raw = nil
	want := Subscription{ID: "S1", Code: "AWC-44", PlanID: "6034873819306413101960", PlanCode: "PLN-7", Name: "Gold monthly",
		Status: "ACTIVE", StartDate: "2026-04-13T17:01:42Z", CustomerID: "C09F2A", ClientReference: "ORDER123",
		BillingAmount: "2.5", SetupFee: "1.00", Currency: "USD", PeriodLength: "1", PeriodUnit: "W", CyclesTotal: "12", CyclesCurrent: "3"}
	if fmt.Sprintf("%+v", s) != fmt.Sprintf("%+v", want) {
		t.Errorf("subscription\n%+v\nwant\n%+v", s, want)
	}
}

func TestSubscriptionPaymentsMerged(t *testing.T) {
	const total = 150
	var queries []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		checkSignature(t, r, nil, testPortfolio)
		if r.URL.Path != "/rbs/v1/subscriptions/S%2F1/payments" && r.URL.RawPath != "/rbs/v1/subscriptions/S%2F1/payments" {
			t.Errorf("path %s", r.RequestURI)
		}
		if r.URL.Query().Get("scheduledPaymentsCount") != "9999" {
			t.Errorf("%s: scheduledPaymentsCount missing", r.RequestURI)
		}
		queries = append(queries, r.URL.RawQuery)
		offset, limit := offsetOf(t, r)
		var ps []string
		for i := offset; i < min(offset+limit, total); i++ {
			status, mod := "PAID", `false`
			if i >= 140 {
				status, mod = "SCHEDULED", `"true"`
			}
			ps = append(ps, fmt.Sprintf(`{"id":"PAY%d","status":"%s","paymentType":"STANDARD","transactionID":"T%d","date":"2026-01-01T00:00:00Z",
				"currency":"USD","billingStartDate":"a","billingEndDate":"b","billingCycle":"%d","paymentNumber":%d,"billingAmount":"2.00","modifiable":%s}`,
				i, status, i, i+1, i+1, mod))
		}
		submit := fmt.Sprintf("2026-11-20T10:15:0%dZ", offset/100)
		writeJSON(w, 200, fmt.Sprintf(`{"_links":{"self":{"href":"/self","method":"GET"},"update":{"href":"/upd","method":"PUT"}},
			"submitTimeUtc":%q,"totalCount":%d,"cyclesCompletedCount":{"paid":140,"failed":"0"},"billingCyclesToSkip":[145,"146"],
			"subscriptionPayment":[%s]}`, submit, total, strings.Join(ps, ",")))
	})
	list, err := c.Merchant("child1").SubscriptionPayments(context.Background(), "S/1")
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) != 2 || queries[0] != "offset=0&limit=100&scheduledPaymentsCount=9999" || !strings.HasPrefix(queries[1], "offset=100&") {
		t.Errorf("queries %q", queries)
	}
	if len(list.Payments) != total || list.TotalCount != total {
		t.Fatalf("%d payments, totalCount %d", len(list.Payments), list.TotalCount)
	}
	if list.SubmitTimeUTC != "2026-11-20T10:15:00Z" {
		t.Errorf("envelope not from the first page: %s", list.SubmitTimeUTC)
	}
	if list.CyclesCompleted["paid"] != 140 || fmt.Sprint(list.BillingCyclesToSkip) != "[145 146]" {
		t.Errorf("envelope %+v %v", list.CyclesCompleted, list.BillingCyclesToSkip)
	}
	if list.Links["update"] != (Link{Href: "/upd", Method: "PUT"}) {
		t.Errorf("links %+v", list.Links)
	}
	p0, p149 := list.Payments[0], list.Payments[149]
	if p0.ID != "PAY0" || p0.TransactionID != "T0" || p0.PaymentNumber != "1" || p0.Modifiable == nil || *p0.Modifiable {
		t.Errorf("payment 0 %+v", p0)
	}
	if p149.Status != "SCHEDULED" || p149.Modifiable == nil || !*p149.Modifiable || p149.BillingCycle != "150" {
		t.Errorf("payment 149 %+v", p149)
	}
	if !strings.Contains(string(p149.Raw), `"id":"PAY149"`) {
		t.Errorf("raw %s", p149.Raw)
	}
}

// TestGroupsFollowNext: the group list is read at the versioned path, the
// organization as the query parameter and no paging of ours (no offset,
// limit); further pages are the ones the platform links.
func TestGroupsFollowNext(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		checkSignature(t, r, nil, testPortfolio)
		if r.URL.Path != "/group-management/v1/groups" || r.URL.Query().Get("organizationId") != "sbx org" {
			t.Errorf("unexpected %s", r.RequestURI)
		}
		switch r.URL.Query().Get("page") {
		case "":
			if r.URL.RawQuery != "organizationId=sbx+org" {
				t.Errorf("first page %s: want the organization alone, no paging parameters", r.RequestURI)
			}
			writeJSON(w, 200, `{"organizationId":"sbx org","count":2,"_embedded":{"groups":[
				{"id":"1001","name":"East","description":"east stores","members":["mid1","mid2"],
				 "metadata":{"createdTime":"2026-01-01T00:00:00Z","lastUpdatedTime":"2026-02-01T00:00:00Z"},
				 "_links":{"self":{"href":"/group-management/v1/groups/1001"}}},
				{"id":1002,"name":"West","members":[]}]},
				"_links":{"self":{"href":"/group-management/v1/groups?organizationId=sbx+org"},
				          "next":{"href":"/group-management/v1/groups?organizationId=sbx+org&page=2"}}}`)
		case "2":
			writeJSON(w, 200, `{"organizationId":"sbx org","count":1,"_embedded":{"groups":[{"id":"1003","name":"North","members":["mid9"]}]},
				"_links":{"self":{"href":"/group-management/v1/groups?organizationId=sbx+org&page=2"}}}`)
		default:
			t.Errorf("unexpected %s", r.RequestURI)
		}
	})
	var got []Group
	for g, err := range c.Merchant("portfolio1").Groups(context.Background(), "sbx org") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, g)
	}
	if len(got) != 3 || calls.Load() != 2 {
		t.Fatalf("%d groups in %d requests", len(got), calls.Load())
	}
	g := got[0]
	if g.ID != "1001" || g.Name != "East" || g.Description != "east stores" || fmt.Sprint(g.Members) != "[mid1 mid2]" ||
		g.CreatedTime != "2026-01-01T00:00:00Z" || g.LastUpdatedTime != "2026-02-01T00:00:00Z" {
		t.Errorf("group %+v", g)
	}
	if got[1].ID != "1002" || got[2].Members[0] != "mid9" {
		t.Errorf("groups %+v", got[1:])
	}
}

// TestGroupsNextLinkOnly: a page that links no next page is the last, even
// when count is below any page size we might have guessed: no second
// request, no offset of ours.
func TestGroupsNextLinkOnly(t *testing.T) {
	var targets []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		targets = append(targets, r.RequestURI)
		writeJSON(w, 200, `{"organizationId":"o","count":1,"_embedded":{"groups":[{"id":"7","members":["m1"]}]},
			"_links":{"self":{"href":"/group-management/v1/groups?organizationId=o"}}}`)
	})
	n := 0
	for _, err := range c.Merchant("m").Groups(context.Background(), "o") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 || fmt.Sprint(targets) != "[/group-management/v1/groups?organizationId=o]" {
		t.Errorf("%d groups from %v", n, targets)
	}
}

// TestGroupsPathFormFallback: when the query form answers 404, the
// organization is tried as a path segment, and that listing's next links
// are followed.
func TestGroupsPathFormFallback(t *testing.T) {
	var targets []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		targets = append(targets, r.RequestURI)
		switch r.RequestURI {
		case "/group-management/v1/groups/sbx%20org":
			writeJSON(w, 200, `{"count":1,"_embedded":{"groups":[{"id":"1","members":["m1"]}]},
				"_links":{"next":{"href":"/group-management/v1/groups/sbx%20org?page=2"}}}`)
		case "/group-management/v1/groups/sbx%20org?page=2":
			writeJSON(w, 200, `{"count":1,"_embedded":{"groups":[{"id":"2","members":["m2"]}]}}`)
		default:
			writeJSON(w, 404, `{"errors":[{"type":"notFound","message":"The requested resource does not exist"}]}`)
		}
	})
	var ids []string
	for g, err := range c.Merchant("m").Groups(context.Background(), "sbx org") {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	want := "[/group-management/v1/groups?organizationId=sbx+org /group-management/v1/groups/sbx%20org /group-management/v1/groups/sbx%20org?page=2]"
	if fmt.Sprint(ids) != "[1 2]" || fmt.Sprint(targets) != want {
		t.Errorf("groups %v from %v, want [1 2] from %s", ids, targets, want)
	}
}

// TestGroupsAtGivenPath: a path given by the user (--groups-path) is the
// only one called.
func TestGroupsAtGivenPath(t *testing.T) {
	var targets []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		targets = append(targets, r.RequestURI)
		if r.URL.Path == "/gm/v2/orgs/o/groups" {
			writeJSON(w, 200, `{"_embedded":{"groups":[{"id":"1","members":["m1"]}]}}`)
			return
		}
		writeJSON(w, 404, `{"errors":[{"type":"notFound","message":"no"}]}`)
	})
	n := 0
	for _, err := range c.Merchant("m").GroupsAt(context.Background(), "o", "/gm/v2/orgs/{organizationId}/groups") {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 || fmt.Sprint(targets) != "[/gm/v2/orgs/o/groups]" {
		t.Errorf("%d groups from %v", n, targets)
	}
	for _, bad := range []string{"", "groups?organizationId={organizationId}", "//h/{organizationId}", "/group-management/v1/groups"} {
		if CheckGroupsPath(bad) == nil {
			t.Errorf("CheckGroupsPath(%q) accepted", bad)
		}
	}
	if err := CheckGroupsPath(DefaultGroupsPath); err != nil {
		t.Error(err)
	}
}

func TestGroupsNextLoopIsError(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "" {
			writeJSON(w, 200, `{"_embedded":{"groups":[{"id":"1"}]},"_links":{"next":{"href":"/group-management/v1/groups?organizationId=o&page=2"}}}`)
			return
		}
		writeJSON(w, 200, `{"_embedded":{"groups":[{"id":"2"}]},"_links":{"next":{"href":"/group-management/v1/groups?organizationId=o&page=2"}}}`)
	})
	var n int
	var last error
	for _, err := range c.Merchant("m").Groups(context.Background(), "o") {
		n++
		last = err
	}
	if n != 3 || !errors.Is(last, ErrInvalidData) {
		t.Errorf("%d yields, last error %v", n, last)
	}
}

// TestGroupsEndlessPagesBounded: next links that never end stop the
// listing: a page bringing no group not seen before ends it, and a
// platform bringing new groups forever fails it after maxGroupPages pages.
func TestGroupsEndlessPagesBounded(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		writeJSON(w, 200, fmt.Sprintf(`{"_embedded":{"groups":[{"id":"1","members":["m1"]}]},
			"_links":{"next":{"href":"/group-management/v1/groups?organizationId=o&page=%d"}}}`, n+1))
	})
	var ids []string
	for g, err := range c.Merchant("m").Groups(context.Background(), "o") {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	if fmt.Sprint(ids) != "[1]" || calls.Load() != 2 {
		t.Errorf("same group on every page: %v in %d requests, want [1] in 2", ids, calls.Load())
	}

	calls.Store(0)
	c, _ = newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		writeJSON(w, 200, fmt.Sprintf(`{"_embedded":{"groups":[{"id":"G%d"}]},
			"_links":{"next":{"href":"/group-management/v1/groups?organizationId=o&page=%d"}}}`, n, n+1))
	})
	var last error
	groups := 0
	for _, err := range c.Merchant("m").Groups(context.Background(), "o") {
		if err != nil {
			last = err
			continue
		}
		groups++
	}
	if !errors.Is(last, ErrInvalidData) || !strings.Contains(last.Error(), fmt.Sprintf("after %d pages", maxGroupPages)) ||
		calls.Load() != maxGroupPages {
		t.Errorf("endless new pages: %d requests, %d groups, error %v; want %d requests and an error", calls.Load(), groups, last, maxGroupPages)
	}
}

// TestGroupsUnavailable: group management refused (404 at both paths, 403,
// 401, or "not enabled") ends the listing with one error naming every
// request tried and the platform's own words.
func TestGroupsUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   []string
		tries  int
	}{
		{"404 at both paths", 404, `{"errors":[{"type":"notFound","message":"The requested resource does not exist"}]}`, []string{
			"group management is not available to this key (organization o): GET /group-management/v1/groups?organizationId=o answered 404 notFound: The requested resource does not exist",
			"; then GET /group-management/v1/groups/o answered 404 notFound: The requested resource does not exist"}, 2},
		{"403", 403, `{"status":"FORBIDDEN","reason":"NOT_AUTHORIZED","message":"Groups Manage permission needed"}`, []string{
			"GET /group-management/v1/groups?organizationId=o answered 403 FORBIDDEN NOT_AUTHORIZED: Groups Manage permission needed"}, 1},
		{"401", 401, `{"response":{"rmsg":"Authentication Failed"}}`, []string{
			"GET /group-management/v1/groups?organizationId=o answered 401 Unauthorized: Authentication Failed"}, 1},
		{"400 not enabled", 400, `{"status":"INVALID_REQUEST","reason":"INVALID_DATA","message":"Group Management is not enabled for this organization"}`, []string{
			"answered 400 INVALID_REQUEST INVALID_DATA: Group Management is not enabled for this organization"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				writeJSON(w, tc.status, tc.body)
			})
			var last error
			for _, err := range c.Merchant("m").Groups(context.Background(), "o") {
				last = err
			}
			var ue *GroupsUnavailableError
			if !errors.As(last, &ue) || !errors.Is(last, ErrGroupsUnavailable) || len(ue.Tried) != tc.tries || calls.Load() != int64(tc.tries) {
				t.Fatalf("error %v after %d requests; want a GroupsUnavailableError of %d tries", last, calls.Load(), tc.tries)
			}
			for _, w := range tc.want {
				if !strings.Contains(last.Error(), w) {
					t.Errorf("error\n%s\ndoes not say\n%s", last, w)
				}
			}
		})
	}
}

// searchServer serves Transaction Search over ids [1, n] in pages, except
// that the page at offset 2000 repeats the last id of the first page (drift),
// and reports totalCount total.
func searchServer(t *testing.T, ids []int, total int, bodies *[]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b := readReq(t, r)
		checkSignature(t, r, b, testPortfolio)
		if r.Method != "POST" || r.URL.Path != "/tss/v2/searches" {
			t.Errorf("unexpected %s %s", r.Method, r.RequestURI)
		}
		*bodies = append(*bodies, string(b))
		var req struct{ Offset, Limit int }
		if err := json.Unmarshal(b, &req); err != nil {
			t.Error(err)
		}
		var recs []string
		for i := req.Offset; i < min(req.Offset+req.Limit, len(ids)); i++ {
			recs = append(recs, fmt.Sprintf(`{"id":"%022d","submitTimeUtc":"2026-11-20T10:00:00Z","merchantId":"child1","status":"AUTHORIZED",
				"applicationInformation":{"reasonCode":"100","rCode":1,"rFlag":"SOK",
				  "applications":[{"name":"ics_auth","reasonCode":"100","rCode":"1","rFlag":"SOK","reconciliationId":"R1","rMessage":"ok"}]},
				"orderInformation":{"amountDetails":{"totalAmount":"12.34","currency":"USD"}},
				"paymentInformation":{"card":{"prefix":"411111","suffix":"1111","type":"001"},"customer":{"customerId":"CUS"}},
				"processingInformation":{"paymentSolution":"015","commerceIndicator":"internet","businessApplicationId":"AA"},
				"clientReferenceInformation":{"code":"ORD-%d"}}`, ids[i], ids[i]))
		}
		emb := ""
		if len(recs) > 0 {
			emb = `,"_embedded":{"transactionSummaries":[` + strings.Join(recs, ",") + `]}`
		}
		writeJSON(w, 201, fmt.Sprintf(`{"searchId":"s1","count":%d,"totalCount":%d,"status":"COMPLETED"%s}`, len(recs), total, emb))
	}
}

// The summaries are in the SDK's shape
// (TssV2TransactionsPost201ResponseEmbeddedTransactionSummaries): status at
// the top level, customer.customerId, no instrument identifier.
func TestSearchTransactionsDedupAndShortfall(t *testing.T) {
	// 5001 positions; position 2500 repeats id 2500 (the last of page 1).
	var ids []int
	for i := 1; i <= 2500; i++ {
		ids = append(ids, i)
	}
	for i := 2500; i <= 5000; i++ {
		ids = append(ids, i)
	}
	var bodies []string
	c, _ := newTestClient(t, searchServer(t, ids, len(ids), &bodies))
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	seen := map[string]int{}
	var errs []error
	var first TransactionSummary
	for s, err := range c.Merchant("child1").SearchTransactions(context.Background(), from, to) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(seen) == 0 {
			first = s
		}
		seen[s.ID]++
	}
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	// GMT (the guide's list has no UTC), the range in epoch milliseconds,
	// pages of 2500 (CreateSearchRequest's maximum).
	wantBody := `{"save":false,"name":"reconcile","timezone":"GMT","query":"submitTimeUtc:[1795132800000 TO 1795219200000}","offset":0,"limit":2500,"sort":"id:asc,submitTimeUtc:asc"}`
	if bodies[0] != wantBody {
		t.Errorf("request body\n%s\nwant\n%s", bodies[0], wantBody)
	}
	if !strings.Contains(bodies[1], `"offset":2500,`) || !strings.Contains(bodies[2], `"offset":5000,`) {
		t.Errorf("offsets in %s / %s", bodies[1], bodies[2])
	}
	if len(seen) != 5000 {
		t.Errorf("%d distinct ids, want 5000", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("id %s yielded %d times", id, n)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrShortfall) ||
		!strings.Contains(errs[0].Error(), "5000") || !strings.Contains(errs[0].Error(), "5001") {
		t.Errorf("errors %v, want one ErrShortfall naming 5000 and 5001", errs)
	}
	first.Raw = nil
	want := TransactionSummary{ID: fmt.Sprintf("%022d", 1), SubmitTimeUTC: "2026-11-20T10:00:00Z", MerchantID: "child1",
		Status: "AUTHORIZED", ReasonCode: "100", RCode: "1", RFlag: "SOK",
		Applications: []Application{{Name: "ics_auth", ReasonCode: "100", RCode: "1", RFlag: "SOK", ReconciliationID: "R1", RMessage: "ok"}},
		TotalAmount:  "12.34", Currency: "USD", CardPrefix: "411111", CardSuffix: "1111", CardType: "001",
		CustomerID: "CUS", PaymentSolution: "015", CommerceIndicator: "internet",
		BusinessApplicationID: "AA", ClientReference: "ORD-1"}
	if fmt.Sprintf("%+v", first) != fmt.Sprintf("%+v", want) {
		t.Errorf("summary\n%+v\nwant\n%+v", first, want)
	}
}

func TestSearchTransactionsComplete(t *testing.T) {
	var ids []int
	for i := 1; i <= 3000; i++ {
		ids = append(ids, i)
	}
	var bodies []string
	c, _ := newTestClient(t, searchServer(t, ids, len(ids), &bodies))
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, err := range c.Merchant("child1").SearchTransactions(context.Background(), from, from.Add(time.Hour)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3000 || len(bodies) != 2 {
		t.Errorf("%d summaries in %d requests", n, len(bodies))
	}
}

func TestSearchTransactionsEmpty(t *testing.T) {
	var bodies []string
	c, _ := newTestClient(t, searchServer(t, nil, 0, &bodies))
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, err := range c.Merchant("child1").SearchTransactions(context.Background(), from, from.Add(time.Hour)) {
		t.Fatalf("yielded %v", err)
	}
	if len(bodies) != 1 {
		t.Errorf("%d requests", len(bodies))
	}
	for _, err := range c.Merchant("child1").SearchTransactions(context.Background(), from, from) {
		if err == nil {
			t.Error("empty window accepted")
		}
	}
}

func TestLookupBINRefusesFullNumber(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	m := c.Merchant("child1")
	for _, q := range []BINQuery{
		{CardPrefix: "4111111111111111"},
		{CardPrefix: "411111111"},
		{CardPrefix: "41111"},
		{CardPrefix: "41111a"},
		{CardPrefix: "411111", CustomerID: "C1"},
		{},
	} {
		_, err := m.LookupBIN(context.Background(), q)
		if err == nil {
			t.Errorf("LookupBIN(%d-char prefix, customer %q) accepted", len(q.CardPrefix), q.CustomerID)
		} else if strings.Contains(err.Error(), "4111111111111111") {
			t.Errorf("error repeats the card number: %v", err)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("%d requests sent", calls.Load())
	}
}

func TestLookupBIN(t *testing.T) {
	var bodies []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b := readReq(t, r)
		checkSignature(t, r, b, testPortfolio)
		if r.URL.Path != "/bin/v1/binlookup" {
			t.Errorf("path %s", r.URL.Path)
		}
		bodies = append(bodies, string(b))
		switch {
		case strings.Contains(string(b), `"411111"`):
			writeJSON(w, 201, `{"id":"B1","submitTimeUtc":"2026-11-20T10:00:00Z","status":"MULTIPLE"}`)
		case strings.Contains(string(b), `"41111111"`):
			writeJSON(w, 201, `{"id":"B2","submitTimeUtc":"2026-11-20T10:00:00Z","status":"NO MATCH"}`)
		case strings.Contains(string(b), `"999999"`):
			writeJSON(w, 404, `{"id":"B3","submitTimeUtc":"2026-11-20T10:00:01Z","status":"NO MATCH"}`)
		case strings.Contains(string(b), `"888888"`):
			writeJSON(w, 404, `{"status":"NOT_FOUND","reason":"INVALID_DATA"}`)
		default:
			writeJSON(w, 201, `{"id":"B4","submitTimeUtc":"2026-11-20T10:00:02Z","status":"COMPLETED",
				"paymentAccountInformation":{"card":{"type":"001","brandName":"VISA","currency":"USD","maxLength":16,"credentialType":"TOKEN"},
				  "features":{"accountFundingSource":"DEBIT","accountFundingSourceSubType":"HSA","cardProduct":"Visa Classic","cardPlatform":"CONSUMER","healthCard":true}},
				"issuerInformation":{"name":"Bank","country":"US","binLength":"8","accountPrefix":"41111111"}}`)
		}
	})
	m := c.Merchant("child1")
	ctx := context.Background()

	res, err := m.LookupBIN(ctx, BINQuery{CardPrefix: "411111"})
	if err != nil || res.Status != BINMultiple || res.ID != "B1" {
		t.Errorf("MULTIPLE: %+v %v", res, err)
	}
	if bodies[0] != `{"paymentInformation":{"card":{"number":"411111"}}}` {
		t.Errorf("request body %s", bodies[0])
	}
	res, err = m.LookupBIN(ctx, BINQuery{CardPrefix: "41111111"})
	if err != nil || res.Status != BINNoMatch {
		t.Errorf("NO MATCH: %+v %v", res, err)
	}
	res, err = m.LookupBIN(ctx, BINQuery{CardPrefix: "999999"})
	if err != nil || res.Status != BINNoMatch || res.ID != "B3" || res.SubmitTimeUTC != "2026-11-20T10:00:01Z" || len(res.Raw) == 0 {
		t.Errorf("404 NO MATCH: %+v %v", res, err)
	}
	if _, err := m.LookupBIN(ctx, BINQuery{CardPrefix: "888888"}); !IsStatus(err, 404) {
		t.Errorf("404 NOT_FOUND: err = %v", err)
	}
	res, err = m.LookupBIN(ctx, BINQuery{CustomerID: "CUST1"})
	if err != nil {
		t.Fatal(err)
	}
	if bodies[len(bodies)-1] != `{"paymentInformation":{"customer":{"id":"CUST1"}}}` {
		t.Errorf("request body %s", bodies[len(bodies)-1])
	}
	raw := res.Raw
	res.Raw = nil
	yes := true
	want := BINResult{Status: "COMPLETED", ID: "B4", SubmitTimeUTC: "2026-11-20T10:00:02Z", CardType: "001", BrandName: "VISA",
		CardCurrency: "USD", CredentialType: "TOKEN", MaxLength: "16", FundingSource: "DEBIT", FundingSourceSubType: "HSA",
		CardPlatform: "CONSUMER", CardProduct: "Visa Classic", HealthCard: &yes, IssuerName: "Bank", IssuerCountry: "US",
		BINLength: "8", AccountPrefix: "41111111"}
	if res.HealthCard == nil || !*res.HealthCard {
		t.Errorf("HealthCard %v", res.HealthCard)
	}
	res.HealthCard, want.HealthCard = nil, nil
	if fmt.Sprintf("%+v", *res) != fmt.Sprintf("%+v", want) {
		t.Errorf("result\n%+v\nwant\n%+v", *res, want)
	}
	if !json.Valid(raw) {
		t.Errorf("Raw %s", raw)
	}
	for _, q := range []BINQuery{{InstrumentIdentifierID: "II1"}, {PaymentInstrumentID: "PI1"}} {
		if _, err := m.LookupBIN(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if bodies[len(bodies)-2] != `{"paymentInformation":{"instrumentIdentifier":{"id":"II1"}}}` ||
		bodies[len(bodies)-1] != `{"paymentInformation":{"paymentInstrument":{"id":"PI1"}}}` {
		t.Errorf("token bodies %s %s", bodies[len(bodies)-2], bodies[len(bodies)-1])
	}
}

func TestFlexTypes(t *testing.T) {
	var v struct {
		S  []flexString `json:"s"`
		B  []flexBool   `json:"b"`
		I  []flexInt    `json:"i"`
		Bo flexString   `json:"bo"`
	}
	err := json.Unmarshal([]byte(`{"s":["a",12.50,null,true],"b":[true,"N","yes",0,null,""],"i":[3,"4",5.0,null,""],"bo":false}`), &v)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(v.S) != "[a 12.50  true]" || v.Bo != "false" {
		t.Errorf("strings %q", v.S)
	}
	var bs []string
	for _, b := range v.B {
		if p := b.ptr(); p == nil {
			bs = append(bs, "nil")
		} else {
			bs = append(bs, strconv.FormatBool(*p))
		}
	}
	if strings.Join(bs, " ") != "true false true false nil nil" {
		t.Errorf("bools %s", bs)
	}
	if fmt.Sprint(v.I) != "[3 4 5 0 0]" {
		t.Errorf("ints %v", v.I)
	}
	for _, bad := range []string{`{"s":[{}]}`, `{"b":["maybe"]}`, `{"i":[1.5]}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
