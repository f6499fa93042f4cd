package sandbox

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// apiState is what the payments-API writes of a member leave behind:
// tokens they created, buy-now-pay-later sessions, installment plan
// acceptances. It exists only on members changed by writes, which are
// pinned in the cache.
type apiState struct {
	rng      *rand.Rand
	tokens   map[string]*tokenRec    // by customer, payment instrument and instrument identifier id
	byPAN    map[string]*tokenRec    // the instrument identifier of a PAN (one per PAN and merchant)
	sessions map[string]*bnplSession // by session id and by session token
	accepts  map[string]*acceptance  // installment plan acceptances by authorization id
	keys     int                     // acceptance-device keys generated
}

// recordIDs are the ids of a record a write makes now: its resource id,
// and its reconciliation id drawn from the member's API stream.
func (m *member) recordIDs(g *generator, now time.Time) (id, reconciliationID string) {
	st := m.state(g)
	id = m.nextID(now)
	return id, alnum(st.rng, 12)
}

// tokenRec is a card the merchant tokenized with TOKEN_CREATE, and the
// network transaction id of the customer-initiated transaction that stored
// it (a later MIT without previousTransactionId uses it).
type tokenRec struct {
	card         card
	networkTxnID string
}

func (m *member) state(g *generator) *apiState {
	if m.api == nil {
		m.api = &apiState{rng: g.stream(m.index, streamAPI, 0), tokens: map[string]*tokenRec{}, byPAN: map[string]*tokenRec{},
			sessions: map[string]*bnplSession{}, accepts: map[string]*acceptance{}}
	}
	return m.api
}

// cardOfToken finds the card behind a token id of the given kind: one this
// merchant created, else any token the sandbox ever issued (tokens are
// stateless, bins.go), whose card is derived from the token alone.
func (m *member) cardOfToken(kind byte, id string) (card, bool) {
	if m.api != nil {
		if rec, ok := m.api.tokens[id]; ok {
			return rec.card, true
		}
	}
	b, sub, ok := decodeToken(id, kind)
	if !ok {
		return card{}, false
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(kind)))
	c := newCard(r, b, false)
	// Keep the range the token names (the 7th digit picks it, bins.go).
	if sub == 1 && len(c.pan) > 6 && c.pan[6] < '5' || sub == 0 && len(c.pan) > 6 && c.pan[6] >= '5' {
		d := []byte(c.pan[:len(c.pan)-1])
		d[6] = byte('0' + (int(d[6]-'0')+5)%10)
		c.pan = string(append(d, luhnDigit(d)))
	}
	sb := byte(sub)
	c.customerID = newToken(r, tokenCustomer, byte(b), sb)
	c.instrumentID = newToken(r, tokenInstrument, byte(b), sb)
	c.paymentInstrumentID = newToken(r, tokenPaymentInstrument, byte(b), sb)
	switch kind {
	case tokenCustomer:
		c.customerID = id
	case tokenInstrument:
		c.instrumentID = id
	case tokenPaymentInstrument:
		c.paymentInstrumentID = id
	}
	return c, true
}

// tokenize creates the tokens of a card for this merchant: a new customer
// and payment instrument each time, and one instrument identifier per PAN
// (isNew reports whether it was created now).
func (m *member) tokenize(g *generator, c card, networkTxnID string) (out card, isNew bool) {
	st := m.state(g)
	bin, sub := byte(c.bin), byte(subRecord(c.pan))
	out = c
	if old, ok := st.byPAN[c.pan]; ok {
		out.instrumentID = old.card.instrumentID
	} else {
		out.instrumentID = newToken(st.rng, tokenInstrument, bin, sub)
		isNew = true
	}
	out.customerID = newToken(st.rng, tokenCustomer, bin, sub)
	out.paymentInstrumentID = newToken(st.rng, tokenPaymentInstrument, bin, sub)
	rec := &tokenRec{card: out, networkTxnID: networkTxnID}
	st.byPAN[c.pan] = rec
	for _, id := range []string{out.customerID, out.instrumentID, out.paymentInstrumentID} {
		st.tokens[id] = rec
	}
	return out, isNew
}

// MerchantSettings are account settings of a member that the spec's rules
// depend on. The zero value is not the default: see DefaultMerchantSettings.
type MerchantSettings struct {
	// Level3Enabled: the account may send Level III data; when false, a
	// request carrying it fails with invalid data (spec Errors).
	Level3Enabled bool `json:"level3Enabled"`
	// Level3BatchingError simulates a Level III batching error at the
	// processor: while set, Level III captures, sales and credits succeed
	// with level3TransmissionStatus N.
	Level3BatchingError bool `json:"level3BatchingError"`
	// RelaxedRequirements: relaxed address and expiry requirements are
	// enabled, so billing address and expiry date are not required.
	RelaxedRequirements bool `json:"relaxedRequirements"`
	// NotificationsDisabled: the recurring billing service sends the
	// customers no emails (the merchant notifies them where a mandate
	// requires it).
	NotificationsDisabled bool `json:"notificationsDisabled"`
	// RecurringBillingDisabled: the account lacks Recurring Billing, so
	// every /rbs/v1 call answers 400 INVALID_MERCHANT_CONFIGURATION
	// (the reason the SDK's InlineResponse4005 lists); the member's other
	// products work. The generated member without it
	// (withoutRecurringBilling) has no plans or subscriptions.
	RecurringBillingDisabled bool `json:"recurringBillingDisabled"`
	// ReportingDisabled: the key may not read this account's reports: the
	// Reporting API answers 403 for it, and for a group that holds it
	// (reporting_routes.go).
	ReportingDisabled bool `json:"reportingDisabled"`
}

// DefaultMerchantSettings are every member's settings at start.
func DefaultMerchantSettings() MerchantSettings { return MerchantSettings{Level3Enabled: true} }

// MerchantSettings returns a member's settings.
func (s *Server) MerchantSettings(mid string) (MerchantSettings, error) {
	idx, ok := s.memberIndex(mid)
	if !ok {
		return MerchantSettings{}, errUnknownMerchant(mid)
	}
	m := s.cache.get(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settings, nil
}

// reportingDisabled reports whether the key may not read member idx's
// reports (MerchantSettings.ReportingDisabled) without generating the
// member: a member is generated with it false, and only
// SetMerchantSettings, which pins the member first, changes it. A report
// over a group of members not in the cache then costs no generation of
// each just to read this.
func (s *Server) reportingDisabled(idx int) bool {
	m := s.cache.pinnedMember(idx)
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settings.ReportingDisabled
}

// SetMerchantSettings changes a member's settings (the member is pinned).
func (s *Server) SetMerchantSettings(mid string, st MerchantSettings) error {
	idx, ok := s.memberIndex(mid)
	if !ok {
		return errUnknownMerchant(mid)
	}
	m := s.cache.pin(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	s.advance(m, s.Clock())
	m.settings, m.dirty = st, true
	return nil
}

type unknownMerchantError string

func (e unknownMerchantError) Error() string { return "unknown merchant " + string(e) }

func errUnknownMerchant(mid string) error { return unknownMerchantError(mid) }

// settled reports whether a transaction submitted at t has settled by now:
// the sandbox settles in a nightly batch at 00:00 UTC.
func settled(t, now time.Time) bool { return !now.Before(utcDay(t).AddDate(0, 0, 1)) }
