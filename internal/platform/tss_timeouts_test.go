package platform

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestSearchTimeForms: each --search-time-form writes the window [from, to)
// in a form the Transaction Search guide documents (epoch milliseconds, date
// math) or the ISO form sent before.
func TestSearchTimeForms(t *testing.T) {
	from := time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 21, 2, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		form       SearchTimeForm
		from, want string
	}{
		{SearchTimeEpoch, "", "submitTimeUtc:[1794873600000 TO 1795219200000}"},
		{SearchTimeISO, "", "submitTimeUtc:[2026-11-17T00:00:00Z TO 2026-11-21T00:00:00Z}"},
		{SearchTimeDateMath, "", "submitTimeUtc:[NOW/DAY-4DAYS TO NOW/DAY}"},
		{SearchTimeDateMath, "2026-11-20T23:00:00Z", "submitTimeUtc:[NOW/MINUTE-185MINUTES TO NOW/MINUTE-125MINUTES}"},
	} {
		f := from
		if c.from != "" {
			f, _ = time.Parse(time.RFC3339, c.from)
		}
		if got := searchRange(c.form, f, to, now); got != c.want {
			t.Errorf("%s: %s, want %s", c.form, got, c.want)
		}
	}
	if _, err := ParseSearchTimeForm("unix"); err == nil || !strings.Contains(err.Error(), "epoch, iso or datemath") {
		t.Errorf("ParseSearchTimeForm(unix): %v", err)
	}
	if f, err := ParseSearchTimeForm(" DateMath "); err != nil || f != SearchTimeDateMath {
		t.Errorf("ParseSearchTimeForm(DateMath): %q %v", f, err)
	}
}

// TestTransactionDetailSDKShape: a detail in the shape of the SDK's
// TssV2TransactionsGet200Response gives the instrument identifier (which
// summaries never carry) and the customer token (customer.id there).
func TestTransactionDetailSDKShape(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		checkSignature(t, r, nil, testPortfolio)
		if r.Method != "GET" || r.URL.Path != "/tss/v2/transactions/6512628085536163703211" {
			t.Errorf("unexpected %s %s", r.Method, r.RequestURI)
		}
		writeJSON(w, 200, `{"id":"6512628085536163703211","submitTimeUTC":"2022-04-29T20:06:49Z","merchantId":"child1","status":"TRANSMITTED",
			"applicationInformation":{"status":"TRANSMITTED","reasonCode":"100","applications":[{"name":"ics_bill"}]},
			"paymentInformation":{"card":{"prefix":"431940","suffix":"1111"},"customer":{"id":"CUSTOK"},"instrumentIdentifier":{"id":"IITOK"}}}`)
	})
	d, err := c.Merchant("child1").TransactionDetail(context.Background(), "6512628085536163703211")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "6512628085536163703211" || d.Status != "TRANSMITTED" || d.CustomerID != "CUSTOK" ||
		d.InstrumentIdentifierID != "IITOK" || d.SubmitTimeUTC != "2022-04-29T20:06:49Z" {
		t.Errorf("detail %+v", d)
	}
	if _, err := c.Merchant("child1").TransactionDetail(context.Background(), "../x"); err == nil {
		t.Error("a path in place of an id was sent")
	}
}

// slowServer answers every request after delay (a 503 to the first
// failFirst ones).
func slowServer(delay time.Duration, failFirst int32, hits *atomic.Int32) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		if n <= failFirst {
			writeJSON(w, 503, `{"status":"SERVER_ERROR","reason":"SERVICE_TIMEOUT","message":"busy"}`)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/tss/v2/transactions/") {
			writeJSON(w, 200, `{"id":"1","status":"PENDING","paymentInformation":{"instrumentIdentifier":{"id":"II"}}}`)
			return
		}
		writeJSON(w, 201, `{"id":"1","status":"COMPLETED"}`)
	}
}

