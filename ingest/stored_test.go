package ingest

import (
	"context"
	"fmt"
	"testing"

	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestStoredListsChunks: members' stored payment lists are handed out a
// chunk at a time, each member its own. A member stored under the same
// (masked) ID as another takes the same lists without taking them from the
// members after it; a member without stored subscriptions gets none; a
// payment's scheduled date reaches its subscription's list.
func TestStoredListsChunks(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	n := storedChunk + 3 // two chunks
	stored := map[string]bool{}
	var order []string
	for i := range n {
		m := fmt.Sprintf("m%03d", i)
		stored[m] = true
		order = append(order, m)
		if _, err := s.Conn().ExecContext(ctx, `INSERT INTO subscriptions (merchant_id, subscription_id, status, raw, payments_pulled_at, run_id, loaded_at)
			VALUES ($1, $1 || '-s1', 'ACTIVE', '{}', now(), 'r1', now()), ($1, $1 || '-s2', 'ACTIVE', '{}', now(), 'r1', now())`, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Conn().ExecContext(ctx, `INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_date, run_id, loaded_at)
		VALUES ('m001', 'p1', 'm001-s2', 'SCHEDULED', TIMESTAMPTZ '2026-12-01 00:00:00+00', 'r1', now())`); err != nil {
		t.Fatal(err)
	}
	// m001 is pulled twice (two members masked alike), "new" has nothing stored.
	order = append([]string{"m000", "m001", "m001", "new"}, order[2:]...)
	l := newStoredLists(s, order, stored)
	if len(l.chunks) != 2 {
		t.Fatalf("%d chunks for %d stored members, want 2", len(l.chunks), n)
	}
	for _, m := range order {
		lists, err := l.take(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if m == "new" {
			want = 0
		}
		if len(lists) != want {
			t.Errorf("%s took %d lists, want %d", m, len(lists), want)
		}
		for id := range lists {
			if id != m+"-s1" && id != m+"-s2" {
				t.Errorf("%s took the list of %s", m, id)
			}
		}
		if m == "m001" && lists["m001-s2"].prev.NextDue.IsZero() {
			t.Errorf("m001-s2's next scheduled payment is missing: %+v", lists["m001-s2"].prev)
		}
	}
	for i, c := range l.chunks {
		if c.left != 0 || c.lists != nil {
			t.Errorf("chunk %d kept %d takes and its lists after every member took theirs", i, c.left)
		}
	}
}
