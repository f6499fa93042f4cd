package platform

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// captured is what a test server saw of one request.
type captured struct {
	host, requestURI string
	header           http.Header
	body             []byte
}

func captureServer(t *testing.T, reply string) (*httptest.Server, *[]captured) {
	t.Helper()
	var mu sync.Mutex
	var got []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := readReq(t, r)
		mu.Lock()
		got = append(got, captured{r.Host, r.RequestURI, r.Header.Clone(), b})
		mu.Unlock()
		writeJSON(w, http.StatusOK, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func hmacB64(signing string) string {
	mac := hmac.New(sha256.New, []byte(testSecretRaw))
	mac.Write([]byte(signing))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

var fixedTime = time.Date(2019, 7, 18, 0, 18, 3, 0, time.UTC)

func TestSignaturePOSTPortfolioKey(t *testing.T) {
	srv, got := captureServer(t, `{}`)
	c, err := NewClient(srv.URL, testCreds(t, "portfolio1"), WithClock(func() time.Time { return fixedTime }))
	if err != nil {
		t.Fatal(err)
	}
	body := struct {
		A int `json:"a"`
	}{1}
	var out json.RawMessage
	if err := c.Merchant("child1").do(context.Background(), "POST", "/tss/v2/searches?debug=1", body, &out); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 {
		t.Fatalf("%d requests, want 1", len(*got))
	}
	r := (*got)[0]
	if string(r.body) != `{"a":1}` {
		t.Fatalf("body %q", r.body)
	}
	sum := sha256.Sum256([]byte(`{"a":1}`))
	digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	host := strings.TrimPrefix(srv.URL, "http://")

	signing := "host: " + host + "\n" +
		"date: Thu, 18 Jul 2019 00:18:03 GMT\n" +
		"request-target: post /tss/v2/searches?debug=1\n" +
		"digest: " + digest + "\n" +
		"v-c-merchant-id: portfolio1"
	wantSig := `keyid="key-1", algorithm="HmacSHA256", headers="host date request-target digest v-c-merchant-id", signature="` + hmacB64(signing) + `"`

	if r.host != host {
		t.Errorf("Host = %q, want %q", r.host, host)
	}
	if d := r.header.Get("Date"); d != "Thu, 18 Jul 2019 00:18:03 GMT" {
		t.Errorf("Date = %q", d)
	}
	if d := r.header.Get("Digest"); d != digest {
		t.Errorf("Digest = %q, want %q", d, digest)
	}
	if m := r.header.Get("v-c-merchant-id"); m != "child1" {
		t.Errorf("v-c-merchant-id header = %q, want the child MID", m)
	}
	if s := r.header.Get("Signature"); s != wantSig {
		t.Errorf("Signature =\n%s\nwant\n%s", s, wantSig)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
}

func TestSignatureGET(t *testing.T) {
	srv, got := captureServer(t, `{"plans":[]}`)
	c, err := NewClient(srv.URL, testCreds(t, "portfolio1"), WithClock(func() time.Time { return fixedTime }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Merchant("child1").do(context.Background(), "GET", "/rbs/v1/plans?offset=0&limit=100", nil, nil); err != nil {
		t.Fatal(err)
	}
	r := (*got)[0]
	host := strings.TrimPrefix(srv.URL, "http://")
	signing := "host: " + host + "\n" +
		"date: Thu, 18 Jul 2019 00:18:03 GMT\n" +
		"request-target: get /rbs/v1/plans?offset=0&limit=100\n" +
		"v-c-merchant-id: portfolio1"
	wantSig := `keyid="key-1", algorithm="HmacSHA256", headers="host date request-target v-c-merchant-id", signature="` + hmacB64(signing) + `"`
	if s := r.header.Get("Signature"); s != wantSig {
		t.Errorf("Signature =\n%s\nwant\n%s", s, wantSig)
	}
	if r.header.Get("Digest") != "" {
		t.Errorf("GET carries Digest %q", r.header.Get("Digest"))
	}
	if m := r.header.Get("v-c-merchant-id"); m != "child1" {
		t.Errorf("v-c-merchant-id header = %q", m)
	}
	if len(r.body) != 0 {
		t.Errorf("GET carries a body %q", r.body)
	}
}

// Without a portfolio the key belongs to the merchant: the signing line
// carries the merchant acted for.
func TestSignatureOwnKey(t *testing.T) {
	srv, got := captureServer(t, `{}`)
	c, err := NewClient(srv.URL, testCreds(t, ""), WithClock(func() time.Time { return fixedTime }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Merchant("mid7").do(context.Background(), "DELETE", "/groups/1001", nil, nil); err != nil {
		t.Fatal(err)
	}
	r := (*got)[0]
	host := strings.TrimPrefix(srv.URL, "http://")
	signing := "host: " + host + "\ndate: Thu, 18 Jul 2019 00:18:03 GMT\nrequest-target: delete /groups/1001\nv-c-merchant-id: mid7"
	if !strings.HasSuffix(r.header.Get("Signature"), `signature="`+hmacB64(signing)+`"`) {
		t.Errorf("Signature %q does not sign for mid7", r.header.Get("Signature"))
	}
}

// A POST without a body still carries the Digest of the empty body.
func TestSignatureEmptyPOST(t *testing.T) {
	srv, got := captureServer(t, `{}`)
	c, err := NewClient(srv.URL, testCreds(t, testPortfolio))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Merchant("m1").do(context.Background(), "post", "/rbs/v1/subscriptions/1/cancel", nil, nil); err != nil {
		t.Fatal(err)
	}
	r := (*got)[0]
	sum := sha256.Sum256(nil)
	if d := r.header.Get("Digest"); d != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
		t.Errorf("Digest = %q", d)
	}
}

// Every attempt of a retried call is a new request with its own Date and
// Signature, each of which verifies.
func TestRetryAttemptsSignedAfresh(t *testing.T) {
	var tick atomic.Int64
	clock := func() time.Time { return fixedTime.Add(time.Duration(tick.Add(1)) * time.Second) }
	var mu sync.Mutex
	var dates, sigs []string
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b := readReq(t, r)
		checkSignature(t, r, b, testPortfolio)
		mu.Lock()
		dates = append(dates, r.Header.Get("Date"))
		sigs = append(sigs, r.Header.Get("Signature"))
		mu.Unlock()
		if calls.Add(1) < 3 {
			writeJSON(w, http.StatusServiceUnavailable, `{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"ok":true}`)
	}, WithClock(clock))
	if err := c.Merchant("child1").do(context.Background(), "POST", "/x", map[string]int{"a": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if len(dates) != 3 {
		t.Fatalf("%d attempts, want 3", len(dates))
	}
	for i := 1; i < 3; i++ {
		if dates[i] == dates[i-1] || sigs[i] == sigs[i-1] {
			t.Errorf("attempt %d reused Date/Signature of attempt %d: %q %q", i+1, i, dates[i], sigs[i])
		}
	}
}
