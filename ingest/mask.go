package ingest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/subscriptions"
)

// Card data never reaches the database from a platform response either.
// The platform sends none in the fields this project reads, but a response
// is outside text like a journal line: a merchant's order number, a plan's
// description or an error message may carry a card number in any
// disguise. So every record is stored as decoded from its raw JSON with
// card data masked (cardmask.MaskRecord): its raw column and every column
// read from it agree, and a field added later is covered without a line
// here.
//
// The masking is by field, and identifiers are never altered: the value of
// an identifier field (id, transactionId, reconciliationId, requestId, the
// links' ids, ...) that has the platform's id shape (22 digits) is kept as
// the platform sent it, though one id in ten created from 2014 to 2022
// would pass for a card number; any other value there, and all other text,
// is masked by pattern (cardmask's fields.go says why this is safe). A
// record holding card data is stored masked and therefore differs from the
// platform's: the incremental rule (subscriptions.PullReason) pulls its
// payment list again each run.
//
// The cost is one scan of each record's raw JSON, which allocates nothing
// when there is nothing to mask; only a record with card data is decoded
// again.

// maskRecords returns recs with every record whose raw JSON holds card data
// decoded again from the masked JSON. It returns recs itself when none
// does, and copies it otherwise: the caller's slice is not changed.
func maskRecords[T any](what string, recs []T, raw func(*T) json.RawMessage, decode func(json.RawMessage) (T, error)) ([]T, error) {
	var out []T
	for i := range recs {
		r := raw(&recs[i])
		m := cardmask.MaskRecord(r)
		if same(m, r) {
			continue
		}
		rec, err := decode(m)
		if err != nil {
			return nil, fmt.Errorf("%s with card data masked: %w", what, err)
		}
		if out == nil {
			out = slices.Clone(recs)
		}
		out[i] = rec
	}
	if out == nil {
		return recs, nil
	}
	return out, nil
}

// same reports whether MaskRecord returned its input (nothing masked): the
// same bytes, not a copy.
func same(masked, raw []byte) bool {
	return len(masked) == len(raw) && (len(raw) == 0 || &masked[0] == &raw[0])
}

// maskSnapshot returns the member's recurring-billing pull with card data
// masked in every record (see above). A subscription whose ID changes (one
// not of the platform's id shape that holds a card number) keeps its
// payment list under the masked ID.
func maskSnapshot(snap *subscriptions.Snapshot) (*subscriptions.Snapshot, error) {
	plans, err := maskRecords("plan", snap.Plans, func(p *platform.Plan) json.RawMessage { return p.Raw }, platform.DecodePlan)
	if err != nil {
		return nil, err
	}
	subs, err := maskRecords("subscription", snap.Subscriptions,
		func(s *platform.Subscription) json.RawMessage { return s.Raw }, platform.DecodeSubscription)
	if err != nil {
		return nil, err
	}
	out := &subscriptions.Snapshot{Plans: plans, Subscriptions: subs, Payments: snap.Payments, PlansPulled: snap.PlansPulled}
	copied := false
	for i, s := range snap.Subscriptions {
		list := snap.Payments[s.ID]
		if list == nil {
			continue
		}
		payments, err := maskRecords("payment", list.Payments,
			func(p *platform.Payment) json.RawMessage { return p.Raw }, platform.DecodePayment)
		if err != nil {
			return nil, fmt.Errorf("payment list of subscription %s: %w", subs[i].ID, err)
		}
		if subs[i].ID == s.ID && (len(payments) == 0 || &payments[0] == &list.Payments[0]) {
			continue
		}
		if !copied {
			out.Payments, copied = maps.Clone(snap.Payments), true
		}
		masked := *list
		masked.Payments = payments
		delete(out.Payments, s.ID)
		out.Payments[subs[i].ID] = &masked
	}
	return out, nil
}

// maskTransactions is maskSnapshot for the member's transactions.
func maskTransactions(list []platform.TransactionSummary) ([]platform.TransactionSummary, error) {
	return maskRecords("transaction", list,
		func(t *platform.TransactionSummary) json.RawMessage { return t.Raw }, platform.DecodeTransaction)
}

// maskedJSON is JSON text built from a response's values (a payment list's
// cycles to skip and cycles completed) with card data masked.
func maskedJSON(b []byte) []byte { return cardmask.MaskLine(b) }

// maskedID is an ID from a response (a merchant ID, a group's) as it is
// stored: with card data masked, the same way wherever it appears (the
// pipeline and the group hashing mask a merchant ID so too). Neither is a
// resource id of the platform's 22-digit format.
func maskedID(id string) string { return cardmask.MaskText(id) }

// maskedText is text (NULL when empty) of a response's value with card
// data masked.
func maskedText(s string) any { return text(cardmask.MaskText(s)) }
