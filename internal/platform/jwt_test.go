package platform

import (
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/testcert"
)

// decodeJWT splits a token into its header and claims, and checks its
// signature with verify (given the signing input and the signature).
func decodeJWT(t *testing.T, token string, verify func(in, sig []byte) bool) (hdr map[string]any, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a compact JWS", token)
	}
	seg := func(s string, v any) {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("segment %q: %v", s, err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("segment %s: %v", b, err)
		}
	}
	seg(parts[0], &hdr)
	seg(parts[1], &claims)
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !verify([]byte(parts[0]+"."+parts[1]), sig) {
		t.Errorf("signature of %s does not verify", token)
	}
	return hdr, claims
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestJWTClaims checks the token of each JWT mode against the facts,
// independently of jwt.go: header, claim names as the SDK writes them,
// the path with its query, the digest, a two-minute lifetime, and iss the
// portfolio while v-c-merchant-id is the member acted for.
func TestJWTClaims(t *testing.T) {
	cert := testcert.New(t, testPortfolio, "SN-4711")
	p12, err := ParseP12(cert.P12(t, pkcs12.Modern, "pw"), "pw")
	if err != nil {
		t.Fatal(err)
	}
	hs := func(in, sig []byte) bool {
		mac := hmac.New(sha256.New, []byte(testSecretRaw))
		mac.Write(in)
		return hmac.Equal(mac.Sum(nil), sig)
	}
	rs := func(in, sig []byte) bool {
		sum := sha256.Sum256(in)
		return rsa.VerifyPKCS1v15(&cert.Key.PublicKey, crypto.SHA256, sum[:], sig) == nil
	}
	for _, tc := range []struct {
		mode   AuthMode
		alg    string
		kid    string
		verify func(in, sig []byte) bool
	}{
		{AuthJWT, "HS256", testKeyID, hs},
		{AuthJWTP12, "RS256", "SN-4711", rs},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			srv, got := captureServer(t, `{}`)
			creds := testCreds(t, testPortfolio)
			creds.Mode, creds.P12 = tc.mode, p12
			c, err := NewClient(srv.URL, creds, WithClock(func() time.Time { return fixedTime }))
			if err != nil {
				t.Fatal(err)
			}
			m := c.Merchant("child1")
			if err := m.do(context.Background(), "POST", "/tss/v2/searches?debug=1", map[string]int{"a": 1}, nil); err != nil {
				t.Fatal(err)
			}
			if err := m.do(context.Background(), "GET", "/rbs/v1/plans?offset=0&limit=100", nil, nil); err != nil {
				t.Fatal(err)
			}
			host := strings.TrimPrefix(srv.URL, "http://")
			for i, want := range []struct{ method, path string }{{"post", "/tss/v2/searches?debug=1"}, {"get", "/rbs/v1/plans?offset=0&limit=100"}} {
				r := (*got)[i]
				if r.header.Get("Signature") != "" || r.header.Get("Digest") != "" {
					t.Errorf("%s: a JWT request also carries Signature or Digest headers", want.method)
				}
				if r.header.Get("v-c-merchant-id") != "child1" || r.header.Get("Date") != "Thu, 18 Jul 2019 00:18:03 GMT" {
					t.Errorf("%s: v-c-merchant-id %q, Date %q", want.method, r.header.Get("v-c-merchant-id"), r.header.Get("Date"))
				}
				token, ok := strings.CutPrefix(r.header.Get("Authorization"), "Bearer ")
				if !ok {
					t.Fatalf("%s: Authorization %q", want.method, r.header.Get("Authorization"))
				}
				hdr, cl := decodeJWT(t, token, tc.verify)
				if hdr["alg"] != tc.alg || hdr["typ"] != "JWT" || hdr["kid"] != tc.kid {
					t.Errorf("%s: header %v", want.method, hdr)
				}
				iat := float64(fixedTime.Unix())
				wantClaims := map[string]any{"iat": iat, "exp": iat + 120, "iss": testPortfolio,
					"request-host": host, "request-method": want.method, "request-resource-path": want.path,
					"v-c-jwt-version": "2", "v-c-merchant-id": "child1"}
				if want.method == "post" {
					wantClaims["digest"] = base64.StdEncoding.EncodeToString(sha256Sum(`{"a":1}`))
					wantClaims["digest-algorithm"] = "SHA-256"
				}
				jti, _ := cl["jti"].(string)
				if !uuidV4.MatchString(jti) {
					t.Errorf("%s: jti %q is not a UUIDv4", want.method, jti)
				}
				delete(cl, "jti")
				if fmt.Sprint(cl) != fmt.Sprint(wantClaims) {
					t.Errorf("%s: claims\n got %v\nwant %v", want.method, cl, wantClaims)
				}
			}
		})
	}
}

