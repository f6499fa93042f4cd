package platform

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// AuthMode is how a client authenticates its requests.
type AuthMode string

// The three modes of the platform (docs/dev/wire.md, "Authentication"). The
// platform's own SDKs mark the HTTP signature deprecated and recommend a
// JWT with the same shared secret; a JWT signed with a P12 certificate's
// key is the third mode.
const (
	AuthHTTPSignature AuthMode = "http-signature" // Signature header, HmacSHA256 with the shared secret
	AuthJWT           AuthMode = "jwt"            // Bearer JWT, HS256 with the shared secret
	AuthJWTP12        AuthMode = "jwt-p12"        // Bearer JWT, RS256 with a P12 file's private key
)

// AuthModes lists the modes, for help texts and errors.
var AuthModes = []AuthMode{AuthHTTPSignature, AuthJWT, AuthJWTP12}

// ParseAuthMode reads a mode's name; empty means AuthHTTPSignature.
func ParseAuthMode(s string) (AuthMode, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return AuthHTTPSignature, nil
	}
	for _, m := range AuthModes {
		if s == string(m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown authentication mode %q (want %s, %s or %s)", s, AuthHTTPSignature, AuthJWT, AuthJWTP12)
}

// jwtLifetime is exp - iat, as the platform's SDK sets it.
const jwtLifetime = 120 * time.Second

// jwtSigner authenticates with `Authorization: Bearer <JWS>`, a token made
// for one attempt: it names the host, method, path with query and (for
// POST, PUT, PATCH) the digest of the body, so it cannot be replayed on
// another request, and it expires two minutes after it was made.
type jwtSigner struct {
	alg  string // HS256 or RS256
	kid  string // the key id (shared secret) or the certificate's serialNumber (P12)
	sign func(signingInput []byte) ([]byte, error)
	// mleKid, when set, is the response MLE key the platform is to
	// encrypt its answers for (WithResponseMLE, mle.go).
	mleKid string
}

// jwtHeader and jwtClaims are written in the order and with the names the
// platform's Node.js SDK writes them (its JWTSigToken.js), which is what
// the platform accepts.
type jwtHeader struct {
	Typ string `json:"typ"`
	Alg string `json:"alg"`
	Kid string `json:"kid"`
}

type jwtClaims struct {
	Digest          string `json:"digest,omitempty"`
	DigestAlgorithm string `json:"digest-algorithm,omitempty"`
	Iat             int64  `json:"iat"`
	Exp             int64  `json:"exp"`
	Host            string `json:"request-host"`
	Path            string `json:"request-resource-path"`
	Method          string `json:"request-method"`
	Iss             string `json:"iss"`
	Jti             string `json:"jti"`
	Version         string `json:"v-c-jwt-version"`
	MerchantID      string `json:"v-c-merchant-id"`
	// ResponseMLEKid names the key answers are encrypted for; the SDK
	// writes it last (JWTSigToken.js getPayloadClaimSet).
	ResponseMLEKid string `json:"v-c-response-mle-kid,omitempty"`
}

func hs256Signer(keyID string, secret Secret) *jwtSigner {
	return &jwtSigner{alg: "HS256", kid: keyID, sign: func(in []byte) ([]byte, error) {
		mac := hmac.New(sha256.New, secret.key())
		mac.Write(in)
		return mac.Sum(nil), nil
	}}
}

func rs256Signer(k P12Key) *jwtSigner {
	return &jwtSigner{alg: "RS256", kid: k.KeyID(), sign: func(in []byte) ([]byte, error) {
		sum := sha256.Sum256(in)
		return rsa.SignPKCS1v15(rand.Reader, k.k.key, crypto.SHA256, sum[:])
	}}
}

func (j *jwtSigner) authenticate(a *attempt) error {
	r := a.req
	iat := a.now.Unix()
	c := jwtClaims{
		Iat: iat, Exp: iat + int64(jwtLifetime/time.Second),
		Host: a.host, Path: a.target, Method: strings.ToLower(r.Method),
		Iss: a.signAs, Jti: uuid.NewString(), Version: "2",
		MerchantID: r.Header.Get(merchantHeader), ResponseMLEKid: j.mleKid,
	}
	if hasDigest(r.Method) {
		c.Digest, c.DigestAlgorithm = bodyDigest(a.body), "SHA-256"
	}
	token, err := j.token(c)
	if err != nil {
		return err
	}
	r.Header.Set("Authorization", "Bearer "+token)
	return nil
}

// token encodes and signs a JWS in compact form.
func (j *jwtSigner) token(c jwtClaims) (string, error) {
	h, err := json.Marshal(jwtHeader{Typ: "JWT", Alg: j.alg, Kid: j.kid})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(p)
	sig, err := j.sign([]byte(input))
	if err != nil {
		return "", fmt.Errorf("%s signature: %w", j.alg, err)
	}
	return input + "." + enc.EncodeToString(sig), nil
}
