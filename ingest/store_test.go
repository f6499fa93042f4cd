package ingest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/reconcile/reconcile/platform"
)

func openTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestAmountRoundTrip loads decimal strings through the bulk path and reads
// them back from DuckDB unchanged: the Appender mis-scales floats and
// decimals (MEASURED.md), so this guards the int64-hundredths path.
func TestAmountRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	amounts := []string{"12.34", "0.01", "-5.00", "1000.00", "9999999999999999.99", "0.10"}
	rows := &Rows{Table: "plans", Columns: []string{"merchant_id", "plan_id", "billing_amount", "run_id", "loaded_at"}}
	for _, a := range amounts {
		var c converter
		rows.Add("m1", a, c.amount("billingAmount", a), "r", time.Now())
		if c.err != nil {
			t.Fatalf("%s: %v", a, c.err)
		}
	}
	if err := s.Transact(ctx, func(tx *Tx) error { return tx.Upsert(ctx, rows, []string{"merchant_id", "plan_id"}, nil) }); err != nil {
		t.Fatal(err)
	}
	for _, a := range amounts {
		var got string
		if err := s.conn.QueryRowContext(ctx, `SELECT CAST(billing_amount AS VARCHAR) FROM plans WHERE plan_id = ?`, a).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want, _ := platform.ParseAmount(a)
		if got != platform.FormatAmount(want) {
			t.Errorf("amount %s came back as %s", a, got)
		}
	}
	var sum string
	if err := s.conn.QueryRowContext(ctx, `SELECT CAST(sum(billing_amount) FILTER (WHERE plan_id IN ('12.34', '0.01')) AS VARCHAR) FROM plans`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != "12.35" {
		t.Errorf("12.34 + 0.01 = %s in DuckDB", sum)
	}
}

// TestUpsertReplacesByKey: loading the same keys twice leaves one row each,
// with the newer values.
func TestUpsertReplacesByKey(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	load := func(name string) {
		rows := &Rows{Table: "plans", Columns: []string{"merchant_id", "plan_id", "name", "run_id", "loaded_at"}}
		rows.Add("m1", "p1", name, "r", time.Now())
		rows.Add("m1", "p2", name, "r", time.Now())
		rows.Add("m1", "p2", name, "r", time.Now()) // a page boundary repeated a record
		if err := s.Transact(ctx, func(tx *Tx) error { return tx.Upsert(ctx, rows, []string{"merchant_id", "plan_id"}, nil) }); err != nil {
			t.Fatal(err)
		}
	}
	load("old")
	load("new")
	var n, newer int
	if err := s.conn.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'new') FROM plans`).Scan(&n, &newer); err != nil {
		t.Fatal(err)
	}
	if n != 2 || newer != 2 {
		t.Errorf("after two loads: %d rows, %d with the newer name; want 2 and 2", n, newer)
	}
}

// TestTransactRollsBack: a failing load leaves nothing behind.
func TestTransactRollsBack(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	rows := &Rows{Table: "plans", Columns: []string{"merchant_id", "plan_id", "run_id", "loaded_at"}}
	rows.Add("m1", "p1", "r", time.Now())
	err := s.Transact(ctx, func(tx *Tx) error {
		if err := tx.Upsert(ctx, rows, []string{"merchant_id", "plan_id"}, nil); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO no_such_table VALUES (1)")
		return err
	})
	if err == nil {
		t.Fatal("want an error")
	}
	var n int
	s.conn.QueryRowContext(ctx, `SELECT count(*) FROM plans`).Scan(&n)
	if n != 0 {
		t.Errorf("%d plans after a rolled-back load", n)
	}
}
