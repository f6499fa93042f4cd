package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Payments (/pts/v2): authorizations and sales, with the credentialed
// (CIT/MIT), device-wallet, healthcare and Level II/III rules of the spec;
// follow-ons are in followons.go, buy-now-pay-later in bnpl.go. Every
// payment becomes a transaction that Transaction Search and the
// transaction detail show, and its answer has the shape of the journals'
// (truth.go: call.response), so a merchant's own log of a sandbox call
// looks like the generated ones.

// apiTxn is what a transaction made through the API adds to the record.
type apiTxn struct {
	status                   string  // applicationInformation.status
	app                      appJSON // its one application
	commerce, solution       string
	response                 map[string]any // the answer, served again by GET on its self link
	captured, refunded       int64          // follow-ons on an authorization, sale or capture
	previousTxnID, initiator string
	par                      string
	tokens                   map[string]any // tokenInformation of tokens created
	decline                  string         // errorInformation.reason of a decline
	healthcare               bool
	level3                   bool
	bnpl                     *bnplSession
	accept                   *acceptance // the installment plan selected for this authorization
}

func okApp(name string) appJSON {
	return appJSON{Name: name, ReasonCode: "100", RCode: "1", RFlag: "SOK", RMessage: "Request was processed successfully."}
}

// Values of processingInformation.commerceIndicator (spec: credentialed
// transactions). payerAuthIndicators are the payer authentication values;
// the strongly authenticated ones satisfy strong customer authentication.
var (
	payerAuthIndicators = []string{"vbv", "vbv_attempted", "vbv_failure", "pb", "pb_attempted", "dipb", "dipb_attempted",
		"up3ds", "up3ds_attempted", "up3ds_failure", "aesk", "aesk_attempted", "spa"}
	strongAuthIndicators = []string{"vbv", "pb", "dipb", "up3ds", "aesk", "spa"}
	paymentSolutions     = []string{"001", "004", "005", "006", "007", "008", "012", "014", "015", "027"}
	healthAmountTypes    = []string{"healthcare", "healthcare-transit", "prescription", "clinic", "dental", "vision", "eligible-total"} // Visa's and Mastercard's (SDK model Ptsv2paymentsHealthCareInformationAmountDetails)
	// scaCountries mandate strong customer authentication (the European
	// Economic Area and the United Kingdom).
	scaCountries = strings.Fields("AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO GB")
)

// walletDescriptor is the fixed fluidData.descriptor of a wallet payment
// decrypted by the service.
const walletDescriptor = "RklEPUNPTU1PTi5BUFBMRS5JTkFQUC5QQVlNRU5U"

// payReq is a payment request as the rules read it.
type payReq struct {
	d                      doc
	amount                 int64
	currency, code         string
	capture                bool
	card                   card
	source                 string // card, tokenizedCard, fluidData, customer, paymentInstrument, instrumentIdentifier
	storedNTI              string // network transaction id stored with the token used
	commerce, solution     string
	initiator              string
	storedOnFile, usedCred bool
	previousTxnID          string
	tokenCreate            bool
	tokenTypes             []string
	healthcare             bool
	level3                 bool
	items                  []any
	bill                   billTo
}

// billToFields are required with a card number on authorizations, sales
// and credits, unless the account has relaxed requirements.
var billToFields = []string{"address1", "administrativeArea", "country", "email", "firstName", "lastName", "locality", "postalCode"}

func readBillTo(d doc) billTo {
	b := d.obj("orderInformation.billTo")
	return billTo{first: b.str("firstName"), last: b.str("lastName"), address: b.str("address1"), city: b.str("locality"),
		state: b.str("administrativeArea"), postal: b.str("postalCode"), country: strings.ToUpper(b.str("country")), email: b.str("email")}
}

// cardFromPAN makes the card of a full card number.
func cardFromPAN(pan, typ string, month, year int) card {
	c := card{pan: pan, bin: binNoMatchIdx, typ: typ, expMonth: month, expYear: year}
	if i, ok := binByPrefix(pan[:6]); ok {
		c.bin = i
		if typ == binTable[i].cardType {
			c.typ = ""
		}
	}
	return c
}

