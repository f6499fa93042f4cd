package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestReserveAndSeal: room reserved for a batch's rows and raw JSON, too
// little or too much, changes none of the rows; a batch sealed where it was
// built (ingest seals each member's) loads like any other, keeps a key given
// twice once, and takes no more rows.
func TestReserveAndSeal(t *testing.T) {
	groups := store.NewTable("groups", []string{"group_id"}, "",
		store.Columns("group_id text, organization_id text, raw json, run_id text, loaded_at time")...)
	at := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	fill := func(b *store.Batch) *store.Batch {
		b.Str("g1").Str("o").JSONText([]byte(`{"name":"first"}`)).Str("r").Time(at, true).End()
		b.Str("g2").Str("o").JSONText(nil).Str("r").Time(at, true).End()
		b.Str("g1").Str("o").JSONText([]byte(`{"name":"again, `+strings.Repeat("x", 300)+`"}`)).Str("r").Time(at, true).End()
		return b
	}
	want := fill(groups.NewBatch()).Values()
	for _, room := range []struct{ rows, bytes int }{{0, 0}, {1, 5}, {3, 330}, {1000, 1 << 20}} {
		b := groups.NewBatch()
		b.Reserve(room.rows, map[string]int{"raw": room.bytes})
		if got := fill(b).Values(); !reflect.DeepEqual(got, want) {
			t.Errorf("reserved %d rows and %d bytes: rows %v, want %v", room.rows, room.bytes, got, want)
		}
	}

	sealed := fill(groups.NewBatch())
	sealed.Seal()
	sealed.Seal() // harmless
	if sealed.Len() != 2 {
		t.Errorf("a sealed batch holds %d rows, want 2 (g1 once)", sealed.Len())
	}
	ctx := context.Background()
	s := storetest.Open(t)
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, groups, nil, sealed) }); err != nil {
		t.Fatal(err)
	}
	var n int
	var name string
	if err := s.Conn().QueryRowContext(ctx, `SELECT count(*), max(raw->>'name') FROM groups`).Scan(&n, &name); err != nil {
		t.Fatal(err)
	}
	if n != 2 || !strings.HasPrefix(name, "again") {
		t.Errorf("the sealed batch loaded %d rows, g1's name %q; want 2 and the later row's", n, name)
	}

	mustPanic(t, "a row added to a sealed batch", func() { sealed.Str("g3") })
	mustPanic(t, "room reserved in a column that is not text", func() {
		groups.NewBatch().Reserve(1, map[string]int{"loaded_at": 8})
	})
	mustPanic(t, "room reserved in a column the table lacks", func() {
		groups.NewBatch().Reserve(1, map[string]int{"nope": 8})
	})
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}
