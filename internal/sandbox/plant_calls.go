package sandbox

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"time"
)

// The merchants' calls in the service areas beyond Level II/III, planted
// after the generated calls (gen.go) from streams of their own, so that the
// rest of the data set is the same with or without them. Every call is
// what the sandbox's own endpoint answers to the same request (the shapes
// of payments.go, followons.go, bnpl.go and installments.go), and every
// payment call is a transaction Transaction Search returns, recorded the
// way a payment made through the API is (apiTxn: its status,
// applications, commerce indicator, payment solution, initiator).
//
// Per member and day of the planting range, one to three operations, each
// one of (weights in areaOpWeights):
//
//   - credentialed: a customer-initiated transaction that stores the card
//     (credentialStoredOnFile, and TOKEN_CREATE when the later MIT pays by
//     token) and, 2 to 90 days later, a merchant-initiated sale or
//     authorization on it (reason 7 recurring, 10 unscheduled or 4
//     no-show; previousTransactionId the CIT's id or network transaction
//     id). Of the MITs: 12% send no reason (mit_missing_reason), 12% pay
//     by token without previousTransactionId (mit_missing_previous_transaction),
//     10% have no CIT in the journal and name a previous transaction the
//     journal does not hold (mit_without_prior_cit), and 8% are recurring,
//     by token and without previousTransactionId, on a card stored 13 to 16
//     months before (recurring_interval_over_year; also
//     mit_missing_previous_transaction by definition);
//   - healthcare: an authorization or sale on the HSA card (BIN 471510)
//     with productSubtype HC and the healthcare amounts; 25% send no
//     healthcare amounts and are declined by the issuer
//     (healthcare_card_without_amounts); 20% send prescription and vision
//     amounts, each below the total, that add up to more
//     (healthcare_amounts_exceed_total);
//   - buy-now-pay-later: a session, the customer's authorization and its
//     capture; 20% of sessions are abandoned (bnpl_session_stale when
//     created more than 24 hours before the cut-off), 15% of
//     authorizations are not captured (bnpl_authorized_not_captured), and
//     10% of customers are first billed in a country the service does not
//     support, answered FAILED, then authorized with the address corrected
//     (bnpl_unsupported_country_currency);
//   - installments: an authorization of 100.00 or more on the Visa
//     consumer credit card, the plan selected, the capture; 20% are then
//     refunded and the plan cancelled, 15% refunded and not cancelled, 12%
//     reversed instead of captured (half of them not cancelled: both
//     installment_not_cancelled_after_refund), 10% refunded 60% through the
//     capture and 60% through the plan, then cancelled
//     (installment_refunds_exceed_capture);
//   - device wallet: a sale or authorization with wallet data (fluidData,
//     payment solution 001, 006, 008 or 012) or a device or network token
//     (tokenizedCard, also 014 and 015);
//   - contactless: a sale on one of the member's 1-3 terminals
//     (pointOfSaleInformation.terminalId).
//
// Of the generated Level III captures, sales and credits, 10% leave a
// required line-item field out and 6% write the tax rates as percents
// (level3_incomplete); authorizations and sales on the HSA card carry the
// healthcare amounts (the issuer would decline them otherwise). Member 1
// is topped up so that every kind occurs on the business day (a stale
// session on the day before: a session of the business day is not 24
// hours old at the cut-off), and one of its subscriptions charged on the
// business day is moved to a prepaid card (prepaid_card_on_subscription).
const (
	areaOpsMin    = 1 // operations per member and day: areaOpsMin + [0, areaOpsSpread)
	areaOpsSpread = 3

	rateL3MissingField = 0.10 // of generated Level III captures, sales and credits
	rateL3PercentRate  = 0.06

	rateMITNoReason   = 0.12 // of MITs
	rateMITNoPrevious = 0.12
	rateMITNoCIT      = 0.10
	rateMITOverYear   = 0.08

	rateHealthNoAmounts = 0.25 // of healthcare payments
	rateHealthExceed    = 0.20

	rateBNPLAbandoned   = 0.20 // of sessions
	rateBNPLNotCaptured = 0.15
	rateBNPLUnsupported = 0.10

	rateInstRefundCancel   = 0.20 // of plans selected
	rateInstRefundNoCancel = 0.15
	rateInstReversal       = 0.12
	rateInstExceed         = 0.10

	// bnplStaleAge is reconcile's default --bnpl-session-age: the ground
	// truth reports sessions older than this at the cut-off.
	bnplStaleAge = 24 * time.Hour
)

