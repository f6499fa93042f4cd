package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/store/storetest"
)

var benchPayments = store.NewTable("subscription_payments", []string{"merchant_id", "payment_id"}, "merchant_id", store.Columns(
	"merchant_id text, payment_id text, subscription_id text, status text, payment_type text, "+
		"billing_cycle int32, payment_number int32, payment_date time, billing_start_date time, billing_end_date time, "+
		"billing_amount amount, setup_fee amount, surcharge_amount amount, surcharge_description text, currency text, "+
		"transaction_id text, modifiable bool, raw "+map[bool]string{true: "text", false: "json"}[os.Getenv("RAWTEXT") != ""]+", run_id text, loaded_at time")...)

func envOr(k string, d int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return d
}

func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	perTx := envOr("PER_TX", 8000)
	perMember := 1000
	total := envOr("TOTAL", 120000)
	now := time.Now()
	raw := []byte(`{"id":"7012345678901234567890","status":"COMPLETED","paymentType":"RECURRING","billingCycle":"3","paymentNumber":"3","date":"2026-10-01T09:00:00Z","billingStartDate":"2026-10-01","billingEndDate":"2026-10-31","orderInformation":{"amountDetails":{"billingAmount":"30.00","currency":"USD"}},"transactionId":"7012345678901234567891"}`)
	for b.Loop() {
		s := storetest.Open(b)
		if os.Getenv("RAWTEXT") != "" {
			s.Conn().ExecContext(ctx, "ALTER TABLE subscription_payments ALTER raw TYPE VARCHAR")
		}
		if os.Getenv("CKPT") != "" {
			s.Conn().ExecContext(ctx, "SET checkpoint_threshold = '"+os.Getenv("CKPT")+"'")
		}
		start := time.Now()
		for done := 0; done < total; done += perTx {
			var batches []*store.Batch
			for m := done / perMember; m < (done+perTx)/perMember; m++ {
				bt := benchPayments.NewBatch()
				mid := fmt.Sprintf("m%06d", m)
				for i := range perMember {
					bt.Str(mid).Str(strconv.Itoa(i)).Str("sub"+strconv.Itoa(i/10)).Str("COMPLETED").Str("RECURRING").
						Int32(3, true).Int32(3, true).Time(now, true).Time(now, true).Time(now, true).
						Amount(3000, true).Null().Null().Null().Str("USD").Str("70123456789").Bool(true, true).
						Str(string(raw)).Str("2026-11-20").Time(now, true).End()
				}
				batches = append(batches, bt)
			}
			if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, benchPayments, nil, batches...) }); err != nil {
				b.Fatal(err)
			}
		}
		el := time.Since(start)
		b.ReportMetric(float64(total)/el.Seconds(), "rows/s")
		for k, v := range store.DebugTimes {
			b.ReportMetric(v.Seconds(), k+"_s")
			delete(store.DebugTimes, k)
		}
	}
}
