package sandbox

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The platform's second form of authentication (spec Authentication 2;
// facts: JWT): `Authorization: Bearer <JWS>`, RS256, signed with the
// private key of a P12 certificate whose subject serialNumber is the kid.
// The sandbox knows the certificates given in Config.Certificates; each
// acts as the portfolio user of the organization that owns it.

// maxJWTLifetime is the facts' rule: exp at most iat + 120 s.
const maxJWTLifetime = 120 * time.Second

// Certificate is a merchant certificate the sandbox accepts JWTs from.
type Certificate struct {
	SerialNumber string // the kid: the serialNumber attribute of the certificate subject
	Key          *rsa.PublicKey
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
		key, ok := cert.PublicKey.(*rsa.PublicKey)
		if !ok {
			return Certificate{}, errors.New("certificate: not an RSA key")
		}
		if serial == "" {
			serial = cert.Subject.SerialNumber
		}
		if serial == "" {
			return Certificate{}, errors.New("certificate: the subject has no serialNumber attribute")
		}
		return Certificate{SerialNumber: serial, Key: key}, nil
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
	DigestAlgorithm string `json:"digestAlgorithm"`
}

// verifyJWT checks a Bearer token and returns the user and the merchant
// it acts for (the v-c-merchant-id claim).
func (s *Server) verifyJWT(r *http.Request, token string, body []byte) (User, string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return User{}, "", authErr("malformed JWT")
	}
	var hdr struct{ Alg, Kid, Typ string }
	if err := decodeSegment(parts[0], &hdr); err != nil {
		return User{}, "", authErr("malformed JWT header")
	}
	if hdr.Alg != "RS256" {
		return User{}, "", authErr("unsupported JWT algorithm %q", hdr.Alg)
	}
	var cert *Certificate
	for i := range s.cfg.Certificates {
		if s.cfg.Certificates[i].SerialNumber == hdr.Kid {
			cert = &s.cfg.Certificates[i]
		}
	}
	if cert == nil {
		return User{}, "", authErr("unknown key")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return User{}, "", authErr("malformed JWT signature")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(cert.Key, crypto.SHA256, sum[:], sig) != nil {
		return User{}, "", authErr("JWT signature does not match")
	}
	var c jwtClaims
	if err := decodeSegment(parts[1], &c); err != nil {
		return User{}, "", authErr("malformed JWT claims")
	}
	now := s.cfg.Now()
	iat, exp := time.Unix(c.Iat, 0), time.Unix(c.Exp, 0)
	switch {
	case c.Version != "2":
		return User{}, "", authErr("v-c-jwt-version must be \"2\"")
	case now.Sub(iat) > maxClockSkew || iat.Sub(now) > maxClockSkew:
		return User{}, "", authErr("iat is more than %s from the server clock", maxClockSkew)
	case now.Sub(exp) > maxClockSkew:
		// Expired, with the same tolerance for clock skew as a Date header.
		return User{}, "", authErr("JWT expired")
	case exp.Sub(iat) > maxJWTLifetime || exp.Before(iat):
		return User{}, "", authErr("exp must be at most %s after iat", maxJWTLifetime)
	case c.Iss != s.cfg.OrganizationID:
		return User{}, "", authErr("iss %q does not own this certificate", c.Iss)
	case c.Host != r.Host || c.Method != strings.ToLower(r.Method) || c.Path != r.URL.Path:
		return User{}, "", authErr("request-host, request-method or request-resource-path does not match the request")
	case c.MerchantID == "":
		return User{}, "", authErr("missing v-c-merchant-id claim")
	}
	if len(body) > 0 || r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		d := sha256.Sum256(body)
		if c.DigestAlgorithm != "SHA-256" || c.Digest != base64.StdEncoding.EncodeToString(d[:]) {
			return User{}, "", authErr("digest claim does not match the body")
		}
	}
	if h := r.Header.Get("v-c-merchant-id"); h != "" && h != c.MerchantID {
		return User{}, "", authErr("v-c-merchant-id header and claim differ")
	}
	u := User{KeyID: cert.SerialNumber, Kind: UserPortfolio, SigningID: s.cfg.OrganizationID, Account: s.cfg.OrganizationID}
	return u, c.MerchantID, nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