// Stream purposes of the area plantings, apart from gen.go's and
// plant_billing.go's.
const (
	streamAreas uint64 = 128 + iota
	streamL3Defects
	streamForceAreas
)

// Call kinds beyond gen.go's: follow-ons, buy-now-pay-later and
// installment plan calls.
const (
	callRefund      callKind = iota + 16 // a refund of a capture
	callReversal                         // a reversal of an authorization
	callSession                          // a buy-now-pay-later session (not a transaction)
	callBNPLAuth                         // a buy-now-pay-later authorization
	callBNPLCapture                      // its capture
	callAccept                           // an installment plan selected (not a transaction)
	callCancel                           // an installment plan cancelled or partly refunded (not a transaction)
)

// callExt is what a call carries beyond gen.go's fields.
type callExt struct {
	// area: planted here; its transaction is recorded the way one made
	// through the API is.
	area bool

	// Level III defects of a generated call.
	dropItem  int
	dropField string // a required line-item field left out
	percent   bool   // tax rates written as percents

	health  []healthAmount // healthCareInformation.amountDetails; nil: none sent
	decline *issuerDecline // how the issuer declined it; nil: approved

	// Credentialed.
	commerce                              string
	initiator                             string // customer, merchant or ""
	reason                                string
	storedOnFile, tokenCreate, firstRecur bool
	byToken                               bool  // pays with the card's customer token rather than its number
	prevCall                              *call // the transaction previousTransactionId names
	prevByNTI                             bool  // by its network transaction id rather than its id
	prevLiteral                           string

	// Wallets and contactless.
	solution string
	fluid    []byte // wallet payment data (fluidData.value, before Base64)
	dpan     bool   // a device or network token (tokenizedCard.number)
	terminal string

	// Buy-now-pay-later.
	session *call  // the session an authorization uses
	status  string // the authorization's answer: AUTHORIZED or FAILED
	country string // the country billed (a session: shipped to)
	method  string
	token   string // a session's token

	// Installments.
	acceptID, planID, tcVersion string
	accept                      *call // the plan selection a cancel names
	refund                      int64 // a partial refund through the plan (0: a cancel)
}

type healthAmount struct {
	typ    string
	amount int64
}

// previous is the previousTransactionId the call sends ("" for none).
func (x *callExt) previous() string {
	switch {
	case x.prevCall != nil && x.prevByNTI:
		return x.prevCall.networkID
	case x.prevCall != nil:
		return x.prevCall.respID
	}
	return x.prevLiteral
}

var (
	// Cards of the area operations: consumer cards the lookup resolves, so
	// that no Level II/III or BIN finding comes of them.
	areaBinWeights = []int{binConsumerCredit: 40, binConsumerDebit: 25, binPrepaid: 0, binCorporate: 0, binPurchasing: 0,
		binHealth: 0, binAmex: 15, binResolvable: 20, binUnresolvable: 0, binNoMatchIdx: 0}
	areaOpWeights = []int{opCredentialed: 30, opHealthcare: 12, opBNPL: 18, opInstallments: 14, opWallet: 14, opContactless: 12}
	bnplPairs     = []struct {
		country, currency, method string
		weight                    int
	}{{"US", "USD", "AFTERPAY", 50}, {"GB", "GBP", "CLEARPAY", 15}, {"AU", "AUD", "AFTERPAY", 15}, {"CA", "CAD", "AFTERPAY", 10}, {"NZ", "NZD", "AFTERPAY", 10}}
	unsupportedCountries = []string{"MX", "DE", "FR", "JP", "BR", "IN"}
	walletSolutions      = []string{"001", "001", "001", "006", "008", "012", "012"}
	tokenSolutions       = []string{"001", "006", "008", "012", "014", "015"}
)

const (
	opCredentialed = iota
	opHealthcare
	opBNPL
	opInstallments
	opWallet
	opContactless
)

// Variants of the operations; -1 draws one at the planted rates.
const (
	drawn = -1

	mitNormal = iota
	mitNoReason
	mitNoPrevious
	mitNoCIT
	mitOverYear

	healthNormal
	healthNoAmounts
	healthExceed

	bnplCaptured
	bnplAbandoned
	bnplNotCaptured
	bnplUnsupported

	instNormal
	instRefundCancel
	instRefundNoCancel
	instReversalCancel
	instReversalNoCancel
	instExceed
)

