package sandbox

import (
	"sync"
	"time"
)

// The data of one simulated merchant (a member of the organization's
// groups): what the generator makes (gen.go), the billing engine moves
// (engine.go), the endpoints serve and change, and the ground truth and
// the journals read (truth.go, journal.go).

// Statuses and types, as the platform writes them.
const (
	planActive   = "ACTIVE"
	planInactive = "INACTIVE"
	planDraft    = "DRAFT"

	subPending    = "PENDING"
	subActive     = "ACTIVE"
	subCompleted  = "COMPLETED"
	subDelinquent = "DELINQUENT"
	subSuspended  = "SUSPENDED"
	subCancelled  = "CANCELLED"

	payPaid      = "PAID"
	payFailed    = "FAILED"
	payScheduled = "SCHEDULED"
	paySkipped   = "SCHEDULED_SKIPPED"
	// payPastSkipped is a skipped cycle whose date has passed (facts:
	// SKIPPED); only the billing engine makes it.
	payPastSkipped = "SKIPPED"

	payStandard = "STANDARD"
	payRetry    = "RETRY"
)

// member is one simulated merchant's data. Its mutex guards every field
// below it: the write endpoints and the billing engine change a member in
// place (a member changed by a write is pinned in the cache).
type member struct {
	index    int // 0-based
	id       string
	careless bool // logs full card numbers in its journal

	mu       sync.Mutex
	plans    []*plan
	subs     []*subscription
	txns     []*transaction // sorted by submit time, then id
	calls    []*call        // the merchant's own API calls, sorted by time
	planByID map[string]*plan
	subByID  map[string]*subscription
	txnByID  map[string]*transaction

	// The simulation beyond the generated data.
	asOf     time.Time // the data clock this state is as of (engine.go)
	seq      int       // the last resource id sequence number used
	dirty    bool      // changed by a write endpoint: pinned, no longer the generated data
	settings MerchantSettings
	api      *apiState      // made on the first payments-API write (apistate.go)
	notices  []Notification // emails the billing engine sent (notices.go)
}

// nextID is a new resource id dated t.
func (m *member) nextID(t time.Time) string {
	m.seq++
	return resourceID(t, m.index, m.seq)
}

// pristine reports whether m still is the data as generated.
func (m *member) pristine(asOf time.Time) bool { return !m.dirty && m.asOf.Equal(asOf) }

// planTerms is what a plan bills: the schedule and the amounts. A
// subscription keeps its own copy, because amending a plan with applyTo NEW
// leaves the existing subscriptions on the old terms.
type planTerms struct {
	unit             byte // D, W, M, Y
	length           int
	total            int // 0 = bill indefinitely
	amount, setupFee int64
	currency         string
}

type plan struct {
	id, code, name, description, status string
	planTerms
	created   time.Time
	oneTime   bool // created inside a subscription request: not listed, no code
	codeGiven bool // the merchant specified the code (GET plans/code counts from it)
}

type subscription struct {
	id, code, name, description string
	clientRef                   string // clientReferenceInformation.code
	plan                        *plan
	terms                       planTerms // what this subscription bills (see planTerms)
	start, created              time.Time
	// Cycle c falls due at addPeriods(anchor, unit, length, c-anchorCycle):
	// the start and cycle 1, until an amendment changes the period.
	anchor      time.Time
	anchorCycle int
	status      string
	card        card
	firstName   string
	lastName    string
	payments    []*payment // processed ones in processing order, then scheduled ones by cycle
	skipped     []int      // billingCyclesToSkip
	current     int        // last processed cycle
	missed      int        // cycles not billed since the subscription was suspended
	generated   bool       // part of the generated data: its billing declines now and then

	// missedCycles are the cycles whose PAID payment the planter removed
	// (missed_cycle, planted.go).
	missedCycles []int
	// plantedAs is the finding kind the planter made of this subscription
	// (planted.go).
	plantedAs string
}

// Planted payment anomalies.
const (
	anomalyNone int8 = iota
	anomalyMissing
	anomalyMismatch
)

type payment struct {
	id, txnID                    string
	status, ptype                string
	date, periodStart, periodEnd time.Time
	cycle, number                int
	amount, setupFee, surcharge  int64
	currency                     string
	doNotRetry                   bool // the decline said do not retry
	internalErrors               int  // attempts that failed inside the platform (retried, no status change)
	noticed                      bool // its prepayment notification was sent
	anomaly                      int8
	plantedAs                    string // the finding kind the planter made of this payment (planted.go)
	mismatchDelta                int64  // added to the transaction amount
	mismatchCurrency             string // the transaction's currency instead
}

// expected is billingAmount + setupFee + surchargeAmount in minor units.
func (p *payment) expected() int64 { return p.amount + p.setupFee + p.surcharge }

// again is another payment of pm's cycle, at t: a retry, or the cycle
// billed a second time.
func (pm *payment) again(status, ptype string, at time.Time) *payment {
	return &payment{status: status, ptype: ptype, date: at, cycle: pm.cycle, periodStart: pm.periodStart, periodEnd: pm.periodEnd,
		amount: pm.amount, setupFee: pm.setupFee, surcharge: pm.surcharge, currency: pm.currency}
}

// processed reports whether the payment's time has come: it was paid,
// declined, or skipped (a SCHEDULED_SKIPPED cycle whose date passed).
func (p *payment) processed() bool {
	return p.status == payPaid || p.status == payFailed || p.status == payPastSkipped
}

type txnKind uint8

const (
	kindSubPaid txnKind = iota
	kindSubFailed
	kindAuth
	kindCapture
	kindSale
	kindCredit
	kindReversal // the kinds below are made through the payments API only
	kindVoid
	kindRefund
)

type transaction struct {
	id, rootID, reconciliationID string
	time                         time.Time
	kind                         txnKind
	amount                       int64
	currency                     string
	card                         *card
	code                         string
	networkTxnID, approvalCode   string
	doNotRetry                   bool
	sub                          *subscription
	pay                          *payment
	api                          *apiTxn // set on transactions made through the payments API
	reversed, voided             bool    // by a follow-on made through the API
}

type callKind uint8

const (
	callAuth callKind = iota
	callCapture
	callSale
	callCredit
)

// call is one request/response of a merchant to the payments API, as its
// journal records it.
type call struct {
	kind                callKind
	time                time.Time
	code                string
	amount              int64
	currency            string
	card                *card
	auth                *call // the authorization a capture captures
	level3              bool
	items               []lineItem
	po                  string
	l3Status            any // nil, "Y", true, "N" or false
	bill                billTo
	respID, reconcileID string
	networkID, approval string
	commercial          bool
	txn                 *transaction
	x                   *callExt // the service areas beyond Level II/III (plant_calls.go)

	// plantedAs is the finding kind the planter made of this call
	// (planted.go).
	plantedAs string
}

type lineItem struct {
	productCode, productName, unitOfMeasure, commodityCode string
	quantity                                               int
	unitPrice, discount, tax, total                        int64
}

type billTo struct {
	first, last, address, city, state, postal, country, email string
}
