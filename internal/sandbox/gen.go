package sandbox

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// Planted rates. They are approximate: a planted state that the drawn
// schedule cannot carry (a daily plan cannot be DELINQUENT with a retry left
// and payments between 08:00 and 20:00) falls back to ACTIVE.
const (
	rateDelinquent       = 0.04 // of subscriptions
	rateSuspended        = 0.03
	rateCancelled        = 0.03
	ratePending          = 0.02
	rateSkipped          = 0.05 // of ACTIVE subscriptions with future cycles
	rateSurcharge        = 0.05 // of processed payments
	rateMissingTxn       = 0.03 // of PAID payments in the planting range
	rateMismatch         = 0.03 // of PAID payments in the planting range
	rateTokenizedCall    = 0.40 // merchant calls on a tokenized card
	rateLevel3Commercial = 0.75 // captures/sales on commercial cards sending Level III
	rateLevel3Other      = 0.10 // other captures/sales/credits sending Level III
	rateL3NotTransmitted = 0.12 // of calls sending Level III, answered N (half as false)
	carelessEvery        = 3    // every third member logs full PANs
	plantDays            = 7    // the planting range is [BusinessDate-6 days, BusinessDate+1 day)
	indefiniteHorizon    = 24   // future cycles materialised for a bill-indefinitely plan
)

// generator derives every member from the seed alone: each member, each of
// its subscriptions and its journal have their own PCG stream keyed by
// (seed, member, purpose, n), so a member can be generated alone and in any
// order, and regenerating an evicted member gives the same data.
type generator struct {
	seed          int64
	subsPerMember int
	members       int       // the organization's members (withoutRecurringBilling)
	business      time.Time // BusinessDate, UTC midnight
	asOf          time.Time // the data clock: BusinessDate + 1 day 02:00
	plantStart    time.Time // BusinessDate - 6 days
	plantEnd      time.Time // BusinessDate + 1 day
}

func newGenerator(cfg Config) *generator {
	b := cfg.BusinessDate
	return &generator{
		seed:          cfg.Seed,
		subsPerMember: cfg.Scale.Subscriptions,
		members:       cfg.Scale.Members,
		business:      b,
		asOf:          b.Add(26 * time.Hour),
		plantStart:    b.AddDate(0, 0, -(plantDays - 1)),
		plantEnd:      b.AddDate(0, 0, 1),
	}
}

// Stream purposes.
const (
	streamPlans uint64 = iota + 1
	streamSub
	streamCalls
	streamForceCalls
	streamIDs
	streamForceSub
	streamEngine // outcomes of the billing engine, keyed by subscription, cycle and attempt
	streamAPI    // values drawn for write endpoints of a member
	streamPlatforms
)

func (g *generator) stream(m int, purpose, n uint64) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(uint64(g.seed)^splitmix(uint64(m)+1)^splitmix(purpose<<32)), n))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func memberID(idx int) string { return fmt.Sprintf("sbxmid%06d", idx+1) }

// member generates member idx from scratch.
func (g *generator) member(idx int) *member {
	m := &member{index: idx, id: memberID(idx), careless: idx%carelessEvery == 0, settings: DefaultMerchantSettings()}
	m.settings.RecurringBillingDisabled = withoutRecurringBilling(idx, g.members)
	m.plans = g.plans(g.stream(idx, streamPlans, 0))
	if cur := memberCurrency(idx, g.members); cur != "" {
		// Drawn as every member's, then billed in the member's currency:
		// amounts are its minor units (fils, yen), so the other draws are
		// unchanged.
		for _, p := range m.plans {
			p.currency = cur
		}
	}
	var eligible []*plan
	var weights []int
	for _, p := range m.plans {
		switch p.status {
		case planActive:
			eligible, weights = append(eligible, p), append(weights, 4)
		case planInactive:
			eligible, weights = append(eligible, p), append(weights, 1)
		}
	}
	for j := 0; j < g.subsPerMember; j++ {
		r := g.stream(idx, streamSub, uint64(j))
		p := eligible[pickBin(r, weights)]
		m.subs = append(m.subs, g.subscription(r, j, p, subOpts{}))
	}
	m.calls = g.calls(g.stream(idx, streamCalls, 0))
	if idx == 0 {
		g.forceSubs(m)
		g.forceCalls(m)
	}
	g.plantBilling(m)
	if m.settings.RecurringBillingDisabled {
		// Drawn as every member's (so the streams of what follows are
		// unchanged), then dropped: the account has no recurring billing,
		// and its card transactions are the payments API's alone.
		m.plans, m.subs = nil, nil
	}
	g.plantAreas(m)
	g.plantRetries(m)
	if idx == 0 {
		g.plantVendorCases(m)
	}
	g.plantKinds(m, plantedKinds)
	g.finish(m)
	return m
}

