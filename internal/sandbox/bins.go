package sandbox

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"math/rand/v2"
	"strings"
)

// binOutcome is what a lookup of a BIN's 6-digit prefix answers.
type binOutcome int

const (
	binCompleted binOutcome = iota
	// binMultipleResolvable: the 6-digit prefix covers two ranges told apart
	// by the 7th digit; 8 digits, a full PAN or a token of a card resolve it.
	binMultipleResolvable
	// binMultipleUnresolvable: every prefix and PAN lookup answers MULTIPLE,
	// and no token is ever issued on it: nothing resolves it.
	binMultipleUnresolvable
	binNoMatch
)

// binRecord is the attribute set a COMPLETED lookup returns.
type binRecord struct {
	brand, fundingSource, fundingSubType, platform, product string
	health                                                  bool
	issuer, country, currency                               string
}

// binEntry is one 6-digit BIN of the fixed table.
type binEntry struct {
	prefix   string
	outcome  binOutcome
	length   int    // PAN length
	cardType string // three-digit card type code of the platform
	records  []binRecord
}

// commercial reports whether a card on this BIN resolves to a business
// platform, one that qualifies for Level II/III (the only BINs that do are
// COMPLETED ones).
func (b *binEntry) commercial() bool {
	return b.outcome == binCompleted && businessPlatform(b.records[0].platform)
}

// businessPlatform: the cardPlatform values of a business card, every one
// the SDK lists (TmsBinLookupPaymentAccountInformationFeatures: BUSINESS,
// CONSUMER, CORPORATE, COMMERCIAL, GOVERNMENT) but CONSUMER. The product's
// rule (business_card_platform in queries/views.sql).
func businessPlatform(p string) bool {
	switch p {
	case "BUSINESS", "CORPORATE", "COMMERCIAL", "GOVERNMENT":
		return true
	}
	return false
}

// Indexes into binTable, named for the generators.
const (
	binConsumerCredit = iota
	binConsumerDebit
	binPrepaid
	binCorporate
	binPurchasing
	binHealth
	binAmex
	binResolvable
	binUnresolvable
	binNoMatchIdx
	// The other business platforms and the Mastercard health card: only
	// planted (forceCalls, forceHealthcare), never drawn, so that the
	// generated world's draws stay as they were.
	binBusiness
	binCorporatePlatform
	binGovernment
	binHealthMastercard
)

// binTable is fixed, not seed-dependent, so that a client's BIN cache and
// the tests can rely on it. Issuer names are invented.
var binTable = []binEntry{
	binConsumerCredit: {prefix: "411111", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "CREDIT", platform: "CONSUMER", product: "Visa Classic", issuer: "SANDBOX BANK ONE", country: "US", currency: "USD"}}},
	binConsumerDebit: {prefix: "427533", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "DEBIT", platform: "CONSUMER", product: "Visa Classic Debit", issuer: "SANDBOX SAVINGS", country: "US", currency: "USD"}}},
	binPrepaid: {prefix: "530695", length: 16, cardType: "002", records: []binRecord{
		{brand: "MASTERCARD", fundingSource: "PREPAID", fundingSubType: "RELOADABLE", platform: "CONSUMER", product: "Prepaid Mastercard", issuer: "SANDBOX PREPAID CO", country: "GB", currency: "GBP"}}},
	binCorporate: {prefix: "555544", length: 16, cardType: "002", records: []binRecord{
		{brand: "MASTERCARD", fundingSource: "CREDIT", platform: "COMMERCIAL", product: "Mastercard Corporate Card", issuer: "SANDBOX COMMERCIAL BANK", country: "US", currency: "USD"}}},
	binPurchasing: {prefix: "448590", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "CREDIT", platform: "COMMERCIAL", product: "Visa Purchasing", issuer: "SANDBOX PROCUREMENT BANK", country: "US", currency: "USD"}}},
	binHealth: {prefix: "471510", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "DEBIT", platform: "CONSUMER", product: "Visa HSA Debit", health: true, issuer: "SANDBOX HEALTH TRUST", country: "US", currency: "USD"}}},
	binAmex: {prefix: "378282", length: 15, cardType: "003", records: []binRecord{
		{brand: "AMERICAN EXPRESS", fundingSource: "CHARGE", platform: "CONSUMER", product: "American Express Green", issuer: "SANDBOX AMEX ISSUER", country: "US", currency: "USD"}}},
	binResolvable: {prefix: "431940", outcome: binMultipleResolvable, length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "CREDIT", platform: "CONSUMER", product: "Visa Signature", issuer: "SANDBOX TWIN BANK A", country: "IE", currency: "EUR"},
		{brand: "VISA", fundingSource: "DEBIT", platform: "CONSUMER", product: "Visa Debit", issuer: "SANDBOX TWIN BANK B", country: "IE", currency: "EUR"}}},
	binUnresolvable: {prefix: "520082", outcome: binMultipleUnresolvable, length: 16, cardType: "002"},
	binNoMatchIdx:   {prefix: "601179", outcome: binNoMatch, length: 16, cardType: "004"},
	binBusiness: {prefix: "455701", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "CREDIT", platform: "BUSINESS", product: "Visa Business", issuer: "SANDBOX SMALL BUSINESS BANK", country: "US", currency: "USD"}}},
	binCorporatePlatform: {prefix: "556677", length: 16, cardType: "002", records: []binRecord{
		{brand: "MASTERCARD", fundingSource: "CREDIT", platform: "CORPORATE", product: "Mastercard Corporate Fleet", issuer: "SANDBOX FLEET BANK", country: "US", currency: "USD"}}},
	binGovernment: {prefix: "428208", length: 16, cardType: "001", records: []binRecord{
		{brand: "VISA", fundingSource: "CREDIT", platform: "GOVERNMENT", product: "Visa Government Card", issuer: "SANDBOX TREASURY BANK", country: "US", currency: "USD"}}},
	binHealthMastercard: {prefix: "223041", length: 16, cardType: "002", records: []binRecord{
		{brand: "MASTERCARD", fundingSource: "DEBIT", platform: "CONSUMER", product: "Mastercard HSA Debit", health: true, issuer: "SANDBOX HEALTH SAVINGS", country: "US", currency: "USD"}}},
}

