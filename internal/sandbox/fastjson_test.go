package sandbox

import (
	"bytes"
	"encoding/json"
	"net/url"
	"testing"
	"time"
)

func stdJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFastJSONMatchesEncodingJSON: the hand-written encoders write exactly
// what encoding/json writes for the same values, pages included.
func TestFastJSONMatchesEncodingJSON(t *testing.T) {
	fixed := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	s, c := newTestServer(t, Config{Seed: 13, Scale: Scale{Members: 3, Subscriptions: 40, Groups: 1}, Now: func() time.Time { return fixed }})
	c.sg.Date = func() time.Time { return fixed }
	mid := memberID(0)
	// A subscription whose strings need escaping.
	cust := newCustomerToken(t, c, mid)
	plan := str(c.j("POST", "/rbs/v1/plans", mid, planBody("P", ""), 201), "id")
	odd := "Quote \" back\\slash <tag> & é \u2028 tab\t"
	c.j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"planId": plan, "name": odd, "description": odd},
		"paymentInformation": obj{"customer": obj{"id": cust}}, "orderInformation": obj{"billTo": obj{"firstName": odd, "lastName": "x"}}}, 201)
	s.AdvanceClock(40 * 24 * time.Hour)
	for _, m := range s.Members() {
		idx, _ := s.memberIndex(m)
		mem := s.cache.get(idx)
		mem.mu.Lock()
		s.advance(mem, s.Clock())
		for _, sub := range mem.subs {
			for _, detail := range []bool{false, true} {
				sj := renderSubscription(sub, detail)
				if got, want := sj.appendJSON(nil), stdJSON(t, sj); !bytes.Equal(got, want) {
					t.Fatalf("subscription %s:\n got %s\nwant %s", sub.id, got, want)
				}
			}
			for _, pm := range sub.payments {
				pj := renderPayment(pm, s.Clock())
				if got, want := pj.appendJSON(nil), stdJSON(t, pj); !bytes.Equal(got, want) {
					t.Fatalf("payment %s:\n got %s\nwant %s", pm.id, got, want)
				}
			}
		}
		mem.mu.Unlock()
	}
	// Whole pages against the map encoding they replace.
	_, body, err := c.do("GET", "/rbs/v1/subscriptions?offset=3&limit=7&status=ACTIVE", mid, nil)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Subscriptions []json.RawMessage
		TotalCount    int
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	want := stdJSON(t, map[string]any{"_links": pageLinks("/rbs/v1/subscriptions", url.Values{"status": {"ACTIVE"}}, 3, 7, page.TotalCount, true),
		"totalCount": page.TotalCount, "subscriptions": page.Subscriptions})
	if !bytes.Equal(body, want) {
		t.Fatalf("subscription page:\n got %s\nwant %s", body, want)
	}
	sub := c.subscriptions(mid)[0]
	path := "/rbs/v1/subscriptions/" + sub.ID + "/payments"
	c.j("POST", path, mid, obj{"billingCyclesToSkip": []int{}}, 200)
	_, body, _ = c.do("GET", path+"?limit=3", mid, nil)
	var pl struct {
		SubscriptionPayment  []json.RawMessage
		TotalCount           int
		CyclesCompletedCount map[string]int
		BillingCyclesToSkip  []int
	}
	if err := json.Unmarshal(body, &pl); err != nil {
		t.Fatal(err)
	}
	links := pageLinks(path, url.Values{"scheduledPaymentsCount": {"5"}}, 0, 3, pl.TotalCount, true)
	links["update"] = link{Href: path, Method: "PUT"}
	want = stdJSON(t, map[string]any{"_links": links, "submitTimeUtc": ts(fixed), "totalCount": pl.TotalCount,
		"cyclesCompletedCount": pl.CyclesCompletedCount, "billingCyclesToSkip": pl.BillingCyclesToSkip, "subscriptionPayment": pl.SubscriptionPayment})
	if !bytes.Equal(body, want) {
		t.Fatalf("payment page:\n got %s\nwant %s", body, want)
	}
}
