package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// runWithLookback runs the pipeline over env's sandbox with the
// sandbox's own window (its lookback), which its ground truth is of.
func runWithLookback(t *testing.T, env *sandboxtest.Env) (*store.Store, *pipeline.Result) {
	t.Helper()
	s := storetest.Open(t)
	c := env.Server.Config()
	res, err := pipeline.Run(context.Background(), s, pipeline.Options{Client: env.Client, OrganizationID: c.OrganizationID,
		BusinessDate: c.BusinessDate, Lookback: c.Lookback, Concurrency: 4, PaymentLists: 2})
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

var settlementKinds = []string{sandbox.KindCaptureNotSettled, sandbox.KindSettlementWithoutCapture,
	sandbox.KindSettledAmountMismatch, sandbox.KindFundingTieoutMismatch}

// storedSettlementFindings is the run's findings of the settlement kinds,
// as "kind merchant entity amount currency" lines, sorted.
func storedSettlementFindings(t *testing.T, s *store.Store, runID string) []string {
	t.Helper()
	rows, err := s.ReadPool().Query(`SELECT kind, merchant_id, entity_id, amount_text(amount, currency), currency FROM findings
		WHERE run_id = $1 AND state IN ('new', 'open', 'acknowledged') AND list_contains($2, kind)`, runID, settlementKinds)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k, m, e, a, c string
		if err := rows.Scan(&k, &m, &e, &a, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{k, m, e, a, c}, " "))
	}
	slices.Sort(out)
	return out
}

// TestSettlementMatchesGroundTruthAtMedium: at scale medium (50 members in
// 5 groups) each settlement kind's findings are the sandbox's ground truth
// entity by entity (amount and currency included), the near-misses (a
// capture still within its settlement days, an equal settlement funded in
// another currency, funding days with a chargeback that tie out) are not
// reported, and the Reporting API is asked a few times per group: one page
// of purchase and refund details, one net funding per day of the window,
// and one batch summary for the organization.
func TestSettlementMatchesGroundTruthAtMedium(t *testing.T) {
	env := sandboxtest.Start(t, sandbox.Config{Seed: 11, Scale: sandbox.Scale{Members: 50, Subscriptions: 20, Groups: 5}})
	gt, err := env.Server.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	s, res := runWithLookback(t, env)
	var want []string
	for _, k := range settlementKinds {
		if len(gt.Findings[k]) == 0 {
			t.Errorf("the ground truth plants no %s at scale medium", k)
		}
		for _, f := range gt.Findings[k] {
			want = append(want, strings.Join([]string{k, f.MerchantID, f.EntityID, f.Amount, f.Currency}, " "))
		}
	}
	slices.Sort(want)
	if got := storedSettlementFindings(t, s, res.RunID); !slices.Equal(got, want) {
		t.Errorf("settlement findings:\n got %q\nwant %q", got, want)
	}
	days := int(res.Window.End.Sub(res.Window.Start).Hours() / 24)
	if most := int64(len(gt.Groups)*(1+days) + 1); res.SettlementRequests == 0 || res.SettlementRequests > most {
		t.Errorf("the settlement stage made %d requests for %d groups over %d days; want at most %d (a page, a funding per day, per group; one batch summary)",
			res.SettlementRequests, len(gt.Groups), days, most)
	}
	var settled, pending int
	if err := s.ReadPool().QueryRow(`SELECT count(*) FILTER (WHERE batch_time IS NOT NULL), count(*) FILTER (WHERE batch_time IS NULL) FROM settlements`).Scan(&settled, &pending); err != nil {
		t.Fatal(err)
	}
	if settled == 0 || pending == 0 {
		t.Errorf("settlements: %d settled, %d pending; want both", settled, pending)
	}
	// Expected captures are in flight, not findings: at least one pending
	// purchase is within its days.
	var inFlight int
	if err := s.ReadPool().QueryRow(`SELECT count(*) FROM settlements s WHERE s.batch_time IS NULL AND s.transaction_type = 'Purchases'
		AND NOT EXISTS (SELECT 1 FROM findings f WHERE f.kind = 'capture_not_settled' AND f.merchant_id = s.merchant_id AND f.entity_id = s.request_id)`).Scan(&inFlight); err != nil {
		t.Fatal(err)
	}
	if inFlight == 0 {
		t.Error("no capture in flight within its settlement days: the near-miss is not exercised")
	}
}

