package faults

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// The fault tests run the whole CLI against a sandbox whose fault flags are
// on, and check what users rely on: transient faults are retried until the
// run is exact, and a member that keeps failing is recorded while the rest
// are reported.

func runWithFaults(t *testing.T, faults sandbox.Faults) (code int, db, stdout, stderr string, f *clitest.Fixture) {
	t.Helper()
	f = clitest.NewFixture(t, sandbox.Config{Faults: faults})
	work := t.TempDir()
	db = filepath.Join(work, "r.duckdb")
	code, stdout, stderr = clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, "out"))...)
	return code, db, stdout, stderr, f
}

func TestTransientFaultsAreRetried(t *testing.T) {
	t.Parallel() // each case its own sandbox, files and database
	cases := map[string]sandbox.Faults{
		// Each 429 holds every request for its Retry-After (a second): at
		// 0.06 of ~150 requests, ~9 holds, and a run with none about one
		// time in 10,000 (0.94^150).
		"429 storm with Retry-After": {RateLimitRate: 0.06, RetryAfter: time.Second},
		"5xx":                        {ErrorRate: 0.1},
		"truncated bodies":           {TruncateRate: 0.1},
		"slow answers":               {Latency: 40 * time.Millisecond, Jitter: 20 * time.Millisecond},
	}
	// The cases run one after another in this test's slot: parallel
	// subtests queue for a slot behind every test already waiting, so the
	// package's last seconds were theirs alone, the 429 storm's holds
	// among them.
	for name, faults := range cases {
		t.Run(name, func(t *testing.T) {
			code, db, stdout, stderr, f := runWithFaults(t, faults)
			if code != cli.ExitOK {
				t.Fatalf("run exited %d\n%s\n%s", code, stdout, stderr)
			}
			conn := clitest.OpenReadOnly(t, db)
			clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, nil))
			var retries int
			conn.QueryRow(`SELECT retries FROM runs WHERE run_id = '2026-11-20'`).Scan(&retries)
			if faults.Latency == 0 && retries == 0 {
				t.Error("runs.retries = 0 under injected faults")
			}
		})
	}
}

func TestMemberAnswering500IsRecorded(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	probe := clitest.NewFixture(t, sandbox.Config{})
	bad := probe.Srv.Members()[2]
	code, db, stdout, stderr, f := runWithFaults(t, sandbox.Faults{FailMembers: map[string]int{bad: 500}})
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var status, errText string
	var retries int
	if err := conn.QueryRow(`SELECT status, error, retries FROM run_members WHERE merchant_id = ?`, bad).Scan(&status, &errText, &retries); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "500") || retries == 0 {
		t.Errorf("member %s: status %q, %d retries, error %q; want failed after retries with the 500", bad, status, retries, errText)
	}
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, func(mid string) bool { return mid == bad }))
}
