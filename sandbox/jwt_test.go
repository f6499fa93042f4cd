package sandbox

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// jwtFor builds the JWT of a request as the facts describe it.
func jwtFor(t *testing.T, key *rsa.PrivateKey, kid, iss, method, rawURL, mid string, body []byte, tweak func(map[string]any)) string {
	u, _ := url.Parse(rawURL)
	now := time.Now()
	claims := map[string]any{"iat": now.Unix(), "exp": now.Add(2 * time.Minute).Unix(), "iss": iss,
		"jti": "3f1a3c1e-0c5e-4e0b-9b2a-8d1f0c2b7a10", "request-host": u.Host, "request-method": method,
		"request-resource-path": u.Path, "v-c-jwt-version": "2", "v-c-merchant-id": mid}
	if body != nil {
		d := sha256.Sum256(body)
		claims["digest"], claims["digestAlgorithm"] = base64.StdEncoding.EncodeToString(d[:]), "SHA-256"
	}
	if tweak != nil {
		tweak(claims)
	}
	seg := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := seg(map[string]string{"alg": "RS256", "kid": kid, "typ": "JWT"}) + "." + seg(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestContractJWT: "Two forms: a signed JSON web token (requires signing
// with a P12 certificate) or an HTTP signature."
func TestContractJWT(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sbxorg", SerialNumber: "SBX-CERT-1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ParseCertificate(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), "")
	if err != nil || cert.SerialNumber != "SBX-CERT-1" {
		t.Fatalf("certificate %+v %v", cert, err)
	}
	_, c := newTestServer(t, Config{Seed: 1, Certificates: []Certificate{cert}})
	mid := memberID(1)
	send := func(method, path string, body []byte, token string) int {
		req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	path := "/rbs/v1/plans?limit=5"
	if code := send("GET", path, nil, jwtFor(t, key, "SBX-CERT-1", DefaultOrganizationID, "get", c.base+path, mid, nil, nil)); code != 200 {
		t.Fatalf("valid GET: %d", code)
	}
	body, _ := json.Marshal(planBody("JWT", ""))
	if code := send("POST", "/rbs/v1/plans", body, jwtFor(t, key, "SBX-CERT-1", DefaultOrganizationID, "post", c.base+"/rbs/v1/plans", mid, body, nil)); code != 201 {
		t.Fatalf("valid POST: %d", code)
	}
	for name, tc := range map[string]struct {
		kid   string
		tweak func(map[string]any)
	}{
		"exp more than 120 s after iat": {"SBX-CERT-1", func(c map[string]any) { c["exp"] = c["iat"].(int64) + 300 }},
		"an unknown kid":                {"OTHER", nil},
		"another resource path":         {"SBX-CERT-1", func(c map[string]any) { c["request-resource-path"] = "/rbs/v1/subscriptions" }},
		"a digest of another body":      {"SBX-CERT-1", func(c map[string]any) { c["digest"] = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" }},
		"an old iat":                    {"SBX-CERT-1", func(c map[string]any) { c["iat"] = time.Now().Add(-10 * time.Minute).Unix() }},
		"another issuer":                {"SBX-CERT-1", func(c map[string]any) { c["iss"] = "someone" }},
		"version 1":                     {"SBX-CERT-1", func(c map[string]any) { c["v-c-jwt-version"] = "1" }},
	} {
		tok := jwtFor(t, key, tc.kid, DefaultOrganizationID, "post", c.base+"/rbs/v1/plans", mid, body, tc.tweak)
		if code := send("POST", "/rbs/v1/plans", body, tok); code != 401 {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
}