// readInstrument finds what pays: a card number, a device token, wallet
// data, or exactly one stored-token identifier.
func readInstrument(c *checks, d doc, m *member, pr *payReq, relaxed bool) {
	pi := d.obj("paymentInformation")
	var tokenFields []string
	for _, f := range []string{"customer", "paymentInstrument", "instrumentIdentifier"} {
		if pi.str(f+".id") != "" {
			tokenFields = append(tokenFields, f)
		}
	}
	typ := pi.str("card.type")
	month, year := atoiOr(pi.str("card.expirationMonth"), 12), atoiOr(pi.str("card.expirationYear"), 2030)
	switch {
	case pi.str("fluidData.value") != "":
		pr.source = "fluidData"
		readWallet(c, d, pr)
	case pi.str("tokenizedCard.number") != "":
		pr.source = "tokenizedCard"
		num := pi.str("tokenizedCard.number")
		if !luhnValid(num) || len(num) < 13 || len(num) > 19 {
			c.invalid("paymentInformation.tokenizedCard.number", "")
			return
		}
		if tt := pi.str("tokenizedCard.transactionType"); tt != "" && tt != "1" {
			c.invalid("paymentInformation.tokenizedCard.transactionType", "")
		}
		if tt := pi.str("tokenizedCard.type"); tt != "" {
			typ = tt
		}
		pr.card = cardFromPAN(num, typ, atoiOr(pi.str("tokenizedCard.expirationMonth"), month), atoiOr(pi.str("tokenizedCard.expirationYear"), year))
	case pi.str("card.number") != "":
		pr.source = "card"
		num := strings.ReplaceAll(pi.str("card.number"), " ", "")
		if !luhnValid(num) || len(num) < 13 || len(num) > 19 {
			c.invalid("paymentInformation.card.number", "")
			return
		}
		if !relaxed {
			c.require(d, "paymentInformation.card.expirationMonth", "paymentInformation.card.expirationYear")
		}
		pr.card = cardFromPAN(num, typ, month, year)
	case len(tokenFields) == 1:
		pr.source = tokenFields[0]
		kind := map[string]byte{"customer": tokenCustomer, "paymentInstrument": tokenPaymentInstrument, "instrumentIdentifier": tokenInstrument}[pr.source]
		id := pi.str(pr.source + ".id")
		cd, ok := m.cardOfToken(kind, id)
		if !ok {
			c.invalid("paymentInformation."+pr.source+".id", "INVALID_DATA: unknown token")
			return
		}
		pr.card = cd
		if m.api != nil {
			if rec, ok := m.api.tokens[id]; ok {
				pr.storedNTI = rec.networkTxnID
			}
		}
	case len(tokenFields) > 1:
		c.invalid("paymentInformation", "INVALID_DATA: one token identifier, not several")
	default:
		c.require(d, "paymentInformation.card.number")
	}
}

func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return def
	}
	return n
}