var (
	tiers      = []string{"Basic", "Silver", "Gold", "Platinum", "Starter", "Pro", "Team", "Family", "Premium", "Lite"}
	firstNames = []string{"Ana", "Ben", "Chloe", "David", "Elif", "Farah", "Gustavo", "Hana", "Ivan", "Julia", "Kofi", "Lena", "Marco", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tara"}
	lastNames  = []string{"Diaz", "Smith", "Okafor", "Novak", "Tanaka", "Moreau", "Khan", "Silva", "Berg", "Walsh", "Ivanova", "Rossi", "Chen", "Haddad", "Lopez", "Muller", "Kowalski", "Nguyen", "Osei", "Park"}
	cities     = []struct{ city, state, postal string }{
		{"Austin", "TX", "78701"}, {"Denver", "CO", "80202"}, {"Boston", "MA", "02108"}, {"Seattle", "WA", "98101"},
		{"Miami", "FL", "33131"}, {"Chicago", "IL", "60601"}, {"Portland", "OR", "97204"}, {"Atlanta", "GA", "30303"},
	}
	products = []struct{ name, commodity, uom string }{
		{"Printer paper A4", "14111507", "CS"}, {"Toner cartridge", "44103103", "EA"}, {"Safety gloves", "46181504", "BX"},
		{"Network cable 5m", "26121609", "EA"}, {"Office chair", "56101504", "EA"}, {"Whiteboard markers", "44121708", "BX"},
		{"Laptop stand", "43211711", "EA"}, {"Cleaning supplies", "47131800", "CS"},
	}
)

func periodName(unit byte, length int) string {
	names := map[byte][2]string{'D': {"daily", "days"}, 'W': {"weekly", "weeks"}, 'M': {"monthly", "months"}, 'Y': {"yearly", "years"}}[unit]
	if length == 1 {
		return names[0]
	}
	return fmt.Sprintf("every %d %s", length, names[1])
}

// timeOfDay draws a time of day between 08:00:00 and 18:59:59, so that a
// payment and a retry one hour later both fall between 08:00 and 20:00.
func timeOfDay(r *rand.Rand) time.Duration {
	return time.Duration(8*3600+r.IntN(11*3600)) * time.Second
}

func (g *generator) plans(r *rand.Rand) []*plan {
	n := 4 + r.IntN(5)
	out := make([]*plan, 0, n)
	for i := 0; i < n; i++ {
		p := &plan{code: fmt.Sprintf("PLN-%03d", i+1), codeGiven: true, status: planActive, planTerms: planTerms{unit: 'M', length: 1}}
		if i > 0 {
			// Plan 0 is always an active monthly bill-indefinitely plan: the
			// forced plantings of member 1 need one.
			switch u := r.Float64(); {
			case u < 0.60:
				p.length = []int{1, 1, 1, 1, 2, 3, 6, 12}[r.IntN(8)]
			case u < 0.75:
				p.unit, p.length = 'W', []int{1, 1, 2, 4}[r.IntN(4)]
			case u < 0.85:
				p.unit = 'Y'
			default:
				p.unit, p.length = 'D', []int{1, 1, 7, 14, 30}[r.IntN(5)]
			}
			if r.Float64() < 0.7 {
				p.total = 3 + r.IntN(34)
			}
			switch u := r.Float64(); {
			case u < 0.1:
				p.status = planInactive
			case u < 0.2:
				p.status = planDraft
			}
		}
		p.amount = int64(500 + r.IntN(49501))
		if r.Float64() < 0.3 {
			p.setupFee = int64(100 + r.IntN(4901))
		}
		switch u := r.Float64(); {
		case u < 0.8:
			p.currency = "USD"
		case u < 0.92:
			p.currency = "EUR"
		default:
			p.currency = "GBP"
		}
		tier := tiers[r.IntN(len(tiers))]
		p.name = tier + " " + periodName(p.unit, p.length)
		p.description = fmt.Sprintf("%s plan, billed %s", tier, periodName(p.unit, p.length))
		p.created = g.business.AddDate(0, 0, -(420 + r.IntN(g.planCreationDays()))).Add(timeOfDay(r))
		out = append(out, p)
	}
	return out
}

// addPeriods moves t by n billing periods. Month arithmetic keeps the day of
// month and clamps it to the month's end; the time of day is kept.
func addPeriods(t time.Time, unit byte, length, n int) time.Time {
	switch unit {
	case 'D':
		return t.AddDate(0, 0, length*n)
	case 'W':
		return t.AddDate(0, 0, 7*length*n)
	case 'Y':
		return addMonths(t, 12*length*n)
	default:
		return addMonths(t, length*n)
	}
}

func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	total := int(m) - 1 + n
	y += total / 12
	mm := total % 12
	if mm < 0 {
		mm += 12
		y--
	}
	last := time.Date(y, time.Month(mm+2), 0, 0, 0, 0, 0, time.UTC).Day()
	if d > last {
		d = last
	}
	return time.Date(y, time.Month(mm+1), d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// retrySchedule is the platform's retry schedule by billing frequency.
// Custom frequencies (length > 1) are mapped by their unit: the mapping rule
// is not shown, and the unit is the only plausible key.
func retrySchedule(unit byte) (n int, every time.Duration) {
	switch unit {
	case 'D':
		return 1, time.Hour
	case 'W':
		return 3, 24 * time.Hour
	case 'Y':
		return 3, 15 * 24 * time.Hour
	default:
		return 5, 48 * time.Hour
	}
}

// startSpanDays bounds how far back a subscription may start, so that its
// schedule has processed payments without growing without bound.
func startSpanDays(unit byte) int {
	switch unit {
	case 'D':
		return 30
	case 'W':
		return 120
	default:
		return 400
	}
}

// dueDates lists the cycle dates before the data clock.
func (g *generator) dueDates(start time.Time, p *plan) []time.Time {
	var out []time.Time
	for c := 1; p.total == 0 || c <= p.total; c++ {
		t := addPeriods(start, p.unit, p.length, c-1)
		if !t.Before(g.asOf) {
			break
		}
		out = append(out, t)
	}
	return out
}

type subOpts struct {
	status  string // "" = drawn at the planted rates
	skip    bool   // force skipped cycles (ACTIVE)
	anchorB bool   // the latest due cycle falls on the business day
	anomaly int8   // force this anomaly on the latest due payment (with anchorB)

	// For the billing plantings (plant_billing.go):
	start time.Time // force this start date
	retry bool      // a SUSPENDED subscription exhausts its retries (no do-not-retry decline)
}

func (g *generator) subscription(r *rand.Rand, j int, p *plan, o subOpts) *subscription {
	s := &subscription{plan: p, terms: p.planTerms, code: fmt.Sprintf("SUB-%05d", j+1), anchorCycle: 1, generated: true}
	s.clientRef = s.code
	s.firstName, s.lastName = firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
	s.name = p.name + " - " + s.lastName
	s.card = newCard(r, pickBin(r, subscriptionBinWeights), true)
	status := o.status
	if status == "" {
		switch u := r.Float64(); {
		case u < rateDelinquent:
			status = subDelinquent
		case u < rateDelinquent+rateSuspended:
			status = subSuspended
		case u < rateDelinquent+rateSuspended+rateCancelled:
			status = subCancelled
		case u < rateDelinquent+rateSuspended+rateCancelled+ratePending:
			status = subPending
		default:
			status = subActive
		}
	}
	if status == subDelinquent && p.unit == 'D' {
		status = subActive
	}
	noRetry := r.IntN(2) == 0 && !o.retry
	nRetry, every := retrySchedule(p.unit)
	retrySpan := time.Duration(nRetry) * every

	var due []time.Time
	failCycle := 0
	if status == subPending {
		s.start = utcDay(g.asOf).AddDate(0, 0, r.IntN(20)).Add(timeOfDay(r))
		s.created = g.asOf.AddDate(0, 0, -(1 + r.IntN(10)))
	} else {
		ok := false
		for attempt := 0; attempt < 64 && !ok; attempt++ {
			s.start = g.drawStart(r, p, o.anchorB)
			if !o.start.IsZero() {
				s.start = o.start
			}
			due = g.dueDates(s.start, p)
			if len(due) == 0 {
				continue
			}
			k := len(due)
			last := due[k-1]
			if o.anchorB && !utcDay(last).Equal(g.business) {
				continue
			}
			switch status {
			case subDelinquent:
				// Retries remain as of the data clock.
				failCycle = k
				ok = !last.Add(retrySpan).Before(g.asOf)
			case subSuspended:
				failCycle = k - r.IntN(min(k, 3))
				ok = noRetry || due[failCycle-1].Add(retrySpan).Before(g.asOf)
			default:
				ok = true
			}
		}
		if !ok {
			status, failCycle = subActive, 0
			if o.anchorB {
				o.anomaly = anomalyNone
			}
			if len(due) == 0 {
				s.start = g.business.Add(timeOfDay(r))
				due = g.dueDates(s.start, p)
			}
		}
		s.created = s.start.AddDate(0, 0, -(1 + r.IntN(10)))
	}

	s.anchor = s.start
	k := len(due)
	paidUpTo := k
	switch status {
	case subActive:
		if p.total > 0 && k >= p.total {
			status = subCompleted
		}
	case subDelinquent, subSuspended:
		paidUpTo = failCycle - 1
	case subCancelled:
		paidUpTo = 1 + r.IntN(k)
	}
	s.status = status

	cycleDate := func(c int) time.Time { return addPeriods(s.start, p.unit, p.length, c-1) }
	number := 0
	add := func(c int, date time.Time, st, typ string) *payment {
		number++
		pm := &payment{status: st, ptype: typ, date: date, cycle: c, number: number,
			periodStart: cycleDate(c), periodEnd: cycleDate(c + 1).Add(-time.Second),
			amount: p.amount, currency: p.currency}
		if c == 1 {
			pm.setupFee = p.setupFee
		}
		s.payments = append(s.payments, pm)
		return pm
	}
	surcharge := func(pm *payment) {
		if r.Float64() < rateSurcharge {
			pm.surcharge = max(25, pm.amount*int64(1+r.IntN(3))/100)
		}
	}
	for c := 1; c <= paidUpTo; c++ {
		surcharge(add(c, due[c-1], payPaid, payStandard))
		s.current = c
	}
	if status == subDelinquent || status == subSuspended {
		fail := due[failCycle-1]
		first := add(failCycle, fail, payFailed, payStandard)
		surcharge(first)
		s.current = failCycle
		if status == subSuspended && noRetry {
			first.doNotRetry = true
		} else {
			for i := 1; i <= nRetry; i++ {
				t := fail.Add(time.Duration(i) * every)
				if !t.Before(g.asOf) {
					break
				}
				rt := add(failCycle, t, payFailed, payRetry)
				rt.surcharge = first.surcharge
			}
		}
		if status == subSuspended {
			s.missed = k - failCycle
		}
	}
	var scheduled []*payment
	if status == subActive || status == subDelinquent || status == subPending {
		for c, n := k+1, 0; (p.total == 0 && n < indefiniteHorizon) || (p.total > 0 && c <= p.total); c, n = c+1, n+1 {
			scheduled = append(scheduled, add(c, cycleDate(c), payScheduled, payStandard))
		}
	}

	// Planted payment anomalies, on PAID payments of the planting range.
	var anchored *payment
	if o.anchorB && o.anomaly != anomalyNone && k > 0 {
		for _, pm := range s.payments {
			if pm.cycle == k && pm.status == payPaid {
				anchored = pm
			}
		}
	}
	for _, pm := range s.payments {
		if pm.status != payPaid || pm.date.Before(g.plantStart) || !pm.date.Before(g.plantEnd) {
			continue
		}
		u := r.Float64()
		kind := anomalyNone
		switch {
		case pm == anchored:
			kind = o.anomaly
		case u < rateMissingTxn:
			kind = anomalyMissing
		case u < rateMissingTxn+rateMismatch:
			kind = anomalyMismatch
		}
		pm.anomaly = kind
		if kind == anomalyMismatch {
			if r.IntN(4) == 0 {
				others := map[string][2]string{"USD": {"EUR", "GBP"}, "EUR": {"USD", "GBP"}, "GBP": {"USD", "EUR"}}[pm.currency]
				pm.mismatchCurrency = others[r.IntN(2)]
			} else {
				d := int64(1 + r.IntN(500))
				if r.IntN(2) == 0 && pm.expected() > d {
					d = -d
				}
				pm.mismatchDelta = d
			}
		}
	}

	// Planted skipped cycles, among the first future cycles so that the
	// default scheduledPaymentsCount (5) shows them too.
	if status == subActive && len(scheduled) > 0 {
		u := r.Float64()
		if o.skip || u < rateSkipped {
			m := min(3, len(scheduled))
			n := min(1+r.IntN(2), m)
			for _, i := range r.Perm(m)[:n] {
				scheduled[i].status = paySkipped
				s.skipped = append(s.skipped, scheduled[i].cycle)
			}
			sort.Ints(s.skipped)
		}
	}
	return s
}

func (g *generator) drawStart(r *rand.Rand, p *plan, anchorB bool) time.Time {
	tod := timeOfDay(r)
	if anchorB {
		k := 1 + r.IntN(3)
		if p.total > 0 && k > p.total {
			k = p.total
		}
		return addPeriods(g.business.Add(tod), p.unit, p.length, -(k - 1))
	}
	return g.business.AddDate(0, 0, -r.IntN(startSpanDays(p.unit))).Add(tod)
}

// forceSubs makes sure member 1 carries each subscription-level kind, and a
// payment anomaly of each kind dated on the business day (inside the window
// whatever the lookback), by regenerating some of its ACTIVE subscriptions
// on plan 0 with the kind forced.
func (g *generator) forceSubs(m *member) {
	var skipped, delinquent, suspended, missing, mismatch bool
	var candidates []int
	for j, s := range m.subs {
		clean := len(s.skipped) == 0
		for _, pm := range s.payments {
			if pm.anomaly != anomalyNone {
				clean = false
				if utcDay(pm.date).Equal(g.business) {
					missing = missing || pm.anomaly == anomalyMissing
					mismatch = mismatch || pm.anomaly == anomalyMismatch
				}
			}
		}
		skipped = skipped || len(s.skipped) > 0
		delinquent = delinquent || s.status == subDelinquent
		suspended = suspended || s.status == subSuspended
		if clean && (s.status == subActive || s.status == subCompleted) {
			candidates = append(candidates, j)
		}
	}
	var need []subOpts
	if !skipped {
		need = append(need, subOpts{status: subActive, skip: true})
	}
	if !delinquent {
		need = append(need, subOpts{status: subDelinquent})
	}
	if !suspended {
		need = append(need, subOpts{status: subSuspended})
	}
	if !missing {
		need = append(need, subOpts{status: subActive, anchorB: true, anomaly: anomalyMissing})
	}
	if !mismatch {
		need = append(need, subOpts{status: subActive, anchorB: true, anomaly: anomalyMismatch})
	}
	for i, o := range need {
		if i >= len(candidates) {
			break
		}
		j := candidates[i]
		m.subs[j] = g.subscription(g.stream(m.index, streamForceSub, uint64(j)), j, m.plans[0], o)
	}
}

// calls generates the merchant's own API calls over the planting range.
func (g *generator) calls(r *rand.Rand) []*call {
	var out []*call
	for d := 0; d < plantDays; d++ {
		day := g.plantStart.AddDate(0, 0, d)
		n := 3 + r.IntN(6)
		for i := 0; i < n; i++ {
			t := day.Add(time.Duration(8*3600+r.IntN(12*3600)) * time.Second)
			var set callSetKind
			switch u := r.Float64(); {
			case u < 0.5:
				set = setAuthCapture
			case u < 0.8:
				set = setSale
			case u < 0.9:
				set = setCredit
			default:
				set = setAuthOnly
			}
			out = append(out, g.callSet(r, t, set, callOpts{bin: -1})...)
		}
	}
	sortCalls(out)
	return out
}

func sortCalls(cs []*call) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].time.Before(cs[j].time) })
}