// binByPrefix finds the table entry of a 6-digit prefix.
func binByPrefix(p string) (int, bool) {
	for i := range binTable {
		if binTable[i].prefix == p {
			return i, true
		}
	}
	return 0, false
}

// subRecord is the record of a resolvable-MULTIPLE BIN a PAN falls in: the
// 7th digit 0-4 is the first range, 5-9 the second.
func subRecord(pan string) int {
	if len(pan) > 6 && pan[6] >= '5' {
		return 1
	}
	return 0
}

// lookupPrefixOrPAN answers a BIN lookup by card number: a 6–8 digit prefix
// or a full PAN (already checked for Luhn by the caller).
func lookupPrefixOrPAN(num string) (binOutcome, *binEntry, *binRecord) {
	if len(num) < 6 {
		return binNoMatch, nil, nil
	}
	i, ok := binByPrefix(num[:6])
	if !ok {
		return binNoMatch, nil, nil
	}
	b := &binTable[i]
	switch b.outcome {
	case binCompleted:
		return binCompleted, b, &b.records[0]
	case binMultipleResolvable:
		if len(num) >= 8 {
			return binCompleted, b, &b.records[subRecord(num)]
		}
		return binMultipleResolvable, b, nil
	default:
		return b.outcome, b, nil
	}
}

// card is a payment card of the simulated data.
type card struct {
	pan                 string
	bin                 int // index into binTable
	expMonth, expYear   int
	customerID          string // customer token id, "" when the card is not tokenized
	instrumentID        string // instrument identifier token id, "" when not tokenized
	paymentInstrumentID string
	typ                 string // card type code a request gave, for a PAN outside the BIN table
}

func (c *card) entry() *binEntry { return &binTable[c.bin] }

// cardType is the platform's three-digit card type code.
func (c *card) cardType() string {
	if c.typ != "" {
		return c.typ
	}
	return c.entry().cardType
}

// record is what a correct client can learn of the card's BIN: the
// COMPLETED record by prefix, else by its token; nil when nothing resolves.
func (c *card) record() *binRecord {
	b := c.entry()
	switch b.outcome {
	case binCompleted:
		return &b.records[0]
	case binMultipleResolvable:
		if c.customerID != "" {
			return &b.records[subRecord(c.pan)]
		}
	}
	return nil
}

func (c *card) prefix() string { return c.pan[:6] }
func (c *card) suffix() string { return c.pan[len(c.pan)-4:] }

// masked is the PAN as a careful merchant logs it: first 6, X…, last 4.
func (c *card) masked() string {
	return c.pan[:6] + strings.Repeat("X", len(c.pan)-10) + c.pan[len(c.pan)-4:]
}

