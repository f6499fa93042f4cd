package platform

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

const redacted = "REDACTED"

var (
	_ fmt.Stringer   = Secret{}
	_ fmt.GoStringer = Secret{}
	_ slog.LogValuer = Secret{}
	_ json.Marshaler = Secret{}
)

// Secret holds the decoded shared secret of an HTTP-signature key.
//
// Every way of printing it (fmt's %v, %+v, %#v, %s, slog, encoding/json) says
// REDACTED, so a secret that ends up in a log line or an error by accident
// does not leak. The bytes sit behind a pointer: fmt prints a pointer found
// inside another value as an address, so even a struct holding a Secret in an
// unexported field (where fmt cannot call String) shows no key material.
type Secret struct {
	k *secretKey
}

type secretKey struct{ b []byte }

// NewSecret decodes a base64 (standard alphabet) shared secret, as the
// platform's key management hands it out. Surrounding whitespace, such as the
// newline at the end of a secret file, is ignored. The error never repeats the
// input.
func NewSecret(base64Secret string) (Secret, error) {
	s := strings.TrimSpace(base64Secret)
	if s == "" {
		return Secret{}, errors.New("shared secret is empty")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		// CorruptInputError only names an offset, never the input.
		return Secret{}, errors.New("shared secret is not standard base64: " + err.Error())
	}
	if len(b) == 0 {
		return Secret{}, errors.New("shared secret decodes to no bytes")
	}
	return Secret{k: &secretKey{b: b}}, nil
}

// Bytes returns a copy of the decoded secret, so a caller cannot alter the key
// a client signs with.
func (s Secret) Bytes() []byte {
	if s.k == nil {
		return nil
	}
	return append([]byte(nil), s.k.b...)
}

// key returns the secret without copying, for signing.
func (s Secret) key() []byte {
	if s.k == nil {
		return nil
	}
	return s.k.b
}

// IsZero reports whether the secret holds no key (the zero Secret).
func (s Secret) IsZero() bool { return s.k == nil || len(s.k.b) == 0 }

// String implements fmt.Stringer.
func (Secret) String() string { return redacted }

// GoString implements fmt.GoStringer, used by %#v.
func (Secret) GoString() string { return redacted }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON implements json.Marshaler, used by slog's JSON handler and by
// anyone dumping a configuration.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler, for encoders (YAML, TOML,
// slog's text handler) that prefer it.
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Credentials identify an HTTP-signature key.
type Credentials struct {
	KeyID  string
	Secret Secret
	// PortfolioID is the merchant or portfolio that owns the key. It goes on
	// the v-c-merchant-id line of the signing string while the
	// v-c-merchant-id header names the merchant acted for: that is how one
	// portfolio key acts for every child merchant. Empty means the key
	// belongs to each merchant it is used for.
	PortfolioID string
}
