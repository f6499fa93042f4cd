package platform

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The fixtures of testdata/sdk are the requests the platform's Node.js SDK
// sent in the contract test (internal/sandbox/sdk_contract_test.go, which rewrites
// them with -update-sdk-fixtures) and the answers it deserialised: the
// shapes a real integration built on the SDK sends and receives.

// sdkFixture is one recorded call, in the shape of a journal line.
type sdkFixture struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
}

// readSDKFixture reads the fixture whose file name ends in -<op>.json.
func readSDKFixture(t *testing.T, op string) sdkFixture {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("testdata", "sdk", "*-"+op+".json"))
	if err != nil || len(m) != 1 {
		t.Fatalf("fixture of %s: %v %v", op, m, err)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var f sdkFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", m[0], err)
	}
	return f
}

// fixtureServer answers each path (without its query) with the recorded
// answer of op, and keeps the bodies the client sent.
func fixtureServer(t *testing.T, byPath map[string]string) (*Client, map[string][]byte) {
	t.Helper()
	sent := map[string][]byte{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		sent[r.URL.Path] = readReq(t, r)
		op, ok := byPath[r.URL.Path]
		if !ok {
			writeJSON(w, http.StatusNotFound, `{"status":"NOT_FOUND","reason":"INVALID_DATA"}`)
			return
		}
		f := readSDKFixture(t, op)
		writeJSON(w, f.Status, string(f.Response))
	})
	return c, sent
}

// The client reads answers shaped exactly as the SDK's models are, through
// its own methods.
func TestClientReadsSDKShapedAnswers(t *testing.T) {
	c, sent := fixtureServer(t, map[string]string{
		"/rbs/v1/plans":         "getPlans-code",
		"/rbs/v1/subscriptions": "getAllSubscriptions",
		"/tss/v2/searches":      "createSearch",
		"/bin/v1/binlookup":     "getAccountInfo",
	})
	m := c.Merchant("sbxmid000002")
	ctx := context.Background()

	var plans []Plan
	for p, err := range m.Plans(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	if len(plans) != 1 || plans[0].Code != "SDK1-P" || plans[0].Status != "ACTIVE" || plans[0].BillingAmount != "10.00" ||
		plans[0].SetupFee != "1.00" || plans[0].PeriodUnit != "M" || plans[0].CyclesTotal == "" {
		t.Errorf("plans %+v", plans)
	}
	var subs []Subscription
	for s, err := range m.Subscriptions(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, s)
	}
	if len(subs) != 1 || subs[0].PlanID == "" || subs[0].CustomerID == "" || subs[0].BillingAmount != "10.00" || subs[0].PeriodUnit != "M" {
		t.Errorf("subscriptions %+v", subs)
	}
	var txns []TransactionSummary
	for s, err := range m.SearchTransactions(ctx, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) {
		if err != nil {
			t.Fatal(err)
		}
		txns = append(txns, s)
	}
	if len(txns) != 1 || txns[0].TotalAmount != "50.00" || txns[0].CardPrefix != "555544" || txns[0].SubmitTimeUTC == "" ||
		len(txns[0].Applications) == 0 {
		t.Errorf("transactions %+v", txns)
	}
	bin, err := m.LookupBIN(ctx, BINQuery{CardPrefix: "448590"})
	if err != nil {
		t.Fatal(err)
	}
	yes := func(b *bool) bool { return b != nil && *b }
	if bin.Status != BINCompleted || bin.CardPlatform != "COMMERCIAL" || !yes(bin.CommercialCardLevel2) || !yes(bin.CommercialCardLevel3) {
		t.Errorf("BIN lookup %+v", bin)
	}

	// What the client sends uses only names the SDK's request models have.
	for path, op := range map[string]string{"/tss/v2/searches": "createSearch", "/bin/v1/binlookup": "getAccountInfo"} {
		var ours, sdk any
		if err := json.Unmarshal(sent[path], &ours); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := json.Unmarshal(readSDKFixture(t, op).Request, &sdk); err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, p := range leafPaths(sdk, "") {
			have[p] = true
		}
		for _, p := range leafPaths(ours, "") {
			if !have[p] {
				t.Errorf("%s: the client sends %s, which the SDK's request does not have (it has %v)", path, p, leafPaths(sdk, ""))
			}
		}
	}
}

// The records the client decodes from stored raw JSON, in the SDK's shapes
// and in the older ones.
func TestDecodersReadSDKShapes(t *testing.T) {
	sub, err := DecodeSubscription(readSDKFixture(t, "getSubscription").Response)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Status != "SUSPENDED" || sub.MissedPaymentsCount != "0" || sub.MissedPaymentsTotalAmount != "0.00" {
		t.Errorf("subscription %+v", sub)
	}
	older, err := DecodeSubscription(json.RawMessage(`{"id":"1","reactivationInformation":{"skippedPaymentsCount":"2","skippedPaymentsTotalAmount":"20.00"}}`))
	if err != nil || older.MissedPaymentsCount != "2" || older.MissedPaymentsTotalAmount != "20.00" {
		t.Errorf("older reactivation information: %+v %v", older, err)
	}

	detail := readSDKFixture(t, "getTransaction")
	var d struct {
		SubmitTimeUTC string `json:"submitTimeUTC"`
	}
	if err := json.Unmarshal(detail.Response, &d); err != nil || d.SubmitTimeUTC == "" {
		t.Fatalf("fixture without submitTimeUTC: %v", err)
	}
	txn, err := DecodeTransaction(detail.Response)
	if err != nil {
		t.Fatal(err)
	}
	if txn.SubmitTimeUTC != d.SubmitTimeUTC || txn.ID == "" || txn.TotalAmount != "50.00" || txn.CardSuffix != "1102" {
		t.Errorf("transaction detail %+v", txn)
	}

	var list struct {
		Payments []json.RawMessage `json:"subscriptionPayment"`
	}
	if err := json.Unmarshal(readSDKFixture(t, "subscriptionsIdPaymentsGet").Response, &list); err != nil || len(list.Payments) == 0 {
		t.Fatalf("payments fixture: %v", err)
	}
	for _, raw := range list.Payments {
		p, err := DecodePayment(raw)
		if err != nil || p.ID == "" || p.Status == "" || p.BillingAmount == "" || p.BillingCycle == "" {
			t.Errorf("payment %+v %v", p, err)
		}
	}

	payout, err := decodeBIN(readSDKFixture(t, "getAccountInfo-payout").Response)
	if err != nil {
		t.Fatal(err)
	}
	if payout.FastFundsDomestic == nil || !*payout.FastFundsDomestic || payout.FastFundsCrossBorder == nil || *payout.FastFundsCrossBorder {
		t.Errorf("payout flags: domestic %v, cross-border %v", payout.FastFundsDomestic, payout.FastFundsCrossBorder)
	}
	boolean, err := decodeBIN(json.RawMessage(`{"status":"COMPLETED","paymentAccountInformation":{"features":{"commercialCardLevel2":true,"commercialCardLevel3":false}}}`))
	if err != nil || boolean.CommercialCardLevel2 == nil || !*boolean.CommercialCardLevel2 || boolean.CommercialCardLevel3 == nil || *boolean.CommercialCardLevel3 {
		t.Errorf("Level II/III flags as booleans: %+v %v", boolean, err)
	}
}

// leafPaths lists the dotted paths of v's scalar values (array elements
// under "[]").
func leafPaths(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if at != "" {
				p = at + "." + k
			}
			out = append(out, leafPaths(e, p)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, leafPaths(e, at+"[]")...)
		}
	default:
		out = append(out, at)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