// readWallet reads a device-wallet payment decrypted by the service. The
// sandbox cannot decrypt a real wallet's payment data: when fluidData.value
// decodes to JSON carrying applicationPrimaryAccountNumber (the field of
// a decrypted payload) that device token is used, else one is derived from
// the data, on a Visa or Mastercard test BIN by card type.
func readWallet(c *checks, d doc, pr *payReq) {
	c.require(d, "clientReferenceInformation.code", "paymentInformation.fluidData.descriptor",
		"paymentInformation.tokenizedCard.transactionType", "processingInformation.paymentSolution")
	if !d.has("paymentInformation.card.type") && !d.has("paymentInformation.tokenizedCard.type") {
		c.require(d, "paymentInformation.card.type")
	}
	if v := d.str("paymentInformation.fluidData.descriptor"); v != "" && v != walletDescriptor {
		c.invalid("paymentInformation.fluidData.descriptor", "")
	}
	if v := d.str("paymentInformation.fluidData.encoding"); v != "" && !strings.EqualFold(v, "Base64") {
		c.invalid("paymentInformation.fluidData.encoding", "")
	}
	if v := d.str("paymentInformation.tokenizedCard.transactionType"); v != "" && v != "1" {
		c.invalid("paymentInformation.tokenizedCard.transactionType", "")
	}
	raw, err := base64.StdEncoding.DecodeString(d.str("paymentInformation.fluidData.value"))
	if err != nil {
		c.invalid("paymentInformation.fluidData.value", "INVALID_DATA: not Base64")
		return
	}
	typ := d.str("paymentInformation.tokenizedCard.type")
	if typ == "" {
		typ = d.str("paymentInformation.card.type")
	}
	var payload struct {
		PAN string `json:"applicationPrimaryAccountNumber"`
	}
	if json.Unmarshal(raw, &payload) == nil && luhnValid(payload.PAN) && len(payload.PAN) >= 13 {
		pr.card = cardFromPAN(payload.PAN, typ, 12, 2030)
		return
	}
	pr.card = walletCard(raw, typ)
}

// walletCard is the device token the sandbox derives from wallet payment
// data it cannot decrypt: a card on a Mastercard (card type 002) or Visa
// test BIN, the same for the same data. The merchant journals' wallet
// payments (plant_calls.go) use it too, so that their transactions show
// the card a live call with the same data would.
func walletCard(raw []byte, typ string) card {
	h := fnv.New64a()
	h.Write(raw)
	b := binConsumerCredit
	if typ == "002" {
		b = binPrepaid
	}
	return newCard(rand.New(rand.NewPCG(h.Sum64(), 1)), b, false)
}

