package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestSettlementLaterPageFailsAndMemoryHoldsAPage: over two groups whose
// purchase and refund details take two pages each,
//
//   - when the second page of one group fails, none of that group's details
//     are loaded (its first page and a record of it kept aside are dropped
//     with it), the failure is a problem of the run, the other group loads
//     whole, and SettlementLoaded lists only the other group's members;
//   - the resumed stage, for the members not listed, then loads the failed
//     group whole, its bad record kept aside once;
//   - the stage never holds more than a page of rows in Go (HeldRows),
//     though a group's details are more than a page: they are handed to
//     DuckDB as they arrive, not kept until the stage's end.
func TestSettlementLaterPageFailsAndMemoryHoldsAPage(t *testing.T) {
	var (
		mu       sync.Mutex
		failing  atomic.Value // the group whose later pages fail; "" for none
		bad      atomic.Value // the group whose first page has a bad amount
		badID    string       // the settlement given that bad amount
		failures int
	)
	failing.Store("")
	bad.Store("")
	env := sandboxtest.Start(t, sandbox.Config{Seed: 3, Scale: sandbox.Scale{Members: 40, Subscriptions: 100, Groups: 2}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				group := q.Get("groupName")
				if r.URL.Path != "/reporting/v3/purchase-refund-details" || group == "" {
					next.ServeHTTP(w, r)
					return
				}
				if q.Get("offset") != "0" && group == failing.Load().(string) {
					mu.Lock()
					failures++
					mu.Unlock()
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"message":"offset out of range"}`)
					return
				}
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				body := rec.Body.Bytes()
				var page struct {
					Settlements []struct {
						RequestID string `json:"requestId"`
						Amount    string `json:"amount"`
					} `json:"settlements"`
				}
				if q.Get("offset") == "0" && group == bad.Load().(string) && rec.Code == http.StatusOK &&
					json.Unmarshal(body, &page) == nil && len(page.Settlements) > 0 {
					mu.Lock()
					badID = page.Settlements[0].RequestID
					mu.Unlock()
					old := `"amount":"` + page.Settlements[0].Amount + `"`
					body = bytes.Replace(body, []byte(old), []byte(`"amount":"1.2345"`), 1)
				}
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Del("Content-Length")
				w.WriteHeader(rec.Code)
				w.Write(body)
			})
		}))
	ctx := context.Background()
	c := env.Server.Config()
	dir, err := groups.Discover(ctx, env.Client.Merchant(c.OrganizationID), c.OrganizationID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dir.Groups) != 2 {
		t.Fatalf("%d groups; want 2", len(dir.Groups))
	}
	failed := dir.Groups[0]
	failing.Store(failed.Name)
	bad.Store(failed.Name)
	s := storetest.Open(t)
	opts := ingest.SettlementOptions{Client: env.Client, OrganizationID: c.OrganizationID, RunID: "run",
		Window: storeWindow(c), Now: time.Now(), Directory: dir, Members: dir.Members}
	res, err := ingest.PullSettlement(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if failures == 0 {
		t.Fatalf("group %s's details took one page: the test needs more than %d", failed.Name, platform.MaxReportLimit)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), "offset "+strconv.Itoa(platform.MaxReportLimit)) {
		t.Errorf("problems %v; want the failed second page of %s", res.Problems, failed.Name)
	}
	// The members of the failed group only (a member of both groups has
	// its details read with the other).
	inFailed := map[string]bool{}
	for _, mid := range failed.Members {
		inFailed[mid] = true
	}
	for _, mid := range dir.Groups[1].Members {
		delete(inFailed, mid)
	}
	loaded, err := ingest.SettlementLoaded(ctx, s, "run")
	if err != nil {
		t.Fatal(err)
	}
	var others int
	for _, m := range dir.Members {
		switch {
		case inFailed[m.MerchantID] && loaded[m.MerchantID]:
			t.Errorf("%s (group %s, whose second page failed) has details loaded", m.MerchantID, failed.Name)
		case !inFailed[m.MerchantID] && !loaded[m.MerchantID]:
			t.Errorf("%s (group %s) has no details loaded", m.MerchantID, dir.Groups[1].Name)
		case !inFailed[m.MerchantID]:
			others++
		}
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := s.ReadPool().QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM settlements`); n != res.Settlements || n == 0 || others == 0 {
		t.Errorf("%d settlements stored, %d reported loaded, %d members of the other group; want equal counts and some", n, res.Settlements, others)
	}
	if n := count(`SELECT count(*) FROM kept_aside WHERE record = 'settlement' AND record_id = $1`, badID); badID == "" || n != 0 {
		t.Errorf("%d settlements kept aside; want none: the record was on a page of the failed group, dropped with it", n)
	}
	if n := count(`SELECT count(*) FROM fundings`); n == 0 || n != res.Fundings {
		t.Errorf("%d fundings stored, %d reported; want the fundings of both groups", n, res.Fundings)
	}

	// The resumed stage: the members whose details are not loaded, the
	// bad amount still on the group's first page.
	failing.Store("")
	var resume []groups.Member
	for _, m := range dir.Members {
		if !loaded[m.MerchantID] {
			resume = append(resume, m)
		}
	}
	opts.Members = resume
	again, err := ingest.PullSettlement(ctx, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Problems) != 0 {
		t.Errorf("resumed stage: problems %v", again.Problems)
	}
	if again.Settlements <= platform.MaxReportLimit {
		t.Fatalf("resumed stage loaded %d details; the test needs more than a page (%d)", again.Settlements, platform.MaxReportLimit)
	}
	if again.HeldRows == 0 || again.HeldRows > platform.MaxReportLimit {
		t.Errorf("the stage held %d rows in Go at once for %d details; want at most a page (%d)", again.HeldRows, again.Settlements, platform.MaxReportLimit)
	}
	if res.HeldRows > platform.MaxReportLimit {
		t.Errorf("the first stage held %d rows in Go at once; want at most a page (%d)", res.HeldRows, platform.MaxReportLimit)
	}
	loaded, err = ingest.SettlementLoaded(ctx, s, "run")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range dir.Members {
		if !loaded[m.MerchantID] {
			t.Errorf("%s has no details loaded after the resumed stage", m.MerchantID)
		}
	}
	if n := count(`SELECT count(*) FROM settlements`); n != res.Settlements+again.Settlements {
		t.Errorf("%d settlements stored; want %d + %d", n, res.Settlements, again.Settlements)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := count(`SELECT count(*) FROM kept_aside WHERE record = 'settlement' AND record_id = $1 AND field = 'amount'`, badID); badID == "" || n != 1 {
		t.Errorf("settlement %q with a bad amount kept aside %d times; want once", badID, n)
	}
}

// storeWindow is the sandbox's window, as a run reads it.
func storeWindow(c sandbox.Config) store.Window { return store.WindowFor(c.BusinessDate, c.Lookback) }

// TestSettlementInterruptedLoadsScopesWhole: a stage stopped while it
// reads its second group keeps what it loaded before, each member whole:
// the members SettlementLoaded lists are the first group's, each with its
// batch summaries, the group's fundings loaded; the stage resumed for the
// other members then leaves the tables as one uninterrupted stage does.
func TestSettlementInterruptedLoadsScopesWhole(t *testing.T) {
	var stop atomic.Value // the group whose details request stops the stage
	stop.Store("")
	var cancel atomic.Value
	env := sandboxtest.Start(t, sandbox.Config{Seed: 9, Scale: sandbox.Scale{Members: 12, Subscriptions: 10, Groups: 2}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if g := stop.Load().(string); g != "" && r.URL.Path == "/reporting/v3/purchase-refund-details" && r.URL.Query().Get("groupName") == g {
					cancel.Load().(context.CancelFunc)()
				}
				next.ServeHTTP(w, r)
			})
		}))
	c := env.Server.Config()
	dir, err := groups.Discover(context.Background(), env.Client.Merchant(c.OrganizationID), c.OrganizationID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dir.Groups) != 2 {
		t.Fatalf("%d groups; want 2", len(dir.Groups))
	}
	opts := ingest.SettlementOptions{Client: env.Client, OrganizationID: c.OrganizationID, RunID: "run",
		Window: storeWindow(c), Now: time.Unix(1e9, 0), Directory: dir, Members: dir.Members}
	tables := func(s *store.Store) []string {
		t.Helper()
		var out []string
		for _, q := range []string{`SELECT count(*) || ' ' || coalesce(sum(amount), 0) FROM settlements`,
			`SELECT count(*) || ' ' || coalesce(sum(funded), 0) FROM fundings`,
			`SELECT count(*) || ' ' || coalesce(sum(sales_amount), 0) FROM settlement_batches`,
			`SELECT count(*) FROM kept_aside`} {
			var v string
			if err := s.ReadPool().QueryRow(q).Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		return out
	}
	clean := storetest.Open(t)
	if _, err := ingest.PullSettlement(context.Background(), clean, opts); err != nil {
		t.Fatal(err)
	}

	s := storetest.Open(t)
	ctx, stopIt := context.WithCancel(context.Background())
	defer stopIt()
	cancel.Store(context.CancelFunc(stopIt))
	stop.Store(dir.Groups[1].Name)
	if _, err := ingest.PullSettlement(ctx, s, opts); err == nil {
		t.Fatal("the stage stopped midway returned no error")
	}
	stop.Store("")
	loaded, err := ingest.SettlementLoaded(context.Background(), s, "run")
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]bool{}
	for _, mid := range dir.Groups[0].Members {
		first[mid] = true
	}
	for _, m := range dir.Members {
		if loaded[m.MerchantID] != first[m.MerchantID] {
			t.Errorf("%s: loaded %v, in the first group %v; want the first group's members loaded, only them", m.MerchantID, loaded[m.MerchantID], first[m.MerchantID])
		}
		if !loaded[m.MerchantID] {
			continue
		}
		var batches int
		if err := s.ReadPool().QueryRow(`SELECT count(*) FROM settlement_batches WHERE merchant_id = $1`, m.MerchantID).Scan(&batches); err != nil {
			t.Fatal(err)
		}
		if batches == 0 {
			t.Errorf("%s has its details loaded and no batch summaries", m.MerchantID)
		}
	}
	var fundings int
	if err := s.ReadPool().QueryRow(`SELECT count(*) FROM fundings WHERE scope_id = $1`, dir.Groups[0].ID).Scan(&fundings); err != nil {
		t.Fatal(err)
	}
	if len(loaded) == 0 || fundings == 0 {
		t.Errorf("%d members loaded, %d fundings of the first group; want its members and fundings", len(loaded), fundings)
	}

	var rest []groups.Member
	for _, m := range dir.Members {
		if !loaded[m.MerchantID] {
			rest = append(rest, m)
		}
	}
	opts.Members = rest
	if _, err := ingest.PullSettlement(context.Background(), s, opts); err != nil {
		t.Fatal(err)
	}
	if got, want := tables(s), tables(clean); !slices.Equal(got, want) {
		t.Errorf("settlements, fundings, batch summaries, kept aside after the resumed stage: %q; uninterrupted: %q", got, want)
	}
}