// plantAreas adds the area operations of member m (see above).
func (g *generator) plantAreas(m *member) {
	g.level3Defects(m)
	for _, c := range m.calls {
		// The issuer of a health card declines a payment without the
		// healthcare amounts: the generated ones carry the whole amount
		// as healthcare.
		if (c.kind == callAuth || c.kind == callSale) && c.card.bin == binHealth {
			c.ext().health = []healthAmount{{"healthcare", c.amount}}
		}
	}
	r := g.stream(m.index, streamAreas, 0)
	terminals := make([]string, 1+r.IntN(3))
	for i := range terminals {
		terminals[i] = "TRM-" + alnum(r, 6)
	}
	for d := 0; d < plantDays; d++ {
		day := g.plantStart.AddDate(0, 0, d)
		for n := areaOpsMin + r.IntN(areaOpsSpread); n > 0; n-- {
			// 08:00-16:00: follow-ons of the day end before midnight.
			t := day.Add(time.Duration(8*3600+r.IntN(8*3600)) * time.Second)
			switch pickBin(r, areaOpWeights) {
			case opCredentialed:
				m.calls = append(m.calls, g.credentialed(r, t, drawn)...)
			case opHealthcare:
				m.calls = append(m.calls, g.healthcare(r, t, drawn)...)
			case opBNPL:
				m.calls = append(m.calls, g.bnpl(r, t, drawn)...)
			case opInstallments:
				m.calls = append(m.calls, g.installments(r, t, drawn)...)
			case opWallet:
				m.calls = append(m.calls, g.wallet(r, t))
			case opContactless:
				m.calls = append(m.calls, g.contactless(r, t, terminals[r.IntN(len(terminals))]))
			}
		}
	}
	if m.index == 0 {
		g.forceAreas(m)
	}
	sortCalls(m.calls)
}

func (c *call) ext() *callExt {
	if c.x == nil {
		c.x = &callExt{}
	}
	return c.x
}

// level3Defects plants incomplete Level III data on the generated calls.
func (g *generator) level3Defects(m *member) {
	r := g.stream(m.index, streamL3Defects, 0)
	for _, c := range m.calls {
		if !c.level3 || len(c.items) == 0 || (c.kind != callCapture && c.kind != callSale && c.kind != callCredit) {
			continue
		}
		switch u := r.Float64(); {
		case u < rateL3MissingField:
			c.ext().dropItem = r.IntN(len(c.items))
			c.x.dropField = level3ItemFields[r.IntN(len(level3ItemFields))]
		case u < rateL3MissingField+rateL3PercentRate:
			c.ext().percent = true
		}
	}
}

// level3ItemFields are the line-item fields the spec requires for Level III
// (discountRate aside: one network only).
var level3ItemFields = []string{"commodityCode", "discountAmount", "productCode", "quantity", "unitOfMeasure", "unitPrice"}

// approvedAmount draws an amount in [lo, hi) minor units whose cents ask
// the sandbox for no decline (engine.go).
func approvedAmount(r *rand.Rand, lo, hi int64) int64 {
	a := lo + r.Int64N(hi-lo)
	if c := a % 100; c >= centsInternalError && c <= centsDeclineOnce {
		a -= 5
	}
	return a
}

// areaCall is a call of an area operation, with the customer's address
// drawn as gen.go draws it.
func (g *generator) areaCall(r *rand.Rand, kind callKind, t time.Time, cd *card, amount int64, currency string) *call {
	ci := cities[r.IntN(len(cities))]
	first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
	bill := billTo{first: first, last: last, address: "1 Main St", city: ci.city, state: ci.state, postal: ci.postal,
		country: "US", email: lower(first) + "." + lower(last) + "@example.com"}
	return &call{kind: kind, time: t, code: "ORD-" + alnum(r, 8), amount: amount, currency: currency, card: cd, bill: bill,
		x: &callExt{area: true, commerce: "internet"}}
}

// follow is a call of kind that follows prev at t, for the same order.
func (g *generator) follow(kind callKind, prev *call, t time.Time, amount int64) *call {
	return &call{kind: kind, time: t, code: prev.code, amount: amount, currency: prev.currency, card: prev.card, bill: prev.bill,
		auth: prev, x: &callExt{area: true, commerce: prev.x.commerce, solution: prev.x.solution}}
}