func sha256Sum(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// TestAuthModesAgainstSandbox signs with each mode against the sandbox over
// loopback. The first attempt of every request is answered 503, so each
// call succeeds only on a retry, which must carry fresh credentials: a new
// token (jti) for the JWT modes, a new Date-bound signature for the HTTP
// signature (the clock ticks a second per attempt).
func TestAuthModesAgainstSandbox(t *testing.T) {
	cert := testcert.New(t, sandbox.DefaultOrganizationID, "SBX-P12-1")
	trusted, err := sandbox.ParseCertificate(cert.PEM(), "")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Seed: 5, Certificates: []sandbox.Certificate{trusted}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string][]string{} // method path -> credentials of each attempt
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Method + " " + r.URL.RequestURI()
		cred := r.Header.Get("Authorization") + r.Header.Get("Signature")
		mu.Lock()
		seen[key] = append(seen[key], cred)
		first := len(seen[key]) == 1
		mu.Unlock()
		if first {
			writeJSON(w, http.StatusServiceUnavailable, `{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR"}`)
			return
		}
		sb.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	secret, err := NewSecret(sandbox.DefaultSecret)
	if err != nil {
		t.Fatal(err)
	}
	p12, err := ParseP12(cert.P12(t, pkcs12.Modern, "changeit"), "changeit")
	if err != nil {
		t.Fatal(err)
	}
	mid := sb.Members()[0]
	var tick time.Duration
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); tick += time.Second; return time.Now().Add(tick) }
	for _, mode := range AuthModes {
		t.Run(string(mode), func(t *testing.T) {
			creds := Credentials{Mode: mode, KeyID: sandbox.DefaultKeyID, Secret: secret, P12: p12, PortfolioID: sandbox.DefaultOrganizationID}
			c, err := NewClient(srv.URL, creds, WithRetryPolicy(fastRetry), WithClock(clock))
			if err != nil {
				t.Fatal(err)
			}
			m := c.Merchant(mid)
			ctx := context.Background()
			n := 0
			for p, err := range m.Plans(ctx) {
				if err != nil {
					t.Fatalf("plans: %v", err)
				}
				if p.ID == "" {
					t.Fatal("a plan without id")
				}
				n++
			}
			if n == 0 {
				t.Fatal("no plans listed")
			}
			res, err := m.LookupBIN(ctx, BINQuery{CardPrefix: "411111"})
			if err != nil || res.Status != BINCompleted {
				t.Fatalf("BIN lookup: %+v %v", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(seen) < 2 {
				t.Fatalf("requests seen: %v", seen)
			}
			for key, creds := range seen {
				if len(creds) != 2 {
					t.Fatalf("%s: %d attempts, want 2 (one refused, one retried)", key, len(creds))
				}
				if creds[0] == creds[1] {
					t.Errorf("%s: the retry re-sent the first attempt's credentials", key)
				}
				if want := map[AuthMode]string{AuthHTTPSignature: "keyid=", AuthJWT: "Bearer ", AuthJWTP12: "Bearer "}[mode]; !strings.Contains(creds[1], want) {
					t.Errorf("%s: credentials %q are not of mode %s", key, creds[1], mode)
				}
			}
			clear(seen)
		})
	}
}

// A token the sandbox refuses is a 401, never retried: the client's error
// names the status and the platform's words (the vendor's
// {"response":{"rmsg":…}} body).
func TestJWTRefusedNotRetried(t *testing.T) {
	sb, err := sandbox.New(sandbox.Config{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	wrong, err := NewSecret(base64.StdEncoding.EncodeToString([]byte("not the sandbox's secret")))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(srv.URL, Credentials{Mode: AuthJWT, KeyID: sandbox.DefaultKeyID, Secret: wrong,
		PortfolioID: sandbox.DefaultOrganizationID}, WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	ctx := WithStats(context.Background(), &st)
	_, err = c.Merchant(sb.Members()[0]).LookupBIN(ctx, BINQuery{CardPrefix: "411111"})
	if !IsStatus(err, http.StatusUnauthorized) || !strings.Contains(err.Error(), "401 Unauthorized: JWT signature does not match") {
		t.Fatalf("err = %v, want 401 saying the JWT signature does not match", err)
	}
	if st.Retries.Load() != 0 || st.Requests.Load() != 1 {
		t.Errorf("%d requests, %d retries of a 401", st.Requests.Load(), st.Retries.Load())
	}
}

func TestParseP12(t *testing.T) {
	cert := testcert.New(t, "merchant1", "SN-1")
	ca := testcert.New(t, "Platform CA", "CA-1")
	for name, enc := range map[string]*pkcs12.Encoder{"modern": pkcs12.Modern, "legacy 3DES": pkcs12.LegacyDES, "legacy RC2": pkcs12.LegacyRC2} {
		k, err := ParseP12(cert.P12(t, enc, "s3cret pw", ca.Cert), "s3cret pw")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if k.KeyID() != "SN-1" || !k.Certificate().Equal(cert.Cert) {
			t.Errorf("%s: key id %q, certificate %v", name, k.KeyID(), k.Certificate().Subject)
		}
	}
	// The certificate of the key is found wherever it is in the file.
	wrongFirst, err := pkcs12.Modern.Encode(cert.Key, ca.Cert, []*x509.Certificate{cert.Cert}, "pw")
	if err != nil {
		t.Fatal(err)
	}
	if k, err := ParseP12(wrongFirst, "pw"); err != nil || k.KeyID() != "SN-1" {
		t.Errorf("CA certificate first: %q %v", k.KeyID(), err)
	}

	data := cert.P12(t, pkcs12.Modern, "right")
	if _, err := ParseP12(data, "wrong"); err == nil || strings.Contains(err.Error(), "wrong\"") || !strings.Contains(err.Error(), "wrong password") {
		t.Errorf("wrong password: %v", err)
	}
	if _, err := ParseP12([]byte("not a P12 file"), "pw"); err == nil {
		t.Error("garbage parsed")
	}
	noSerial := testcert.New(t, "merchant1", "")
	if _, err := ParseP12(noSerial.P12(t, pkcs12.Modern, "pw"), "pw"); err == nil || !strings.Contains(err.Error(), "serialNumber") {
		t.Errorf("certificate without serialNumber: %v", err)
	}
	noKey, err := pkcs12.Modern.Encode(ca.Key, cert.Cert, nil, "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseP12(noKey, "pw"); err == nil || !strings.Contains(err.Error(), "no certificate of its private key") {
		t.Errorf("key and certificate that do not match: %v", err)
	}
}

// A P12 key prints as REDACTED however it is printed or logged.
func TestP12KeyRedacted(t *testing.T) {
	cert := testcert.New(t, "merchant1", "SN-1")
	k, err := ParseP12(cert.P12(t, pkcs12.Modern, "pw"), "pw")
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials{Mode: AuthJWTP12, P12: k}
	var sb strings.Builder
	slog.New(slog.NewJSONHandler(&sb, nil)).Info("creds", "p12", k, "creds", creds)
	js, _ := json.Marshal(creds)
	out := fmt.Sprintf("%v %+v %#v %s %s", k, creds, creds, sb.String(), js)
	n := cert.Key.N.Text(16)[:16]
	d := cert.Key.D.Text(16)[:16]
	if strings.Contains(out, n) || strings.Contains(out, d) || strings.Contains(strings.ToLower(out), "private") {
		t.Errorf("key material printed: %s", out)
	}
	if !strings.Contains(fmt.Sprint(k), "REDACTED") {
		t.Errorf("P12 key prints as %v", k)
	}
}

func TestParseAuthMode(t *testing.T) {
	for in, want := range map[string]AuthMode{"": AuthHTTPSignature, "http-signature": AuthHTTPSignature, " JWT ": AuthJWT, "jwt-p12": AuthJWTP12} {
		if got, err := ParseAuthMode(in); err != nil || got != want {
			t.Errorf("ParseAuthMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseAuthMode("oauth"); err == nil || !strings.Contains(err.Error(), "jwt-p12") {
		t.Errorf("oauth: %v", err)
	}
	if _, err := NewClient("http://x", Credentials{Mode: AuthJWTP12}); err == nil || !strings.Contains(err.Error(), "P12") {
		t.Errorf("jwt-p12 without a key: %v", err)
	}
	if _, err := NewClient("http://x", Credentials{Mode: AuthJWT, KeyID: "k"}); err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("jwt without a secret: %v", err)
	}
}
