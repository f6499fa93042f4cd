package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestStagedLoadWholeOrNothing: a load staged in parts writes what one Load
// of all its rows would (a key given again by a later part wins, and the
// table's older row of a key is replaced), and a discarded stage writes
// nothing, the table's rows as they were.
func TestStagedLoadWholeOrNothing(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	batch := func(rows ...[2]string) *store.Batch {
		b := plansPart.NewBatch()
		for _, r := range rows {
			b.Str("m1").Str(r[0]).Str(r[1]).Amount(0, false).Str("run").Time(time.Unix(0, 0), true).End()
		}
		return b
	}
	names := func() []string {
		t.Helper()
		rows, err := s.Conn().QueryContext(ctx, `SELECT plan_id || '=' || name FROM plans ORDER BY plan_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	// The table's rows before: the previous night's plan a.
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, batch([2]string{"a", "old"})) }); err != nil {
		t.Fatal(err)
	}
	err := s.Transact(ctx, func(tx *store.Tx) error {
		st, err := tx.Stage(ctx, plansPart)
		if err != nil {
			return err
		}
		defer st.Close(ctx)
		for _, b := range []*store.Batch{batch([2]string{"a", "new"}, [2]string{"b", "first"}), batch([2]string{"b", "second"})} {
			if err := st.Add(ctx, b); err != nil {
				return err
			}
		}
		if err := st.Discard(ctx); err != nil {
			return err
		}
		if got := names(); !slices.Equal(got, []string{"a=old"}) {
			t.Errorf("after a discarded stage: %q; want the table as it was", got)
		}
		for _, b := range []*store.Batch{batch([2]string{"a", "new"}, [2]string{"b", "first"}), batch([2]string{"b", "second"})} {
			if err := st.Add(ctx, b); err != nil {
				return err
			}
		}
		if got := names(); !slices.Equal(got, []string{"a=old"}) {
			t.Errorf("rows staged, not kept: %q; want the table as it was", got)
		}
		return st.Keep(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(); !slices.Equal(got, []string{"a=new", "b=second"}) {
		t.Errorf("after the stage was kept: %q; want a=new (replacing the older row), b=second (the later part's)", got)
	}
}
