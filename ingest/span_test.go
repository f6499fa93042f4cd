package ingest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/sandbox"
	"github.com/reconcile/reconcile/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/store/storetest"
)

// TestRolledBackSpanPullsItsMembersAgain: members loaded one per load into
// the same span, the third one's plans refused by the database (an escape
// JSON does not have, in a field the client's decoder skips). The span is
// rolled back: the refused member fails alone with the database's reason,
// the two members the span held before it are pulled again and loaded
// completely, and the member after it is loaded once.
func TestRolledBackSpanPullsItsMembersAgain(t *testing.T) {
	var bad string
	var mu sync.Mutex
	plansPulled := map[string]int{}
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 4, Subscriptions: 5, Groups: 1}},
		sandboxtest.WithHandler(RefusedPlans(&bad, func(mid string) {
			mu.Lock()
			plansPulled[mid]++
			mu.Unlock()
		})))
	mids := env.Server.Members()
	bad = mids[2]
	var members []groups.Member
	for _, mid := range mids {
		members = append(members, groups.Member{MerchantID: mid})
	}

	ctx := context.Background()
	s := storetest.Open(t)
	cfg := env.Server.Config()
	opts := PullOptions{Client: env.Client, RunID: "r1", Window: store.WindowFor(cfg.BusinessDate, 1), Now: time.Now(),
		Concurrency: 1, PaymentLists: 1}
	r, err := newPuller(ctx, s, opts, members)
	if err != nil {
		t.Fatal(err)
	}
	r.loadRows = 1 // a load per member, in the order of members
	statuses, err := r.pullMembers(ctx, members)
	if err != nil {
		t.Fatal(err)
	}

	if len(statuses) != len(mids) {
		t.Fatalf("%d statuses for %d members: %+v", len(statuses), len(mids), statuses)
	}
	for i, st := range statuses {
		if st.MerchantID != mids[i] {
			t.Fatalf("status %d is of %s; want %s (merchant ID order, each once)", i, st.MerchantID, mids[i])
		}
		if st.MerchantID == bad {
			if st.Status != store.MemberFailed || !strings.Contains(st.Error, "load into database") || !strings.Contains(st.Error, "JSON") {
				t.Errorf("refused member %s: %s %q; want failed by the database's JSON cast", bad, st.Status, st.Error)
			}
		} else if st.Status != store.MemberOK {
			t.Errorf("member %s: %s %q; want ok", st.MerchantID, st.Status, st.Error)
		}
	}
	wantPulls := map[string]int{mids[0]: 2, mids[1]: 2, mids[2]: 1, mids[3]: 1}
	for _, mid := range mids {
		if plansPulled[mid] != wantPulls[mid] {
			t.Errorf("member %s: plans pulled %d times; want %d", mid, plansPulled[mid], wantPulls[mid])
		}
	}
	for _, st := range statuses {
		var plans, subs, marked int
		if err := s.ReadPool().QueryRow(`SELECT (SELECT count(*) FROM plans WHERE merchant_id = $1), (SELECT count(*) FROM subscriptions WHERE merchant_id = $1), (SELECT count(*) FROM run_members WHERE merchant_id = $1 AND status = $2)`, st.MerchantID, string(st.Status)).Scan(&plans, &subs, &marked); err != nil {
			t.Fatal(err)
		}
		if marked != 1 {
			t.Errorf("member %s: %d run_members rows with status %s; want 1", st.MerchantID, marked, st.Status)
		}
		switch {
		case st.MerchantID == bad && (plans != 0 || subs != 0):
			t.Errorf("the refused member has %d plans and %d subscriptions stored; want none", plans, subs)
		case st.MerchantID != bad && (plans != st.Plans || plans == 0 || subs != 5 || st.Subscriptions != 5):
			t.Errorf("member %s: %d plans and %d subscriptions stored, %d and %d reported; want all its plans and 5", st.MerchantID, plans, subs, st.Plans, st.Subscriptions)
		}
	}
}

// RefusedPlans wraps a sandbox's handler for tests (of this package and
// ingest_test): the plans page of the member *bad gets a field with an
// escape JSON does not have ("\q"), which the client's decoder skips and
// DuckDB's JSON cast refuses. pulled, if not nil, is told the member of
// every plans request.
func RefusedPlans(bad *string, pulled func(mid string)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mid := r.Header.Get("v-c-merchant-id")
			if r.Method != "GET" || r.URL.Path != "/rbs/v1/plans" {
				next.ServeHTTP(w, r)
				return
			}
			if pulled != nil {
				pulled(mid)
			}
			if mid != *bad {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := bytes.Replace(rec.Body.Bytes(), []byte(`"id":"`), []byte(`"x":"\q","id":"`), 1)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}
