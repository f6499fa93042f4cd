package sandbox

import "time"

// Ground truth recorded at planting time.
//
// The planter marks what it plants, on the object it plants it on, as it
// plants it: a payment's anomaly (gen.go: the transaction left out, or its
// amount or currency changed) and a payment's plantedAs (a second PAID
// payment of a cycle, plant_billing.go). The ground truth of the kinds in
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
// A new kind is added here with its planting: mark what is planted (a
// field on the object, or record on the member for an object made for
// the kind) and give its truth as a function of the marks. Kinds lists it.

// plantedKind is a finding kind whose ground truth the planter records.
type plantedKind struct {
	kind string
	// truth adds the member's planted findings of the kind; in tells
	// whether a time is inside the window.
	truth func(m *member, in func(time.Time) bool, add addFinding)
}

// addFinding adds a finding of kind on entity to the member's truth.
type addFinding func(kind, entity string, amount int64, currency string)

// plantedKinds are the kinds whose ground truth is the planter's marks.
var plantedKinds = []plantedKind{
	{KindPaidWithoutTransaction, paymentAnomalies(KindPaidWithoutTransaction, anomalyMissing)},
	{KindAmountMismatch, paymentAnomalies(KindAmountMismatch, anomalyMismatch)},
	{KindDoubleCharge, doubleCharges},
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
func plantedFindings(m *member, in func(time.Time) bool, add addFinding) {
	for _, p := range plantedKinds {
		p.truth(m, in, add)
	}
}

// paymentAnomalies: the PAID payments the generator planted anomaly on
// (gen.go), dated inside the window; entity = the payment, amount = what
// it should have charged.
func paymentAnomalies(kind string, anomaly int8) func(m *member, in func(time.Time) bool, add addFinding) {
	return func(m *member, in func(time.Time) bool, add addFinding) {
		for _, sub := range m.subs {
			for _, pm := range sub.payments {
				if pm.anomaly == anomaly && pm.status == payPaid && in(pm.date) {
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
func doubleCharges(m *member, in func(time.Time) bool, add addFinding) {
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
			inWindow[pm.cycle] = inWindow[pm.cycle] || in(pm.date)
		}
		for _, c := range cycles {
			if inWindow[c] {
				add(KindDoubleCharge, cycleEntity(sub, c), extra[c], currency[c])
			}
		}
	}
}
