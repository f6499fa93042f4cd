// Package testcert makes the throwaway keys, certificates and PKCS#12 files
// the tests of JWT authentication and of TLS servers need, so that no private key is ever
// committed. It is for tests only.
package testcert

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
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
	now := time.Now()
	return NewValid(t, owner, serial, now.Add(-time.Hour), now.Add(24*time.Hour))
}

// NewValid is New with the validity given, for the tests of a key that
// expires soon or has expired (the response MLE key's three years).
func NewValid(t testing.TB, owner, serial string, notBefore, notAfter time.Time) Cert {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:   pkix.Name{CommonName: owner, SerialNumber: serial},
		NotBefore: notBefore, NotAfter: notAfter}
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

// KeyPEM is the private key in PEM (PKCS#8, unencrypted) followed by the
// certificate: a response MLE key file in PEM form.
func (c Cert) KeyPEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	return append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), c.PEM()...)
}

// PEM is the certificate in PEM.
func (c Cert) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Cert.Raw})
}

// Server makes a self-signed certificate for a TLS server at host (an IP
// address or a DNS name), as a test's server presents it; its PEM is what
// a client is told to trust.
func Server(t testing.TB, host string) (tls.Certificate, Cert) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: host},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, Cert{Key: key, Cert: cert}
}
