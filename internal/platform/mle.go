package platform

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"software.sslmate.com/src/go-pkcs12"
)

// Message-level encryption (MLE) of responses, as the platform's Node.js
// SDK (cybersource-rest-client 0.0.83) does it:
//
//   - the JWT names the key the platform is to encrypt for, in the
//     v-c-response-mle-kid claim (JWTSigToken.js getPayloadClaimSet, after
//     v-c-merchant-id); an HTTP signature cannot name one, so the SDK
//     refuses response MLE outside JWT (MerchantConfig.js: "Response MLE is
//     only supported in JWT auth type");
//   - an answer whose body is a JSON object with exactly one member,
//     encryptedResponse, is a compact JWE (RSA-OAEP-256 or RSA-OAEP key
//     wrapping, A256GCM or A128GCM content: JWEUtility.js
//     decryptJWEUsingPrivateKey) of the real body; any other body is read
//     as it is (MLEUtility.js checkAndDecryptEncryptedResponse). Error
//     answers are decrypted the same way (ApiClient.js).
//   - the key is the "REST – API Response MLE" key of the merchant portal,
//     a P12 (or a PEM private key) whose certificate's subject serialNumber
//     attribute is the kid (MLEUtility.js extractResponseMleKid).

var (
	_ fmt.Stringer   = ResponseMLEKey{}
	_ fmt.GoStringer = ResponseMLEKey{}
	_ slog.LogValuer = ResponseMLEKey{}
	_ json.Marshaler = ResponseMLEKey{}
)

// ErrResponseMLE marks an answer that was encrypted and could not be read:
// no key to read it with, a key it was not encrypted for, a JWE that was
// tampered with, truncated or malformed. Retrying cannot help, so send
// never retries it; the member fails with it.
var ErrResponseMLE = errors.New("encrypted response")

// ResponseMLEKey is the private key the platform encrypts its answers for,
// with its kid and, when the file carried it, its certificate. As with
// Secret and P12Key, every way of printing it says REDACTED and the key
// sits behind a pointer.
type ResponseMLEKey struct {
	redactedText
	k *mleMaterial
}

type mleMaterial struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate // nil for a PEM file without a certificate
	kid  string
}

// ParseResponseMLEKey reads the response MLE key from a P12 file (the
// portal's download; password protected) or a PEM file (an unencrypted
// private key, PKCS#1 or PKCS#8, optionally followed by its certificate).
// kid is the key id to put in the JWT: empty means the serialNumber
// attribute of the subject of the key's certificate, as the SDK extracts
// it. Errors never repeat the password or any key bytes.
func ParseResponseMLEKey(data []byte, password, kid string) (ResponseMLEKey, error) {
	var (
		key  *rsa.PrivateKey
		cert *x509.Certificate
		err  error
	)
	if bytes.Contains(data, []byte("-----BEGIN ")) {
		key, cert, err = parseMLEPEM(data)
	} else {
		key, cert, err = parseMLEP12(data, password)
	}
	if err != nil {
		return ResponseMLEKey{}, err
	}
	return NewResponseMLEKey(key, cert, kid)
}

// NewResponseMLEKey pairs a private key with its certificate (nil if
// unknown) and kid (empty: the certificate subject's serialNumber).
func NewResponseMLEKey(key *rsa.PrivateKey, cert *x509.Certificate, kid string) (ResponseMLEKey, error) {
	if key == nil {
		return ResponseMLEKey{}, errors.New("response MLE key: no private key")
	}
	if cert != nil {
		if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
			return ResponseMLEKey{}, errors.New("response MLE key: the certificate is not the key's")
		}
	}
	kid = strings.TrimSpace(kid)
	if kid == "" && cert != nil {
		kid = cert.Subject.SerialNumber
	}
	if kid == "" {
		return ResponseMLEKey{}, errors.New("response MLE key: no key id: the certificate has no serialNumber attribute in its subject (or the file has no certificate); give the kid the portal shows (--response-mle-kid)")
	}
	return ResponseMLEKey{k: &mleMaterial{key: key, cert: cert, kid: kid}}, nil
}

func parseMLEP12(data []byte, password string) (*rsa.PrivateKey, *x509.Certificate, error) {
	key, leaf, others, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return nil, nil, errors.New("response MLE key: P12 file: wrong password")
		}
		return nil, nil, fmt.Errorf("response MLE key: P12 file: %w", err)
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("response MLE key: P12 file: the private key is %T, want an RSA key (RSA-OAEP-256)", key)
	}
	// The portal's P12 also holds the platform's CA certificates (CN
	// CyberSource_SJC_US); the kid is on the certificate of the key.
	for _, c := range append([]*x509.Certificate{leaf}, others...) {
		if pub, ok := c.PublicKey.(*rsa.PublicKey); ok && pub.Equal(&rsaKey.PublicKey) {
			return rsaKey, c, nil
		}
	}
	return nil, nil, errors.New("response MLE key: P12 file: no certificate of its private key")
}