type callSetKind int

const (
	setAuthCapture callSetKind = iota
	setSale
	setCredit
	setAuthOnly
)

type callOpts struct {
	bin      int   // -1 = drawn
	level3   *bool // nil = drawn
	l3Status any   // nil = drawn
}

func alnum(r *rand.Rand, n int) string {
	const chars = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	if b[0] == '0' {
		b[0] = '1'
	}
	return string(b)
}

// callSet draws one business operation of a merchant: an authorization and
// its capture, a sale, a credit or a lone authorization.
func (g *generator) callSet(r *rand.Rand, t time.Time, set callSetKind, o callOpts) []*call {
	b := o.bin
	if b < 0 {
		b = pickBin(r, callBinWeights)
	}
	cd := newCard(r, b, r.Float64() < rateTokenizedCall)
	cur := "USD"
	switch u := r.Float64(); {
	case u > 0.95:
		cur = "GBP"
	case u > 0.85:
		cur = "EUR"
	}
	ci := cities[r.IntN(len(cities))]
	first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
	bill := billTo{first: first, last: last, address: fmt.Sprintf("%d Market St", 1+r.IntN(999)),
		city: ci.city, state: ci.state, postal: ci.postal, country: "US",
		email: fmt.Sprintf("%s.%s@example.com", lower(first), lower(last))}
	code := "ORD-" + alnum(r, 8)
	commercial := cd.entry().commercial()
	var l3 bool
	switch {
	case set == setAuthOnly:
	case set == setCredit && commercial:
		// Commercial credits always carry Level III: the product's rule
		// (docs/findings.md) flags captures and sales only, so a credit without it
		// would be an anomaly neither side agrees on.
		l3 = true
	case commercial:
		l3 = r.Float64() < rateLevel3Commercial
	default:
		l3 = r.Float64() < rateLevel3Other
	}
	if o.level3 != nil && set != setAuthOnly {
		l3 = *o.level3
	}
	var items []lineItem
	var amount int64
	if l3 {
		items, amount = genItems(r)
	} else {
		amount = int64(1000 + r.IntN(199001))
	}
	po := ""
	if l3 || (commercial && r.IntN(2) == 0) {
		po = "PO-" + alnum(r, 7)
	}
	var status any
	if l3 {
		switch u := r.Float64(); {
		case u < rateL3NotTransmitted/2:
			status = "N"
		case u < rateL3NotTransmitted:
			status = false
		case r.IntN(5) == 0:
			status = true
		default:
			status = "Y"
		}
	}
	if o.l3Status != nil {
		status = o.l3Status
	}
	if set == setCredit {
		// The platform answers level3TransmissionStatus on payments and
		// captures only (SDK models PtsV2PaymentsPost201Response… and
		// PtsV2PaymentsCapturesPost201ResponseOrderInformationInvoiceDetails;
		// a credit's has none). Drawn all the same, so that the draws after
		// it stay as they were.
		status = nil
	}
	base := call{time: t, code: code, amount: amount, currency: cur, card: &cd, bill: bill, commercial: commercial}
	withL3 := func(c *call) *call {
		c.level3, c.items, c.po, c.l3Status = l3, items, po, status
		return c
	}
	switch set {
	case setAuthCapture:
		a := base
		a.kind = callAuth
		c := base
		c.kind = callCapture
		c.auth = &a
		c.time = t.Add(time.Duration(60+r.IntN(7140)) * time.Second)
		return []*call{&a, withL3(&c)}
	case setSale:
		c := base
		c.kind = callSale
		return []*call{withL3(&c)}
	case setCredit:
		c := base
		c.kind = callCredit
		return []*call{withL3(&c)}
	default:
		a := base
		a.kind = callAuth
		return []*call{&a}
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// genItems draws Level III line items; the call's total is their sum.
func genItems(r *rand.Rand) ([]lineItem, int64) {
	n := 1 + r.IntN(3)
	items := make([]lineItem, n)
	var total int64
	for i := range items {
		p := products[r.IntN(len(products))]
		it := lineItem{productCode: "SKU-" + alnum(r, 6), productName: p.name, unitOfMeasure: p.uom,
			commodityCode: p.commodity, quantity: 1 + r.IntN(20), unitPrice: int64(100 + r.IntN(19901))}
		gross := int64(it.quantity) * it.unitPrice
		if r.IntN(3) == 0 {
			it.discount = gross * int64(1+r.IntN(10)) / 100
		}
		it.tax = (gross - it.discount) * 8 / 100
		it.total = gross - it.discount + it.tax
		total += it.total
		items[i] = it
	}
	return items, total
}

// forceCalls makes sure member 1's journal has, on the business day, a
// commercial sale without Level III, a Level III capture answered N and a
// call on a BIN nothing resolves.
func (g *generator) forceCalls(m *member) {
	var ccw, l3n, unresolved bool
	for _, c := range m.calls {
		if !utcDay(c.time).Equal(g.business) {
			continue
		}
		ccw = ccw || flagsCommercialWithoutL3(c)
		l3n = l3n || flagsL3NotTransmitted(c)
		unresolved = unresolved || c.card.record() == nil
	}
	r := g.stream(m.index, streamForceCalls, 0)
	at := func() time.Time { return g.business.Add(time.Duration(9*3600+r.IntN(9*3600)) * time.Second) }
	no, yes := false, true
	if !ccw {
		m.calls = append(m.calls, g.callSet(r, at(), setSale, callOpts{bin: binCorporate, level3: &no})...)
	}
	if !l3n {
		m.calls = append(m.calls, g.callSet(r, at(), setAuthCapture, callOpts{bin: binPurchasing, level3: &yes, l3Status: "N"})...)
	}
	if !unresolved {
		m.calls = append(m.calls, g.callSet(r, at(), setAuthOnly, callOpts{bin: binUnresolvable})...)
	}
	sortCalls(m.calls)
}

// flagsCommercialWithoutL3 is the commercial_card_without_level3 rule: a
// capture or sale on a card whose BIN resolves to a business platform
// (BUSINESS, CORPORATE, COMMERCIAL or GOVERNMENT), sent with neither
// purchaseLevel 3 nor line items.
func flagsCommercialWithoutL3(c *call) bool {
	if c.kind != callCapture && c.kind != callSale {
		return false
	}
	rec := c.card.record()
	return rec != nil && businessPlatform(rec.platform) && !c.level3 && len(c.items) == 0
}

// flagsL3NotTransmitted is the level3_not_transmitted rule: a capture or
// sale that sent Level III (purchaseLevel 3 or line items) and whose
// response said N or false. N on a call that sent none means only that
// none was sent (the SDK's level3TransmissionStatus).
func flagsL3NotTransmitted(c *call) bool {
	if c.kind != callCapture && c.kind != callSale {
		return false
	}
	return (c.level3 || len(c.items) > 0) && (c.l3Status == "N" || c.l3Status == false)
}

// earliestCreation is when the oldest plans of the generated worlds were
// created: their ids span the creation years 2019 to the business date's,
// as a portfolio's do, and those created from 2019 to 2022 begin with card
// networks' IINs (55, 6011, 62, 644-649, 65).
var earliestCreation = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)

// planCreationDays is the span of days (before business date - 420 days)
// over which plans are created: back to earliestCreation.
func (g *generator) planCreationDays() int {
	return max(300, int(g.business.AddDate(0, 0, -420).Sub(earliestCreation).Hours()/24))
}

// resourceID is a resource id in the platform's format (22 digits): the
// Unix second of the resource's creation without its leading 1 (9 digits:
// the vendor's example 6512628085536163703211 was submitted at
// 2022-04-29T20:06:49Z, Unix 1651262809), then the member number (5) and a
// per-member sequence (8). It is unique across the sandbox (up to 99,999
// members of 10^8 resources each) and deterministic. A time outside
// 2001-09-09 to 2033-05-18 (Unix seconds of 10 digits beginning with 1)
// has no id of this format; its seconds are taken modulo 10^9.
func resourceID(t time.Time, memberIdx, seq int) string {
	var b [22]byte
	pad := func(dst []byte, v int64) {
		for i := len(dst) - 1; i >= 0; i-- {
			dst[i] = byte('0' + v%10)
			v /= 10
		}
	}
	pad(b[0:9], ((t.Unix()%1_000_000_000)+1_000_000_000)%1_000_000_000)
	pad(b[9:14], int64(memberIdx+1))
	pad(b[14:22], int64(seq))
	return string(b[:])
}

// plantedCreations are when member 1's plans and subscriptions were
// created, in turn: one in each year from 2019 to 2025, at instants whose
// ids begin as card numbers do in the years where they can (2019 to 2022;
// one at the vendor's example's second), so that a whole run carries ids
// that a masking by pattern would alter into every table, finding and
// sheet (a long-running subscription's findings name it).
var plantedCreations = []time.Time{
	time.Date(2022, 4, 29, 20, 6, 49, 0, time.UTC), time.Date(2019, 3, 1, 9, 0, 0, 0, time.UTC),
	time.Date(2020, 9, 26, 12, 0, 0, 0, time.UTC), time.Date(2021, 6, 15, 8, 0, 0, 0, time.UTC),
	time.Date(2022, 3, 1, 10, 0, 0, 0, time.UTC), time.Date(2023, 7, 1, 12, 0, 0, 0, time.UTC),
	time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC), time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC),
}

