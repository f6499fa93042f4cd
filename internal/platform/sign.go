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

// signer is the http.RoundTripper that authenticates every request, in the
// mode the credentials chose (an authenticator: HTTP signature, or a JWT
// signed with the shared secret or a P12 key).
//
// It lives in the transport rather than at the call sites so that each
// attempt of a retried call, and anything else sent through the client, is
// authenticated afresh: a new Date, a digest of the body actually sent, and
// a signature (or token, with its own iat, exp and jti) over both. Signing a
// request once and resending it would be rejected once it aged past the
// server's tolerance.
//
// It clones the request before adding headers, as the RoundTripper contract
// asks, and reads the v-c-merchant-id header the caller set (the merchant
// acted for); the key's owner (the portfolio) signs, which is how a
// portfolio key acts for a child merchant.
type signer struct {
	base      http.RoundTripper
	auth      authenticator
	portfolio string // empty: sign with the header's merchant
	now       func() time.Time
}

var _ http.RoundTripper = (*signer)(nil)

// attempt is what an authenticator signs: one attempt of one request.
type attempt struct {
	req    *http.Request // the clone that is sent; the authenticator sets its headers
	body   []byte        // the exact bytes sent (nil for none)
	host   string        // host[:port] as sent in the Host header
	target string        // path with its query string, as sent
	signAs string        // the key's owner: the portfolio, else the merchant
	now    time.Time
}

// authenticator adds one mode's credentials to an attempt. The modes are
// chosen once, in NewClient (Credentials.authenticator).
type authenticator interface {
	authenticate(a *attempt) error
}

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
	a := &attempt{req: r, body: body, host: r.Host, target: r.URL.RequestURI(), signAs: s.portfolio, now: s.now()}
	if a.host == "" {
		a.host = r.URL.Host
	}
	if a.signAs == "" {
		a.signAs = merchant
	}
	// Every mode sends a Date; only the HTTP signature signs it.
	r.Header.Set("Date", a.now.UTC().Format(http.TimeFormat))
	for _, h := range []string{"Digest", "Signature", "Authorization"} {
		r.Header.Del(h)
	}
	if err := s.auth.authenticate(a); err != nil {
		return nil, &signError{err}
	}
	return s.base.RoundTrip(r)
}

// httpSignature is the HTTP signature with the shared secret (the
// platform's oldest mode, deprecated by its SDKs but still accepted).
type httpSignature struct {
	keyID  string
	secret Secret
}

func (h httpSignature) authenticate(a *attempt) error {
	r := a.req
	date := r.Header.Get("Date")
	names := "host date request-target v-c-merchant-id"
	lines := []string{"host: " + a.host, "date: " + date, "request-target: " + strings.ToLower(r.Method) + " " + a.target}
	if hasDigest(r.Method) {
		digest := "SHA-256=" + bodyDigest(a.body)
		r.Header.Set("Digest", digest)
		names = "host date request-target digest v-c-merchant-id"
		lines = append(lines, "digest: "+digest)
	}
	lines = append(lines, merchantHeader+": "+a.signAs)

	mac := hmac.New(sha256.New, h.secret.key())
	mac.Write([]byte(strings.Join(lines, "\n")))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	r.Header.Set("Signature", fmt.Sprintf(`keyid="%s", algorithm="HmacSHA256", headers="%s", signature="%s"`,
		h.keyID, names, sig))
	return nil
}

// bodyDigest is base64(SHA-256(body)), the digest both modes carry.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return base64.StdEncoding.EncodeToString(sum[:])
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
