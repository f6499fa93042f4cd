package groups

import (
	"context"
	"iter"
	"testing"

	"github.com/reconcile/reconcile/internal/platform"
)

// oneGroup lists one group of the members given.
type oneGroup []string

func (g oneGroup) Groups(context.Context, string) iter.Seq2[platform.Group, error] {
	return func(yield func(platform.Group, error) bool) {
		yield(platform.Group{ID: "g1", Members: g}, nil)
	}
}

// TestMembersCarryTheirStoredID: every member a run reconciles, discovered
// through its groups or named with --merchants, carries its ID as sent to
// the platform, unchanged, and as the database stores it (masked only when
// the ID is itself a card number), so no stage converts it again.
func TestMembersCarryTheirStoredID(t *testing.T) {
	mids := []string{"4111111111111111", "sbxmid000001"}
	want := map[string]string{"4111111111111111": "411111XXXXXX1111", "sbxmid000001": "sbxmid000001"}
	discovered, err := Discover(context.Background(), oneGroup(mids), "org", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*Directory{"discovered": discovered, "named": Named("org", mids)} {
		if len(d.Members) != len(mids) {
			t.Fatalf("%s: %d members, want %d", name, len(d.Members), len(mids))
		}
		for _, m := range d.Members {
			if m.StoredID() != want[m.MerchantID] || m.StoredID() != StoredIDOf(m.MerchantID) {
				t.Errorf("%s: member %q stored as %q, want %q", name, m.MerchantID, m.StoredID(), want[m.MerchantID])
			}
		}
	}
}
