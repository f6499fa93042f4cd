package sandbox

import (
	"encoding/json"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Message-level encryption of responses, as the platform does once a
// merchant's portfolio enables it (docs/platform.md, "Response MLE"):
// the JWT names the key to encrypt for in its v-c-response-mle-kid claim
// (the Node.js SDK's JWTSigToken.js), and every answer is the JSON object
// {"encryptedResponse": "<compact JWE>"}, RSA-OAEP-256 key wrapping and
// A256GCM content encryption (the SDK's JWEUtility.js and MLEUtility.js
// read it so). The protected header carries the kid, cty "JSON" and iat,
// as the SDK writes the header of the requests it encrypts.
//
// With Config.ResponseMLE the sandbox requires it: a JWT without the
// claim, or naming a key the sandbox has no certificate of, is refused
// 401, and so is an HTTP signature, which cannot name a key. The refusal
// itself is in the clear (there is no key to encrypt it for).

// responseMLECertificate is the certificate a request's answers are to be
// encrypted for: nil when the sandbox does not encrypt.
func (s *Server) responseMLECertificate(kid string) (*Certificate, error) {
	if len(s.cfg.ResponseMLE) == 0 {
		return nil, nil
	}
	if kid == "" {
		return nil, authErr("response message-level encryption is required: the JWT lacks the v-c-response-mle-kid claim")
	}
	for i := range s.cfg.ResponseMLE {
		if s.cfg.ResponseMLE[i].SerialNumber == kid {
			return &s.cfg.ResponseMLE[i], nil
		}
	}
	return nil, authErr("response message-level encryption: unknown v-c-response-mle-kid %q", kid)
}

// encryptAnswer wraps an answer's body in the platform's envelope,
// encrypted for cert.
func encryptAnswer(cert Certificate, body []byte, now time.Time) ([]byte, error) {
	opts := (&jose.EncrypterOptions{}).WithContentType("JSON").WithHeader("iat", now.Unix())
	enc, err := jose.NewEncrypter(jose.A256GCM,
		jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: cert.Key, KeyID: cert.SerialNumber}, opts)
	if err != nil {
		return nil, fmt.Errorf("response MLE: %w", err)
	}
	obj, err := enc.Encrypt(body)
	if err != nil {
		return nil, fmt.Errorf("response MLE: %w", err)
	}
	jwe, err := obj.CompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("response MLE: %w", err)
	}
	return json.Marshal(struct {
		EncryptedResponse string `json:"encryptedResponse"`
	}{jwe})
}