func minutes(r *rand.Rand, lo, hi int) time.Duration {
	return time.Duration(lo*60+r.IntN((hi-lo)*60)) * time.Second
}

// credentialed plants a CIT storing a card and an MIT on it.
func (g *generator) credentialed(r *rand.Rand, t time.Time, variant int) []*call {
	cd := newCard(r, pickBin(r, areaBinWeights), true)
	amount := approvedAmount(r, 500, 30000)
	reason := []string{"7", "7", "7", "10", "10", "4"}[r.IntN(6)]
	byToken, byNTI, auth := r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(5) == 0
	citDays := 2 + r.IntN(89)
	if variant == drawn {
		switch u := r.Float64(); {
		case u < rateMITNoReason:
			variant = mitNoReason
		case u < rateMITNoReason+rateMITNoPrevious:
			variant = mitNoPrevious
		case u < rateMITNoReason+rateMITNoPrevious+rateMITNoCIT:
			variant = mitNoCIT
		case u < rateMITNoReason+rateMITNoPrevious+rateMITNoCIT+rateMITOverYear:
			variant = mitOverYear
		default:
			variant = mitNormal
		}
	}
	unknown := digits(r, 20)
	switch variant {
	case mitNoPrevious:
		byToken = true
	case mitOverYear:
		byToken, reason = true, "7"
	}
	kind := callSale
	if auth {
		kind = callAuth
	}
	mit := g.areaCall(r, kind, t, &cd, amount, "USD")
	x := mit.x
	x.initiator, x.reason, x.byToken = "merchant", reason, byToken
	if reason == "7" {
		x.commerce = "recurring"
	}
	var out []*call
	if variant != mitNoCIT {
		at := t.AddDate(0, 0, -citDays).Add(-minutes(r, 0, 600))
		if variant == mitOverYear {
			at = t.AddDate(0, -(13 + r.IntN(4)), -r.IntN(20))
		}
		cit := g.areaCall(r, callSale, at, &cd, approvedAmount(r, 500, 30000), "USD")
		cit.x.initiator, cit.x.storedOnFile = "customer", true
		cit.x.tokenCreate = byToken || r.IntN(2) == 0
		cit.x.firstRecur = reason == "7"
		out = append(out, cit)
		x.prevCall, x.prevByNTI = cit, byNTI
	} else {
		x.prevLiteral = unknown // a transaction of another system
	}
	switch variant {
	case mitNoReason:
		x.reason = ""
	case mitNoPrevious, mitOverYear:
		x.prevCall, x.prevLiteral = nil, ""
	}
	return append(out, mit)
}

// healthcare plants a payment on the HSA card.
func (g *generator) healthcare(r *rand.Rand, t time.Time, variant int) []*call {
	cd := newCard(r, binHealth, r.IntN(2) == 0)
	amount := approvedAmount(r, 2000, 40000)
	kind := callSale
	if r.IntN(2) == 0 {
		kind = callAuth
	}
	c := g.areaCall(r, kind, t, &cd, amount, "USD")
	if variant == drawn {
		switch u := r.Float64(); {
		case u < rateHealthNoAmounts:
			variant = healthNoAmounts
		case u < rateHealthNoAmounts+rateHealthExceed:
			variant = healthExceed
		default:
			variant = healthNormal
		}
	}
	switch variant {
	case healthNoAmounts:
		c.x.decline = healthcareDecline(&cd)
	case healthExceed:
		// Each below the total, together above it.
		a := amount * int64(55+r.IntN(25)) / 100
		b := amount * int64(50+r.IntN(40)) / 100
		c.x.health = []healthAmount{{"healthcare", amount}, {"prescription", a}, {"vision", b}}
	default:
		c.x.health = []healthAmount{{"healthcare", amount}}
		if r.IntN(2) == 0 {
			c.x.health = append(c.x.health, healthAmount{"prescription", amount * 40 / 100}, healthAmount{"clinic", amount * 30 / 100})
		}
	}
	return []*call{c}
}