// plantedCreation is the k-th planted creation time of member 1's next
// resource (sequence seq), a day after after when it is not (a
// subscription is created after its plan), moved on to the first second
// at which its id's first 16 digits pass the Luhn check; created itself
// when that would not be earlier (a business date before the planted one).
func plantedCreation(created, after time.Time, k, memberIdx, seq int) time.Time {
	t := plantedCreations[k%len(plantedCreations)]
	if !t.After(after) {
		t = after.Add(24 * time.Hour)
	}
	for range 100 {
		if luhnValid(resourceID(t, memberIdx, seq)[:16]) {
			break
		}
		t = t.Add(time.Second)
	}
	if !t.Before(created) {
		return created
	}
	return t
}

// finish assigns identifiers in a fixed order, builds the platform's
// transactions and the indexes.
func (g *generator) finish(m *member) {
	r := g.stream(m.index, streamIDs, 0)
	next := m.nextID
	m.asOf = g.asOf
	for k, p := range m.plans {
		if m.index == 0 {
			p.created = plantedCreation(g.business, time.Time{}, k, m.index, m.seq+1)
		}
		p.id = next(p.created)
	}
	for k, s := range m.subs {
		if m.index == 0 {
			s.created = plantedCreation(s.created, s.plan.created, k, m.index, m.seq+1)
		}
		s.id = next(s.created)
		for _, pm := range s.payments {
			pm.id = next(pm.date)
			if !pm.processed() {
				continue
			}
			pm.txnID = next(pm.date)
			if pm.anomaly == anomalyMissing {
				continue // the transactionID names nothing on the platform
			}
			t := &transaction{id: pm.txnID, rootID: pm.txnID, time: pm.date, kind: kindSubPaid,
				amount: pm.expected() + pm.mismatchDelta, currency: pm.currency, card: &s.card,
				code: s.code, sub: s, pay: pm, doNotRetry: pm.doNotRetry,
				reconciliationID: alnum(r, 12), networkTxnID: digits(r, 20), approvalCode: digits(r, 6)}
			if pm.status == payFailed {
				t.kind = kindSubFailed
				t.approvalCode = ""
			}
			if pm.mismatchCurrency != "" {
				t.currency = pm.mismatchCurrency
			}
			m.txns = append(m.txns, t)
		}
	}
	for _, c := range m.calls {
		g.finishCall(m, r, c)
	}
	sort.Slice(m.txns, func(i, j int) bool {
		if !m.txns[i].time.Equal(m.txns[j].time) {
			return m.txns[i].time.Before(m.txns[j].time)
		}
		return m.txns[i].id < m.txns[j].id
	})
	m.planByID = make(map[string]*plan, len(m.plans))
	for _, p := range m.plans {
		m.planByID[p.id] = p
	}
	m.subByID = make(map[string]*subscription, len(m.subs))
	for _, s := range m.subs {
		m.subByID[s.id] = s
	}
	m.txnByID = make(map[string]*transaction, len(m.txns))
	for _, t := range m.txns {
		m.txnByID[t.id] = t
	}
}
