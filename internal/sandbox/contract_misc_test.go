package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestContractBinLookupAndKeys(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 1})
	mid := memberID(0)
	lookup := func(t *testing.T, body obj, want int) obj {
		return c.with(t).j("POST", "/bin/v1/binlookup", mid, body, want)
	}
	t.Run("Response example shows HTTP 201; statuses COMPLETED, MULTIPLE (no record body), NO MATCH", func(t *testing.T) {
		r := lookup(t, cardLookup(visaCredit2), 201)
		if str(r, "status") != "COMPLETED" || str(r, "paymentAccountInformation.card.credentialType") != "PAN" ||
			str(r, "issuerInformation.phoneNumber") == "" || str(r, "paymentAccountInformation.features.accountFundingSource") != "CREDIT" {
			t.Fatalf("completed %v", r)
		}
		// The Level II/III eligibility flags, JSON booleans as the SDK's
		// model types them (TmsBinLookupPaymentAccountInformationFeatures),
		// true on every business platform; and every cardPlatform the SDK
		// lists.
		for bin, want := range map[string]struct {
			platform string
			level23  bool
		}{visaCredit2: {"CONSUMER", false}, "555544": {"COMMERCIAL", true}, "448590": {"COMMERCIAL", true},
			"455701": {"BUSINESS", true}, "556677": {"CORPORATE", true}, "428208": {"GOVERNMENT", true}} {
			r := lookup(t, cardLookup(bin[:6]), 201)
			f := "paymentAccountInformation.features."
			l2, l3 := dig(r, "paymentAccountInformation", "features", "commercialCardLevel2"), dig(r, "paymentAccountInformation", "features", "commercialCardLevel3")
			if l2 != want.level23 || l3 != want.level23 || str(r, f+"cardPlatform") != want.platform {
				t.Errorf("%s: %v, want platform %s, commercialCardLevel2/3 %v (booleans)", bin[:6], r["paymentAccountInformation"], want.platform, want.level23)
			}
		}
		if r := lookup(t, cardLookup("431940"), 201); str(r, "status") != "MULTIPLE" || r["paymentAccountInformation"] != nil {
			t.Fatalf("multiple %v", r)
		}
		if r := lookup(t, cardLookup("601179"), 201); str(r, "status") != "NO MATCH" || r["paymentAccountInformation"] != nil {
			t.Fatalf("no match %v", r)
		}
	})
	t.Run("a prefix request may return MULTIPLE; retry with a full PAN or a token", func(t *testing.T) {
		if r := lookup(t, cardLookup("4319405000000009"), 201); str(r, "status") != "COMPLETED" {
			t.Fatalf("full PAN %v", r)
		}
	})
	t.Run("payoutInquiry: allowed only with a full PAN or a token", func(t *testing.T) {
		payout := func(b obj) obj {
			b["processingInformation"] = obj{"payoutOptions": obj{"payoutInquiry": true}}
			return b
		}
		eb := lookup(t, payout(cardLookup("411111")), 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "processingInformation.payoutOptions.payoutInquiry", "")
		if r := lookup(t, payout(cardLookup("4275330000000000"[:15]+string(luhnDigit([]byte("427533000000000"))))), 201); str(r, "payoutInformation.pushFunds.domesticParticipant") != "Y" ||
			str(r, "payoutInformation.pushFunds.moneyTransferFastFundsDomestic") != "Y" || str(r, "payoutInformation.pushFunds.moneyTransferFastFundsCrossBorder") != "N" {
			t.Fatalf("debit card payout inquiry %v", r)
		}
		cust := c.with(t).subscriptions(mid)[0].PaymentInformation.Customer.ID
		if r := lookup(t, payout(tokenLookup("customer", cust)), 201); str(r, "status") != "COMPLETED" || r["payoutInformation"] == nil {
			t.Fatalf("token payout inquiry %v", r)
		}
	})
	t.Run("Request credential (exactly one)", func(t *testing.T) {
		lookup(t, obj{"paymentInformation": obj{"card": obj{"number": "411111"}, "customer": obj{"id": "X"}}}, 400)
		lookup(t, obj{}, 400)
	})
	t.Run("POST /kms/v2/keys-sym-pos: a secret key for an existing merchant ID; status ACCEPTED, keyInformation[] ACTIVE with expirationDate", func(t *testing.T) {
		r := c.with(t).j("POST", "/kms/v2/keys-sym-pos", DefaultOrganizationID,
			obj{"keyInformation": []obj{{"organizationId": memberID(1)}, {"organizationId": memberID(2)}}}, 201)
		keys := arr(r, "keyInformation")
		if str(r, "status") != "ACCEPTED" || len(keys) != 2 {
			t.Fatalf("keys %v", r)
		}
		for i, k := range keys {
			secret, err := base64.StdEncoding.DecodeString(str(k, "key"))
			exp, err2 := time.Parse(time.RFC3339, str(k, "expirationDate"))
			if err != nil || len(secret) != 32 || str(k, "status") != "ACTIVE" || str(k, "keyId") == "" ||
				str(k, "organizationId") != memberID(i+1) || err2 != nil || !exp.After(s.Clock()) {
				t.Fatalf("key %v", k)
			}
		}
		eb := c.with(t).j("POST", "/kms/v2/keys-sym-pos", DefaultOrganizationID, obj{"keyInformation": []obj{{"organizationId": "nobody"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "keyInformation[0].organizationId", "INVALID_DATA")
	})
}

// TestContractAuthentication: "Every request to the REST services must be
// authenticated", and the Errors section's body.
func TestContractAuthentication(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	mid := memberID(1)
	body := planBody("Auth", "")
	cases := []struct {
		name   string
		tamper func(*http.Request)
		sg     func(signer) signer
	}{
		{name: "a wrong digest", tamper: func(r *http.Request) { r.Header.Set("Digest", "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=") }},
		{name: "no digest on a POST", tamper: func(r *http.Request) { r.Header.Del("Digest") }},
		{name: "a Date more than 5 minutes off", sg: func(s signer) signer {
			s.Date = func() time.Time { return time.Now().Add(-5*time.Minute - 2*time.Second) }
			return s
		}},
		{name: "an unknown key", sg: func(s signer) signer { s.KeyID = "nobody-key"; return s }},
		{name: "a wrong secret", sg: func(s signer) signer { s.Secret = []byte("0123456789abcdef0123456789abcdef"); return s }},
		{name: "no signature", tamper: func(r *http.Request) { r.Header.Del("Signature") }},
	}
	for _, tc := range cases {
		t.Run(tc.name+": 401 with the vendor's authentication error body", func(t *testing.T) {
			cc := c.with(t)
			if tc.sg != nil {
				cc.sg = tc.sg(cc.sg)
			}
			cc.tamper = tc.tamper
			resp, b, err := cc.do("POST", "/rbs/v1/plans", mid, body)
			if err != nil || resp.StatusCode != 401 {
				t.Fatalf("%v %v %s", err, resp, b)
			}
			var eb obj
			if err := json.Unmarshal(b, &eb); err != nil {
				t.Fatal(err)
			}
			// {"response":{"rmsg":"…"}}, the vendor's authentication error
			// (docs/platform.md, Error bodies), and nothing else.
			if len(eb) != 1 || str(eb, "response.rmsg") == "" {
				t.Fatalf("body %v, want {\"response\":{\"rmsg\":…}}", eb)
			}
		})
	}
	t.Run("a Date within 5 minutes is accepted", func(t *testing.T) {
		cc := c.with(t)
		cc.sg.Date = func() time.Time { return time.Now().Add(4 * time.Minute) }
		cc.j("POST", "/rbs/v1/plans", mid, body, 201)
	})
}

// TestClockAndEngineDeterminism: moving the clock in many steps or in one
// gives the same data, and a member evicted and generated again reaches
// the same state.
func TestClockAndEngineDeterminism(t *testing.T) {
	cfg := Config{Seed: 21, Scale: Scale{Members: 4, Subscriptions: 60, Groups: 1}}
	s1, c1 := newTestServer(t, cfg)
	s2, c2 := newTestServer(t, cfg)
	s2.cache = newMemberCache(1, s2.gen.member)
	mids := s1.Members()[:3] // the 4th lacks Recurring Billing
	for i := 0; i < 45; i++ {
		if _, err := s1.AdvanceClock(24 * time.Hour); err != nil {
			t.Fatal(err)
		}
		c1.j("GET", "/rbs/v1/plans?limit=1", mids[i%len(mids)], nil, 200)
	}
	if err := s2.SetClock(s1.Clock()); err != nil {
		t.Fatal(err)
	}
	if err := s2.SetClock(s1.Clock().Add(-time.Hour)); err == nil {
		t.Fatal("the clock moved backwards")
	}
	changed := 0
	for _, mid := range mids {
		subs1, subs2 := c1.subscriptions(mid), c2.subscriptions(mid)
		if !reflect.DeepEqual(subs1, subs2) {
			t.Fatalf("%s: subscriptions differ", mid)
		}
		for _, sb := range subs1 {
			p1, _ := c1.payments(mid, sb.ID)
			p2, _ := c2.payments(mid, sb.ID)
			if !reflect.DeepEqual(p1, p2) {
				t.Fatalf("%s %s: payments differ:\n%+v\n%+v", mid, sb.ID, p1, p2)
			}
			for _, p := range p1 {
				if p.Status == payPaid && p.Date > ts(s1.DataAsOf()) {
					changed++
				}
			}
			if sb.SubscriptionInformation.Status == subDelinquent {
				// Every retry schedule ends within 45 days.
				t.Errorf("%s %s still DELINQUENT after 45 days", mid, sb.ID)
			}
		}
		from, to := s1.DataAsOf(), s1.Clock().Add(time.Second)
		if !reflect.DeepEqual(c1.searchAll(mid, from, to, 500), c2.searchAll(mid, from, to, 500)) {
			t.Fatalf("%s: transactions differ", mid)
		}
	}
	if changed == 0 {
		t.Fatal("the engine paid nothing in 45 days")
	}
	// The ground truth is the data as generated.
	fresh, _ := New(Config{Seed: 21, Scale: cfg.Scale, BusinessDate: testDate})
	g0, _ := fresh.GroundTruth()
	g1, _ := s1.GroundTruth()
	if !reflect.DeepEqual(g0, g1) {
		t.Fatal("moving the clock changed the ground truth")
	}
}

// TestWritesLeaveTheTruth: writes change a member's data, not the ground
// truth, which is the truth of the untouched data set.
func TestWritesLeaveTheTruth(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	before, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	mid := memberID(0)
	sub := c.subscriptions(mid)[0]
	c.j("POST", "/rbs/v1/subscriptions/"+sub.ID+"/cancel", mid, nil, 200)
	c.j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "9.00", true), 201)
	after, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatal("a write changed the ground truth")
	}
}

