package sandbox

import (
	"hash/fnv"
	"sort"
	"time"
)

// The billing engine moves a member's subscriptions forward to the data
// clock: scheduled payments are processed at their date, a declined one
// makes the subscription DELINQUENT and is retried on the spec's schedule
// (retrySchedule), exhausted retries or a do-not-retry decline suspend it,
// a suspended subscription counts the cycles it misses.
//
// Events are processed strictly in (time, subscription order), and every
// outcome is drawn from a stream keyed by (member, subscription, cycle,
// attempt), so moving the clock in one step or in many gives the same data,
// and a member evicted from the cache and generated again reaches the same
// state: only members changed by writes need pinning.

// Outcomes of a payment attempt.
type attemptOutcome uint8

const (
	approved attemptOutcome = iota
	declined
	declinedNoRetry
	internalError // never reached the network: retried an hour later, no status change
)

// Rates of the engine's outcomes on generated subscriptions.
const (
	rateEngineDecline   = 0.04 // of first attempts
	rateEngineNoRetry   = 0.25 // of those declines
	rateEngineInternal  = 0.01 // of first attempts
	rateRetryApproved   = 0.50 // of retries
	internalRetryPeriod = time.Hour
)

// Amount triggers: the cents of an amount choose the outcome, so that a
// test can ask for one. They apply to subscriptions created through the
// API and to payments made through /pts/v2; generated subscriptions draw
// their outcomes at the rates above instead.
const (
	centsInternalError = 95 // the first attempt fails inside the platform
	centsDecline       = 96 // every attempt is declined (retryable)
	centsNoRetry       = 97 // declined, do not retry
	centsDeclineOnce   = 98 // the first attempt is declined, the first retry approved
)

// outcome decides attempt number attempt (0 = the scheduled payment, n =
// the n-th retry) of a cycle.
func (g *generator) outcome(m *member, sub *subscription, pm *payment, attempt int) attemptOutcome {
	if !sub.generated {
		switch pm.amount % 100 {
		case centsInternalError:
			if attempt == 0 && pm.internalErrors == 0 {
				return internalError
			}
		case centsDecline:
			return declined
		case centsNoRetry:
			return declinedNoRetry
		case centsDeclineOnce:
			if attempt == 0 {
				return declined
			}
		}
		return approved
	}
	h := fnv.New64a()
	h.Write([]byte(sub.id))
	r := g.stream(m.index, streamEngine, h.Sum64()^uint64(pm.cycle)<<20^uint64(attempt)<<8^uint64(pm.internalErrors))
	u := r.Float64()
	if attempt > 0 {
		if u < rateRetryApproved {
			return approved
		}
		return declined
	}
	switch {
	case u < rateEngineDecline*rateEngineNoRetry:
		return declinedNoRetry
	case u < rateEngineDecline:
		return declined
	case u < rateEngineDecline+rateEngineInternal:
		return internalError
	}
	return approved
}

// cycleDate is when cycle c of sub falls due.
func (sub *subscription) cycleDate(c int) time.Time {
	return addPeriods(sub.anchor, sub.terms.unit, sub.terms.length, c-sub.anchorCycle)
}

// firstScheduled is the index in sub.payments of the first payment not yet
// processed, or len(sub.payments).
func (sub *subscription) firstScheduled() int {
	for i, pm := range sub.payments {
		if !pm.processed() {
			return i
		}
	}
	return len(sub.payments)
}

// retryState is where a DELINQUENT subscription's retries stand: the
// failed payment of its cycle, the retries done, and when the next is due.
func (sub *subscription) retryState() (first *payment, done int, next time.Time) {
	for _, pm := range sub.payments {
		if pm.cycle != sub.current || !pm.processed() {
			continue
		}
		switch {
		case pm.ptype == payStandard && pm.status == payFailed:
			first, done = pm, 0
		case pm.ptype == payRetry && first != nil:
			done++
		}
	}
	if first == nil {
		return nil, 0, time.Time{}
	}
	_, every := retrySchedule(sub.terms.unit)
	return first, done, first.date.Add(time.Duration(done+1) * every)
}

// event kinds of a subscription.
type eventKind uint8

const (
	evPayment eventKind = iota // the first scheduled payment falls due
	evRetry                    // the next retry of a DELINQUENT cycle
	evMissed                   // a SUSPENDED subscription misses a cycle
	evNotice                   // the prepayment notification of the next payment
)