// bnpl plants a buy-now-pay-later order: session, authorization, capture.
func (g *generator) bnpl(r *rand.Rand, t time.Time, variant int) []*call {
	weights := make([]int, len(bnplPairs))
	for i, p := range bnplPairs {
		weights[i] = p.weight
	}
	pair := bnplPairs[pickBin(r, weights)]
	amount := approvedAmount(r, 2000, 80000)
	s := g.areaCall(r, callSession, t, nil, amount, pair.currency)
	s.x.country, s.x.method = pair.country, pair.method
	for {
		s.x.token = "BNPL-" + alnum(r, 24)
		if longestDigitRun(s.x.token) < 10 {
			break
		}
	}
	if variant == drawn {
		switch u := r.Float64(); {
		case u < rateBNPLAbandoned:
			variant = bnplAbandoned
		case u < rateBNPLAbandoned+rateBNPLNotCaptured:
			variant = bnplNotCaptured
		case u < rateBNPLAbandoned+rateBNPLNotCaptured+rateBNPLUnsupported:
			variant = bnplUnsupported
		default:
			variant = bnplCaptured
		}
	}
	out := []*call{s}
	if variant == bnplAbandoned {
		return out
	}
	authorize := func(at time.Time, country, status string) *call {
		a := g.follow(callBNPLAuth, s, at, amount)
		a.auth, a.card = nil, nil
		a.x.session, a.x.country, a.x.method, a.x.status = s, country, s.x.method, status
		out = append(out, a)
		return a
	}
	at := t.Add(minutes(r, 5, 40))
	if variant == bnplUnsupported {
		authorize(at, unsupportedCountries[r.IntN(len(unsupportedCountries))], "FAILED")
		at = at.Add(minutes(r, 5, 30))
	}
	a := authorize(at, pair.country, "AUTHORIZED")
	if variant != bnplNotCaptured {
		out = append(out, g.follow(callBNPLCapture, a, at.Add(minutes(r, 30, 180)), amount))
	}
	return out
}

// installments plants an authorization with an installment plan selected.
func (g *generator) installments(r *rand.Rand, t time.Time, variant int) []*call {
	cd := newCard(r, binConsumerCredit, r.IntN(2) == 0)
	amount := approvedAmount(r, minInstallmentAmount, 150000)
	auth := g.areaCall(r, callAuth, t, &cd, amount, "USD")
	plan := installmentPlans[r.IntN(2)] // the 3- and 6-month plans: offered all through the planting range
	acc := g.follow(callAccept, auth, t.Add(minutes(r, 1, 10)), 0)
	acc.x.planID, acc.x.tcVersion = plan.id, plan.tcVersion
	if variant == drawn {
		switch u := r.Float64(); {
		case u < rateInstRefundCancel:
			variant = instRefundCancel
		case u < rateInstRefundCancel+rateInstRefundNoCancel:
			variant = instRefundNoCancel
		case u < rateInstRefundCancel+rateInstRefundNoCancel+rateInstReversal:
			variant = instReversalCancel
			if r.IntN(2) == 0 {
				variant = instReversalNoCancel
			}
		case u < rateInstRefundCancel+rateInstRefundNoCancel+rateInstReversal+rateInstExceed:
			variant = instExceed
		default:
			variant = instNormal
		}
	}
	out := []*call{auth, acc}
	at := acc.time.Add(minutes(r, 30, 120))
	cancel := func(refund int64) {
		at = at.Add(minutes(r, 5, 20))
		k := g.follow(callCancel, auth, at, auth.amount)
		k.x.accept, k.x.refund = acc, refund
		out = append(out, k)
	}
	if variant == instReversalCancel || variant == instReversalNoCancel {
		out = append(out, g.follow(callReversal, auth, at, amount))
		if variant == instReversalCancel {
			cancel(0)
		}
		return out
	}
	capture := g.follow(callCapture, auth, at, amount)
	out = append(out, capture)
	refund := func(v int64) {
		at = at.Add(minutes(r, 10, 60))
		out = append(out, g.follow(callRefund, capture, at, v))
	}
	switch variant {
	case instRefundCancel:
		refund(amount * int64(30+r.IntN(71)) / 100)
		cancel(0)
	case instRefundNoCancel:
		refund(amount * int64(30+r.IntN(71)) / 100)
	case instExceed:
		part := amount * 60 / 100
		refund(part)
		cancel(part)
		cancel(0)
	}
	return out
}