// newCard draws a card on BIN b. A card on the resolvable-MULTIPLE BIN is
// always tokenized (so that every transaction carrying it resolves); cards
// on the unresolvable and NO MATCH BINs never are.
func newCard(r *rand.Rand, b int, tokenized bool) card {
	e := &binTable[b]
	switch e.outcome {
	case binMultipleResolvable:
		tokenized = true
	case binMultipleUnresolvable, binNoMatch:
		tokenized = false
	}
	digits := []byte(e.prefix)
	for len(digits) < e.length-1 {
		digits = append(digits, byte('0'+r.IntN(10)))
	}
	digits = append(digits, luhnDigit(digits))
	c := card{pan: string(digits), bin: b, expMonth: 1 + r.IntN(12), expYear: 2027 + r.IntN(5)}
	if tokenized {
		sub := byte(subRecord(c.pan))
		c.customerID = newToken(r, tokenCustomer, byte(b), sub)
		c.instrumentID = newToken(r, tokenInstrument, byte(b), sub)
		c.paymentInstrumentID = newToken(r, tokenPaymentInstrument, byte(b), sub)
	}
	return c
}

// pickBin draws a BIN index from integer weights.
func pickBin(r *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}

// Subscription cards use only COMPLETED and resolvable-MULTIPLE BINs.
var subscriptionBinWeights = []int{
	binConsumerCredit: 40, binConsumerDebit: 18, binPrepaid: 5, binCorporate: 6, binPurchasing: 6,
	binHealth: 5, binAmex: 8, binResolvable: 12, binUnresolvable: 0, binNoMatchIdx: 0,
}

// Merchant calls lean to commercial cards (the Level III audit needs them)
// and now and then carry a BIN nothing resolves.
var callBinWeights = []int{
	binConsumerCredit: 25, binConsumerDebit: 12, binPrepaid: 4, binCorporate: 15, binPurchasing: 12,
	binHealth: 4, binAmex: 8, binResolvable: 8, binUnresolvable: 2, binNoMatchIdx: 2,
}

// luhnDigit computes the check digit to append to digits.
func luhnDigit(digits []byte) byte {
	sum := 0
	double := true
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

// luhnValid reports whether a digit string passes the Luhn check.
func luhnValid(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return luhnDigit([]byte(s[:len(s)-1])) == s[len(s)-1]
}

// Token kinds, stored in the token itself.
const (
	tokenCustomer          byte = 'C'
	tokenInstrument        byte = 'I'
	tokenPaymentInstrument byte = 'P'
)

// Tokens are stateless: 16 bytes {magic, kind, BIN index, range, random}
// enciphered with a fixed AES key and written as 32 upper-case hex digits,
// the shape of the platform's customer token ids. Any merchant's BIN lookup
// can then resolve any token without the sandbox keeping a token table
// (which a large scale could not afford), and a token the sandbox never
// issued fails the magic check and answers NO MATCH.
var tokenCipher = func() cipher.Block {
	b, err := aes.NewCipher([]byte("reconcile-sbx-tk"))
	if err != nil {
		panic(err)
	}
	return b
}()

var tokenMagic = [3]byte{0x5b, 0xd0, 0x7e}

func newToken(r *rand.Rand, kind, bin, sub byte) string {
	for {
		var plain, enc [16]byte
		copy(plain[:], tokenMagic[:])
		plain[3], plain[4], plain[5] = kind, bin, sub
		for i := 6; i < 16; i++ {
			plain[i] = byte(r.Uint32())
		}
		tokenCipher.Encrypt(enc[:], plain[:])
		s := strings.ToUpper(hex.EncodeToString(enc[:]))
		// No identifier may look like a card number to a PAN scanner.
		if longestDigitRun(s) < 10 {
			return s
		}
	}
}

// decodeToken returns the BIN index and range a token was issued for.
func decodeToken(s string, kind byte) (bin, sub int, ok bool) {
	if len(s) != 32 {
		return 0, 0, false
	}
	enc, err := hex.DecodeString(s)
	if err != nil {
		return 0, 0, false
	}
	var plain [16]byte
	tokenCipher.Decrypt(plain[:], enc)
	if [3]byte(plain[:3]) != tokenMagic || plain[3] != kind || int(plain[4]) >= len(binTable) || plain[5] > 1 {
		return 0, 0, false
	}
	return int(plain[4]), int(plain[5]), true
}

func longestDigitRun(s string) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
