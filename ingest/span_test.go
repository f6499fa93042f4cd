package ingest

import (
	"bytes"
	"context"
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
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestRolledBackSpanPullsItsMembersAgain: members loaded one per load into
// the same span, the third one's plans refused by the database (an escape
// JSON does not have, in a field the client's decoder skips). The span is
// rolled back: the refused member fails alone with the database's reason,
// the two members the span held before it are pulled again and loaded
// completely, the member after it is loaded once, and each member is
// reported once. On a second night, the members pulled again request no
// more payment lists than their first pull did: they take their stored
// lists again.
func TestRolledBackSpanPullsItsMembersAgain(t *testing.T) {
	var bad string
	var mu sync.Mutex
	// Each pull of a member starts with its plans: one counter of payment
	// lists requested per pull.
	pulls := map[string][]int{}
	// Five members: the fifth lacks Recurring Billing (its card data only).
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 5, Subscriptions: 30, Groups: 1}},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			refuse := RefusedPlans(&bad, func(mid string) {
				mu.Lock()
				pulls[mid] = append(pulls[mid], 0)
				mu.Unlock()
			})(next)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if mid := r.Header.Get("v-c-merchant-id"); strings.HasSuffix(r.URL.Path, "/payments") {
					mu.Lock()
					if n := len(pulls[mid]); n > 0 {
						pulls[mid][n-1]++
					}
					mu.Unlock()
				}
				refuse.ServeHTTP(w, r)
			})
		}))
	mids := env.Server.Members()
	s := storetest.Open(t)

	// The first night: every member loads.
	statuses := pull(t, env, s, "r1", 1, time.Minute, nil)
	for _, st := range statuses {
		if st.Status != store.MemberOK {
			t.Fatalf("first night: member %s %s %q; want ok", st.MerchantID, st.Status, st.Error)
		}
	}

	// The second night: the third member's plans are refused.
	bad = mids[2]
	clear(pulls)
	loaded := map[string]int{}
	statuses = pull(t, env, s, "r2", 1, time.Minute, func(st MemberResult) { loaded[st.MerchantID]++ })
	if len(statuses) != len(mids) {
		t.Fatalf("%d statuses for %d members: %+v", len(statuses), len(mids), statuses)
	}
	for i, st := range statuses {
		if st.MerchantID != mids[i] {
			t.Fatalf("status %d is of %s; want %s (merchant ID order, each once)", i, st.MerchantID, mids[i])
		}
		if loaded[st.MerchantID] != 1 {
			t.Errorf("member %s reported loaded %d times; want once", st.MerchantID, loaded[st.MerchantID])
		}
		if st.MerchantID == bad {
			if st.Status != store.MemberFailed || !strings.Contains(st.Error, "load into database") || !strings.Contains(st.Error, "JSON") {
				t.Errorf("refused member %s: %s %q; want failed by the database's JSON cast", bad, st.Status, st.Error)
			}
		} else if st.Status != store.MemberOK {
			t.Errorf("member %s: %s %q; want ok", st.MerchantID, st.Status, st.Error)
		}
	}
	wantPulls := map[string]int{mids[0]: 2, mids[1]: 2, mids[2]: 1, mids[3]: 1, mids[4]: 1}
	for _, mid := range mids {
		p := pulls[mid]
		if len(p) != wantPulls[mid] {
			t.Errorf("member %s pulled %d times; want %d", mid, len(p), wantPulls[mid])
			continue
		}
		if len(p) == 2 && p[1] != p[0] {
			t.Errorf("member %s requested %d payment lists when pulled again, %d when pulled first; want as many (its stored lists)", mid, p[1], p[0])
		}
		if len(p) == 2 && p[0] >= 30 {
			t.Fatalf("member %s requested all its %d payment lists on the second night: the test needs lists that did not change", mid, p[0])
		}
	}
	for _, st := range statuses {
		var plans, subs, payments, txns, marked int
		if err := s.ReadPool().QueryRow(`SELECT (SELECT count(*) FROM plans WHERE merchant_id = $1), (SELECT count(*) FROM subscriptions WHERE merchant_id = $1), (SELECT count(*) FROM subscription_payments WHERE merchant_id = $1), (SELECT count(*) FROM transactions WHERE merchant_id = $1), (SELECT count(*) FROM run_members WHERE run_id = 'r2' AND merchant_id = $1 AND status = $2)`,
			st.MerchantID, string(st.Status)).Scan(&plans, &subs, &payments, &txns, &marked); err != nil {
			t.Fatal(err)
		}
		if marked != 1 {
			t.Errorf("member %s: %d run_members rows of r2 with status %s; want 1", st.MerchantID, marked, st.Status)
		}
		if slices.Contains(env.Server.MembersWithoutRecurringBilling(), st.MerchantID) {
			if plans != 0 || subs != 0 || txns != st.Transactions || st.Status != store.MemberOK {
				t.Errorf("member %s without Recurring Billing: stored %d plans, %d subscriptions, %d transactions; reported %+v", st.MerchantID, plans, subs, txns, st)
			}
			continue
		}
		if st.MerchantID != bad && (plans != st.Plans || plans == 0 || subs != 30 || st.Subscriptions != 30 ||
			payments == 0 || txns != st.Transactions) {
			t.Errorf("member %s: stored %d plans, %d subscriptions, %d payments, %d transactions; reported %+v", st.MerchantID, plans, subs, payments, txns, st)
		}
	}
}

