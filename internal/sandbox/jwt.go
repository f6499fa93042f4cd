package sandbox

import (
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
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"
)

// The platform's JWT authentication (spec Authentication 2; facts: JWT):
// `Authorization: Bearer <JWS>`, made for one request by the platform's
// SDKs (JWTSigToken.js of the Node.js SDK), in two kinds:
//
//   - HS256, keyed with the shared secret of the key named by kid: the
//     SDKs' recommended replacement of the HTTP signature, with the same
//     key id and secret. The key's user is the caller, as with a signature.
//   - RS256, signed with the private key of a P12 certificate whose subject
//     serialNumber is the kid. The sandbox knows the certificates given in
//     Config.Certificates; each acts as the portfolio user of the
//     organization.
//
// Either way the claims bind the token to the request (host, method, path
// with its query, digest of the body) and to a two-minute lifetime, and iss
// must be the key's owner, as the signing line of a signature must.

// maxJWTLifetime is the facts' rule: exp at most iat + 120 s.
const maxJWTLifetime = 120 * time.Second

// Certificate is a merchant certificate the sandbox accepts JWTs from.
type Certificate struct {
	SerialNumber string // the kid: the serialNumber attribute of the certificate subject
	Key          *rsa.PublicKey
}

// NewCertificate is the Certificate of an RSA certificate, known by the
// serialNumber attribute of its subject.
func NewCertificate(cert *x509.Certificate) (Certificate, error) {
	key, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return Certificate{}, errors.New("certificate: not an RSA key")
	}
	if cert.Subject.SerialNumber == "" {
		return Certificate{}, errors.New("certificate: the subject has no serialNumber attribute")
	}
	return Certificate{SerialNumber: cert.Subject.SerialNumber, Key: key}, nil
}

// TestKeyPair makes a throwaway RSA key and a self-signed certificate for
// the organization, whose subject serialNumber (the JWT kid) is
// "sandbox-p12", valid for a day. A run against the embedded sandbox with
// --auth jwt-p12 signs with it, and the sandbox is started trusting it: as
// with the shared secret, a first run needs no credentials of its own.
func TestKeyPair(organizationID string) (*rsa.PrivateKey, *x509.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("test key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()),
		Subject:   pkix.Name{CommonName: organizationID, SerialNumber: "sandbox-p12"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("test certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("test certificate: %w", err)
	}
	return key, cert, nil
}

// ParseCertificate reads a PEM certificate, or a PEM public key with the
// serial number given, into a Certificate.
func ParseCertificate(pemBytes []byte, serial string) (Certificate, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return Certificate{}, errors.New("certificate: no PEM block")
	}
	switch block.Type {
	case "CERTIFICATE":
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return Certificate{}, fmt.Errorf("certificate: %w", err)
		}
		if serial != "" {
			cert.Subject.SerialNumber = serial // the serial given wins over the subject's
		}
		return NewCertificate(cert)
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return Certificate{}, fmt.Errorf("public key: %w", err)
		}
		key, ok := k.(*rsa.PublicKey)
		if !ok || serial == "" {
			return Certificate{}, errors.New("public key: an RSA key and a serial number are needed")
		}
		return Certificate{SerialNumber: serial, Key: key}, nil
	}
	return Certificate{}, fmt.Errorf("certificate: unexpected PEM block %q", block.Type)
}

type jwtClaims struct {
	Iat             int64  `json:"iat"`
	Exp             int64  `json:"exp"`
	Iss             string `json:"iss"`
	Jti             string `json:"jti"`
	Host            string `json:"request-host"`
	Method          string `json:"request-method"`
	Path            string `json:"request-resource-path"`
	Version         string `json:"v-c-jwt-version"`
	MerchantID      string `json:"v-c-merchant-id"`
	Digest          string `json:"digest"`
	DigestAlgorithm string `json:"digest-algorithm"`
	// OldDigestAlgorithm is the older spelling, still accepted.
	OldDigestAlgorithm string `json:"digestAlgorithm"`
	// ResponseMLEKid names the key to encrypt answers for (mle.go).
	ResponseMLEKid string `json:"v-c-response-mle-kid"`
}

