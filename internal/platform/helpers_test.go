package platform

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testSecretRaw is the shared secret of the test key, before base64.
const testSecretRaw = "test-shared-secret-0123456789abcdef"

var testSecretB64 = base64.StdEncoding.EncodeToString([]byte(testSecretRaw))

const (
	testKeyID     = "key-1"
	testPortfolio = "portfolio1"
)

// fastRetry keeps retry tests quick.
var fastRetry = RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, MaxRetryAfter: 50 * time.Millisecond}

func testCreds(t *testing.T, portfolio string) Credentials {
	t.Helper()
	s, err := NewSecret(testSecretB64)
	if err != nil {
		t.Fatal(err)
	}
	return Credentials{KeyID: testKeyID, Secret: s, PortfolioID: portfolio}
}

// newTestClient starts an httptest server with h and a client of it signed
// with the portfolio key. Options given come after the defaults (fastRetry).
func newTestClient(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, testCreds(t, testPortfolio), append([]Option{WithRetryPolicy(fastRetry)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// readReq reads the request body in a handler.
func readReq(t *testing.T, r *http.Request) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read request body: %v", err)
	}
	return b
}

// checkSignature recomputes the signature of a received request the way
// docs/platform.md (HTTP signature) describes it, independently of sign.go, and reports a
// mismatch. signAs is the merchant expected on the signing line.
func checkSignature(t *testing.T, r *http.Request, body []byte, signAs string) {
	t.Helper()
	sigHeader := r.Header.Get("Signature")
	params := map[string]string{}
	for _, part := range strings.Split(sigHeader, ", ") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			t.Errorf("malformed Signature header %q", sigHeader)
			return
		}
		params[k] = strings.Trim(v, `"`)
	}
	if params["keyid"] != testKeyID || params["algorithm"] != "HmacSHA256" {
		t.Errorf("Signature header %q: wrong keyid or algorithm", sigHeader)
	}
	lines := []string{
		"host: " + r.Host,
		"date: " + r.Header.Get("Date"),
		"request-target: " + strings.ToLower(r.Method) + " " + r.RequestURI,
	}
	wantHeaders := "host date request-target v-c-merchant-id"
	if r.Method == "POST" || r.Method == "PUT" || r.Method == "PATCH" {
		sum := sha256.Sum256(body)
		digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
		if got := r.Header.Get("Digest"); got != digest {
			t.Errorf("Digest = %q, want %q", got, digest)
		}
		lines = append(lines, "digest: "+digest)
		wantHeaders = "host date request-target digest v-c-merchant-id"
	} else if r.Header.Get("Digest") != "" {
		t.Errorf("%s carries a Digest header", r.Method)
	}
	if params["headers"] != wantHeaders {
		t.Errorf("headers=%q, want %q", params["headers"], wantHeaders)
	}
	lines = append(lines, "v-c-merchant-id: "+signAs)
	mac := hmac.New(sha256.New, []byte(testSecretRaw))
	mac.Write([]byte(strings.Join(lines, "\n")))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if params["signature"] != want {
		t.Errorf("signature of %s %s does not verify", r.Method, r.RequestURI)
	}
	if _, err := http.ParseTime(r.Header.Get("Date")); err != nil {
		t.Errorf("Date %q: %v", r.Header.Get("Date"), err)
	}
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("v-c-correlation-id", "corr-test")
	w.WriteHeader(status)
	io.WriteString(w, body)
}
