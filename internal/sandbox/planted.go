package sandbox

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Ground truth recorded at planting time.
//
// The planter marks what it plants, on the object it plants it on, as it
// plants it: a subscription's status as drawn or forced (DELINQUENT,
// SUSPENDED) and its skipped cycles (gen.go); a payment's anomaly (gen.go:
// the transaction left out, or its amount or currency changed); a
// payment's plantedAs (a second PAID payment of a cycle, a billing amount
// off the plan, plant_billing.go); a subscription's missedCycles (a PAID
// payment removed) and plantedAs (a subscription on a legacy plan billed
// less often than every 12 months, plant_billing.go). The ground truth of the kinds in
// plantedKinds is those marks, read after identifiers are assigned and
// kept when the planted event falls inside the window; their rule is not
// written a second time in Go. A mark lives on its object, so a
// subscription the planter regenerates or drops (forceBilling, a member
// without recurring billing) takes its marks with it.
//
// The other kinds' truth is still computed from the data by the rule of
// their queries/findings file (truth.go, truth_billing.go,
// truth_areas.go, truth_retries.go).
//
// A new kind is planted in a file of its own, sandbox/plant_<kind>.go,
// that registers it from init (registerKind) with its plant function and
// its truth. plant runs on every member after all other plantings and
// before identifiers are assigned, from a stream of its own (so what the
// others drew stays as it was), and sets plantedAs on each call or
// payment it makes or changes; the truth is then markedCalls or
// markedPayments of the kind. Kinds lists every registered kind.

// plantedKind is a finding kind whose ground truth the planter records.
type plantedKind struct {
	kind string
	// plant plants the kind's cases on member m from r and marks them;
	// nil for the kinds planted by gen.go and plant_billing.go.
	plant func(g *generator, m *member, r *rand.Rand)
	// truth adds the member's planted findings of the kind inside w.
	truth func(m *member, w truthWindow, add addFinding)
}

// truthWindow is the window of the ground truth, [start, end); end is
// also the cut-off.
type truthWindow struct{ start, end time.Time }

// in tells whether t is inside the window.
func (w truthWindow) in(t time.Time) bool { return !t.Before(w.start) && t.Before(w.end) }

// addFinding adds a finding of kind on entity to the member's truth.
type addFinding func(kind, entity string, amount int64, currency string)

// plantedKinds are the kinds whose ground truth is the planter's marks.
var plantedKinds = []plantedKind{
	{kind: KindSkippedCycle, truth: skippedCycles},
	{kind: KindSubscriptionDelinquent, truth: subscriptionsIn(KindSubscriptionDelinquent, subDelinquent)},
	{kind: KindSubscriptionSuspended, truth: subscriptionsIn(KindSubscriptionSuspended, subSuspended)},
	{kind: KindPaidWithoutTransaction, truth: paymentAnomalies(KindPaidWithoutTransaction, anomalyMissing)},
	{kind: KindAmountMismatch, truth: paymentAnomalies(KindAmountMismatch, anomalyMismatch)},
	{kind: KindMissedCycle, truth: missedCycles},
	{kind: KindDoubleCharge, truth: doubleCharges},
	{kind: KindPlanAmountMismatch, truth: markedPayments(KindPlanAmountMismatch, func(pm *payment) int64 { return pm.amount })},
	{kind: KindIntervalExceeds12Months, truth: legacySubscriptions},
}

// registerKind adds a kind planted in a file of its own (see above); call
// it from that file's init.
func registerKind(k plantedKind) { plantedKinds = append(plantedKinds, k) }

// streamPlanted is the stream purpose of the registered kinds' plantings,
// one stream per kind (keyed by its name), apart from every other.
const streamPlanted uint64 = 1 << 20

// plantKinds runs the plant function of each kind on member m, each from
// its own stream, and keeps m's calls in time order.
func (g *generator) plantKinds(m *member, kinds []plantedKind) {
	planted := false
	for _, k := range kinds {
		if k.plant == nil {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(k.kind))
		k.plant(g, m, g.stream(m.index, streamPlanted, h.Sum64()))
		planted = true
	}
	if planted {
		sortCalls(m.calls)
	}
}

// markedCalls: the calls the planter marked as kind, made inside the
// window; entity = the call's response id, amount = its amount.
func markedCalls(kind string) func(m *member, w truthWindow, add addFinding) {
	return func(m *member, w truthWindow, add addFinding) {
		for _, c := range m.calls {
			if c.plantedAs == kind && w.in(c.time) {
				add(kind, c.respID, c.amount, c.currency)
			}
		}
	}
}