// verifyJWT checks a Bearer token and returns the user and the claims
// (the merchant it acts for is the v-c-merchant-id claim). Every failure
// is an authError, answered 401 like a bad signature.
func (s *Server) verifyJWT(r *http.Request, token string, body []byte) (User, jwtClaims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return User{}, jwtClaims{}, authErr("malformed JWT")
	}
	var hdr struct{ Alg, Kid, Typ string }
	if err := decodeSegment(parts[0], &hdr); err != nil {
		return User{}, jwtClaims{}, authErr("malformed JWT header")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return User{}, jwtClaims{}, authErr("malformed JWT signature")
	}
	signed := []byte(parts[0] + "." + parts[1])
	var user User
	switch hdr.Alg {
	case "HS256":
		u, ok := s.user(hdr.Kid)
		if !ok {
			return User{}, jwtClaims{}, authErr("unknown key")
		}
		mac := hmac.New(sha256.New, s.cfg.Secret)
		mac.Write(signed)
		if !hmac.Equal(mac.Sum(nil), sig) {
			return User{}, jwtClaims{}, authErr("JWT signature does not match")
		}
		user = u
	case "RS256":
		var cert *Certificate
		for i := range s.cfg.Certificates {
			if s.cfg.Certificates[i].SerialNumber == hdr.Kid {
				cert = &s.cfg.Certificates[i]
			}
		}
		if cert == nil {
			return User{}, jwtClaims{}, authErr("unknown key")
		}
		sum := sha256.Sum256(signed)
		if rsa.VerifyPKCS1v15(cert.Key, crypto.SHA256, sum[:], sig) != nil {
			return User{}, jwtClaims{}, authErr("JWT signature does not match")
		}
		org := s.cfg.OrganizationID
		user = User{KeyID: cert.SerialNumber, Kind: UserPortfolio, SigningID: org, Account: org}
	default:
		return User{}, jwtClaims{}, authErr("unsupported JWT algorithm %q (HS256 or RS256)", hdr.Alg)
	}
	var c jwtClaims
	if err := decodeSegment(parts[1], &c); err != nil {
		return User{}, jwtClaims{}, authErr("malformed JWT claims")
	}
	if err := s.checkClaims(r, c, user, body); err != nil {
		return User{}, jwtClaims{}, err
	}
	return user, c, nil
}

// checkClaims holds the claims of a verified token against the request.
func (s *Server) checkClaims(r *http.Request, c jwtClaims, user User, body []byte) error {
	now := s.cfg.Now()
	iat, exp := time.Unix(c.Iat, 0), time.Unix(c.Exp, 0)
	switch {
	case c.Version != "2":
		return authErr("v-c-jwt-version must be \"2\"")
	case c.Iat == 0 || now.Sub(iat) > maxClockSkew || iat.Sub(now) > maxClockSkew:
		return authErr("iat is missing or more than %s from the server clock", maxClockSkew)
	case now.Sub(exp) > maxClockSkew:
		// Expired, with the same tolerance for clock skew as a Date header.
		return authErr("JWT expired")
	case exp.Sub(iat) > maxJWTLifetime || exp.Before(iat):
		return authErr("exp must be at most %s after iat", maxJWTLifetime)
	case c.Iss != user.SigningID:
		return authErr("iss %q is not the owner of key %s", c.Iss, user.KeyID)
	case c.Host != r.Host || !strings.EqualFold(c.Method, r.Method) || !samePath(c.Path, r):
		return authErr("request-host, request-method or request-resource-path does not match the request")
	case c.MerchantID == "":
		return authErr("missing v-c-merchant-id claim")
	}
	if len(body) > 0 || r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		alg := c.DigestAlgorithm
		if alg == "" {
			alg = c.OldDigestAlgorithm
		}
		d := sha256.Sum256(body)
		if alg != "SHA-256" || c.Digest != base64.StdEncoding.EncodeToString(d[:]) {
			return authErr("digest claim does not match the body (or digest-algorithm is not SHA-256)")
		}
	}
	if h := r.Header.Get("v-c-merchant-id"); h != "" && h != c.MerchantID {
		return authErr("v-c-merchant-id header and claim differ")
	}
	return nil
}

// samePath reports whether a request-resource-path names r: its path with
// its query string, as the SDK sends it, or (an older client) its path
// alone.
func samePath(claim string, r *http.Request) bool {
	target := r.RequestURI
	if !strings.HasPrefix(target, "/") {
		target = r.URL.RequestURI()
	}
	return claim == target || claim == r.URL.EscapedPath()
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// ReadCertificates reads the PEM certificates of files, a comma-separated
// list of paths given to the sandbox command's flag (--jwt-certificates,
// --response-mle-certificate), each keyed by its subject's serialNumber.
// An error names the flag, and the file when it does not parse.
func ReadCertificates(flag, files string) ([]Certificate, error) {
	var certs []Certificate
	for _, f := range strings.Split(files, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flag, err)
		}
		cert, err := ParseCertificate(b, "")
		if err != nil {
			return nil, fmt.Errorf("--%s %s: %w", flag, f, err)
		}
		certs = append(certs, cert)
	}
	return certs, nil
}