// wallet plants a payment with wallet data or a device token.
func (g *generator) wallet(r *rand.Rand, t time.Time) *call {
	kind := callSale
	if r.IntN(10) < 3 {
		kind = callAuth
	}
	amount := approvedAmount(r, 300, 25000)
	if r.IntN(2) == 0 {
		typ := []string{"001", "002"}[r.IntN(2)]
		var raw []byte
		for {
			raw = make([]byte, 48)
			for i := range raw {
				raw[i] = byte(r.Uint32())
			}
			if longestDigitRun(base64.StdEncoding.EncodeToString(raw)) < 10 {
				break
			}
		}
		cd := walletCard(raw, typ)
		if typ == "002" {
			cd.typ = "002"
		}
		c := g.areaCall(r, kind, t, &cd, amount, "USD")
		c.x.fluid, c.x.solution = raw, walletSolutions[r.IntN(len(walletSolutions))]
		return c
	}
	cd := newCard(r, pickBin(r, []int{binConsumerCredit: 3, binConsumerDebit: 2}), false)
	c := g.areaCall(r, kind, t, &cd, amount, "USD")
	c.x.dpan, c.x.solution = true, tokenSolutions[r.IntN(len(tokenSolutions))]
	return c
}

// contactless plants a sale on one of the member's terminals.
func (g *generator) contactless(r *rand.Rand, t time.Time, terminal string) *call {
	cd := newCard(r, pickBin(r, areaBinWeights), false)
	c := g.areaCall(r, callSale, t, &cd, approvedAmount(r, 100, 20000), "USD")
	c.x.terminal = terminal
	return c
}

// forceAreas makes sure member 1 carries every area kind on the business
// day (a stale session on the day before), and a prepaid card on a
// subscription charged that day.
func (g *generator) forceAreas(m *member) {
	r := g.stream(m.index, streamForceAreas, 0)
	at := func() time.Time { return g.business.Add(time.Duration(9*3600+r.IntN(6*3600)) * time.Second) }
	yes, no := true, false
	missing := g.callSet(r, at(), setSale, callOpts{bin: binCorporate, level3: &yes, l3Status: "Y"})[0]
	missing.ext().dropItem, missing.x.dropField = 0, "unitOfMeasure"
	percent := g.callSet(r, at(), setAuthCapture, callOpts{bin: binPurchasing, level3: &yes, l3Status: "Y"})
	percent[1].ext().percent = true
	noPO := g.callSet(r, at(), setSale, callOpts{bin: binPurchasing, level3: &no})[0]
	noPO.po = ""
	m.calls = append(m.calls, missing, noPO)
	m.calls = append(m.calls, percent...)
	for _, v := range []int{mitNoReason, mitNoPrevious, mitNoCIT, mitOverYear} {
		m.calls = append(m.calls, g.credentialed(r, at(), v)...)
	}
	for _, v := range []int{healthNoAmounts, healthExceed} {
		m.calls = append(m.calls, g.healthcare(r, at(), v)...)
	}
	for _, v := range []int{bnplNotCaptured, bnplUnsupported} {
		m.calls = append(m.calls, g.bnpl(r, at(), v)...)
	}
	m.calls = append(m.calls, g.bnpl(r, at().AddDate(0, 0, -1), bnplAbandoned)...)
	for _, v := range []int{instRefundNoCancel, instExceed} {
		m.calls = append(m.calls, g.installments(r, at(), v)...)
	}
	g.forcePrepaid(m, r)
}

// forcePrepaid moves a live subscription of m charged on the business day
// (with a transaction) to a prepaid card, unless one already is.
func (g *generator) forcePrepaid(m *member, r *rand.Rand) {
	var pick *subscription
	for _, s := range m.subs {
		if s.status == subCancelled || s.status == subCompleted {
			continue
		}
		for _, pm := range s.payments {
			if (pm.status == payPaid || pm.status == payFailed) && pm.anomaly != anomalyMissing && utcDay(pm.date).Equal(g.business) {
				if s.card.bin == binPrepaid {
					return
				}
				if pick == nil {
					pick = s
				}
			}
		}
	}
	if pick != nil {
		pick.card = newCard(r, binPrepaid, true)
	}
}