// readCredentials checks the credentialed-transaction settings (spec:
// credentialed transactions): the initiator, the commerce indicator each
// use allows, TOKEN_CREATE and its token types, and the previous
// transaction of an MIT.
func readCredentials(c *checks, d doc, m *member, pr *payReq, now time.Time) {
	pr.commerce = d.str("processingInformation.commerceIndicator")
	if pr.commerce == "" {
		pr.commerce = "internet"
	}
	ci := strings.ToLower(pr.commerce)
	isPayerAuth := slices.Contains(payerAuthIndicators, ci)
	if !isPayerAuth && !slices.Contains([]string{"internet", "moto", "recurring", "install"}, ci) {
		c.invalid("processingInformation.commerceIndicator", "")
	}
	init := "processingInformation.authorizationOptions.initiator."
	pr.initiator = strings.ToLower(d.str(init + "type"))
	pr.storedOnFile = d.boolean(init + "credentialStoredOnFile")
	pr.usedCred = d.boolean(init + "storedCredentialUsed")
	pr.previousTxnID = d.str(init + "merchantInitiatedTransaction.previousTransactionId")
	if r := d.str(init + "merchantInitiatedTransaction.reason"); r != "" && strings.Trim(r, "0123456789") != "" {
		c.invalid(init+"merchantInitiatedTransaction.reason", "")
	}
	if v := d.str(init + "merchantInitiatedTransaction.originalAuthorizedAmount"); v != "" {
		if _, err := parseAmount(v); err != nil {
			c.invalid(init+"merchantInitiatedTransaction.originalAuthorizedAmount", "")
		}
	}
	citIndicator := ci == "internet" || ci == "moto" || isPayerAuth
	switch pr.initiator {
	case "":
	case "customer":
		if pr.storedOnFile && !citIndicator {
			c.invalid("processingInformation.commerceIndicator", "INVALID_DATA: a CIT storing credentials takes internet, MOTO or a payer authentication value")
		}
	case "merchant":
		if pr.storedOnFile {
			c.invalid(init+"credentialStoredOnFile", "INVALID_DATA: credentials are stored by a customer-initiated transaction")
		}
		// An MIT with a card number needs the original transaction; with a
		// token, the token stands for it (the merchant's id, when given,
		// takes precedence over the stored one).
		if pr.source == "card" && pr.previousTxnID == "" {
			c.require(d, init+"merchantInitiatedTransaction.previousTransactionId")
		}
		if ci == "recurring" && pr.previousTxnID == "" && (pr.source == "tokenizedCard" || pr.source == "fluidData") {
			c.require(d, init+"merchantInitiatedTransaction.previousTransactionId")
		}
		if pr.previousTxnID == "" {
			pr.previousTxnID = pr.storedNTI
		}
		// Credentialed recurring payments: at most one year between
		// transactions (spec Limits).
		if ci == "recurring" && pr.previousTxnID != "" {
			if prev := findTxn(m, pr.previousTxnID); prev != nil && now.Sub(prev.time) > 366*24*time.Hour {
				c.invalid(init+"merchantInitiatedTransaction.previousTransactionId",
					"INVALID_DATA: more than one year since the previous recurring transaction")
			}
		}
	default:
		c.invalid(init+"type", "")
	}
	actions := d.strings("processingInformation.actionList")
	pr.tokenCreate = slices.Contains(actions, "TOKEN_CREATE")
	for _, a := range actions {
		if a != "TOKEN_CREATE" && a != "CONSUMER_AUTHENTICATION" && a != "VALIDATE_CONSUMER_AUTHENTICATION" && a != "DECISION_SKIP" {
			c.invalid("processingInformation.actionList", "INVALID_DATA: unknown action "+a)
		}
	}
	pr.tokenTypes = d.strings("processingInformation.actionTokenTypes")
	for _, t := range pr.tokenTypes {
		if t != "customer" && t != "paymentInstrument" && t != "instrumentIdentifier" {
			c.invalid("processingInformation.actionTokenTypes", "INVALID_DATA: "+t+" (customer, paymentInstrument, instrumentIdentifier)")
		}
	}
	if pr.tokenCreate {
		if len(pr.tokenTypes) == 0 {
			c.require(d, "processingInformation.actionTokenTypes")
		}
		if !citIndicator {
			c.invalid("processingInformation.commerceIndicator", "INVALID_DATA: a CIT creating tokens takes internet, MOTO or a payer authentication value")
		}
		if pr.source != "card" && pr.source != "tokenizedCard" && pr.source != "fluidData" {
			c.invalid("processingInformation.actionList", "INVALID_DATA: TOKEN_CREATE needs card data")
		}
		if pr.initiator == "merchant" {
			c.invalid("processingInformation.actionList", "INVALID_DATA: tokens are created by a customer-initiated transaction")
		}
	} else if len(pr.tokenTypes) > 0 {
		c.invalid("processingInformation.actionTokenTypes", "INVALID_DATA: only with actionList TOKEN_CREATE")
	}
	pr.solution = d.str("processingInformation.paymentSolution")
	if pr.solution != "" && !slices.Contains(paymentSolutions, pr.solution) && !isClickToPayValue(pr.solution) {
		c.invalid("processingInformation.paymentSolution", "")
	}
	if pr.source == "fluidData" && pr.solution != "" && pr.solution != "001" && pr.solution != "004" && pr.solution != "006" && pr.solution != "008" && pr.solution != "012" {
		c.invalid("processingInformation.paymentSolution", "INVALID_DATA: not a device wallet")
	}
}