// TestReportsNotReadableRecorded: a member whose reports the key may not
// read makes its group's requests answer 403; the stage then reads the
// group's members one by one, records the member in run_members as a
// product not enabled, and loads the others' settlements. The run is not
// failed for it.
func TestReportsNotReadableRecorded(t *testing.T) {
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 6, Subscriptions: 5, Groups: 2}})
	denied := env.Server.Members()[2]
	st, err := env.Server.MerchantSettings(denied)
	if err != nil {
		t.Fatal(err)
	}
	st.ReportingDisabled = true
	if err := env.Server.SetMerchantSettings(denied, st); err != nil {
		t.Fatal(err)
	}
	s, res := runWithLookback(t, env)
	if len(res.Failed) != 0 || res.Status != store.RunOK {
		t.Fatalf("run %s, failed %+v; want ok", res.Status, res.Failed)
	}
	rows, err := s.ReadPool().Query(`SELECT merchant_id, coalesce(products_not_enabled, ''), coalesce(not_enabled_message, ''),
		(SELECT count(*) FROM settlements x WHERE x.merchant_id = rm.merchant_id)
		FROM run_members rm WHERE run_id = $1 ORDER BY merchant_id`, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var mid, products, msg string
		var n int
		if err := rows.Scan(&mid, &products, &msg, &n); err != nil {
			t.Fatal(err)
		}
		reporting := strings.Contains(products, ingest.ProductReporting)
		switch {
		case mid == denied && (!reporting || !strings.Contains(msg, "403") || n != 0):
			t.Errorf("%s (reports refused): products not enabled %q, message %q, %d settlements; want reporting, the 403, none", mid, products, msg, n)
		case mid != denied && n == 0,
			mid != denied && reporting && !slices.Contains(env.Server.MembersWithoutReporting(), mid):
			// (A member the sandbox refuses the dispute reports,
			// disputes.go, is recorded for those and still has its
			// settlements.)
			t.Errorf("%s: products not enabled %q, %d settlements; want its settlements", mid, products, n)
		}
	}
}

// TestSettlementBadAmountKeptAside: a settlement whose amount has more
// decimals than any currency is kept aside with its field, value and
// reason; it is not loaded, and the rest of the details load.
func TestSettlementBadAmountKeptAside(t *testing.T) {
	var bad string
	env := startRewritten(t, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path != "/reporting/v3/purchase-refund-details" || status != http.StatusOK || bad != "" {
			return body
		}
		var page struct {
			Settlements []struct {
				RequestID string `json:"requestId"`
				Amount    string `json:"amount"`
			} `json:"settlements"`
		}
		if json.Unmarshal(body, &page) != nil || len(page.Settlements) == 0 {
			return body
		}
		bad = page.Settlements[0].RequestID
		old := `"amount":"` + page.Settlements[0].Amount + `"`
		return bytes.Replace(body, []byte(old), []byte(`"amount":"1.2345"`), 1)
	})
	s, res := runWithLookback(t, env)
	if bad == "" {
		t.Fatal("no purchase and refund details answered")
	}
	var field, value, reason string
	if err := s.ReadPool().QueryRow(`SELECT field, value, reason FROM kept_aside WHERE run_id = $1 AND record = 'settlement' AND record_id = $2`,
		res.RunID, bad).Scan(&field, &value, &reason); err != nil {
		t.Fatalf("settlement %s kept aside: %v", bad, err)
	}
	if field != "amount" || value != "1.2345" || reason == "" {
		t.Errorf("kept aside %s: field %q value %q reason %q; want amount 1.2345 and why", bad, field, value, reason)
	}
	var loaded, others int
	if err := s.ReadPool().QueryRow(`SELECT count(*) FILTER (WHERE request_id = $1), count(*) FILTER (WHERE request_id <> $1) FROM settlements`, bad).Scan(&loaded, &others); err != nil {
		t.Fatal(err)
	}
	if loaded != 0 || others == 0 {
		t.Errorf("settlements: %d rows of the bad one, %d others; want none and the rest", loaded, others)
	}
}