// TestSearchByID: GET /tss/v2/searches/{id}, the self link of a search.
func TestSearchByID(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	mid := memberID(0)
	r := c.j("POST", "/tss/v2/searches", mid, obj{"query": "submitTimeUtc:[NOW/DAY-7DAY TO NOW/DAY}", "limit": 5, "sort": "id:asc"}, 201)
	self := str(r, "_links.self.href")
	if !strings.HasSuffix(self, str(r, "searchId")) {
		t.Fatalf("self link %q", self)
	}
	g := c.j("GET", self, mid, nil, 200)
	if str(g, "totalCount") != str(r, "totalCount") || len(arr(g, "_embedded.transactionSummaries")) != 5 {
		t.Fatalf("search again: %v", g)
	}
	c.j("GET", self, memberID(1), nil, 404)
	c.j("GET", "/tss/v2/searches/nope", mid, nil, 404)
}

// TestClockEndpoint: the clock is seen and moved over HTTP by the
// portfolio key only.
func TestClockEndpoint(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 1})
	org := DefaultOrganizationID
	g := c.j("GET", "/sandbox/v1/clock", org, nil, 200)
	if str(g, "clock") != "2026-11-21T02:00:00Z" || str(g, "dataAsOf") != "2026-11-21T02:00:00Z" {
		t.Fatalf("clock %v", g)
	}
	if r := c.j("POST", "/sandbox/v1/clock", org, obj{"advance": "36h"}, 200); str(r, "clock") != "2026-11-22T14:00:00Z" {
		t.Fatalf("advanced %v", r)
	}
	c.j("POST", "/sandbox/v1/clock", org, obj{"to": "2026-11-22T00:00:00Z"}, 400)
	c.j("POST", "/sandbox/v1/clock", org, obj{"to": "2026-11-23T00:00:00Z"}, 200)
	c.as(t, s.UserKeyID(UserMerchant, ""), DefaultMerchantAccountID).j("GET", "/sandbox/v1/clock", DefaultMerchantAccountID, nil, 403)
	st := c.j("PUT", "/sandbox/v1/merchants/"+memberID(2)+"/settings", org, obj{"level3BatchingError": true}, 200)
	if str(st, "level3BatchingError") != "true" || str(st, "level3Enabled") != "true" {
		t.Fatalf("settings %v", st)
	}
	if _, err := New(Config{BusinessDate: testDate, Clock: testDate}); err == nil {
		t.Fatal("a clock before the data's as-of time was accepted")
	}
}

