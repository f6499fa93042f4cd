package platform

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"software.sslmate.com/src/go-pkcs12"
)

var (
	_ fmt.Stringer   = P12Key{}
	_ fmt.GoStringer = P12Key{}
	_ slog.LogValuer = P12Key{}
	_ json.Marshaler = P12Key{}
)

// P12Key is the RSA private key and the certificate of a PKCS#12 file, for
// JWTs signed with RS256 (AuthJWTP12). As with Secret, every way of
// printing it says REDACTED, and the key sits behind a pointer.
type P12Key struct {
	redactedText
	k *p12Material
}

type p12Material struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate
}

// ParseP12 reads a PKCS#12 file: current ones (AES, PBKDF2, SHA-256 MACs,
// as OpenSSL 3 writes them) and legacy ones (3DES, RC2, SHA-1). The file
// must hold one RSA private key and the certificate of that key, whose
// subject has a serialNumber attribute: the platform knows the certificate
// by it (it is the JWT's kid). Other certificates in the file, such as the
// platform's own CA, are ignored. Errors never repeat the password.
func ParseP12(data []byte, password string) (P12Key, error) {
	key, leaf, others, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return P12Key{}, errors.New("P12 file: wrong password")
		}
		return P12Key{}, fmt.Errorf("P12 file: %w", err)
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		return P12Key{}, fmt.Errorf("P12 file: the private key is %T, want an RSA key (JWTs are signed RS256)", key)
	}
	var cert *x509.Certificate
	for _, c := range append([]*x509.Certificate{leaf}, others...) {
		if pub, ok := c.PublicKey.(*rsa.PublicKey); ok && pub.Equal(&rsaKey.PublicKey) {
			cert = c
			break
		}
	}
	if cert == nil {
		return P12Key{}, errors.New("P12 file: no certificate of its private key")
	}
	k, err := NewP12Key(rsaKey, cert)
	if err != nil {
		return P12Key{}, fmt.Errorf("P12 file: %w", err)
	}
	return k, nil
}

// NewP12Key pairs an RSA key with its certificate, as ParseP12 does for the
// contents of a file; the embedded sandbox uses it for a throwaway key.
func NewP12Key(key *rsa.PrivateKey, cert *x509.Certificate) (P12Key, error) {
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return P12Key{}, errors.New("the certificate is not the key's")
	}
	if cert.Subject.SerialNumber == "" {
		return P12Key{}, fmt.Errorf("the certificate %q has no serialNumber attribute in its subject (the platform's JWT kid)", cert.Subject.String())
	}
	return P12Key{k: &p12Material{key: key, cert: cert}}, nil
}

// KeyID is the JWT kid: the serialNumber attribute of the certificate's
// subject.
func (k P12Key) KeyID() string {
	if k.k == nil {
		return ""
	}
	return k.k.cert.Subject.SerialNumber
}

// Certificate returns the certificate of the key (for a server that is
// to trust it, such as the embedded sandbox).
func (k P12Key) Certificate() *x509.Certificate {
	if k.k == nil {
		return nil
	}
	return k.k.cert
}

// IsZero reports whether no key was loaded.
func (k P12Key) IsZero() bool { return k.k == nil }
