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
	redactedText
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

// redactedText gives a credential type, by embedding, every way of being
// printed (fmt's %v, %+v, %#v, %s, slog, encoding/json, text encoders), each
// saying REDACTED.
type redactedText struct{}

// String implements fmt.Stringer.
func (redactedText) String() string { return redacted }

// GoString implements fmt.GoStringer, used by %#v.
func (redactedText) GoString() string { return redacted }

// LogValue implements slog.LogValuer.
func (redactedText) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON implements json.Marshaler, used by slog's JSON handler and by
// anyone dumping a configuration.
func (redactedText) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler, for encoders (YAML, TOML,
// slog's text handler) that prefer it.
func (redactedText) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Credentials identify a key and the mode it authenticates in.
type Credentials struct {
	// Mode is how requests are authenticated; empty means
	// AuthHTTPSignature.
	Mode AuthMode
	// KeyID and Secret are the shared-secret key (AuthHTTPSignature and
	// AuthJWT).
	KeyID  string
	Secret Secret
	// P12 is the private key and certificate of AuthJWTP12.
	P12 P12Key
	// PortfolioID is the merchant or portfolio that owns the key. It goes on
	// the v-c-merchant-id line of the signing string (the JWT's iss) while
	// the v-c-merchant-id header (and claim) names the merchant acted for:
	// that is how one portfolio key acts for every child merchant. Empty
	// means the key belongs to each merchant it is used for.
	PortfolioID string
}

// authenticator checks that the credentials are complete for their mode
// and returns what signs each attempt.
func (c Credentials) authenticator() (authenticator, error) {
	mode, err := ParseAuthMode(string(c.Mode))
	if err != nil {
		return nil, fmt.Errorf("platform credentials: %w", err)
	}
	if mode == AuthJWTP12 {
		if c.P12.IsZero() {
			return nil, errors.New("platform credentials: " + string(mode) + " needs a P12 key")
		}
		return rs256Signer(c.P12), nil
	}
	if c.KeyID == "" {
		return nil, errors.New("platform credentials: empty key id")
	}
	if c.Secret.IsZero() {
		return nil, errors.New("platform credentials: empty shared secret")
	}
	if mode == AuthJWT {
		return hs256Signer(c.KeyID, c.Secret), nil
	}
	return httpSignature{keyID: c.KeyID, secret: c.Secret}, nil
}