// markedPayments: the PAID payments the planter marked as kind, dated
// inside the window; entity = the payment, amount = amount(payment).
func markedPayments(kind string, amount func(*payment) int64) func(m *member, w truthWindow, add addFinding) {
	return func(m *member, w truthWindow, add addFinding) {
		for _, sub := range m.subs {
			for _, pm := range sub.payments {
				if pm.plantedAs == kind && pm.status == payPaid && w.in(pm.date) {
					add(kind, pm.id, amount(pm), pm.currency)
				}
			}
		}
	}
}

// plantedKindNames lists the kinds of plantedKinds.
func plantedKindNames() []string {
	out := make([]string, len(plantedKinds))
	for i, p := range plantedKinds {
		out[i] = p.kind
	}
	return out
}

// plantedFindings adds the member's findings of every kind of
// plantedKinds inside the window.
func plantedFindings(m *member, w truthWindow, add addFinding) {
	for _, p := range plantedKinds {
		p.truth(m, w, add)
	}
}

// paymentAnomalies: the PAID payments the generator planted anomaly on
// (gen.go), dated inside the window; entity = the payment, amount = what
// it should have charged.
func paymentAnomalies(kind string, anomaly int8) func(m *member, w truthWindow, add addFinding) {
	return func(m *member, w truthWindow, add addFinding) {
		for _, sub := range m.subs {
			for _, pm := range sub.payments {
				if pm.anomaly == anomaly && pm.status == payPaid && w.in(pm.date) {
					add(kind, pm.id, pm.expected(), pm.currency)
				}
			}
		}
	}
}

// doubleCharges: the cycles the planter billed a second time
// (duplicatePayment marks the second payment), when a second payment is
// dated inside the window; entity = <subscription>:<cycle>, amount = what
// the second payments charged.
func doubleCharges(m *member, w truthWindow, add addFinding) {
	for _, sub := range m.subs {
		extra := map[int]int64{}
		currency := map[int]string{}
		inWindow := map[int]bool{}
		var cycles []int
		for _, pm := range sub.payments {
			if pm.plantedAs != KindDoubleCharge || pm.status != payPaid {
				continue
			}
			if _, seen := extra[pm.cycle]; !seen {
				cycles = append(cycles, pm.cycle)
				currency[pm.cycle] = pm.currency
			}
			extra[pm.cycle] += pm.expected()
			inWindow[pm.cycle] = inWindow[pm.cycle] || w.in(pm.date)
		}
		for _, c := range cycles {
			if inWindow[c] {
				add(KindDoubleCharge, cycleEntity(sub, c), extra[c], currency[c])
			}
		}
	}
}

// skippedCycles: the cycles the generator planted as skipped
// (billingCyclesToSkip), whenever they fall; entity = the payment.
func skippedCycles(m *member, _ truthWindow, add addFinding) {
	for _, sub := range m.subs {
		for _, pm := range sub.payments {
			if pm.status == paySkipped {
				add(KindSkippedCycle, pm.id, pm.amount, pm.currency)
			}
		}
	}
}

// subscriptionsIn: the subscriptions the generator drew or forced in
// status; entity = the subscription, amount = its billing amount.
func subscriptionsIn(kind, status string) func(m *member, w truthWindow, add addFinding) {
	return func(m *member, _ truthWindow, add addFinding) {
		for _, sub := range m.subs {
			if sub.status == status {
				add(kind, sub.id, sub.terms.amount, sub.terms.currency)
			}
		}
	}
}

// missedCycles: the cycles whose PAID payment the planter removed
// (removePaidCycle, forceBilling), due before the cut-off; entity =
// <subscription>:<cycle>, amount = what the cycle should have billed.
func missedCycles(m *member, w truthWindow, add addFinding) {
	for _, sub := range m.subs {
		for _, c := range sub.missedCycles {
			if !sub.cycleDate(c).Before(w.end) {
				continue
			}
			amount := sub.terms.amount
			if c == 1 {
				amount += sub.terms.setupFee
			}
			add(KindMissedCycle, cycleEntity(sub, c), amount, sub.terms.currency)
		}
	}
}

// legacySubscriptions: the subscriptions the planter put on a legacy plan
// (one whose period exceeds 12 months), still billing; entity = the
// subscription, amount = its billing amount.
func legacySubscriptions(m *member, _ truthWindow, add addFinding) {
	for _, sub := range m.subs {
		if sub.plantedAs == KindIntervalExceeds12Months && sub.status != subCancelled && sub.status != subCompleted {
			add(KindIntervalExceeds12Months, sub.id, sub.terms.amount, sub.terms.currency)
		}
	}
}
