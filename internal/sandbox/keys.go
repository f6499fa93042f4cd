package sandbox

import (
	"encoding/base64"
	"fmt"
	"net/http"
)

// keyValidityYears is how long a generated acceptance-device key lives
// (an expiry date is returned; the validity is not shown).
const keyValidityYears = 1

// generateKeys answers POST /kms/v2/keys-sym-pos (spec: contactless phone
// acceptance): a secret key for each existing merchant ID named in
// keyInformation[].organizationId, shown once and kept by nobody. A key is
// generated only for a member of the organization the caller may act for.
func (s *Server) generateKeys(x *exchange, d doc) answer {
	var c checks
	items := d.list("keyInformation")
	if len(items) == 0 {
		c.require(d, "keyInformation")
	}
	var mids []string
	for i, it := range items {
		f := fmt.Sprintf("keyInformation[%d].organizationId", i)
		mid := doc(asMap(it)).str("organizationId")
		switch _, member := s.memberIndex(mid); {
		case mid == "":
			c.invalid(f, "MISSING_FIELD")
			c.missing = true
		case !member:
			c.invalid(f, "INVALID_DATA: not an existing merchant ID")
		case !s.mayActFor(x.user, mid):
			c.invalid(f, "INVALID_DATA: not a merchant ID this key may act for")
		}
		mids = append(mids, mid)
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	now := s.Clock()
	var keys []map[string]any
	for _, mid := range mids {
		idx, _ := s.memberIndex(mid)
		m := s.cache.pin(idx)
		m.mu.Lock()
		s.advance(m, now)
		m.dirty = true
		st := m.state(s.gen)
		st.keys++
		secret := make([]byte, 32)
		for i := range secret {
			secret[i] = byte(st.rng.Uint32())
		}
		keyID := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", st.rng.Uint32(), st.rng.Uint32()&0xffff, st.rng.Uint32()&0xfff,
			st.rng.Uint32()&0x3fff|0x8000, st.rng.Uint64()&0xffffffffffff)
		m.mu.Unlock()
		keys = append(keys, map[string]any{"organizationId": mid, "externalOrganizationId": "EXT-" + mid,
			"key": base64.StdEncoding.EncodeToString(secret), "keyId": keyID, "status": "ACTIVE",
			"expirationDate": ts(now.AddDate(keyValidityYears, 0, 0))})
	}
	return reply(http.StatusCreated, map[string]any{"submitTimeUtc": ts(now), "status": "ACCEPTED", "keyInformation": keys})
}