// nextEvent is the subscription's next event, if it has one. genAsOf is
// when the generated data is as of: notices due before it (or before the
// subscription was created) are not sent by the engine.
func (sub *subscription) nextEvent(genAsOf time.Time) (time.Time, eventKind, bool) {
	var at time.Time
	kind, ok := evPayment, false
	switch sub.status {
	case subPending, subActive, subDelinquent:
		if i := sub.firstScheduled(); i < len(sub.payments) {
			pm := sub.payments[i]
			at, ok = pm.date, true
			if n := pm.date.Add(-prepaymentNotice); !pm.noticed && pm.status == payScheduled && n.After(genAsOf) && n.After(sub.created) {
				at, kind = n, evNotice
			}
		}
		if sub.status == subDelinquent {
			if first, done, next := sub.retryState(); first != nil {
				if n, _ := retrySchedule(sub.terms.unit); done < n && (!ok || next.Before(at)) {
					at, kind, ok = next, evRetry, true
				}
			}
		}
	case subSuspended:
		c := sub.current + sub.missed + 1
		if sub.terms.total == 0 || c <= sub.terms.total {
			at, kind, ok = sub.cycleDate(c), evMissed, true
		}
	}
	return at, kind, ok
}

// advance runs member m's billing up to t. The caller holds m.mu.
func (s *Server) advance(m *member, t time.Time) {
	if m.asOf.Before(t) {
		s.process(m, t)
	}
}

