package ingest

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/subscriptions"
)

func decoded[T any](t *testing.T, decode func(json.RawMessage) (T, error), raw string) T {
	t.Helper()
	v, err := decode(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMaskSnapshot: a subscription whose ID is a card number is stored
// under the masked ID with its payment list; a payment and a plan holding
// card numbers are decoded again from their masked JSON, every field
// agreeing with the raw column; the pull itself is not changed.
func TestMaskSnapshot(t *testing.T) {
	plan := decoded(t, platform.DecodePlan, `{"id":"pl1","planInformation":{"name":"Gold 4111 1111 1111 1111","code":"G"}}`)
	clean := decoded(t, platform.DecodeSubscription, `{"id":"sub2","subscriptionInformation":{"name":"plain","status":"ACTIVE"}}`)
	carded := decoded(t, platform.DecodeSubscription, `{"id":"4111111111111111","subscriptionInformation":{"name":"x","status":"ACTIVE"}}`)
	paid := decoded(t, platform.DecodePayment, `{"id":"pay1","status":"PAID","transactionID":"5500-0000-0000-0004"}`)
	plain := decoded(t, platform.DecodePayment, `{"id":"pay2","status":"PAID","transactionID":"7950000000000000000001"}`)
	snap := &subscriptions.Snapshot{
		Plans:         []platform.Plan{plan},
		Subscriptions: []platform.Subscription{clean, carded},
		Payments: map[string]*platform.PaymentList{
			clean.ID:  {TotalCount: 1, Payments: []platform.Payment{plain}},
			carded.ID: {TotalCount: 2, Payments: []platform.Payment{paid, plain}},
		},
	}
	got, err := maskSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	if n := got.Plans[0].Name; n != "Gold 411111XXXXXX1111" || !strings.Contains(string(got.Plans[0].Raw), n) {
		t.Errorf("plan name %q, raw %s; want the card number masked in both", n, got.Plans[0].Raw)
	}
	if id := got.Subscriptions[1].ID; id != "411111XXXXXX1111" {
		t.Errorf("subscription ID %q, want 411111XXXXXX1111", id)
	}
	list := got.Payments["411111XXXXXX1111"]
	if list == nil || list.TotalCount != 2 || len(list.Payments) != 2 {
		t.Fatalf("payment list under the masked ID: %+v", list)
	}
	if tid := list.Payments[0].TransactionID; tid != "550000XXXXXX0004" {
		t.Errorf("payment's transaction ID %q, want 550000XXXXXX0004", tid)
	}
	if list.Payments[1].TransactionID != plain.TransactionID || got.Payments[clean.ID].Payments[0].ID != "pay2" {
		t.Errorf("records without card data changed: %+v", got.Payments)
	}
	if _, ok := got.Payments[carded.ID]; ok || len(got.Payments) != 2 {
		t.Errorf("payment lists under %v; want the clean subscription's and the masked ID's", slices.Sorted(maps.Keys(got.Payments)))
	}
	// The pull is as it was: the masked snapshot is a copy where it differs.
	if snap.Subscriptions[1].ID != "4111111111111111" || snap.Payments[carded.ID] == nil ||
		snap.Payments[carded.ID].Payments[0].TransactionID != "5500-0000-0000-0004" || snap.Plans[0].Name != plan.Name {
		t.Error("maskSnapshot changed the snapshot it was given")
	}
}

// TestMaskSnapshotWithoutCardData: a pull without card data is returned as
// it is, its slices and map not copied.
func TestMaskSnapshotWithoutCardData(t *testing.T) {
	sub := decoded(t, platform.DecodeSubscription, `{"id":"7950000000000000000002","subscriptionInformation":{"name":"plain"}}`)
	pay := decoded(t, platform.DecodePayment, `{"id":"pay2","status":"PAID","transactionID":"7950000000000000000001"}`)
	snap := &subscriptions.Snapshot{Subscriptions: []platform.Subscription{sub},
		Payments: map[string]*platform.PaymentList{sub.ID: {Payments: []platform.Payment{pay}}}}
	got, err := maskSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Subscriptions[0] != &snap.Subscriptions[0] || got.Payments[sub.ID] != snap.Payments[sub.ID] {
		t.Error("a snapshot without card data was copied")
	}
	list := []platform.TransactionSummary{decoded(t, platform.DecodeTransaction, `{"id":"7950000000000000000001"}`)}
	if out, err := maskTransactions(list); err != nil || &out[0] != &list[0] {
		t.Errorf("transactions without card data were copied (%v)", err)
	}
}
