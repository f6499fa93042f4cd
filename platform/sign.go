package platform

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const merchantHeader = "v-c-merchant-id"

// signer is the http.RoundTripper that authenticates every request with an
// HTTP signature (platform-facts.md, "Authentication: HTTP signature").
//
// It lives in the transport rather than at the call sites so that each
// attempt of a retried call, and anything else sent through the client, is
// signed afresh: a new Date, a Digest of the body actually sent, and a
// Signature over both. Signing a request once and resending it would be
// rejected once its Date ages past the server's tolerance.
//
// It clones the request before adding headers, as the RoundTripper contract
// asks, and reads the v-c-merchant-id header the caller set (the merchant acted
// for) while the signing line carries the key's owner (the portfolio), which
// is how a portfolio key acts for a child merchant.
type signer struct {
	base      http.RoundTripper
	keyID     string
	secret    Secret
	portfolio string // empty: sign with the header's merchant
	now       func() time.Time
}

var _ http.RoundTripper = (*signer)(nil)

// signError marks failures to build a signature: no attempt was sent, and
// retrying cannot help.
type signError struct{ err error }

func (e *signError) Error() string { return "sign request: " + e.err.Error() }
func (e *signError) Unwrap() error { return e.err }

func (s *signer) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := takeBody(req)
	if err != nil {
		return nil, &signError{err}
	}
	r := req.Clone(req.Context())
	switch {
	case len(body) > 0:
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	case req.Body != nil:
		r.Body = http.NoBody
		r.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		r.ContentLength = 0
	}

	merchant := r.Header.Get(merchantHeader)
	if merchant == "" {
		return nil, &signError{errors.New("no " + merchantHeader + " header")}
	}
	signAs := s.portfolio
	if signAs == "" {
		signAs = merchant
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	date := s.now().UTC().Format(http.TimeFormat)
	target := strings.ToLower(r.Method) + " " + r.URL.RequestURI()

	r.Header.Set("Date", date)
	names := "host date request-target v-c-merchant-id"
	lines := []string{"host: " + host, "date: " + date, "request-target: " + target}
	if hasDigest(r.Method) {
		sum := sha256.Sum256(body)
		digest := "SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
		r.Header.Set("Digest", digest)
		names = "host date request-target digest v-c-merchant-id"
		lines = append(lines, "digest: "+digest)
	} else {
		r.Header.Del("Digest")
	}
	lines = append(lines, merchantHeader+": "+signAs)

	mac := hmac.New(sha256.New, s.secret.key())
	mac.Write([]byte(strings.Join(lines, "\n")))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	r.Header.Set("Signature", fmt.Sprintf(`keyid="%s", algorithm="HmacSHA256", headers="%s", signature="%s"`,
		s.keyID, names, sig))
	return s.base.RoundTrip(r)
}

// hasDigest reports whether the method carries a body and therefore a Digest.
func hasDigest(method string) bool {
	switch strings.ToUpper(method) {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return true
	}
	return false
}

// takeBody returns the bytes of req's body, preferring a fresh copy from
// GetBody, and closes req.Body as a RoundTripper must. A request without a
// body gives nil (an empty Digest input for POST/PUT/PATCH).
func takeBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		if req.GetBody == nil {
			return nil, nil
		}
	}
	if req.Body != nil {
		defer req.Body.Close()
	}
	rc := req.Body
	if req.GetBody != nil {
		fresh, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("get request body: %w", err)
		}
		defer fresh.Close()
		rc = fresh
	}
	if rc == nil {
		return nil, nil
	}
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return b, nil
}