func parseMLEPEM(data []byte) (*rsa.PrivateKey, *x509.Certificate, error) {
	var (
		key   *rsa.PrivateKey
		certs []*x509.Certificate
	)
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch block.Type {
		case "RSA PRIVATE KEY":
			if x509.IsEncryptedPEMBlock(block) { //nolint:staticcheck // only to say it is unsupported
				return nil, nil, errors.New("response MLE key: PEM file: the private key is encrypted; give the P12 file, or an unencrypted PEM in a mode-600 file")
			}
			k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
			if err != nil {
				return nil, nil, errors.New("response MLE key: PEM file: the RSA PRIVATE KEY block does not parse")
			}
			key = k
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, nil, errors.New("response MLE key: PEM file: the PRIVATE KEY block does not parse")
			}
			rk, ok := k.(*rsa.PrivateKey)
			if !ok {
				return nil, nil, fmt.Errorf("response MLE key: PEM file: the private key is %T, want an RSA key (RSA-OAEP-256)", k)
			}
			key = rk
		case "ENCRYPTED PRIVATE KEY":
			return nil, nil, errors.New("response MLE key: PEM file: the private key is encrypted; give the P12 file, or an unencrypted PEM in a mode-600 file")
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, nil, fmt.Errorf("response MLE key: PEM file: certificate: %w", err)
			}
			certs = append(certs, c)
		}
	}
	if key == nil {
		return nil, nil, errors.New("response MLE key: PEM file: no RSA private key block")
	}
	for _, c := range certs {
		if pub, ok := c.PublicKey.(*rsa.PublicKey); ok && pub.Equal(&key.PublicKey) {
			return key, c, nil
		}
	}
	return key, nil, nil
}

// IsZero reports whether no key was loaded.
func (k ResponseMLEKey) IsZero() bool { return k.k == nil }

// KeyID is the kid the JWT's v-c-response-mle-kid claim carries.
func (k ResponseMLEKey) KeyID() string {
	if k.k == nil {
		return ""
	}
	return k.k.kid
}

// Certificate is the key's certificate, nil when the file had none.
func (k ResponseMLEKey) Certificate() *x509.Certificate {
	if k.k == nil {
		return nil
	}
	return k.k.cert
}

// PublicKey is the public half, for a server that encrypts for it (the
// embedded sandbox).
func (k ResponseMLEKey) PublicKey() *rsa.PublicKey {
	if k.k == nil {
		return nil
	}
	return &k.k.key.PublicKey
}

// KeyExpiry is what an operator needs to renew the key in time: the
// certificate's NotAfter and the whole days left (negative once expired).
// Known is false when the key came without a certificate.
type KeyExpiry struct {
	KeyID    string
	NotAfter time.Time
	DaysLeft int
	Known    bool
}

// Expiry reports the key's expiry at now. The portal's keys are valid for
// three years; a key past its NotAfter is one the platform will stop
// encrypting for, so a run warns and --alarms raises an alarm 60 days
// ahead (internal/cli). `reconcile doctor` reports it too.
func (k ResponseMLEKey) Expiry(now time.Time) KeyExpiry {
	if k.k == nil || k.k.cert == nil {
		return KeyExpiry{KeyID: k.KeyID()}
	}
	na := k.k.cert.NotAfter
	return KeyExpiry{KeyID: k.k.kid, NotAfter: na, Known: true,
		DaysLeft: int(na.Sub(now).Hours() / 24)}
}

// WithResponseMLE makes the client ask for encrypted answers (the JWT's
// v-c-response-mle-kid claim names key's kid) and read them with key.
// Only JWT modes can ask: NewClient refuses it with AuthHTTPSignature.
// Encrypted answers are read whether or not this option is given; without
// it they fail with ErrResponseMLE and a message saying what to configure.
func WithResponseMLE(key ResponseMLEKey) Option {
	return func(c *Client) { c.mle = key }
}

// mleEnvelopePrefix is how an encrypted answer starts, after the object's
// opening brace and any white space: its one member's name.
var mleEnvelopePrefix = []byte(`"encryptedResponse"`)

