package sandbox

import (
	"bytes"
	"crypto"
	"crypto/hmac"
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

// jwtKey signs a token: an RSA key (RS256) or a shared secret (HS256).
type jwtKey struct {
	rsa    *rsa.PrivateKey
	secret []byte
	kid    string
}

// jwtFor builds the JWT of a request as the platform's Node.js SDK builds
// it (JWTSigToken.js): the path with its query, "digest-algorithm".
// tweak may change any claim afterwards.
func jwtFor(t *testing.T, k jwtKey, iss, method, rawURL, mid string, body []byte, tweak func(map[string]any)) string {
	u, _ := url.Parse(rawURL)
	now := time.Now()
	claims := map[string]any{"iat": now.Unix(), "exp": now.Add(2 * time.Minute).Unix(), "iss": iss,
		"jti": "3f1a3c1e-0c5e-4e0b-9b2a-8d1f0c2b7a10", "request-host": u.Host, "request-method": method,
		"request-resource-path": u.RequestURI(), "v-c-jwt-version": "2", "v-c-merchant-id": mid}
	if body != nil {
		d := sha256.Sum256(body)
		claims["digest"], claims["digest-algorithm"] = base64.StdEncoding.EncodeToString(d[:]), "SHA-256"
	}
	if tweak != nil {
		tweak(claims)
	}
	seg := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	alg := "RS256"
	if k.rsa == nil {
		alg = "HS256"
	}
	signing := seg(map[string]string{"alg": alg, "kid": k.kid, "typ": "JWT"}) + "." + seg(claims)
	var sig []byte
	if k.rsa != nil {
		sum := sha256.Sum256([]byte(signing))
		var err error
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, sum[:]); err != nil {
			t.Fatal(err)
		}
	} else {
		mac := hmac.New(sha256.New, k.secret)
		mac.Write([]byte(signing))
		sig = mac.Sum(nil)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestContractJWT: "Two forms: a signed JSON web token (requires signing
// with a P12 certificate) or an HTTP signature", and the facts' JWT with
// the shared secret. Both kinds are accepted as the SDK writes them and in
// the older spellings; anything off answers 401 like a bad signature.
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
	s, c := newTestServer(t, Config{Seed: 1, Certificates: []Certificate{cert}})
	secret := s.Config().Secret
	mid := memberID(1)
	send := func(method, path string, body []byte, token string) (int, string) {
		req, _ := http.NewRequest(method, c.base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	keys := map[string]jwtKey{
		"RS256": {rsa: key, kid: "SBX-CERT-1"},
		"HS256": {secret: secret, kid: DefaultKeyID},
	}
	body, _ := json.Marshal(planBody("JWT", ""))
	for alg, k := range keys {
		path := "/rbs/v1/plans?limit=5&offset=0"
		if code, b := send("GET", path, nil, jwtFor(t, k, DefaultOrganizationID, "get", c.base+path, mid, nil, nil)); code != 200 {
			t.Fatalf("%s: valid GET with a query: %d %s", alg, code, b)
		}
		older := func(cl map[string]any) {
			cl["request-resource-path"] = "/rbs/v1/plans"
			cl["digestAlgorithm"] = cl["digest-algorithm"]
			delete(cl, "digest-algorithm")
		}
		if code, b := send("GET", path, nil, jwtFor(t, k, DefaultOrganizationID, "get", c.base+path, mid, nil, older)); code != 200 {
			t.Fatalf("%s: GET with the path alone (older clients): %d %s", alg, code, b)
		}
		if code, b := send("POST", "/rbs/v1/plans", body, jwtFor(t, k, DefaultOrganizationID, "post", c.base+"/rbs/v1/plans", mid, body, nil)); code != 201 {
			t.Fatalf("%s: valid POST: %d %s", alg, code, b)
		}
		if code, b := send("POST", "/rbs/v1/plans", body, jwtFor(t, k, DefaultOrganizationID, "post", c.base+"/rbs/v1/plans", mid, body, older)); code != 201 {
			t.Fatalf("%s: POST with digestAlgorithm (older spelling): %d %s", alg, code, b)
		}
		for name, tc := range map[string]struct {
			kid   string
			tweak func(map[string]any)
		}{
			"exp more than 120 s after iat": {k.kid, func(c map[string]any) { c["exp"] = c["iat"].(int64) + 300 }},
			"an unknown kid":                {"OTHER", nil},
			"another resource path":         {k.kid, func(c map[string]any) { c["request-resource-path"] = "/rbs/v1/subscriptions" }},
			"another query":                 {k.kid, func(c map[string]any) { c["request-resource-path"] = "/rbs/v1/plans?limit=100" }},
			"another method":                {k.kid, func(c map[string]any) { c["request-method"] = "put" }},
			"another host":                  {k.kid, func(c map[string]any) { c["request-host"] = "api.example.com" }},
			"a digest of another body":      {k.kid, func(c map[string]any) { c["digest"] = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" }},
			"no digest":                     {k.kid, func(c map[string]any) { delete(c, "digest") }},
			"another digest algorithm":      {k.kid, func(c map[string]any) { c["digest-algorithm"] = "SHA-1" }},
			"an old iat":                    {k.kid, func(c map[string]any) { c["iat"] = time.Now().Add(-10 * time.Minute).Unix() }},
			"expired":                       {k.kid, func(c map[string]any) { c["exp"] = time.Now().Add(-6 * time.Minute).Unix() }},
			"another issuer":                {k.kid, func(c map[string]any) { c["iss"] = "someone" }},
			"version 1":                     {k.kid, func(c map[string]any) { c["v-c-jwt-version"] = "1" }},
			"no merchant":                   {k.kid, func(c map[string]any) { delete(c, "v-c-merchant-id") }},
		} {
			kk := k
			kk.kid = tc.kid
			tok := jwtFor(t, kk, DefaultOrganizationID, "post", c.base+"/rbs/v1/plans", mid, body, tc.tweak)
			if code, b := send("POST", "/rbs/v1/plans", body, tok); code != 401 || !bytes.Contains([]byte(b), []byte(`{"response":{"rmsg":"`)) {
				t.Errorf("%s, %s: %d %s, want 401 with the vendor's authentication error body", alg, name, code, b)
			}
		}
	}
	// Signed with another secret, or an RS256 token passed off as HS256
	// under the key id.
	other := jwtKey{secret: []byte("another secret"), kid: DefaultKeyID}
	if code, _ := send("GET", "/rbs/v1/plans", nil, jwtFor(t, other, DefaultOrganizationID, "get", c.base+"/rbs/v1/plans", mid, nil, nil)); code != 401 {
		t.Errorf("HS256 with another secret: %d, want 401", code)
	}
	// The merchant-account key signs as its account, not as the portfolio.
	merchantKey := jwtKey{secret: secret, kid: s.UserKeyID(UserMerchant, "")}
	if code, _ := send("GET", "/rbs/v1/plans", nil, jwtFor(t, merchantKey, DefaultOrganizationID, "get", c.base+"/rbs/v1/plans", mid, nil, nil)); code != 401 {
		t.Errorf("HS256 with the merchant key and the portfolio as iss: %d, want 401", code)
	}
	if code, b := send("GET", "/rbs/v1/plans", nil, jwtFor(t, merchantKey, DefaultMerchantAccountID, "get", c.base+"/rbs/v1/plans", mid, nil, nil)); code != 200 {
		t.Errorf("HS256 with the merchant key signing as its account: %d %s", code, b)
	}
}
