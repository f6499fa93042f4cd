package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/testsign"
)

var testDate = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// signer signs requests as the platform's documentation describes,
// independently of the module's own client (internal/testsign).
type signer = testsign.HTTPSignature

// tclient talks to a sandbox over real HTTP.
type tclient struct {
	t    testing.TB
	base string
	sg   signer
	hc   *http.Client
	// tamper, when set, runs after signing (to break a request on purpose).
	tamper func(*http.Request)
	// noRBS holds the members without Recurring Billing: their
	// subscriptions and plans are none, once their /rbs/v1 call is seen to
	// answer "not enabled" (rbsNotEnabled).
	noRBS map[string]bool
}

func newTestServer(t testing.TB, cfg Config) (*Server, *tclient) {
	t.Helper()
	if cfg.BusinessDate.IsZero() {
		cfg.BusinessDate = testDate
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c := s.Config()
	noRBS := map[string]bool{}
	for _, mid := range s.MembersWithoutRecurringBilling() {
		noRBS[mid] = true
	}
	return s, &tclient{t: t, base: hs.URL, hc: hs.Client(), noRBS: noRBS,
		sg: signer{KeyID: c.KeyID, Secret: c.Secret, SignAs: c.OrganizationID}}
}

// rbsNotEnabled reports whether mid lacks Recurring Billing, after checking
// that its path then answers 400 INVALID_MERCHANT_CONFIGURATION.
func (c *tclient) rbsNotEnabled(path, mid string) bool {
	if !c.noRBS[mid] {
		return false
	}
	var e struct{ Status, Reason string }
	c.call("GET", path, mid, nil, 400, &e)
	if e.Status != "INVALID_REQUEST" || e.Reason != "INVALID_MERCHANT_CONFIGURATION" {
		c.t.Fatalf("GET %s as %s (no Recurring Billing): %s %s, want INVALID_REQUEST INVALID_MERCHANT_CONFIGURATION", path, mid, e.Status, e.Reason)
	}
	return true
}

// rawBody is a request body sent as it is, well-formed or not.
type rawBody string

func (c *tclient) do(method, path, mid string, body any) (*http.Response, []byte, error) {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case rawBody:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, nil, err
		}
	}
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("v-c-merchant-id", mid)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.sg.Sign(req, raw)
	if c.tamper != nil {
		c.tamper(req)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// call does a request that must answer wantStatus and decodes the body.
func (c *tclient) call(method, path, mid string, body any, wantStatus int, out any) *http.Response {
	c.t.Helper()
	resp, b, err := c.do(method, path, mid, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != wantStatus {
		c.t.Fatalf("%s %s as %s: status %d, want %d: %s", method, path, mid, resp.StatusCode, wantStatus, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: decode: %v: %s", method, path, err, b)
		}
	}
	return resp
}

type testErrorBody struct {
	Status, Reason, Message string
	Details                 []struct{ Field, Reason string }
}

// Minimal decoded shapes used by the tests.
type tSub struct {
	ID                      string
	SubscriptionInformation struct{ Status, Code string }
	PaymentInformation      struct{ Customer struct{ ID string } }
}

type tPayment struct {
	ID, Status, PaymentType, TransactionID, Date, Currency string
	BillingAmount, SetupFee, SurchargeAmount               string
	BillingCycle, PaymentNumber                            string
}

type tPaymentList struct {
	TotalCount           int
	BillingCyclesToSkip  []int
	SubscriptionPayment  []tPayment
	CyclesCompletedCount map[string]int
}

// tSummary is a transaction summary by the SDK's names
// (TssV2TransactionsPost201ResponseEmbeddedTransactionSummaries): status at
// the top level, customer.customerId, no instrument identifier.
type tSummary struct {
	ID                     string
	SubmitTimeUtc          string
	Status                 string
	ApplicationInformation struct {
		ReasonCode   string
		Applications []struct{ Name, RCode string }
	}
	OrderInformation struct {
		AmountDetails struct{ TotalAmount, Currency string }
	}
	PaymentInformation struct {
		Card                 struct{ Prefix, Suffix, Type string }
		Customer             *struct{ CustomerID string }
		InstrumentIdentifier *struct{ ID string }
	}
}

type tSearch struct {
	Count, TotalCount int
	Embedded          *struct {
		TransactionSummaries []tSummary `json:"transactionSummaries"`
	} `json:"_embedded"`
}

func (c *tclient) subscriptions(mid string) []tSub { return allSubscriptions[tSub](c, mid) }

// allSubscriptions pages through a member's subscriptions, decoding each
// into T.
func allSubscriptions[T any](c *tclient, mid string) []T {
	var all []T
	if c.rbsNotEnabled("/rbs/v1/subscriptions?offset=0&limit=100", mid) {
		return nil
	}
	for off := 0; ; {
		var page struct {
			TotalCount    int
			Subscriptions []T
		}
		c.call("GET", fmt.Sprintf("/rbs/v1/subscriptions?offset=%d&limit=100", off), mid, nil, 200, &page)
		all = append(all, page.Subscriptions...)
		off += len(page.Subscriptions)
		if len(page.Subscriptions) == 0 || off >= page.TotalCount {
			return all
		}
	}
}

func (c *tclient) payments(mid, subID string) ([]tPayment, []int) {
	var all []tPayment
	var skip []int
	for off := 0; ; {
		var page tPaymentList
		c.call("GET", fmt.Sprintf("/rbs/v1/subscriptions/%s/payments?offset=%d&limit=100&scheduledPaymentsCount=9999", subID, off), mid, nil, 200, &page)
		all = append(all, page.SubscriptionPayment...)
		skip = page.BillingCyclesToSkip
		off += len(page.SubscriptionPayment)
		if len(page.SubscriptionPayment) == 0 || off >= page.TotalCount {
			return all, skip
		}
	}
}

// searchAll pages a Transaction Search over [from, to) and checks the count
// against totalCount.
func (c *tclient) searchAll(mid string, from, to time.Time, limit int) []tSummary {
	c.t.Helper()
	var all []tSummary
	total := -1
	for off := 0; ; {
		var page tSearch
		c.call("POST", "/tss/v2/searches", mid, map[string]any{
			"save": false, "name": "test", "timezone": "GMT",
			"query":  fmt.Sprintf("submitTimeUtc:[%s TO %s}", from.Format(time.RFC3339), to.Format(time.RFC3339)),
			"offset": off, "limit": limit, "sort": "id:asc,submitTimeUtc:asc"}, 201, &page)
		if total >= 0 && page.TotalCount != total {
			c.t.Fatalf("totalCount changed between pages: %d then %d", total, page.TotalCount)
		}
		total = page.TotalCount
		if page.Embedded == nil {
			break
		}
		all = append(all, page.Embedded.TransactionSummaries...)
		off += len(page.Embedded.TransactionSummaries)
		if off >= total {
			break
		}
	}
	if len(all) != total {
		c.t.Fatalf("search fetched %d, totalCount %d", len(all), total)
	}
	return all
}

func (c *tclient) binLookup(body map[string]any) string {
	c.t.Helper()
	var out struct {
		Status                    string
		PaymentAccountInformation struct {
			Features struct{ CardPlatform string }
		}
	}
	c.call("POST", "/bin/v1/binlookup", DefaultOrganizationID, body, 201, &out)
	if out.Status == "COMPLETED" {
		return "COMPLETED/" + out.PaymentAccountInformation.Features.CardPlatform
	}
	return out.Status
}

func cardLookup(num string) map[string]any {
	return map[string]any{"paymentInformation": map[string]any{"card": map[string]any{"number": num}}}
}

func tokenLookup(field, id string) map[string]any {
	return map[string]any{"paymentInformation": map[string]any{field: map[string]any{"id": id}}}
}