// isEncryptedResponse reports whether b looks like the envelope
// {"encryptedResponse": "<JWE>"}: a cheap look at the first member's name,
// so a plain page of 16 MiB is never parsed twice.
func isEncryptedResponse(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(b[1:], " \t\r\n"), mleEnvelopePrefix)
}

// openResponse is the hook of send: an answer that is the encrypted
// envelope is decrypted, any other is returned as it is. Failures wrap
// ErrResponseMLE and say nothing of the key.
func (c *Client) openResponse(b []byte) ([]byte, error) {
	if !isEncryptedResponse(b) {
		return b, nil
	}
	if c.mle.IsZero() {
		if _, ok := envelopeJWE(b); ok {
			return nil, c.noMLEKeyError()
		}
	}
	return c.mle.Open(b)
}

// envelopeJWE returns the JWE of an answer that is exactly the envelope
// {"encryptedResponse": "<JWE>"}, as the SDK tells one (an object with
// that one member); ok is false for anything else.
func envelopeJWE(b []byte) (jwe string, ok bool) {
	if !isEncryptedResponse(b) {
		return "", false
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(b, &env); err != nil || len(env) != 1 {
		return "", false
	}
	if err := json.Unmarshal(env["encryptedResponse"], &jwe); err != nil {
		return "", true // the envelope, but no string in it: Open says so
	}
	return jwe, true
}

// Open reads an answer with the key: the envelope is decrypted, any other
// body (not encrypted, or not exactly the envelope, such as a truncated
// one) is returned as it is. An envelope that cannot be decrypted (another
// key's, altered, truncated, not a JWE) is an error wrapping
// ErrResponseMLE that says nothing of the key.
func (k ResponseMLEKey) Open(b []byte) ([]byte, error) {
	jwe, ok := envelopeJWE(b)
	if !ok {
		return b, nil
	}
	if jwe == "" {
		return nil, fmt.Errorf("%w: encryptedResponse is not a JWE string", ErrResponseMLE)
	}
	if k.IsZero() {
		return nil, fmt.Errorf("%w: no response MLE key to read it with", ErrResponseMLE)
	}
	obj, err := jose.ParseEncryptedCompact(jwe,
		[]jose.KeyAlgorithm{jose.RSA_OAEP_256, jose.RSA_OAEP},
		[]jose.ContentEncryption{jose.A256GCM, jose.A128GCM})
	if err != nil {
		return nil, fmt.Errorf("%w: not a compact JWE (RSA-OAEP-256 with A256GCM) of %d bytes: truncated or malformed: %v", ErrResponseMLE, len(jwe), err)
	}
	plain, err := obj.Decrypt(k.k.key)
	if err != nil {
		why := "it was encrypted for another key, or altered in transit (the GCM tag does not match)"
		if kid := obj.Header.KeyID; kid != "" && kid != k.k.kid {
			why = fmt.Sprintf("it was encrypted for key %q, not the configured %q", kid, k.k.kid)
		}
		return nil, fmt.Errorf("%w: cannot be decrypted: %s", ErrResponseMLE, why)
	}
	return plain, nil
}

// noMLEKeyError is the one message an encrypted answer without a key
// gives: what to move to and how.
func (c *Client) noMLEKeyError() error {
	mode, _ := ParseAuthMode(string(c.creds.Mode))
	if mode == AuthHTTPSignature {
		return fmt.Errorf("%w: the platform encrypts its answers (message-level encryption) and an HTTP signature cannot ask for them: move to JWT: --auth jwt (same key id and secret) or --auth jwt-p12, with --response-mle-key FILE (the \"REST – API Response MLE\" key generated in the merchant portal; docs/account.md, Authentication)", ErrResponseMLE)
	}
	return fmt.Errorf("%w: the platform encrypts its answers (message-level encryption) and no response key is configured: give --response-mle-key FILE (the \"REST – API Response MLE\" key generated in the merchant portal) and its password (--response-mle-password-file or RECONCILE_RESPONSE_MLE_PASSWORD)", ErrResponseMLE)
}

// mleRefusal recognises the platform's refusal of an HTTP signature where
// encryption is required (a 401 whose message speaks of message-level
// encryption; the wording is the sandbox's, unverified against the
// platform) and turns it into the same one message.
func (c *Client) mleRefusal(e *APIError) error {
	if e.HTTPStatus != 401 || !c.mle.IsZero() {
		return nil
	}
	m := strings.ToLower(e.Message)
	if !strings.Contains(m, "message-level encryption") && !strings.Contains(m, "response-mle") {
		return nil
	}
	return fmt.Errorf("%s %s: %w (the platform answered: %w)", e.Method, e.Path, c.noMLEKeyError(), e)
}
