package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestAmountRoundTrip loads decimal strings through the bulk path and reads
// them back from DuckDB unchanged: the Appender mis-scales floats and
// decimals (docs/dev/ceilings.md, pitfalls), so this guards the thousandths
// path, through Arrow's decimal128 with -tags duckdb_arrow and through the
// Appender without.
func TestAmountRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	amounts := []string{"12.34", "0.01", "-5.00", "1000.00", "999999999999999.999", "-999999999999999.999", "0.10", "12.345", "-0.001"}
	plans := store.NewTable("plans", []string{"merchant_id", "plan_id"}, "merchant_id",
		store.Columns("merchant_id text, plan_id text, billing_amount amount, run_id text, loaded_at time")...)
	rows := plans.NewBatch()
	for _, a := range amounts {
		var c converter
		rows.Str("m1").Str(a).Amount(c.amount("billingAmount", a)).Str("r").Time(time.Now(), true).End()
		if c.err != nil {
			t.Fatalf("%s: %v", a, c.err)
		}
	}
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plans, nil, rows) }); err != nil {
		t.Fatal(err)
	}
	for _, a := range amounts {
		var got string
		if err := s.Conn().QueryRowContext(ctx, `SELECT CAST(billing_amount AS VARCHAR) FROM plans WHERE plan_id = ?`, a).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want, _ := platform.ParseAmount(a)
		if got != platform.FormatAmount(want) {
			t.Errorf("amount %s came back as %s", a, got)
		}
	}
	var sum string
	if err := s.Conn().QueryRowContext(ctx, `SELECT CAST(sum(billing_amount) FILTER (WHERE plan_id IN ('12.34', '0.01')) AS VARCHAR) FROM plans`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != "12.350" {
		t.Errorf("12.34 + 0.01 = %s in DuckDB", sum)
	}
}
