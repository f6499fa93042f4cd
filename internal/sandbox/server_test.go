package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAuthentication(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	member := memberID(1)
	good := c.sg
	cases := []struct {
		name   string
		sg     signer
		tamper func(*http.Request)
		mid    string
		method string
		want   int
	}{
		{name: "valid GET", sg: good, mid: member, method: "GET", want: 200},
		{name: "valid POST", sg: good, mid: member, method: "POST", want: 201},
		{name: "organization acting for itself", sg: good, mid: DefaultOrganizationID, method: "GET", want: 200},
		{name: "old (request-target) spelling", sg: signer{KeyID: good.KeyID, Secret: good.Secret, SignAs: good.SignAs, OldStyle: true}, mid: member, method: "POST", want: 201},
		{name: "wrong secret", sg: signer{KeyID: good.KeyID, Secret: []byte("not the secret, not at all...."), SignAs: good.SignAs}, mid: member, method: "GET", want: 401},
		{name: "unknown key", sg: signer{KeyID: "other-key", Secret: good.Secret, SignAs: good.SignAs}, mid: member, method: "GET", want: 401},
		{name: "date 6 minutes late", sg: signer{KeyID: good.KeyID, Secret: good.Secret, SignAs: good.SignAs, Date: func() time.Time { return time.Now().Add(-6 * time.Minute) }}, mid: member, method: "GET", want: 401},
		{name: "date 6 minutes early", sg: signer{KeyID: good.KeyID, Secret: good.Secret, SignAs: good.SignAs, Date: func() time.Time { return time.Now().Add(6 * time.Minute) }}, mid: member, method: "GET", want: 401},
		{name: "bad digest", sg: good, mid: member, method: "POST", want: 401, tamper: func(r *http.Request) {
			r.Header.Set("Digest", "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
		}},
		{name: "signing line carries the child MID", sg: signer{KeyID: good.KeyID, Secret: good.Secret, SignAs: member}, mid: member, method: "GET", want: 401},
		{name: "portfolio signing for a child MID", sg: good, mid: memberID(4), method: "GET", want: 200},
		{name: "member without Recurring Billing", sg: good, mid: memberID(5), method: "GET", want: 400},
		{name: "merchant outside the organization", sg: good, mid: "othermid0001", method: "GET", want: 403},
		{name: "member beyond the scale", sg: good, mid: memberID(6), method: "GET", want: 403},
		{name: "missing signature", sg: good, mid: member, method: "GET", want: 401, tamper: func(r *http.Request) { r.Header.Del("Signature") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cc := *c
			cc.t, cc.sg, cc.tamper = t, tc.sg, tc.tamper
			var resp *http.Response
			var body []byte
			var err error
			if tc.method == "GET" {
				resp, body, err = cc.do("GET", "/rbs/v1/plans?offset=0&limit=5", tc.mid, nil)
			} else {
				resp, body, err = cc.do("POST", "/bin/v1/binlookup", tc.mid, cardLookup("411111"))
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if resp.Header.Get("v-c-correlation-id") == "" {
				t.Error("no v-c-correlation-id header")
			}
			if tc.want == 401 {
				var eb struct{ Response struct{ RMsg string } }
				if err := json.Unmarshal(body, &eb); err != nil || eb.Response.RMsg == "" {
					t.Errorf("401 body %s, want the vendor's {\"response\":{\"rmsg\":…}}", body)
				}
			} else if tc.want >= 400 {
				var eb testErrorBody
				if err := json.Unmarshal(body, &eb); err != nil {
					t.Fatalf("error body: %v: %s", err, body)
				}
				want := map[int][2]string{400: {"INVALID_REQUEST", "INVALID_MERCHANT_CONFIGURATION"}, 403: {"FORBIDDEN", "NOT_AUTHORIZED"}}[tc.want]
				if eb.Status != want[0] || eb.Reason != want[1] || eb.Message == "" {
					t.Errorf("error body %+v, want %v with a message", eb, want)
				}
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	mid := memberID(0)
	for _, tc := range []struct{ method, path, status, reason, msg string }{
		{"GET", "/rbs/v1/plans/1234567890123456789012", "NOT_FOUND", "INVALID_DATA", "plan"},
		{"GET", "/rbs/v1/subscriptions/1234567890123456789012", "NOT_FOUND", "INVALID_DATA", "ubscription 1234567890123456789012 not found"},
		{"GET", "/rbs/v1/subscriptions/1234567890123456789012/payments", "NOT_FOUND", "INVALID_DATA", "not found"},
		{"GET", "/tss/v2/transactions/1234567890123456789012", "NOT_FOUND", "INVALID_DATA", "not found"},
		{"GET", "/group-management/v1/groups/999", "NOT_FOUND", "INVALID_DATA", "not found"},
		{"GET", "/no/such/thing", "NOT_FOUND", "INVALID_DATA", "no resource"},
		{"DELETE", "/rbs/v1/plans", "NOT_FOUND", "INVALID_DATA", "no resource"},
	} {
		var eb testErrorBody
		c.call(tc.method, tc.path, mid, nil, 404, &eb)
		if eb.Status != tc.status || eb.Reason != tc.reason || !strings.Contains(eb.Message, tc.msg) {
			t.Errorf("%s %s: %+v", tc.method, tc.path, eb)
		}
	}
}

func TestDeterminism(t *testing.T) {
	cfg := Config{Seed: 7, BusinessDate: testDate}
	truth := func(cfg Config) (*GroundTruth, map[string]string) {
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		gt, err := s.GroundTruth()
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		paths, err := s.WriteJournals(dir)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, p := range paths {
			b, err := readFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[p[len(dir):]] = string(b)
		}
		return gt, files
	}
	gt1, j1 := truth(cfg)
	gt2, j2 := truth(cfg)
	if !reflect.DeepEqual(gt1, gt2) {
		t.Error("same config, different ground truth")
	}
	if !reflect.DeepEqual(j1, j2) {
		t.Error("same config, different journals")
	}
	cfg.Seed = 8
	gt3, j3 := truth(cfg)
	if reflect.DeepEqual(gt1.Findings, gt3.Findings) || reflect.DeepEqual(j1, j3) {
		t.Error("another seed gives the same data")
	}

	// Same data through the API: a subscription's payments page is equal
	// apart from submitTimeUtc.
	_, c1 := newTestServer(t, Config{Seed: 7})
	_, c2 := newTestServer(t, Config{Seed: 7})
	mid := memberID(2)
	s1, s2 := c1.subscriptions(mid), c2.subscriptions(mid)
	if !reflect.DeepEqual(s1, s2) {
		t.Fatal("subscription lists differ")
	}
	p1, _ := c1.payments(mid, s1[3].ID)
	p2, _ := c2.payments(mid, s2[3].ID)
	if !reflect.DeepEqual(p1, p2) {
		t.Fatal("payment lists differ")
	}
}

func TestCacheEvictionRegenerates(t *testing.T) {
	s, err := New(Config{Seed: 3, BusinessDate: testDate, Scale: Scale{Members: 5, Subscriptions: 10, Groups: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s.cache = newMemberCache(2, s.gen.member)
	w0, w1 := s.windowBounds()
	first := s.cache.get(0)
	want := memberFindings(first, w0, w1)
	s.cache.get(1)
	s.cache.get(2)
	if s.cache.peek(0) != nil {
		t.Fatal("member 0 still cached with capacity 2")
	}
	again := s.cache.get(0)
	if again == first {
		t.Fatal("expected a regenerated member")
	}
	if got := memberFindings(again, w0, w1); !reflect.DeepEqual(got, want) {
		t.Fatal("a regenerated member differs")
	}
	for i := range first.subs {
		if first.subs[i].id != again.subs[i].id || len(first.subs[i].payments) != len(again.subs[i].payments) {
			t.Fatal("regenerated subscriptions differ")
		}
	}
}

func TestPaging(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7, Scale: Scale{Members: 12, Subscriptions: 23, Groups: 5}})
	mid := memberID(0)

	// Groups: 5 groups, pages of 2, next links until the end, in the form
	// asked (query or path): the spec's list, organizationId, count,
	// _embedded.groups, _links.self, and _links.next only while a page
	// follows; no totalCount.
	for _, first := range []string{
		"/group-management/v1/groups?organizationId=" + DefaultOrganizationID + "&offset=0&limit=2",
		"/group-management/v1/groups/" + DefaultOrganizationID + "?limit=2",
	} {
		var ids []string
		prefix, _, _ := strings.Cut(first, "?")
		for path := first; path != ""; {
			var page map[string]json.RawMessage
			c.call("GET", path, mid, nil, 200, &page)
			var body struct {
				OrganizationID string
				Count          int
				Embedded       struct{ Groups []struct{ ID string } } `json:"_embedded"`
				Links          map[string]struct{ Href string }       `json:"_links"`
			}
			raw, _ := json.Marshal(page)
			json.Unmarshal(raw, &body)
			if _, ok := page["totalCount"]; ok || body.OrganizationID != DefaultOrganizationID || body.Count != len(body.Embedded.Groups) {
				t.Fatalf("groups page %s: %s", path, raw)
			}
			if self := body.Links["self"].Href; !strings.HasPrefix(self, prefix+"?") {
				t.Errorf("groups page %s: self %q, want the form asked", path, self)
			}
			for _, g := range body.Embedded.Groups {
				ids = append(ids, g.ID)
			}
			next, has := body.Links["next"]
			if has != (len(ids) < 5) || has && !strings.HasPrefix(next.Href, prefix+"?") {
				t.Fatalf("groups page %s after %d groups: next %+v", path, len(ids), body.Links)
			}
			path = next.Href
		}
		if strings.Join(ids, ",") != "1001,1002,1003,1004,1005" {
			t.Fatalf("groups from %s: %v", first, ids)
		}
	}
	ids := []string{"1001"}
	var rec struct {
		GroupID, SelectedOrganizationCount, Type string
		SelectedOrganizationIDs                  []string `json:"selectedOrganizationIds"`
	}
	c.call("GET", "/group-management/v1/groups/"+ids[0], mid, nil, 200, &rec)
	if rec.GroupID != ids[0] || rec.Type != "CUSTOM" || rec.SelectedOrganizationCount != strconv.Itoa(len(rec.SelectedOrganizationIDs)) {
		t.Fatalf("group record %+v", rec)
	}
	c.call("GET", "/group-management/v1/groups?organizationId=other", mid, nil, 403, nil)
	c.call("GET", "/group-management/v1/groups?organizationId="+DefaultOrganizationID+"&limit=1001", mid, nil, 400, nil)
	// Every member is in a group; one in ten in two.
	inGroups := map[string]int{}
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gt.Groups {
		for _, m := range g.Members {
			inGroups[m]++
		}
	}
	twice := 0
	for _, m := range s.Members() {
		if inGroups[m] == 0 {
			t.Errorf("%s in no group", m)
		}
		if inGroups[m] == 2 {
			twice++
		}
	}
	if twice == 0 {
		t.Error("no member in two groups")
	}

	// Plans and subscriptions: pages of 3 and 7.
	var plans struct{ TotalCount int }
	c.call("GET", "/rbs/v1/plans", mid, nil, 200, &plans)
	seen := 0
	for off := 0; off < plans.TotalCount; off += 3 {
		var page struct {
			TotalCount int
			Plans      []struct{ ID string }
			Links      map[string]struct{ Href string } `json:"_links"`
		}
		c.call("GET", fmt.Sprintf("/rbs/v1/plans?offset=%d&limit=3", off), mid, nil, 200, &page)
		seen += len(page.Plans)
		if _, hasNext := page.Links["next"]; hasNext != (off+3 < plans.TotalCount) {
			t.Errorf("plans offset %d: next link %v", off, hasNext)
		}
	}
	if seen != plans.TotalCount || seen < 4 || seen > 8 {
		t.Fatalf("plans: saw %d of %d", seen, plans.TotalCount)
	}
	seen = 0
	for off := 0; ; off += 7 {
		var page struct {
			TotalCount    int
			Subscriptions []tSub
		}
		c.call("GET", fmt.Sprintf("/rbs/v1/subscriptions?offset=%d&limit=7", off), mid, nil, 200, &page)
		if page.TotalCount != 23 {
			t.Fatalf("subscriptions totalCount %d", page.TotalCount)
		}
		if len(page.Subscriptions) == 0 {
			break
		}
		seen += len(page.Subscriptions)
	}
	if seen != 23 {
		t.Fatalf("subscriptions: saw %d", seen)
	}
	c.call("GET", "/rbs/v1/plans?limit=101", mid, nil, 400, nil)
	c.call("GET", "/rbs/v1/subscriptions?limit=0", mid, nil, 400, nil)

	// Payments: pages of 4 equal the whole list; scheduledPaymentsCount
	// bounds the future payments; out-of-range values are 400 with details.
	subs := c.subscriptions(mid)
	sub := subs[0]
	for _, sb := range subs {
		if sb.SubscriptionInformation.Status == subActive {
			sub = sb
			break
		}
	}
	all, _ := c.payments(mid, sub.ID)
	var paged []tPayment
	total := -1
	for off := 0; ; off += 4 {
		var page tPaymentList
		c.call("GET", fmt.Sprintf("/rbs/v1/subscriptions/%s/payments?offset=%d&limit=4&scheduledPaymentsCount=9999", sub.ID, off), mid, nil, 200, &page)
		total = page.TotalCount
		if len(page.SubscriptionPayment) == 0 {
			break
		}
		paged = append(paged, page.SubscriptionPayment...)
	}
	if !reflect.DeepEqual(all, paged) || total != len(all) {
		t.Fatalf("payments: paged %d, whole %d, totalCount %d", len(paged), len(all), total)
	}
	processed := 0
	for _, p := range all {
		if p.Status == payPaid || p.Status == payFailed {
			processed++
		}
	}
	var dflt tPaymentList
	c.call("GET", "/rbs/v1/subscriptions/"+sub.ID+"/payments?limit=100", mid, nil, 200, &dflt)
	if want := processed + min(5, len(all)-processed); dflt.TotalCount != want {
		t.Fatalf("default scheduledPaymentsCount: totalCount %d, want %d", dflt.TotalCount, want)
	}
	for _, bad := range []string{"limit=101", "limit=0", "scheduledPaymentsCount=10000", "scheduledPaymentsCount=-1", "offset=-1", "limit=x"} {
		var eb testErrorBody
		c.call("GET", "/rbs/v1/subscriptions/"+sub.ID+"/payments?"+bad, mid, nil, 400, &eb)
		if eb.Status != "INVALID_REQUEST" || eb.Reason != "VALIDATION_ERROR" || len(eb.Details) == 0 {
			t.Errorf("%s: %+v", bad, eb)
		}
	}
}

func TestTransactionSearchPaging(t *testing.T) {
	// One member with many subscriptions has more than 2000 transactions.
	_, c := newTestServer(t, Config{Seed: 11, Scale: Scale{Members: 1, Subscriptions: 700, Groups: 1}})
	mid := memberID(0)
	from, to := testDate.AddDate(0, 0, -400), testDate.AddDate(0, 0, 1)
	all := c.searchAll(mid, from, to, 2000)
	if len(all) <= 2000 {
		t.Fatalf("want more than one page of 2000, got %d", len(all))
	}
	seen := map[string]bool{}
	for i, s := range all {
		if seen[s.ID] {
			t.Fatalf("duplicate %s", s.ID)
		}
		seen[s.ID] = true
		if i > 0 && all[i-1].ID >= s.ID {
			t.Fatal("not sorted by id")
		}
		ts, _ := time.Parse(time.RFC3339, s.SubmitTimeUtc)
		if ts.Before(from) || !ts.Before(to) {
			t.Fatalf("%s at %s outside the window", s.ID, s.SubmitTimeUtc)
		}
	}
	// A narrower window is a subset with an exact count.
	day := c.searchAll(mid, testDate, testDate.AddDate(0, 0, 1), 50)
	for _, s := range day {
		if !seen[s.ID] {
			t.Fatalf("%s only in the narrow search", s.ID)
		}
	}
	var eb testErrorBody
	c.call("POST", "/tss/v2/searches", mid, map[string]any{"query": "submitTimeUtc:[NOW/DAY-1DAY TO NOW/DAY}", "limit": 2501}, 400, &eb)
	if eb.Reason != "VALIDATION_ERROR" || len(eb.Details) == 0 || eb.Details[0].Field != "limit" {
		t.Fatalf("limit 2501: %+v", eb)
	}
	// Date math is relative to the data clock: NOW/DAY-1DAY is the business day.
	var dm tSearch
	c.call("POST", "/tss/v2/searches", mid, map[string]any{"query": "submitTimeUtc:[NOW/DAY-1DAY TO NOW/DAY}", "limit": 100}, 201, &dm)
	if dm.TotalCount != len(day) {
		t.Fatalf("date math: %d, want %d", dm.TotalCount, len(day))
	}
	// Other merchants see nothing of this one.
	var other tSearch
	c.call("POST", "/tss/v2/searches", DefaultOrganizationID, map[string]any{"query": "id:" + all[0].ID}, 201, &other)
	if other.TotalCount != 0 || other.Embedded != nil {
		t.Fatalf("organization sees member transactions: %+v", other)
	}
	var byID tSearch
	c.call("POST", "/tss/v2/searches", mid, map[string]any{"query": "id:" + all[0].ID + " AND merchantId:" + mid}, 201, &byID)
	if byID.TotalCount != 1 {
		t.Fatalf("search by id: %d", byID.TotalCount)
	}
}

func TestFaults(t *testing.T) {
	mid := memberID(1)
	t.Run("fail members", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{FailMembers: map[string]int{memberID(0): 403, mid: 500}}})
		var eb testErrorBody
		c.call("GET", "/rbs/v1/plans", memberID(0), nil, 403, &eb)
		if eb.Status != "FORBIDDEN" {
			t.Errorf("403 body %+v", eb)
		}
		c.call("GET", "/rbs/v1/plans", mid, nil, 500, &eb)
		if eb.Status != "SERVER_ERROR" || eb.Reason != "SYSTEM_ERROR" {
			t.Errorf("500 body %+v", eb)
		}
		c.call("GET", "/rbs/v1/plans", memberID(2), nil, 200, nil)
	})
	t.Run("rate limited", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{RateLimitRate: 1, RetryAfter: 1500 * time.Millisecond}})
		var eb testErrorBody
		resp := c.call("GET", "/rbs/v1/plans", mid, nil, 429, &eb)
		if resp.Header.Get("Retry-After") != "2" || eb.Status != "TOO_MANY_REQUESTS" || eb.Reason != "RATE_LIMITED" {
			t.Errorf("429: Retry-After %q, body %+v", resp.Header.Get("Retry-After"), eb)
		}
	})
	t.Run("errors", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{ErrorRate: 1}})
		var eb testErrorBody
		c.call("GET", "/rbs/v1/plans", mid, nil, 503, &eb)
		if eb.Status != "SERVER_ERROR" || eb.Reason != "SYSTEM_ERROR" {
			t.Errorf("503 body %+v", eb)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{TruncateRate: 1}})
		for i := 0; i < 3; i++ {
			resp, body, err := c.do("GET", "/rbs/v1/subscriptions?limit=50", mid, nil)
			if err == nil {
				if resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
				var v any
				if json.Unmarshal(body, &v) == nil {
					t.Fatal("a truncated body decoded")
				}
			} else if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("read: %v", err)
			}
		}
		// Error answers are never truncated.
		c.call("GET", "/no/such", mid, nil, 404, &testErrorBody{})
	})
	t.Run("latency", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond}})
		start := time.Now()
		c.call("GET", "/rbs/v1/plans", mid, nil, 200, nil)
		if d := time.Since(start); d < 60*time.Millisecond {
			t.Fatalf("answered in %s, want at least 60ms", d)
		}
	})
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Scale{
		"small":                              {Name: "small", Members: 6, Subscriptions: 20, Groups: 2},
		"Large":                              {Name: "large", Members: 10000, Subscriptions: 100, Groups: 20},
		"members=9":                          {Members: 9, Subscriptions: 20, Groups: 2},
		"members=3,subscriptions=1,groups=1": {Members: 3, Subscriptions: 1, Groups: 1},
	} {
		got, err := ParseScale(in)
		if err != nil || got != want {
			t.Errorf("ParseScale(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		back, err := ParseScale(got.String())
		if err != nil || back.Members != got.Members || back.Subscriptions != got.Subscriptions || back.Groups != got.Groups {
			t.Errorf("round trip of %q: %+v %v", got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "huge", "members=0", "members=x", "colour=3", "groups=0", "members=100000"} {
		if _, err := ParseScale(bad); err == nil {
			t.Errorf("ParseScale(%q) accepted", bad)
		}
	}
	fm, err := ParseFailMembers("mid1:403, mid2:500")
	if err != nil || !reflect.DeepEqual(fm, map[string]int{"mid1": 403, "mid2": 500}) {
		t.Errorf("ParseFailMembers: %v %v", fm, err)
	}
	for _, bad := range []string{"mid1", "mid1:404", ":403", "mid1:x"} {
		if _, err := ParseFailMembers(bad); err == nil {
			t.Errorf("ParseFailMembers(%q) accepted", bad)
		}
	}
	s, err := New(Config{Now: func() time.Time { return time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config()
	if c.OrganizationID != DefaultOrganizationID || c.KeyID != DefaultKeyID || len(c.Secret) != 32 ||
		!c.BusinessDate.Equal(testDate) || c.Lookback != 3 || c.Scale.String() != "small" || c.Faults.RetryAfter != time.Second {
		t.Errorf("defaults: %+v", c)
	}
	if s, _ := New(Config{Scale: Scale{Name: "medium"}}); s.Config().Scale.Members != 50 {
		t.Error("a preset named without its numbers is not that preset")
	}
	if s, _ := New(Config{Lookback: -2}); s.Config().Lookback != 0 {
		t.Error("negative lookback is not 0")
	}
}

// TestConcurrentEviction hits more members than the cache holds from many
// goroutines: answers must not change with eviction and regeneration.
func TestConcurrentEviction(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 9, Scale: Scale{Members: 16, Subscriptions: 15, Groups: 2}})
	s.cache = newMemberCache(3, s.gen.member)
	want := map[string][]byte{}
	for _, mid := range s.Members()[:15] {
		_, b, err := c.do("GET", "/rbs/v1/subscriptions?limit=100", mid, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[mid] = b
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 40; i++ {
				mid := memberID((g*7 + i*3) % 15) // the 16th lacks Recurring Billing
				_, b, err := c.do("GET", "/rbs/v1/subscriptions?limit=100", mid, nil)
				if err == nil && string(b) != string(want[mid]) {
					err = fmt.Errorf("%s answered differently after eviction", mid)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