// TestTimeoutsPerFamily: the time-out is per endpoint family and per
// attempt. A details call slower than another family's time-out succeeds
// within its own; a call slower than its family's time-out fails with an
// error that says so; a retry restarts the time-out, so two attempts that
// together take longer than one time-out still succeed.
func TestTimeoutsPerFamily(t *testing.T) {
	// Scaled down: details 2 s, the other families 100 ms; the server
	// takes 300 ms.
	scaled := WithTimeouts(Timeouts{Details: 2 * time.Second, Search: 2 * time.Second, Other: 100 * time.Millisecond})
	ctx := context.Background()

	var hits atomic.Int32
	c, _ := newTestClient(t, slowServer(300*time.Millisecond, 0, &hits), scaled)
	d, err := c.Merchant("child1").TransactionDetail(ctx, "1")
	if err != nil || d.InstrumentIdentifierID != "II" {
		t.Fatalf("details slower than the other families' time-out: %+v, %v", d, err)
	}
	_, err = c.Merchant("child1").LookupBIN(ctx, BINQuery{CardPrefix: "431940"})
	if err == nil {
		t.Fatal("a BIN lookup slower than its time-out succeeded")
	}
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer within 100ms") ||
		!strings.Contains(err.Error(), "BIN lookup") || !strings.Contains(err.Error(), "POST /bin/v1/binlookup") {
		t.Errorf("error does not say which call timed out after how long: %v", err)
	}

	// Per attempt: 150 ms to a 503, then 150 ms to the answer, each within
	// a 250 ms time-out, 300 ms in all.
	hits.Store(0)
	c, _ = newTestClient(t, slowServer(150*time.Millisecond, 1, &hits),
		WithTimeouts(Timeouts{Other: 250 * time.Millisecond}))
	if _, err := c.Merchant("child1").LookupBIN(ctx, BINQuery{CardPrefix: "431940"}); err != nil || hits.Load() != 2 {
		t.Errorf("retry did not get a time-out of its own: %v after %d attempts", err, hits.Load())
	}
}

// TestDefaultTimeoutsAboveTheDocumentedWorstCase: transaction details "may
// exceed 2 minutes" (Transaction Search guide), so neither the details'
// time-out nor anything under it (the default transport's response-header
// time-out, the http.Client's) may cut a details call at 2 minutes.
func TestDefaultTimeoutsAboveTheDocumentedWorstCase(t *testing.T) {
	c, _ := newTestClient(t, func(http.ResponseWriter, *http.Request) {})
	worst := 2 * time.Minute
	if got := c.attemptTimeout(detailLimit); got <= worst {
		t.Errorf("details time-out %v, not above the documented %v", got, worst)
	}
	if got := c.attemptTimeout(searchPageLimit); got <= worst {
		t.Errorf("search time-out %v, not above the details' documented %v", got, worst)
	}
	c2, err := NewClient("https://platform.example", testCreds(t, testPortfolio))
	if err != nil {
		t.Fatal(err)
	}
	if c2.hc.Timeout != 0 && c2.hc.Timeout <= c.attemptTimeout(detailLimit) {
		t.Errorf("http.Client.Timeout %v cuts details before their time-out", c2.hc.Timeout)
	}
	if tr := defaultTransport(0); tr.ResponseHeaderTimeout != 0 && tr.ResponseHeaderTimeout <= c.attemptTimeout(detailLimit) {
		t.Errorf("ResponseHeaderTimeout %v cuts details before their time-out", tr.ResponseHeaderTimeout)
	}
}

// TestSearchTimeFormsAgainstTheSandbox: each --search-time-form finds the
// same transactions in the sandbox, which accepts the guide's forms; the
// sandbox's clock and the client's are the same instant (the data clock),
// so that date math means the same window on both sides.
func TestSearchTimeFormsAgainstTheSandbox(t *testing.T) {
	bd := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return bd.Add(26 * time.Hour) }
	srv, err := sandbox.New(sandbox.Config{Seed: 2, Scale: sandbox.Scale{Members: 2, Subscriptions: 30, Groups: 1}, BusinessDate: bd, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cfg := srv.Config()
	secret, err := NewSecret(base64.StdEncoding.EncodeToString(cfg.Secret))
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials{Mode: AuthHTTPSignature, KeyID: cfg.KeyID, Secret: secret, PortfolioID: cfg.OrganizationID}
	mid := srv.Members()[0]
	ids := map[SearchTimeForm][]string{}
	for _, form := range []SearchTimeForm{SearchTimeEpoch, SearchTimeDateMath, SearchTimeISO} {
		c, err := NewClient(hs.URL, creds, WithClock(now), WithSearchTimeForm(form), WithRetryPolicy(fastRetry))
		if err != nil {
			t.Fatal(err)
		}
		for s, err := range c.Merchant(mid).SearchTransactions(context.Background(), bd.AddDate(0, 0, -3), bd.AddDate(0, 0, 1)) {
			if err != nil {
				t.Fatalf("%s: %v", form, err)
			}
			ids[form] = append(ids[form], s.ID)
		}
	}
	if len(ids[SearchTimeEpoch]) == 0 {
		t.Fatal("no transaction in the window")
	}
	for _, form := range []SearchTimeForm{SearchTimeDateMath, SearchTimeISO} {
		if !slices.Equal(ids[form], ids[SearchTimeEpoch]) {
			t.Errorf("%s found %d transactions, epoch %d", form, len(ids[form]), len(ids[SearchTimeEpoch]))
		}
	}
}
