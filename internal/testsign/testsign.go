// Package testsign signs HTTP requests for tests the way the platform's
// documentation describes the HTTP signature (docs/platform.md, HTTP
// signature), written from that description alone: it imports none of
// reconcile's packages, so a test that signs with it checks the client's
// signer (package platform) and the sandbox's verifier against an
// independent implementation rather than against themselves.
package testsign

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// HTTPSignature is a shared-secret key and how to sign with it.
type HTTPSignature struct {
	KeyID  string
	Secret []byte // the decoded shared secret
	// SignAs is the v-c-merchant-id line of the signing string: the key's
	// owner (the portfolio) when it acts for a child merchant.
	SignAs string
	// Date dates the request; nil means time.Now.
	Date func() time.Time
	// OldStyle lists "(request-target)", the spelling older servers
	// accepted, instead of "request-target".
	OldStyle bool
}

// Sign sets the Date, Digest (POST, PUT, PATCH) and Signature headers of
// req, whose body is body.
func (s HTTPSignature) Sign(req *http.Request, body []byte) {
	date := time.Now()
	if s.Date != nil {
		date = s.Date()
	}
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	names := []string{"host", "date", "request-target"}
	if s.OldStyle {
		names[2] = "(request-target)"
	}
	if req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch {
		sum := sha256.Sum256(body)
		req.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		names = append(names, "digest")
	}
	names = append(names, "v-c-merchant-id")
	var lines []string
	for _, n := range names {
		var v string
		switch n {
		case "host":
			v = req.URL.Host
		case "date":
			v = req.Header.Get("Date")
		case "request-target", "(request-target)":
			v = strings.ToLower(req.Method) + " " + req.URL.RequestURI()
		case "digest":
			v = req.Header.Get("Digest")
		case "v-c-merchant-id":
			v = s.SignAs
		}
		lines = append(lines, n+": "+v)
	}
	mac := hmac.New(sha256.New, s.Secret)
	mac.Write([]byte(strings.Join(lines, "\n")))
	req.Header.Set("Signature", fmt.Sprintf(`keyid="%s", algorithm="HmacSHA256", headers="%s", signature="%s"`,
		s.KeyID, strings.Join(names, " "), base64.StdEncoding.EncodeToString(mac.Sum(nil))))
}
