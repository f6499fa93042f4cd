package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/sandbox"
)

// The fault tests run the whole CLI against a sandbox whose fault flags are
// on, and check what users rely on: transient faults are retried until the
// run is exact, and a member that keeps failing is recorded while the rest
// are reported.

func runWithFaults(t *testing.T, faults sandbox.Faults) (code int, db, stdout, stderr string, f *fixture) {
	t.Helper()
	f = newFixture(t, sandbox.Config{Faults: faults})
	work := t.TempDir()
	db = filepath.Join(work, "r.duckdb")
	code, stdout, stderr = runCLI(t, sandboxEnv, f.runArgs(db, filepath.Join(work, "out"))...)
	return code, db, stdout, stderr, f
}

func TestTransientFaultsAreRetried(t *testing.T) {
	cases := map[string]sandbox.Faults{
		"429 storm with Retry-After": {RateLimitRate: 0.1, RetryAfter: time.Second},
		"5xx":                        {ErrorRate: 0.1},
		"truncated bodies":           {TruncateRate: 0.1},
		"slow answers":               {Latency: 40 * time.Millisecond, Jitter: 20 * time.Millisecond},
	}
	for name, faults := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			code, db, stdout, stderr, f := runWithFaults(t, faults)
			if code != exitOK {
				t.Fatalf("run exited %d\n%s\n%s", code, stdout, stderr)
			}
			conn := openReadOnly(t, db)
			compareFindings(t, dbFindings(t, conn, "2026-11-20"), truthSet(f.truth, nil))
			var retries int
			conn.QueryRow(`SELECT retries FROM runs WHERE run_id = '2026-11-20'`).Scan(&retries)
			if faults.Latency == 0 && retries == 0 {
				t.Error("runs.retries = 0 under injected faults")
			}
		})
	}
}

func TestMemberAnswering500IsRecorded(t *testing.T) {
	probe := newFixture(t, sandbox.Config{})
	bad := probe.srv.Members()[2]
	code, db, stdout, stderr, f := runWithFaults(t, sandbox.Faults{FailMembers: map[string]int{bad: 500}})
	if code != exitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, exitPartial, stdout, stderr)
	}
	conn := openReadOnly(t, db)
	var status, errText string
	var retries int
	if err := conn.QueryRow(`SELECT status, error, retries FROM run_members WHERE merchant_id = ?`, bad).Scan(&status, &errText, &retries); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "500") || retries == 0 {
		t.Errorf("member %s: status %q, %d retries, error %q; want failed after retries with the 500", bad, status, retries, errText)
	}
	compareFindings(t, dbFindings(t, conn, "2026-11-20"), truthSet(f.truth, func(mid string) bool { return mid == bad }))
}

// TestTransactionShortfallFailsTheMember puts a proxy in front of the
// sandbox that overstates one member's Transaction Search totalCount, as
// paging over moving data could: the member fails loudly, never silently
// short.
func TestTransactionShortfallFailsTheMember(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	bad := f.srv.Members()[3]
	h := f.srv.Handler()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tss/v2/searches" || r.Header.Get("v-c-merchant-id") != bad {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Errorf("proxy: %v", err)
		}
		if n, ok := body["totalCount"].(float64); ok {
			body["totalCount"] = n + 5
		}
		b, _ := json.Marshal(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		w.Write(b)
	}))
	defer proxy.Close()
	f.url = proxy.URL
	work := t.TempDir()
	db := filepath.Join(work, "r.duckdb")
	code, stdout, stderr := runCLI(t, sandboxEnv, f.runArgs(db, filepath.Join(work, "out"))...)
	if code != exitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, exitPartial, stdout, stderr)
	}
	var status, errText string
	openReadOnly(t, db).QueryRow(`SELECT status, error FROM run_members WHERE merchant_id = ?`, bad).Scan(&status, &errText)
	if status != "failed" || !strings.Contains(errText, "totalCount") {
		t.Errorf("member %s: status %q error %q; want failed naming the totalCount shortfall", bad, status, errText)
	}
	if !bytes.Contains([]byte(stdout), []byte(bad)) {
		t.Errorf("the summary does not name the failed member:\n%s", stdout)
	}
}
