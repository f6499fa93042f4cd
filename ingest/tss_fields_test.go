package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// runWindowOnSandbox runs the pipeline over the sandbox's ground-truth
// window (its business date and lookback) into a new DuckDB file.
func runWindowOnSandbox(t *testing.T, env *sandboxtest.Env) (*store.Store, *pipeline.Result) {
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

// binUnresolvedMatchesTruth compares the run's bin_unresolved findings with
// the sandbox's ground truth, member by member.
func binUnresolvedMatchesTruth(t *testing.T, env *sandboxtest.Env, s *store.Store, res *pipeline.Result) {
	t.Helper()
	gt, err := env.Server.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range gt.Findings[sandbox.KindBinUnresolved] {
		want = append(want, f.MerchantID+"/"+f.EntityID)
	}
	rows, err := s.ReadPool().Query(`SELECT merchant_id || '/' || entity_id FROM findings WHERE run_id = $1 AND kind = 'bin_unresolved'`, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(want) == 0 {
		t.Fatal("the ground truth has no bin_unresolved finding: the comparison would show nothing")
	}
	if !slices.Equal(got, want) {
		t.Errorf("bin_unresolved: %d findings %v\nground truth: %d %v", len(got), got, len(want), want)
	}
}

// TestSummaryFieldsByTheSDKNames: a run against the sandbox, whose summaries
// carry the SDK's names, fills the transactions table's status (the
// summary's top-level status) and customer_id (paymentInformation.customer.
// customerId) columns, and every MULTIPLE BIN that a customer token resolves
// is resolved: the run's bin_unresolved findings are the ground truth's.
func TestSummaryFieldsByTheSDKNames(t *testing.T) {
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 4, Subscriptions: 20, Groups: 1}})
	s, res := runWindowOnSandbox(t, env)
	if len(res.Failed) != 0 {
		t.Fatalf("failed members: %+v", res.Failed)
	}
	var total, withStatus, withCustomer, withInstrument int
	if err := s.ReadPool().QueryRow(`SELECT count(*), count(status), count(customer_id), count(instrument_identifier_id) FROM transactions`).
		Scan(&total, &withStatus, &withCustomer, &withInstrument); err != nil {
		t.Fatal(err)
	}
	if total == 0 || withStatus != total {
		t.Errorf("%d of %d transactions have a status", withStatus, total)
	}
	if withCustomer == 0 {
		t.Errorf("no transaction of %d has its customer token", total)
	}
	if withInstrument != 0 {
		t.Errorf("%d transactions have an instrument identifier, which summaries do not carry", withInstrument)
	}
	var statuses string
	if err := s.ReadPool().QueryRow(`SELECT coalesce(string_agg(DISTINCT status, ',' ORDER BY status), '') FROM transactions`).Scan(&statuses); err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"AUTHORIZED", "DECLINED", "PENDING"} {
		if !strings.Contains(statuses, st) {
			t.Errorf("statuses %s lack %s", statuses, st)
		}
	}
	var byToken int
	if err := s.ReadPool().QueryRow(`SELECT count(*) FROM bin_attributes WHERE resolved_by = 'token' AND lookup_status = 'COMPLETED'`).Scan(&byToken); err != nil {
		t.Fatal(err)
	}
	if byToken == 0 {
		t.Error("no MULTIPLE BIN resolved by a customer token")
	}
	binUnresolvedMatchesTruth(t, env, s, res)
}

// withoutCustomerInSummaries removes paymentInformation.customer from every
// transaction summary the sandbox answers: a portfolio whose transactions
// were made with instrument identifiers only, or whose summaries omit the
// token. Details are left whole, and counted.
func withoutCustomerInSummaries(details *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/tss/v2/transactions/") {
				details.Add(1)
			}
			if r.Method != "POST" || r.URL.Path != "/tss/v2/searches" {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var page map[string]any
			if rec.Code == http.StatusCreated && json.Unmarshal(body, &page) == nil {
				if emb, ok := page["_embedded"].(map[string]any); ok {
					sums, _ := emb["transactionSummaries"].([]any)
					for _, s := range sums {
						if pi, ok := s.(map[string]any)["paymentInformation"].(map[string]any); ok {
							delete(pi, "customer")
						}
					}
				}
				body, _ = json.Marshal(page)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(rec.Code)
			w.Write(bytes.Clone(body))
		})
	}
}

// TestMultipleBINsResolveThroughDetails: when no summary carries a customer
// token, the BIN stage reads transaction details (GET
// /tss/v2/transactions/{id}) for the instrument identifier, within its
// budget, and the MULTIPLE BINs still resolve: bin_unresolved is the ground
// truth's.
func TestMultipleBINsResolveThroughDetails(t *testing.T) {
	var details atomic.Int32
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 4, Subscriptions: 20, Groups: 1}},
		sandboxtest.WithHandler(withoutCustomerInSummaries(&details)))
	s, res := runWindowOnSandbox(t, env)
	if len(res.Failed) != 0 {
		t.Fatalf("failed members: %+v", res.Failed)
	}
	var withCustomer int
	if err := s.ReadPool().QueryRow(`SELECT count(customer_id) FROM transactions`).Scan(&withCustomer); err != nil {
		t.Fatal(err)
	}
	if withCustomer != 0 {
		t.Fatalf("%d transactions with a customer token: the summaries were not stripped", withCustomer)
	}
	if n := details.Load(); n == 0 || n > 20 {
		t.Errorf("%d transaction details read; want at least one and at most the budget of 20", n)
	}
	binUnresolvedMatchesTruth(t, env, s, res)
}