// process runs every event due at or before t, in time order, then marks
// m as of t. A write that makes payments due now calls it directly.
func (s *Server) process(m *member, t time.Time) {
	type next struct {
		at   time.Time
		kind eventKind
		ok   bool
	}
	// Subscriptions are independent: only the one just stepped needs its
	// next event computed again.
	events := make([]next, len(m.subs))
	for i, sub := range m.subs {
		at, kind, ok := sub.nextEvent(s.gen.asOf)
		events[i] = next{at, kind, ok && !at.After(t)}
	}
	added := false
	for {
		best := -1
		for i := range events {
			if events[i].ok && (best < 0 || events[i].at.Before(events[best].at)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		sub, e := m.subs[best], events[best]
		added = s.gen.step(m, sub, e.at, e.kind) || added
		at, kind, ok := sub.nextEvent(s.gen.asOf)
		events[best] = next{at, kind, ok && !at.After(t)}
	}
	m.asOf = t
	if added {
		sortTxns(m)
	}
}

// step processes one event; it reports whether a transaction was added.
func (g *generator) step(m *member, sub *subscription, at time.Time, kind eventKind) bool {
	switch kind {
	case evNotice:
		pm := sub.payments[sub.firstScheduled()]
		pm.noticed = true
		notify(m, sub, pm, noticePrepayment, at)
		return false
	case evMissed:
		sub.missed++
		return false
	case evRetry:
		first, done, _ := sub.retryState()
		rt := first.again(payFailed, payRetry, at)
		rt.id = m.nextID(at)
		out := g.outcome(m, sub, rt, done+1)
		if out == internalError {
			out = declined
		}
		g.charge(m, sub, rt, out)
		sub.insertProcessed(rt)
		n, _ := retrySchedule(sub.terms.unit)
		switch {
		case out == approved:
			sub.status = subActive
			if sub.terms.total > 0 && sub.current >= sub.terms.total && sub.firstScheduled() == len(sub.payments) {
				sub.status = subCompleted
			}
		case out == declinedNoRetry || done+1 >= n:
			sub.suspend()
		}
		renumber(sub)
		return true
	}
	i := sub.firstScheduled()
	pm := sub.payments[i]
	if sub.status == subPending {
		sub.status = subActive
	}
	if pm.status == paySkipped {
		pm.status = payPastSkipped
		sub.skipped = removeInt(sub.skipped, pm.cycle)
		sub.current = pm.cycle
		g.afterCycle(m, sub)
		return false
	}
	out := g.outcome(m, sub, pm, 0)
	if out == internalError {
		// The request never reached the network: the payment is tried
		// again later with no status change (spec). The retry interval
		// is not shown; an hour is plausible.
		pm.internalErrors++
		pm.date = pm.date.Add(internalRetryPeriod)
		return false
	}
	pm.date = at
	g.charge(m, sub, pm, out)
	sub.current = pm.cycle
	switch out {
	case approved:
		g.afterCycle(m, sub)
	case declined:
		sub.status = subDelinquent
		g.topUp(m, sub)
	case declinedNoRetry:
		sub.suspend()
	}
	renumber(sub)
	return true
}

// charge settles payment pm with outcome out and records its transaction.
func (g *generator) charge(m *member, sub *subscription, pm *payment, out attemptOutcome) {
	r := g.stream(m.index, streamEngine, uint64(m.seq)<<1|1)
	pm.txnID = m.nextID(pm.date)
	t := &transaction{id: pm.txnID, rootID: pm.txnID, time: pm.date, kind: kindSubPaid, amount: pm.expected(),
		currency: pm.currency, card: &sub.card, code: sub.code, sub: sub, pay: pm,
		reconciliationID: alnum(r, 12), networkTxnID: digits(r, 20), approvalCode: digits(r, 6)}
	pm.status = payPaid
	if out != approved {
		pm.status, t.kind, t.approvalCode = payFailed, kindSubFailed, ""
		pm.doNotRetry = out == declinedNoRetry
		t.doNotRetry = pm.doNotRetry
	}
	m.txns = append(m.txns, t)
	m.txnByID[t.id] = t
	if out == approved {
		notify(m, sub, pm, noticeSuccess, pm.date)
	} else {
		notify(m, sub, pm, noticeFailure, pm.date)
	}
}

// afterCycle completes a fixed-number subscription after its last cycle,
// and keeps an indefinite one's horizon of future cycles.
func (g *generator) afterCycle(m *member, sub *subscription) {
	if sub.terms.total > 0 && sub.current >= sub.terms.total && sub.status == subActive {
		sub.status = subCompleted
		return
	}
	g.topUp(m, sub)
}

// topUp keeps indefiniteHorizon future cycles of a bill-indefinitely
// subscription materialised.
func (g *generator) topUp(m *member, sub *subscription) {
	if sub.terms.total != 0 {
		return
	}
	n := len(sub.payments) - sub.firstScheduled()
	last := sub.current
	if n > 0 {
		last = sub.payments[len(sub.payments)-1].cycle
	}
	for ; n < indefiniteHorizon; n++ {
		last++
		sub.payments = append(sub.payments, sub.newScheduled(m, last))
	}
}

// newScheduled makes the scheduled payment of cycle c on the current terms.
func (sub *subscription) newScheduled(m *member, c int) *payment {
	d := sub.cycleDate(c)
	pm := &payment{status: payScheduled, ptype: payStandard, date: d, cycle: c,
		periodStart: d, periodEnd: sub.cycleDate(c + 1).Add(-time.Second),
		amount: sub.terms.amount, currency: sub.terms.currency}
	if c == 1 {
		pm.setupFee = sub.terms.setupFee
	}
	pm.id = m.nextID(d)
	return pm
}

// insertProcessed puts a newly processed payment after the processed ones.
func (sub *subscription) insertProcessed(pm *payment) {
	i := sub.firstScheduled()
	sub.payments = append(sub.payments, nil)
	copy(sub.payments[i+1:], sub.payments[i:])
	sub.payments[i] = pm
}

// insertAfter puts pm into the payments right after prev.
func (sub *subscription) insertAfter(prev, pm *payment) {
	for i, q := range sub.payments {
		if q == prev {
			sub.payments = append(sub.payments[:i+1:i+1], append([]*payment{pm}, sub.payments[i+1:]...)...)
			return
		}
	}
}

// suspend stops billing: the future payments go, and from now on the
// cycles that fall due are counted as missed.
func (sub *subscription) suspend() {
	sub.status = subSuspended
	sub.payments = sub.payments[:sub.firstScheduled()]
	sub.skipped = nil
	sub.missed = 0
}

// renumber sets paymentNumber to the position in the listing order.
func renumber(sub *subscription) {
	for i, pm := range sub.payments {
		pm.number = i + 1
	}
}

// reschedule rebuilds the future payments of an ACTIVE, PENDING or
// DELINQUENT subscription after its terms or its anchor changed: dates,
// amounts and currency follow the terms, cycles past a fixed total go,
// missing ones come. Kept cycles keep their ids and their skip status.
func (sub *subscription) reschedule(m *member) {
	switch sub.status {
	case subActive, subPending, subDelinquent:
	default:
		return
	}
	i := sub.firstScheduled()
	if t := sub.terms.total; t > 0 && sub.current >= t && sub.status == subActive {
		sub.status = subCompleted
		sub.payments, sub.skipped = sub.payments[:i], nil
		return
	}
	old := map[int]*payment{}
	maxOld := sub.current
	for _, pm := range sub.payments[i:] {
		old[pm.cycle] = pm
		maxOld = max(maxOld, pm.cycle)
	}
	last := sub.terms.total
	if last == 0 {
		last = max(maxOld, sub.current+indefiniteHorizon)
	}
	future := make([]*payment, 0, max(0, last-sub.current))
	var skipped []int
	for c := sub.current + 1; c <= last; c++ {
		pm, ok := old[c]
		if !ok {
			future = append(future, sub.newScheduled(m, c))
			continue
		}
		d := sub.cycleDate(c)
		pm.date, pm.periodStart, pm.periodEnd = d, d, sub.cycleDate(c+1).Add(-time.Second)
		pm.amount, pm.currency, pm.setupFee = sub.terms.amount, sub.terms.currency, 0
		if c == 1 {
			pm.setupFee = sub.terms.setupFee
		}
		if pm.status == paySkipped {
			skipped = append(skipped, c)
		}
		future = append(future, pm)
	}
	sub.payments = append(sub.payments[:i:i], future...)
	sub.skipped = skipped
	renumber(sub)
}

func removeInt(xs []int, v int) []int {
	out := xs[:0]
	for _, x := range xs {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}

// sortTxns restores the order of m.txns (submit time, then id).
func sortTxns(m *member) {
	sort.SliceStable(m.txns, func(i, j int) bool {
		if !m.txns[i].time.Equal(m.txns[j].time) {
			return m.txns[i].time.Before(m.txns[j].time)
		}
		return m.txns[i].id < m.txns[j].id
	})
}