// finishCall gives a call its identifiers and, for a payment call, its
// transaction (gen.go's finish, in call order).
func (g *generator) finishCall(m *member, r *rand.Rand, c *call) {
	c.respID = m.nextID(c.time)
	c.reconcileID, c.networkID, c.approval = alnum(r, 12), digits(r, 20), digits(r, 6)
	if c.kind == callAccept {
		c.x.acceptID = "SBXIA" + m.nextID(c.time)
	}
	var kind txnKind
	switch c.kind {
	case callAuth, callBNPLAuth:
		kind = kindAuth
	case callCapture, callBNPLCapture:
		kind = kindCapture
	case callSale:
		kind = kindSale
	case callCredit:
		kind = kindCredit
	case callRefund:
		kind = kindRefund
	case callReversal:
		kind = kindReversal
	default:
		return // sessions and installment plan calls are no transactions
	}
	t := &transaction{id: c.respID, rootID: c.respID, reconciliationID: c.reconcileID, time: c.time, kind: kind,
		amount: c.amount, currency: c.currency, card: c.card, code: c.code,
		networkTxnID: c.networkID, approvalCode: c.approval}
	if c.auth != nil {
		t.rootID = c.auth.respID
	}
	if c.x != nil && c.x.area {
		t.api = c.x.apiTxn(c)
		if c.x.decline != nil {
			t.approvalCode = ""
		}
		t.api.response = c.response()
	}
	c.txn = t
	m.txns = append(m.txns, t)
}

// apiTxn records an area call's transaction as the payments API records
// one (payments.go, followons.go, bnpl.go): what Transaction Search and the
// transaction detail show of it.
func (x *callExt) apiTxn(c *call) *apiTxn {
	a := &apiTxn{commerce: x.commerce, solution: x.solution, initiator: x.initiator, previousTxnID: x.previous(),
		healthcare: len(x.health) > 0, level3: c.level3}
	if c.card != nil {
		a.par = par(c.card)
	}
	switch c.kind {
	case callAuth:
		a.status, a.app = "AUTHORIZED", okApp("ics_auth")
	case callSale:
		a.status, a.app = "PENDING", okApp("ics_auth")
	case callCapture:
		a.status, a.app = "PENDING", okApp("ics_bill")
		if c.auth != nil && c.auth.txn != nil && c.auth.txn.api != nil {
			c.auth.txn.api.captured += c.amount
		}
	case callRefund:
		a.status, a.app = "PENDING", okApp("ics_credit")
	case callReversal:
		a.status, a.app = "REVERSED", okApp("ics_auth_reversal")
		if c.auth != nil && c.auth.txn != nil {
			c.auth.txn.reversed = true
		}
	case callBNPLAuth:
		a.status, a.app = x.status, okApp("ics_ap_auth")
		a.bnpl = &bnplSession{token: x.session.x.token, code: c.code, method: x.method, country: x.session.x.country,
			state: sessionUsed, amount: c.amount, currency: c.currency, created: x.session.time}
		if x.status == "FAILED" {
			a.decline = "INVALID_DATA"
			a.app = appJSON{Name: "ics_ap_auth", ReasonCode: "102", RCode: "-1", RFlag: "DINVALIDDATA", RMessage: "The request has invalid or missing fields"}
		}
	case callBNPLCapture:
		a.status, a.app = "SETTLED", okApp("ics_ap_capture")
		if auth := c.auth.txn; auth != nil && auth.api != nil {
			auth.api.captured += c.amount
			a.bnpl = auth.api.bnpl
		}
	}
	if (c.kind == callAuth || c.kind == callSale) && x.status != "" {
		a.status = x.status // plantPaymentStatuses
	}
	if x.decline != nil {
		a.status, a.decline, a.app = "DECLINED", x.decline.errorReason, x.decline.app()
	}
	if x.tokenCreate && c.card != nil {
		a.tokens = tokenInformation(c.card)
	}
	return a
}

func tokenInformation(cd *card) map[string]any {
	return map[string]any{"customer": map[string]any{"id": cd.customerID},
		"paymentInstrument":       map[string]any{"id": cd.paymentInstrumentID},
		"instrumentIdentifier":    map[string]any{"id": cd.instrumentID, "state": "ACTIVE"},
		"instrumentidentifierNew": true}
}

// isAreaKind reports whether the kind is one of this file's.
func isAreaKind(k callKind) bool {
	return slices.Contains([]callKind{callRefund, callReversal, callSession, callBNPLAuth, callBNPLCapture, callAccept, callCancel}, k)
}