// TestSpanCommitsWithoutWaitingForTheNextMember: a span is committed while
// a slow member is still being pulled, so that the member loaded before it
// is in the database, and reported, before the slow one's pull ends: once
// the span's time is up (loads of one member), and at once after a load
// that members came too slowly to fill (loads of 50,000 records).
func TestSpanCommitsWithoutWaitingForTheNextMember(t *testing.T) {
	for _, tc := range []struct {
		name     string
		loadRows int
		spanWait time.Duration
	}{
		{"time is up", 1, 200 * time.Millisecond},
		{"load not full", maxRowsPerLoad, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slow string
			var slowDone atomic.Int64 // when the slow member's plans were answered
			env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 2, Subscriptions: 3, Groups: 1}},
				sandboxtest.WithHandler(func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Header.Get("v-c-merchant-id") == slow && r.URL.Path == "/rbs/v1/plans" {
							time.Sleep(maxLoadWait + time.Second)
							defer slowDone.Store(time.Now().UnixNano())
						}
						next.ServeHTTP(w, r)
					})
				}))
			mids := env.Server.Members()
			slow = mids[1]
			s := storetest.Open(t)
			var firstLoaded time.Time
			var firstRows int
			pull(t, env, s, "r1", tc.loadRows, tc.spanWait, func(st MemberResult) {
				if st.MerchantID != mids[0] {
					return
				}
				firstLoaded = time.Now()
				s.ReadPool().QueryRow(`SELECT count(*) FROM run_members WHERE merchant_id = $1`, st.MerchantID).Scan(&firstRows)
			})
			if firstLoaded.IsZero() || slowDone.Load() == 0 {
				t.Fatalf("member %s reported at %v, the slow member answered at %d", mids[0], firstLoaded, slowDone.Load())
			}
			if !firstLoaded.Before(time.Unix(0, slowDone.Load())) {
				t.Errorf("member %s was reported at %v, after the slow member's plans were answered (%v): its span waited for the next member",
					mids[0], firstLoaded.Format(time.StampMilli), time.Unix(0, slowDone.Load()).Format(time.StampMilli))
			}
			if firstRows != 1 {
				t.Errorf("when member %s was reported, the database held %d run_members rows of it; want 1 (committed)", mids[0], firstRows)
			}
		})
	}
}

// pull runs the members stage of run runID over env's members, one member
// at a time, loads of loadRows records, a span open for spanWait.
func pull(t *testing.T, env *sandboxtest.Env, s *store.Store, runID string, loadRows int, spanWait time.Duration, loaded func(MemberResult)) []MemberResult {
	t.Helper()
	ctx := context.Background()
	var members []groups.Member
	for _, mid := range env.Server.Members() {
		members = append(members, groups.NewMember(mid))
	}
	cfg := env.Server.Config()
	opts := PullOptions{Client: env.Client, RunID: runID, Window: store.WindowFor(cfg.BusinessDate, 1), Now: time.Now(),
		Concurrency: 1, PaymentLists: 1, Loaded: loaded}
	r, err := newPuller(ctx, s, opts, members)
	if err != nil {
		t.Fatal(err)
	}
	r.loadRows, r.spanWait = loadRows, spanWait
	statuses, err := r.pullMembers(ctx, members)
	if err != nil {
		t.Fatal(err)
	}
	return statuses
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
