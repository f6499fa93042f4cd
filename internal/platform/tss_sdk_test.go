package platform

import (
	"encoding/json"
	"testing"
)

// TestSummariesAndDetailsFromTheSDKFixtures: the SDK contract test's
// recorded answers (platform/testdata/sdk, from the sandbox as the SDK's
// models read it) decode with the status (a summary's top-level status)
// and the customer token (customer.customerId) set, and a detail gives the
// instrument identifier.
func TestSummariesAndDetailsFromTheSDKFixtures(t *testing.T) {
	summaries := func(op string) []TransactionSummary {
		var page searchPage
		if err := json.Unmarshal(readSDKFixture(t, op).Response, &page); err != nil {
			t.Fatal(err)
		}
		var out []TransactionSummary
		for _, raw := range page.Embedded.TransactionSummaries {
			s, err := decodeSummary(raw)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if len(out) == 0 {
			t.Fatalf("%s: no summary", op)
		}
		return out
	}
	for _, s := range summaries("createSearch") {
		if s.Status == "" {
			t.Errorf("summary %s without a status", s.ID)
		}
	}
	tok := summaries("createSearch-customer-token-epoch-ms")[0]
	if tok.Status != "AUTHORIZED" || tok.CustomerID == "" || tok.InstrumentIdentifierID != "" {
		t.Errorf("tokenized summary %+v", tok)
	}
	d, err := decodeDetail(readSDKFixture(t, "getTransaction-customer-token").Response)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != tok.ID || d.CustomerID != tok.CustomerID || d.InstrumentIdentifierID == "" || d.Status != "AUTHORIZED" {
		t.Errorf("detail %+v of summary %+v", d, tok)
	}
}
