package store_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

var benchPayments = store.NewTable("subscription_payments", []string{"merchant_id", "payment_id"}, "merchant_id", store.Columns(
	"merchant_id text, payment_id text, subscription_id text, status text, payment_type text, "+
		"billing_cycle int32, payment_number int32, payment_date time, billing_start_date time, billing_end_date time, "+
		"billing_amount amount, setup_fee amount, surcharge_amount amount, surcharge_description text, currency text, "+
		"transaction_id text, modifiable bool, raw json, run_id text, loaded_at time")...)

// BenchmarkLoad loads 120,000 payment rows of 1,000 per member, 100,000
// rows per transaction, into a fresh database (Tx.Load: the Arrow view
// with -tags duckdb_arrow, the Appender without), and reports rows/s.
func BenchmarkLoad(b *testing.B) {
	const perTx, perMember, total = 100_000, 1_000, 120_000
	ctx := context.Background()
	now := time.Now()
	raw := `{"id":"7012345678901234567890","status":"COMPLETED","paymentType":"RECURRING","billingCycle":"3","paymentNumber":"3","date":"2026-10-01T09:00:00Z","billingStartDate":"2026-10-01","billingEndDate":"2026-10-31","orderInformation":{"amountDetails":{"billingAmount":"30.00","currency":"USD"}},"transactionId":"7012345678901234567891"}`
	for b.Loop() {
		s := storetest.Open(b)
		start := time.Now()
		for done := 0; done < total; done += perTx {
			var batches []*store.Batch
			for m := done / perMember; m < min(done+perTx, total)/perMember; m++ {
				bt := benchPayments.NewBatch()
				mid := fmt.Sprintf("m%06d", m)
				for i := range perMember {
					bt.Str(mid).Str(strconv.Itoa(i)).Str("sub"+strconv.Itoa(i/10)).Str("COMPLETED").Str("RECURRING").
						Int32(3, true).Int32(3, true).Time(now, true).Time(now, true).Time(now, true).
						Amount(3000, true).Null().Null().Null().Str("USD").Str("70123456789").Bool(true, true).
						Str(raw).Str("2026-11-20").Time(now, true).End()
				}
				batches = append(batches, bt)
			}
			if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, benchPayments, nil, batches...) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(total)/time.Since(start).Seconds(), "rows/s")
	}
}
