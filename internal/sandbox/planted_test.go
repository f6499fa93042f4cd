package sandbox

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestRegisteredKindIsPlantedAndTrue: a kind registered from a file of its
// own (registerKind) is planted on every member, listed by Kinds, and its
// ground truth is exactly what its planter marked, inside the window: the
// whole of what a new kind's sandbox side needs. (Not parallel: it adds
// to the package's list of kinds, and takes it back.)
func TestRegisteredKindIsPlantedAndTrue(t *testing.T) {
	const kind = "test_registered_kind"
	saved := plantedKinds
	t.Cleanup(func() { plantedKinds = saved })
	registerKind(plantedKind{
		kind: kind,
		plant: func(g *generator, m *member, r *rand.Rand) {
			// One sale on the business day, marked, and one a year before
			// the window, marked too: the truth keeps the first only.
			for _, at := range []time.Time{g.business.Add(10 * time.Hour), g.business.AddDate(-1, 0, 0)} {
				cd := newCard(r, binConsumerCredit, false)
				c := g.areaCall(r, callSale, at, &cd, approvedAmount(r, 1000, 5000), "USD")
				c.plantedAs = kind
				m.calls = append(m.calls, c)
			}
		},
		truth: markedCalls(kind),
	})
	s, err := New(Config{Seed: 7, BusinessDate: testDate})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(Kinds(), kind) {
		t.Errorf("Kinds() = %v: the registered kind is missing", Kinds())
	}
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range gt.Findings[kind] {
		got[f.MerchantID+" "+f.EntityID] = true
	}
	want := map[string]bool{}
	for i := range s.Members() {
		s.withMember(i, func(m *member) {
			for _, c := range m.calls {
				if c.plantedAs == kind && !c.time.Before(testDate) {
					if c.respID == "" {
						t.Errorf("member %s: a planted call has no response id", m.id)
					}
					want[m.id+" "+c.respID] = true
				}
			}
		})
	}
	if len(want) != len(s.Members()) {
		t.Errorf("%d members carry the planted call in the window, want all %d", len(want), len(s.Members()))
	}
	if !maps.Equal(got, want) {
		t.Errorf("ground truth of %s = %v, want the marked calls in the window %v", kind, got, want)
	}
}
