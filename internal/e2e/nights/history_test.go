package nights

import (
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestHistoryBackfillFindings: a first night with --history reports no
// finding a full pull does not, and lacks only findings about the history
// of subscriptions it left to the backfill; re-runs pull at most
// --backfill-budget of those lists each and, once none is left (within
// ceil(left/budget) re-runs), report exactly the full pull's findings.
func TestHistoryBackfillFindings(t *testing.T) {
	t.Parallel() // its own sandbox, files and databases
	if testing.Short() {
		t.Skip("several whole runs: skipped with -short")
	}
	scale, err := sandbox.ParseScale(nightsScale)
	if err != nil {
		t.Fatal(err)
	}
	f := clitest.NewFixture(t, sandbox.Config{Scale: scale})
	work := t.TempDir()
	lean, full := filepath.Join(work, "lean.duckdb"), filepath.Join(work, "full.duckdb")
	date := clitest.TestDate.Format("2006-01-02")
	run := func(db string, extra ...string) {
		t.Helper()
		if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, "out"), extra...)...); code != cli.ExitOK {
			t.Fatalf("%v exited %d\n%s\n%s", extra, code, so, se)
		}
	}
	left := func() int {
		t.Helper()
		db := clitest.OpenReadOnly(t, lean)
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM subscriptions WHERE payments_pulled_at IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const budget = 2
	history := []string{"--history", "1h", "--backfill-budget", "2"}
	run(full, "--full-refresh")
	want := findingsOf(t, full, date)
	run(lean, history...)
	got := findingsOf(t, lean, date)
	rest := left()
	if rest == 0 {
		t.Fatal("--history left no payment list to the backfill: the test proves nothing")
	}
	historical := map[string]bool{"missed_cycle": true, "skipped_cycle": true, "interval_exceeds_12_months": true, "subscription_chargeback": true}
	for k := range got {
		if !want[k] {
			t.Errorf("first night with --history reports %+v, which the full pull does not", k)
		}
	}
	for k := range want {
		if !got[k] && !historical[k.Kind] {
			t.Errorf("first night with --history lacks %+v, which is not about a subscription's history", k)
		}
	}
	t.Logf("--history left %d lists; the first night reported %d of the full pull's %d findings", rest, len(got), len(want))
	for n := 1; left() > 0; n++ {
		if n > (rest+budget-1)/budget {
			t.Fatalf("%d of %d lists still left after %d re-runs of %d", left(), rest, n-1, budget)
		}
		before := left()
		run(lean, append(history, "--force")...)
		if taken := before - left(); taken != min(budget, before) {
			t.Errorf("re-run %d took up %d of the %d lists left, want %d", n, taken, before, min(budget, before))
		}
	}
	clitest.CompareFindings(t, findingsOf(t, lean, date), want)
}
