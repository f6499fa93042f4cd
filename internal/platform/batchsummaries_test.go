package platform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBatchSummariesSpanSplitWhenTooLarge: the batch summaries are one
// unpaged answer for the whole organization and span, so a large
// organization's can pass the body limit (5,000 members over 25 days did).
// Such a span is asked again in halves of whole days until each answer
// fits: every day's rows come back once, and a single day still over the
// limit fails as too large.
func TestBatchSummariesSpanSplitWhenTooLarge(t *testing.T) {
	old := batchSummaryLimit
	batchSummaryLimit.bytes = 20 << 10
	t.Cleanup(func() { batchSummaryLimit = old })

	const layout = "2006-01-02T15:04:05.000Z"
	var mu sync.Mutex
	var spans []string
	perDay := 32 // members a day: ~8 KB of rows, so two days fit and three do not
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		from, err1 := time.Parse(layout, q.Get("startTime"))
		to, err2 := time.Parse(layout, q.Get("endTime"))
		if r.URL.Path != "/reporting/v3/payment-batch-summaries" || err1 != nil || err2 != nil {
			t.Errorf("unexpected request %s", r.URL)
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		mu.Lock()
		spans = append(spans, from.Format("01-02")+".."+to.Format("01-02"))
		mu.Unlock()
		var rows []string
		for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
			for i := range perDay {
				rows = append(rows, fmt.Sprintf(`{"merchantId":"mid%04d","startTime":"%s","endTime":"%s","currencyCode":"USD",`+
					`"paymentSubTypeDescription":"Visa","salesCount":3,"salesAmount":"30.00","creditCount":0,"creditAmount":"0.00",`+
					`"accountId":"acct-%04d","padding":"%s"}`, i, d.Format(layout), d.AddDate(0, 0, 1).Format(layout), i, strings.Repeat("x", 40)))
			}
		}
		w.Header().Set("Content-Type", "application/hal+json")
		fmt.Fprintf(w, `{"startTime":%q,"endTime":%q,"paymentBatchSummaries":[%s]}`, q.Get("startTime"), q.Get("endTime"), strings.Join(rows, ","))
	})
	m := c.Merchant("org1")
	ctx := context.Background()
	from := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 10)
	sums, err := m.PaymentBatchSummaries(ctx, "org1", from, to)
	if err != nil {
		t.Fatalf("ten days over the limit: %v (requests %v)", err, spans)
	}
	seen := map[string]int{}
	for _, s := range sums {
		seen[s.MerchantID+"/"+s.StartTime]++
	}
	if len(sums) != 10*perDay || len(seen) != 10*perDay {
		t.Errorf("%d rows, %d distinct; want each of the %d member-days once (requests %v)", len(sums), len(seen), 10*perDay, spans)
	}
	if spans[0] != "11-03..11-13" || len(spans) < 3 {
		t.Errorf("requests %v: want the whole span first, then halves", spans)
	}

	perDay = 128 // one day alone is over the limit
	spans = nil
	_, err = m.PaymentBatchSummaries(ctx, "org1", from, from.AddDate(0, 0, 1))
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrInvalidData) || len(spans) != 1 {
		t.Errorf("one day over the limit: %v after %v; want ErrTooLarge and ErrInvalidData, one request", err, spans)
	}

	// A platform whose every answer is over the limit (a broken or hostile
	// one) gets a bounded number of requests: the halving stops at single
	// days, so at most 2n-1 for n days, and the run gets the error.
	spans = nil
	_, err = m.PaymentBatchSummaries(ctx, "org1", from, to)
	if !errors.Is(err, ErrTooLarge) || len(spans) > 2*10-1 {
		t.Errorf("every answer over the limit: %v after %d requests %v; want ErrTooLarge within 19", err, len(spans), spans)
	}
}