// isClickToPayValue: the click-to-pay text value is not shown; any short
// word stands for it.
func isClickToPayValue(v string) bool {
	return len(v) <= 20 && strings.Trim(strings.ToUpper(v), "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == ""
}

// readHealthcare checks the healthcare fields: productSubtype HC and the
// amount breakdown go together; amount types from the spec's list, no
// amount above the total.
func readHealthcare(c *checks, d doc, pr *payReq) {
	sub := d.str("paymentInformation.card.productSubtype")
	amounts := d.list("healthCareInformation.amountDetails")
	if sub == "" && amounts == nil {
		return
	}
	pr.healthcare = true
	if sub == "" {
		c.require(d, "paymentInformation.card.productSubtype")
	} else if sub != "HC" {
		c.invalid("paymentInformation.card.productSubtype", "")
	}
	if len(amounts) == 0 {
		c.require(d, "healthCareInformation.amountDetails")
	}
	for i, a := range amounts {
		ad, _ := a.(map[string]any)
		e := doc(ad)
		f := fmt.Sprintf("healthCareInformation.amountDetails[%d]", i)
		if !slices.Contains(healthAmountTypes, strings.ToLower(e.str("amountType"))) {
			c.invalid(f+".amountType", "")
		}
		if n, err := parseAmount(e.str("amount")); err != nil {
			c.invalid(f+".amount", "")
		} else if n > pr.amount {
			c.invalid(f+".amount", "INVALID_DATA: above the total amount")
		}
	}
}

// noHealthcare: healthcare fields are not sent on follow-on transactions.
func noHealthcare(c *checks, d doc) {
	if d.has("healthCareInformation") {
		c.invalid("healthCareInformation", "INVALID_DATA: healthcare fields are not sent on captures, refunds, credits or other follow-on transactions")
	}
	if d.has("paymentInformation.card.productSubtype") {
		c.invalid("paymentInformation.card.productSubtype", "INVALID_DATA: healthcare fields are not sent on follow-on transactions")
	}
}

// readLevel23 checks Level II and III data (spec: Level II and Level III):
// nothing omitted is rejected; Level III from an account not enabled for it
// is invalid data; tax and discount rates carry a decimal point; amounts
// are decimal strings. String fields of any length are accepted (the
// platform truncates or pads them for the processor), and nothing is kept:
// the data is passed through.
func readLevel23(c *checks, d doc, m *member, pr *payReq) {
	pl := d.str("processingInformation.purchaseLevel")
	if pl != "" && pl != "1" && pl != "2" && pl != "3" {
		c.invalid("processingInformation.purchaseLevel", "")
	}
	pr.items = d.list("orderInformation.lineItems")
	pr.level3 = pl == "3" || len(pr.items) > 0
	if pr.level3 && !m.settings.Level3Enabled {
		c.invalid("processingInformation.purchaseLevel", "INVALID_DATA: the account is not enabled for Level III")
	}
	rate := func(field, v string) {
		if v == "" {
			return
		}
		if _, err := parseRate(v); err != nil {
			c.invalid(field, "INVALID_DATA: a rate carries a decimal point (1 percent is 0.01)")
		}
	}
	amt := func(field, v string) {
		if v == "" {
			return
		}
		if _, err := parseAmount(v); err != nil {
			c.invalid(field, "")
		}
	}
	ad := d.obj("orderInformation.amountDetails")
	for _, f := range []string{"discountAmount", "dutyAmount", "freightAmount"} {
		amt("orderInformation.amountDetails."+f, ad.str(f))
	}
	for i, t := range ad.list("taxDetails") {
		td := doc(asMap(t))
		amt(fmt.Sprintf("orderInformation.amountDetails.taxDetails[%d].amount", i), td.str("amount"))
		rate(fmt.Sprintf("orderInformation.amountDetails.taxDetails[%d].rate", i), td.str("rate"))
	}
	for i, it := range pr.items {
		li := doc(asMap(it))
		p := fmt.Sprintf("orderInformation.lineItems[%d].", i)
		for _, f := range []string{"unitPrice", "discountAmount", "taxAmount", "totalAmount"} {
			amt(p+f, li.str(f))
		}
		rate(p+"discountRate", li.str("discountRate"))
		for j, t := range li.list("taxDetails") {
			rate(fmt.Sprintf("%staxDetails[%d].rate", p, j), doc(asMap(t)).str("rate"))
		}
		if q := li.str("quantity"); q != "" && atoiOr(q, -1) < 0 {
			c.invalid(p+"quantity", "")
		}
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// parseRate reads a rate written with a decimal point, not negative. A
// rate above 1 ("8.25", a percent where the spec writes the fraction
// 0.0825) is accepted: it is well formed, and the platform passes Level
// II/III data through without judging it; the processor may downgrade the
// transaction, and reconcile's level3_incomplete reports it.
func parseRate(v string) (float64, error) {
	if !strings.Contains(v, ".") {
		return 0, fmt.Errorf("rate %q has no decimal point", v)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("rate %q is not a rate", v)
	}
	return f, nil
}

// level3Status is the level3TransmissionStatus of a capture or sale: Y when Level III was sent, N while a batching error has disabled
// Level III for the merchant, none without Level III.
func level3Status(m *member, level3 bool) any {
	switch {
	case !level3:
		return nil
	case m.settings.Level3BatchingError:
		return "N"
	}
	return "Y"
}

// findTxn finds a transaction of m by its id or its network transaction id.
func findTxn(m *member, id string) *transaction {
	if t, ok := m.txnByID[id]; ok {
		return t
	}
	for _, t := range m.txns {
		if t.networkTxnID == id {
			return t
		}
	}
	return nil
}

// appendTxn records a new transaction, keeping m.txns ordered.
func appendTxn(m *member, t *transaction) {
	m.txns = append(m.txns, t)
	m.txnByID[t.id] = t
	if n := len(m.txns); n > 1 {
		a, b := m.txns[n-2], m.txns[n-1]
		if a.time.After(b.time) || a.time.Equal(b.time) && a.id > b.id {
			sortTxns(m)
		}
	}
}

// par is the card's payment account reference: 29 characters derived
// from the card number (the same card, the same reference).
func par(c *card) string {
	h := fnv.New64a()
	h.Write([]byte(c.pan))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x9a7))
	for {
		v := "V001" + alnum(r, 25)
		if longestDigitRun(v) < 10 {
			return v
		}
	}
}

// newAPICall makes the call record of a payment made now, with fresh ids.
func (s *Server) newAPICall(m *member, kind callKind, now time.Time, pr *payReq) *call {
	cd := pr.card
	c := &call{kind: kind, time: now, code: pr.code, amount: pr.amount, currency: pr.currency, card: &cd,
		level3: pr.level3, bill: pr.bill, commercial: cd.entry().commercial()}
	c.respID, c.reconcileID = m.recordIDs(s.gen, now)
	st := m.state(s.gen)
	c.networkID, c.approval = digits(st.rng, 20), digits(st.rng, 6)
	if kind == callCapture || kind == callSale {
		// Payments and captures only: a credit's answer has no
		// level3TransmissionStatus (SDK model PtsV2CreditsPost201Response).
		c.l3Status = level3Status(m, pr.level3)
	}
	return c
}

// pay answers POST /pts/v2/payments: an authorization, or a sale with
// processingInformation.capture true; a buy-now-pay-later authorization
// (actionList AP_AUTH) goes to bnplAuth.
func (s *Server) pay(x *exchange, d doc) answer {
	if slices.Contains(d.strings("processingInformation.actionList"), "AP_AUTH") {
		return s.bnplAuth(x, d)
	}
	m := x.member
	now := s.Clock()
	var c checks
	pr := &payReq{d: d, code: d.str("clientReferenceInformation.code"), capture: d.boolean("processingInformation.capture")}
	if a, ok := c.amountField(d, "orderInformation.amountDetails.totalAmount", true); ok {
		if pr.amount = a; a == 0 {
			c.invalid("orderInformation.amountDetails.totalAmount", "")
		}
	}
	pr.currency = c.currencyField(d, "orderInformation.amountDetails.currency", true)
	relaxed := m.settings.RelaxedRequirements
	readInstrument(&c, d, m, pr, relaxed)
	pr.bill = readBillTo(d)
	if (pr.source == "card" || pr.source == "fluidData" || pr.source == "tokenizedCard" && pr.capture) && !relaxed {
		for _, f := range billToFields {
			c.require(d, "orderInformation.billTo."+f)
		}
	}
	if pr.capture && pr.source == "card" {
		c.require(d, "paymentInformation.card.type")
	}
	readCredentials(&c, d, m, pr, now)
	readHealthcare(&c, d, pr)
	readLevel23(&c, d, m, pr)
	if !c.ok() {
		return x.rejected(&c)
	}
	kind := callAuth
	if pr.capture {
		kind = callSale
	}
	call := s.newAPICall(m, kind, now, pr)
	if !pr.capture {
		call.l3Status = nil
	}
	a := &apiTxn{status: "AUTHORIZED", app: okApp("ics_auth"), commerce: pr.commerce, solution: pr.solution,
		initiator: pr.initiator, previousTxnID: pr.previousTxnID, par: par(&pr.card), healthcare: pr.healthcare, level3: pr.level3}
	if pr.capture {
		a.status = "PENDING"
	}
	resp := call.response()
	// Outcomes: the amount's cents can ask for a decline (engine.go); a
	// healthcare card without the healthcare amounts is declined by its
	// issuer; a CIT storing credentials in a region that mandates strong
	// customer authentication must be strongly authenticated.
	var decline *issuerDecline
	switch {
	case pr.amount%100 == centsDecline:
		decline = cardDecline(&pr.card, false)
	case pr.amount%100 == centsNoRetry:
		decline = cardDecline(&pr.card, true)
	case pr.card.record() != nil && pr.card.record().health && !pr.healthcare:
		decline = healthcareDecline(&pr.card)
	case pr.initiator == "customer" && pr.storedOnFile && slices.Contains(scaCountries, pr.bill.country) &&
		!slices.Contains(strongAuthIndicators, strings.ToLower(pr.commerce)):
		decline = authenticationDecline(&pr.card)
	}
	t := &transaction{id: call.respID, rootID: call.respID, reconciliationID: call.reconcileID, time: now, amount: pr.amount,
		currency: pr.currency, card: call.card, code: pr.code, networkTxnID: call.networkID, approvalCode: call.approval, api: a}
	t.kind = map[bool]txnKind{false: kindAuth, true: kindSale}[pr.capture]
	if decline != nil {
		t.approvalCode = ""
		a.status, a.decline, a.app = "DECLINED", decline.errorReason, decline.app()
		resp = decline.answer(t.id, t.reconciliationID, pr.code, t.networkTxnID, now)
	} else {
		s.approvedExtras(m, resp, pr, a, t)
	}
	a.response = resp
	appendTxn(m, t)
	return reply(http.StatusCreated, resp)
}

// approvedExtras adds to an approved payment's answer what the spec shows
// beyond the journal shape: the PAR, device-token type, tokens created,
// and the healthcare answer's links.
func (s *Server) approvedExtras(m *member, resp map[string]any, pr *payReq, a *apiTxn, t *transaction) {
	proc := resp["processorInformation"].(map[string]any)
	proc["paymentAccountReferenceNumber"] = a.par
	proc["authIndicator"] = "1"
	switch pr.source {
	case "fluidData", "tokenizedCard":
		resp["paymentInformation"] = map[string]any{"tokenizedCard": map[string]any{"type": pr.card.cardType()}}
	case "card":
		resp["paymentInformation"] = map[string]any{"card": map[string]any{"type": pr.card.cardType()}}
	}
	if pr.healthcare {
		// The healthcare answer's links are void and self (spec).
		self := "/pts/v2/payments/" + t.id
		resp["_links"] = map[string]any{"void": link{Href: self + "/voids", Method: http.MethodPost}, "self": link{Href: self, Method: http.MethodGet}}
	}
	if pr.tokenCreate {
		cd, isNew := m.tokenize(s.gen, pr.card, t.networkTxnID)
		*t.card = cd
		ti := map[string]any{}
		for _, typ := range pr.tokenTypes {
			switch typ {
			case "customer":
				ti["customer"] = map[string]any{"id": cd.customerID}
			case "paymentInstrument":
				ti["paymentInstrument"] = map[string]any{"id": cd.paymentInstrumentID}
			case "instrumentIdentifier":
				ti["instrumentIdentifier"] = map[string]any{"id": cd.instrumentID, "state": "ACTIVE"}
				ti["instrumentidentifierNew"] = isNew
			}
		}
		resp["tokenInformation"] = ti
		a.tokens = ti
	}
}
