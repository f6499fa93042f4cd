package platform

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/testcert"
)

// mleFixture is a response MLE key (as the portal's P12 holds it) and a
// sandbox that encrypts for it.
type mleFixture struct {
	cert testcert.Cert
	key  ResponseMLEKey
	sb   *sandbox.Server
	p12  Credentials // jwt-p12 credentials the sandbox trusts
}

func newMLEFixture(t *testing.T, kid string, cfg sandbox.Config) mleFixture {
	t.Helper()
	mleCert := testcert.New(t, sandbox.DefaultOrganizationID, kid)
	key, err := ParseResponseMLEKey(mleCert.P12(t, pkcs12.Modern, "mle-pass"), "mle-pass", "")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := sandbox.ParseCertificate(mleCert.PEM(), "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.ResponseMLE = append(cfg.ResponseMLE, pub)
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return mleFixture{cert: mleCert, key: key, sb: sb}
}

func jwtCreds(t *testing.T) Credentials {
	t.Helper()
	secret, err := NewSecret(sandbox.DefaultSecret)
	if err != nil {
		t.Fatal(err)
	}
	return Credentials{Mode: AuthJWT, KeyID: sandbox.DefaultKeyID, Secret: secret, PortfolioID: sandbox.DefaultOrganizationID}
}

// readAll reads what a merchant's client reads of every endpoint family:
// groups, plans, subscriptions, one subscription's payments, a transaction
// search and a BIN lookup, as comparable values.
func readAll(t *testing.T, c *Client, mid string) []any {
	t.Helper()
	ctx := context.Background()
	m := c.Merchant(mid)
	var out []any
	for g, err := range c.Merchant(sandbox.DefaultOrganizationID).Groups(ctx, sandbox.DefaultOrganizationID) {
		if err != nil {
			t.Fatalf("groups: %v", err)
		}
		out = append(out, g)
	}
	var firstSub string
	for p, err := range m.Plans(ctx) {
		if err != nil {
			t.Fatalf("plans: %v", err)
		}
		out = append(out, p)
	}
	for s, err := range m.Subscriptions(ctx) {
		if err != nil {
			t.Fatalf("subscriptions: %v", err)
		}
		if firstSub == "" {
			firstSub = s.ID
		}
		out = append(out, s)
	}
	if firstSub != "" {
		pl, err := m.SubscriptionPayments(ctx, firstSub)
		if err != nil {
			t.Fatalf("subscription payments: %v", err)
		}
		pl.SubmitTimeUTC = "" // when the platform answered: a second apart across a second's boundary
		out = append(out, pl)
	}
	day := time.Now().UTC().Truncate(24 * time.Hour)
	for s, err := range m.SearchTransactions(ctx, day.Add(-48*time.Hour), day) {
		if err != nil {
			t.Fatalf("search: %v", err)
		}
		out = append(out, s)
	}
	bin, err := m.LookupBIN(ctx, BINQuery{CardPrefix: "411111"})
	if err != nil {
		t.Fatalf("BIN lookup: %v", err)
	}
	bin.ID, bin.SubmitTimeUTC, bin.Raw = "", "", nil // a fresh id and time per lookup
	out = append(out, bin)
	var raw json.RawMessage
	if err := m.do(ctx, http.MethodGet, "/rbs/v1/plans?limit=2", nil, &raw); err != nil {
		t.Fatalf("do: %v", err)
	}
	out = append(out, string(raw))
	return out
}

// Every endpoint family reads the same values from a sandbox that
// encrypts as from one that does not, and the answers were encrypted on
// the wire, for the kid the JWT named.
func TestResponseMLEEveryEndpoint(t *testing.T) {
	const kid = "MLE-KID-1"
	fx := newMLEFixture(t, kid, sandbox.Config{Seed: 7})
	plainSB, err := sandbox.New(sandbox.Config{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var encrypted, plain, claims atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if parts := strings.Split(tok, "."); len(parts) == 3 {
			p, _ := base64.RawURLEncoding.DecodeString(parts[1])
			var c map[string]any
			_ = json.Unmarshal(p, &c)
			// After v-c-merchant-id, last, as the SDK writes it.
			if c["v-c-response-mle-kid"] == kid && bytes.HasSuffix(p, []byte(`","v-c-response-mle-kid":"`+kid+`"}`)) &&
				bytes.Index(p, []byte(`"v-c-merchant-id"`)) < bytes.Index(p, []byte(`"v-c-response-mle-kid"`)) {
				claims.Add(1)
			}
		}
		rec := httptest.NewRecorder()
		fx.sb.Handler().ServeHTTP(rec, r)
		if bytes.HasPrefix(rec.Body.Bytes(), []byte(`{"encryptedResponse":"`)) {
			encrypted.Add(1)
		} else {
			plain.Add(1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	plainSrv := httptest.NewServer(plainSB.Handler())
	t.Cleanup(plainSrv.Close)

	c, err := NewClient(srv.URL, jwtCreds(t), WithResponseMLE(fx.key), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewClient(plainSrv.URL, jwtCreds(t), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	mid := fx.sb.Members()[0]
	got := readAll(t, c, mid)
	want := readAll(t, pc, mid)
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Logf("value %d: %+v\n != %+v", i, got[i], want[i])
			break
		}
	}
	if len(got) < 5 || !reflect.DeepEqual(got, want) {
		t.Fatalf("encrypted run read %d values, plain run %d; equal: %v", len(got), len(want), reflect.DeepEqual(got, want))
	}
	if plain.Load() != 0 || encrypted.Load() == 0 || claims.Load() != encrypted.Load() {
		t.Fatalf("%d answers encrypted, %d plain, %d tokens with the claim", encrypted.Load(), plain.Load(), claims.Load())
	}

	// Error answers are encrypted too, and read as the platform's error.
	fsb := newMLEFixture(t, kid, sandbox.Config{Seed: 7, Faults: sandbox.Faults{FailMembers: map[string]int{mid: http.StatusForbidden}}})
	fsrv := httptest.NewServer(fsb.sb.Handler())
	t.Cleanup(fsrv.Close)
	fc, err := NewClient(fsrv.URL, jwtCreds(t), WithResponseMLE(fsb.key), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	_, err = fc.Merchant(mid).LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatus != http.StatusForbidden || apiErr.Reason != "NOT_AUTHORIZED" {
		t.Fatalf("encrypted 403: err = %v, want the decrypted 403 NOT_AUTHORIZED", err)
	}
}

// tamperServer serves the encrypting sandbox's answers changed by f, and
// counts requests.
func tamperServer(t *testing.T, sb *sandbox.Server, n *atomic.Int64, f func(jwe string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rec := httptest.NewRecorder()
		sb.Handler().ServeHTTP(rec, r)
		var env struct{ EncryptedResponse string }
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.EncryptedResponse == "" {
			t.Errorf("the sandbox answered in the clear: %.200s", rec.Body.String())
		}
		b, _ := json.Marshal(map[string]string{"encryptedResponse": f(env.EncryptedResponse)})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An answer that cannot be decrypted fails the call at once, never retried,
// never half-read, with an error that names what is wrong and nothing of
// the key.
func TestResponseMLERefused(t *testing.T) {
	const kid = "MLE-KID-2"
	fx := newMLEFixture(t, kid, sandbox.Config{Seed: 7})
	other := testcert.New(t, sandbox.DefaultOrganizationID, kid) // same kid, another key
	otherKey, err := NewResponseMLEKey(other.Key, other.Cert, "")
	if err != nil {
		t.Fatal(err)
	}
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	cases := []struct {
		name string
		key  ResponseMLEKey
		f    func(string) string
		want string
	}{
		{"wrong key", otherKey, func(s string) string { return s }, "another key"},
		{"tampered tag", fx.key, func(s string) string { return flip(s, len(s)-3) }, "GCM tag"},
		{"tampered ciphertext", fx.key, func(s string) string {
			parts := strings.Split(s, ".")
			parts[3] = flip(parts[3], 5)
			return strings.Join(parts, ".")
		}, "GCM tag"},
		{"truncated JWE", fx.key, func(s string) string { return s[:len(s)*2/3] }, "truncated or malformed"},
		{"not a JWE", fx.key, func(string) string { return "c2VjcmV0IGRhdGE" }, "not a compact JWE"},
	}
	keyDER := fmt.Sprint(fx.cert.Key.D, otherKey.k.key.D)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := tamperServer(t, fx.sb, &n, tc.f)
			c, err := NewClient(srv.URL, jwtCreds(t), WithResponseMLE(tc.key), WithRetryPolicy(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			var got []Plan
			var failed bool
			for p, err := range c.Merchant(fx.sb.Members()[0]).Plans(context.Background()) {
				if err != nil {
					if !errors.Is(err, ErrResponseMLE) || !strings.Contains(err.Error(), tc.want) {
						t.Fatalf("err = %v, want ErrResponseMLE saying %q", err, tc.want)
					}
					if strings.Contains(err.Error(), fx.cert.Key.D.String()[:20]) || strings.Contains(keyDER, err.Error()) {
						t.Fatalf("the error carries key material: %v", err)
					}
					failed = true
					break
				}
				got = append(got, p)
			}
			if !failed || len(got) != 0 {
				t.Fatalf("no error, %d plans read from an answer that could not be decrypted", len(got))
			}
			if n.Load() != 1 {
				t.Fatalf("%d requests: an undecryptable answer was retried", n.Load())
			}
		})
	}
}

// A plain answer among encrypted ones (an endpoint the platform does not
// encrypt yet) is read as it is.
func TestResponseMLEPlainAmongEncrypted(t *testing.T) {
	fx := newMLEFixture(t, "MLE-KID-3", sandbox.Config{Seed: 7})
	plainSB, err := sandbox.New(sandbox.Config{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if strings.HasPrefix(r.URL.Path, "/rbs/v1/plans") || strings.Contains(r.URL.Path, "/bin/") {
			plainSB.Handler().ServeHTTP(w, r)
			return
		}
		fx.sb.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	plainSrv := httptest.NewServer(plainSB.Handler())
	t.Cleanup(plainSrv.Close)
	c, err := NewClient(srv.URL, jwtCreds(t), WithResponseMLE(fx.key), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewClient(plainSrv.URL, jwtCreds(t), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	mid := fx.sb.Members()[0]
	if got, want := readAll(t, c, mid), readAll(t, pc, mid); !reflect.DeepEqual(got, want) {
		t.Fatal("mixed plain and encrypted answers read differently from plain ones")
	}
	if n.Load() < 4 {
		t.Fatalf("only %d requests", n.Load())
	}
}

// An HTTP signature against a platform that encrypts fails with one
// message that says to move to JWT and how, whether the platform refuses
// the signature (as the sandbox does) or answers encrypted.
func TestResponseMLEHTTPSignature(t *testing.T) {
	fx := newMLEFixture(t, "MLE-KID-4", sandbox.Config{Seed: 7})
	srv := httptest.NewServer(fx.sb.Handler())
	t.Cleanup(srv.Close)
	secret, err := NewSecret(sandbox.DefaultSecret)
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials{Mode: AuthHTTPSignature, KeyID: sandbox.DefaultKeyID, Secret: secret, PortfolioID: sandbox.DefaultOrganizationID}
	if _, err := NewClient(srv.URL, creds, WithResponseMLE(fx.key)); err == nil || !strings.Contains(err.Error(), "needs a JWT") {
		t.Fatalf("NewClient with an HTTP signature and a response key: %v, want refused", err)
	}
	c, err := NewClient(srv.URL, creds, WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	mid := fx.sb.Members()[0]
	check := func(err error) {
		t.Helper()
		if !errors.Is(err, ErrResponseMLE) {
			t.Fatalf("err = %v, want ErrResponseMLE", err)
		}
		for _, w := range []string{"move to JWT", "--auth jwt", "--response-mle-key", "merchant portal"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("the message lacks %q: %v", w, err)
			}
		}
	}
	_, err = c.Merchant(mid).LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"})
	check(err)

	// An encrypted answer to an HTTP signature (a platform that encrypts
	// rather than refuses): the same message, no retry.
	var n atomic.Int64
	enc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeJSON(w, http.StatusOK, `{"encryptedResponse":"eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMjU2R0NNIn0.a.b.c.d"}`)
	}))
	t.Cleanup(enc.Close)
	c2, err := NewClient(enc.URL, creds, WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.Merchant(mid).LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"})
	check(err)
	if n.Load() != 1 {
		t.Fatalf("%d requests, want 1", n.Load())
	}
}

// The kid comes from the certificate's subject serialNumber (the SDK's
// extractResponseMleKid) unless given; a PEM file works as a P12 does;
// the key prints as REDACTED everywhere; an expired certificate still
// reads what is encrypted for it (the platform decides whether it does)
// and reports negative days left, for the warning and the alarm.
func TestResponseMLEKeyFiles(t *testing.T) {
	now := time.Now()
	cert := testcert.NewValid(t, "merchant1", "MLE-SERIAL-9", now.Add(-3*365*24*time.Hour), now.Add(-48*time.Hour))
	p12 := cert.P12(t, pkcs12.LegacyDES, "pw")
	k, err := ParseResponseMLEKey(p12, "pw", "")
	if err != nil {
		t.Fatal(err)
	}
	if k.KeyID() != "MLE-SERIAL-9" {
		t.Errorf("kid = %q, want the subject serialNumber", k.KeyID())
	}
	if e := k.Expiry(now); !e.Known || e.DaysLeft != -2 || !e.NotAfter.Equal(cert.Cert.NotAfter) {
		t.Errorf("expiry = %+v, want 2 days past", e)
	}
	if k2, err := ParseResponseMLEKey(p12, "pw", "given-kid"); err != nil || k2.KeyID() != "given-kid" {
		t.Errorf("given kid: %q %v", k2.KeyID(), err)
	}
	if _, err := ParseResponseMLEKey(p12, "wrong-password-xyz", ""); err == nil || strings.Contains(err.Error(), "wrong-password-xyz") || !strings.Contains(err.Error(), "wrong password") {
		t.Errorf("wrong password: %v", err)
	}
	pemKey, err := ParseResponseMLEKey(cert.KeyPEM(t), "", "")
	if err != nil || pemKey.KeyID() != "MLE-SERIAL-9" {
		t.Fatalf("PEM: %q %v", pemKey.KeyID(), err)
	}
	keyOnly := cert.KeyPEM(t)
	keyOnly = keyOnly[:bytes.Index(keyOnly, []byte("-----BEGIN CERTIFICATE"))]
	if _, err := ParseResponseMLEKey(keyOnly, "", ""); err == nil || !strings.Contains(err.Error(), "--response-mle-kid") {
		t.Errorf("PEM without certificate or kid: %v", err)
	}
	if k3, err := ParseResponseMLEKey(keyOnly, "", "K"); err != nil || k3.Expiry(now).Known {
		t.Errorf("PEM with kid: %v %+v", err, k3.Expiry(now))
	}

	// The expired key still decrypts what is encrypted for it.
	pub, err := sandbox.ParseCertificate(cert.PEM(), "")
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Seed: 7, ResponseMLE: []sandbox.Certificate{pub}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, jwtCreds(t), WithResponseMLE(k), WithRetryPolicy(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.Merchant(sb.Members()[0]).LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"}); err != nil || res.Status != BINCompleted {
		t.Fatalf("BIN lookup with the expired key: %+v %v", res, err)
	}

	// Printing.
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "key", k, "creds", struct{ K ResponseMLEKey }{k})
	j, _ := json.Marshal(k)
	outs := []string{fmt.Sprintf("%v %+v %#v %s", k, k, k, k), logged.String(), string(j), fmt.Sprintf("%+v", struct{ K ResponseMLEKey }{k})}
	d := cert.Key.D.String()
	dHex := fmt.Sprintf("%x", cert.Key.D)
	for _, o := range outs {
		if strings.Contains(o, d[:16]) || strings.Contains(o, dHex[:16]) || strings.Contains(o, new(big.Int).Set(cert.Key.Primes[0]).String()[:16]) {
			t.Errorf("key material printed: %.200s", o)
		}
		if !strings.Contains(o, "REDACTED") {
			t.Errorf("not redacted: %.200s", o)
		}
	}
}
