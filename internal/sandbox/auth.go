package sandbox

import (
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

// maxBody bounds a request body; the largest legitimate ones (a group of
// 10,000 MIDs, a payment with many line items) stay well below it.
const maxBody = 1 << 20

// maxClockSkew is how far the Date header may be from the server's clock.
const maxClockSkew = 5 * time.Minute

// authError is a failed authentication; its message goes in the 401 body.
type authError struct{ msg string }

func (e *authError) Error() string { return e.msg }

func authErr(format string, a ...any) error { return &authError{fmt.Sprintf(format, a...)} }

// authenticate verifies the HTTP signature of r the way the platform does
// (docs/platform.md, Authentication) and returns the request body it had to read for the
// digest, and the user of the key (users.go). The v-c-merchant-id line of
// the signing string must carry the key's owner, the organization for the
// default key: that is how one portfolio key acts for any child MID named
// in the header.
//
// A JWT (Authorization: Bearer, HS256 with the key's shared secret or
// RS256 with a P12 certificate) is checked instead when present (jwt.go).
// The merchant acted for is returned: the v-c-merchant-id header, or the
// JWT's claim.
//
// With Config.ResponseMLE, the certificate answers are to be encrypted for
// is returned too (mle.go); nil means answers go in the clear.
func (s *Server) authenticate(r *http.Request) ([]byte, User, string, *Certificate, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, User{}, "", nil, fmt.Errorf("read body: %w", err)
	}
	if len(body) > maxBody {
		return nil, User{}, "", nil, authErr("request body too large")
	}
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		u, c, err := s.verifyJWT(r, strings.TrimSpace(token), body)
		var cert *Certificate
		if err == nil {
			cert, err = s.responseMLECertificate(c.ResponseMLEKid)
		}
		return body, u, c.MerchantID, cert, err
	}
	u, err := s.verifySignature(r, body)
	if err == nil && len(s.cfg.ResponseMLE) > 0 {
		err = authErr("response message-level encryption is required: HTTP signature authentication is not supported; authenticate with a JWT carrying the v-c-response-mle-kid claim")
	}
	return body, u, r.Header.Get("v-c-merchant-id"), nil, err
}

func (s *Server) verifySignature(r *http.Request, body []byte) (User, error) {
	sig := r.Header.Get("Signature")
	if sig == "" {
		return User{}, authErr("missing Signature header")
	}
	params, err := parseSignature(sig)
	if err != nil {
		return User{}, err
	}
	user, ok := s.user(params["keyid"])
	if !ok {
		return User{}, authErr("unknown key")
	}
	if params["algorithm"] != "HmacSHA256" {
		return User{}, authErr("unsupported algorithm %q", params["algorithm"])
	}
	names := strings.Fields(strings.ToLower(params["headers"]))
	listed := map[string]bool{}
	for _, n := range names {
		if n == "(request-target)" {
			n = "request-target"
		}
		listed[n] = true
	}
	for _, need := range []string{"host", "date", "request-target", "v-c-merchant-id"} {
		if !listed[need] {
			return User{}, authErr("signature headers must include %s", need)
		}
	}
	hasBody := r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
	if hasBody {
		if !listed["digest"] {
			return User{}, authErr("signature headers must include digest on %s", r.Method)
		}
		if err := checkDigest(r.Header.Get("Digest"), body); err != nil {
			return User{}, err
		}
	}
	dateHdr := r.Header.Get("Date")
	date, err := http.ParseTime(dateHdr)
	if err != nil {
		return User{}, authErr("missing or malformed Date header")
	}
	if skew := s.cfg.Now().Sub(date); skew > maxClockSkew || skew < -maxClockSkew {
		return User{}, authErr("Date header is %s from the server clock (max %s)", skew.Round(time.Second), maxClockSkew)
	}
	if r.Header.Get("v-c-merchant-id") == "" {
		return User{}, authErr("missing v-c-merchant-id header")
	}
	want, err := base64.StdEncoding.DecodeString(params["signature"])
	if err != nil || len(want) == 0 {
		return User{}, authErr("malformed signature")
	}
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") {
		target = r.URL.RequestURI()
	}
	lines := make([]string, 0, len(names))
	for _, n := range names {
		var v string
		switch n {
		case "host":
			v = r.Host
		case "request-target", "(request-target)":
			v = strings.ToLower(r.Method) + " " + target
		case "v-c-merchant-id":
			v = user.SigningID
		default:
			v = r.Header.Get(n)
		}
		lines = append(lines, n+": "+v)
	}
	mac := hmac.New(sha256.New, s.cfg.Secret)
	mac.Write([]byte(strings.Join(lines, "\n")))
	if !hmac.Equal(mac.Sum(nil), want) {
		return User{}, authErr("signature does not match")
	}
	return user, nil
}

// parseSignature reads `k="v", k="v"` pairs; keys are lower-cased.
func parseSignature(h string) (map[string]string, error) {
	out := map[string]string{}
	rest := strings.TrimSpace(h)
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return nil, authErr("malformed Signature header")
		}
		key := strings.ToLower(strings.TrimSpace(rest[:eq]))
		rest = strings.TrimSpace(rest[eq+1:])
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, authErr("malformed Signature header: unterminated quote")
			}
			val, rest = rest[1:1+end], rest[2+end:]
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			val, rest = strings.TrimSpace(rest[:end]), rest[end:]
		}
		out[key] = val
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, ",")
		rest = strings.TrimSpace(rest)
	}
	for _, k := range []string{"keyid", "algorithm", "headers", "signature"} {
		if out[k] == "" {
			return nil, authErr("Signature header lacks %s", k)
		}
	}
	return out, nil
}

func checkDigest(h string, body []byte) error {
	alg, val, ok := strings.Cut(h, "=")
	if !ok || !strings.EqualFold(alg, "SHA-256") {
		return authErr("missing or malformed Digest header (want SHA-256=<base64>)")
	}
	got, err := base64.StdEncoding.DecodeString(val)
	if err != nil {
		return authErr("malformed Digest header")
	}
	sum := sha256.Sum256(body)
	if !hmac.Equal(got, sum[:]) {
		return authErr("digest does not match the body")
	}
	return nil
}

var _ error = (*authError)(nil)

func isAuthErr(err error) bool {
	var ae *authError
	return errors.As(err, &ae)
}