// TestContractFaultStatuses: "Installments: 502 unexpected system error or
// time-out"; "Group update or delete: 500 unexpected error or time-out";
// other services 503 (docs/dev/wire.md).
func TestContractFaultStatuses(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{ErrorRate: 1}})
	if code, _ := c.status("POST", "/fin/v1/plans/", memberID(0), plansBody(visaCredit2, "600.00")); code != 502 {
		t.Errorf("installments: %d", code)
	}
	if code, body := c.status("DELETE", "/group-management/v1/groups/1001", DefaultOrganizationID, nil); code != 500 || len(body) != 0 {
		t.Errorf("group delete: %d %q", code, body)
	}
	if code, _ := c.status("GET", "/rbs/v1/plans", memberID(0), nil); code != 503 {
		t.Errorf("plans: %d", code)
	}
}

// paths lists the dotted paths of the leaves of a JSON value.
func paths(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			paths(prefix+"."+k, e, out)
		}
	default:
		out[prefix] = true
	}
}

// TestJournalAnswersMatchTheAPI: what the payments API answers a merchant
// carries what the generated journals carry (ids, links,
// level3TransmissionStatus), and the self links of journal answers give
// them back.
func TestJournalAnswersMatchTheAPI(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	mid := memberID(0)
	files, err := s.WriteJournals(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The journal of mid: WriteJournals returns the files in no fixed order.
	i := slices.IndexFunc(files, func(f string) bool { return filepath.Base(f) == "journal-"+mid+".ndjson" })
	if i < 0 {
		t.Fatalf("no journal of %s in %v", mid, files)
	}
	lines, _, _ := readJournals(t, files[i:i+1])
	byKind := map[string]tJournalLine{}
	for _, l := range lines {
		if !plainCall(l) {
			continue // a call of another service area (plant_calls.go), answered in its own shape
		}
		kind := "auth"
		switch {
		case strings.HasSuffix(l.Path, "/captures"):
			kind = "capture"
		case l.Path == "/pts/v2/credits":
			kind = "credit"
		case dig(l.Request, "processingInformation", "capture") == true:
			kind = "sale"
		}
		if dig(l.Response, "status") != "AUTHORIZED" && kind != "credit" && kind != "capture" {
			continue // a decline is answered in its own shape (errorInformation, merchant advice), compared below with approvals only
		}
		status := dig(l.Response, "orderInformation", "invoiceDetails", "level3TransmissionStatus")
		if kind == "credit" && status != nil {
			t.Errorf("credit %s answered level3TransmissionStatus %v: the platform answers it on payments and captures only", l.Path, status)
		}
		if kind == "auth" || kind == "credit" || status != nil {
			byKind[kind] = l
		}
	}
	if len(byKind) != 4 {
		t.Fatalf("journal kinds %v", len(byKind))
	}
	for kind, l := range byKind {
		got := c.j("GET", str(l.Response, "_links.self.href"), mid, nil, 200)
		if !reflect.DeepEqual(got, obj(l.Response)) {
			t.Errorf("%s: self link answers\n%v\njournal\n%v", kind, got, l.Response)
		}
	}
	// The same kinds of call through the API.
	auth := c.j("POST", "/pts/v2/payments", mid, cardBody(visaPurchase2, "10.00", false), 201)
	l3 := func(b obj) obj {
		b["processingInformation"] = obj{"purchaseLevel": "3", "capture": b["processingInformation"].(obj)["capture"]}
		b["orderInformation"].(obj)["lineItems"] = []obj{{"productCode": "A", "quantity": "1", "unitPrice": "10.00", "commodityCode": "44103103"}}
		return b
	}
	capBody := l3(obj{"processingInformation": obj{}, "orderInformation": obj{"amountDetails": obj{"totalAmount": "10.00", "currency": "USD"}}})
	credit := l3(cardBody(visaPurchase2, "10.00", false))
	delete(credit["processingInformation"].(obj), "capture")
	api := map[string]obj{
		"auth":    auth,
		"capture": c.j("POST", "/pts/v2/payments/"+str(auth, "id")+"/captures", mid, capBody, 201),
		"sale":    c.j("POST", "/pts/v2/payments", mid, l3(cardBody(visaPurchase2, "10.00", true)), 201),
		"credit":  c.j("POST", "/pts/v2/credits", mid, credit, 201),
	}
	for kind, l := range byKind {
		want, got := map[string]bool{}, map[string]bool{}
		paths("", l.Response, want)
		paths("", map[string]any(api[kind]), got)
		for p := range want {
			if !got[p] {
				t.Errorf("%s: the API answer lacks %s, which the journal carries", kind, p)
			}
		}
		if len(str(api[kind], "id")) != 22 {
			t.Errorf("%s: id %q", kind, str(api[kind], "id"))
		}
	}
}
