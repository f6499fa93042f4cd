// Package testcert makes the throwaway keys, certificates and PKCS#12 files
// the tests of JWT authentication need, so that no private key is ever
// committed. It is for tests only.
package testcert

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Cert is a merchant certificate as the platform issues one for JWTs: its
// subject's CN is the merchant (or portfolio) and its serialNumber
// attribute the key id.
type Cert struct {
	Key  *rsa.PrivateKey
	Cert *x509.Certificate
}

// New makes a self-signed RSA certificate for owner with the subject
// serialNumber serial, valid from an hour ago for a day.
func New(t testing.TB, owner, serial string) Cert {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()),
		Subject:   pkix.Name{CommonName: owner, SerialNumber: serial},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return Cert{Key: key, Cert: cert}
}

// P12 encodes the key and certificate as a PKCS#12 file with enc
// (pkcs12.Modern for AES and PBKDF2, pkcs12.LegacyDES or LegacyRC2 for the
// older algorithms), with caCerts after the certificate.
func (c Cert) P12(t testing.TB, enc *pkcs12.Encoder, password string, caCerts ...*x509.Certificate) []byte {
	t.Helper()
	b, err := enc.Encode(c.Key, c.Cert, caCerts, password)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PEM is the certificate in PEM.
func (c Cert) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Cert.Raw})
}
