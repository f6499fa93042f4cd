package platform

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestReportsOneRequestPerWindow: each report is one GET signed for the
// member with the SDK's three parameters, its records decoded whatever
// spelling their amounts take (a JSON number where the SDK says String),
// an empty report no error.
func TestReportsOneRequestPerWindow(t *testing.T) {
	var paths []string
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		q := r.URL.Query()
		if q.Get("startTime") != "2026-11-17T00:00:00.000Z" || q.Get("endTime") != "2026-11-21T00:00:00.000Z" ||
			q.Get("organizationId") != "m1" || len(q) != 3 || r.Header.Get("v-c-merchant-id") != "m1" {
			t.Errorf("%s: query %v, merchant %q", r.URL.Path, q, r.Header.Get("v-c-merchant-id"))
		}
		w.Header().Set("Content-Type", "application/hal+json")
		switch r.URL.Path {
		case "/reporting/v3/interchange-clearing-level-details":
			w.Write([]byte(`{"startDate":"2026-11-17T00:00:00.000Z","interchangeClearingLevelDetails":[
				{"requestId":"r1","amount":120.5,"currencyCode":"USD","merchantPricedLevel":"3","clearedLevel":"1",
				 "billbackReasonCode":"X","interchangeAmount":"3.29","billbackAmount":"0.90","transactionTime":"2026-11-18T10:00:00.000Z"}]}`))
		case "/reporting/v3/chargeback-details":
			w.Write([]byte(`{"organizationId":"m1","chargebackDetails":[{"requestId":"r2","reasonCode":"13.2","amount":"9.99",
				"currencyCode":"EUR","time":"2026-11-20T10:00:00.000Z","responseDueTime":"2026-12-10T10:00:00.000Z"}]}`))
		case "/reporting/v3/retrieval-details":
			w.Write([]byte(`{"organizationId":"m1"}`))
		}
	})
	m := c.Merchant("m1")
	ctx := context.Background()
	start, end := time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	cl, err := m.InterchangeClearingLevels(ctx, start, end)
	if err != nil || len(cl) != 1 || cl[0].RequestID != "r1" || cl[0].Amount != "120.5" || cl[0].ClearedLevel != "1" ||
		cl[0].MerchantPricedLevel != "3" || cl[0].BillbackAmount != "0.90" || len(cl[0].Raw) == 0 {
		t.Fatalf("clearing: %+v, %v", cl, err)
	}
	cb, err := m.Chargebacks(ctx, start, end)
	if err != nil || len(cb) != 1 || cb[0].RequestID != "r2" || cb[0].ReasonCode != "13.2" || cb[0].ResponseDueTime == "" {
		t.Fatalf("chargebacks: %+v, %v", cb, err)
	}
	rr, err := m.Retrievals(ctx, start, end)
	if err != nil || len(rr) != 0 {
		t.Fatalf("retrievals: %+v, %v", rr, err)
	}
	if len(paths) != 3 {
		t.Errorf("%d requests, want one per report: %v", len(paths), paths)
	}
}

// TestReportNotEnabled: a 403 for a member that may not read reports is
// the platform's "not enabled" answer (NotEnabled), not a failure of
// another kind.
func TestReportNotEnabled(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"status":"FORBIDDEN","reason":"NOT_AUTHORIZED","message":"the Reporting API is not enabled"}`))
	})
	_, err := c.Merchant("m1").Chargebacks(context.Background(), time.Unix(0, 0), time.Unix(3600, 0))
	if _, ok := NotEnabled(err); !ok {
		t.Fatalf("error %v is not read as not enabled", err)
	}
}
