package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/sandbox"
)

// TestSandboxNightsMatchTheirGroundTruth runs five nights on the embedded
// sandbox with one database, as an evaluator does (`reconcile run --date`
// night after night). Each night reads the same simulated world further on
// (not a world generated afresh for the date), so each night's findings
// equal that night's ground truth entity by entity (the run's table and
// docs/compare-ground-truth.sql alike), the second and later nights carry
// findings open since an earlier one, and current_findings is the last
// night's.
func TestSandboxNightsMatchTheirGroundTruth(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	work := t.TempDir()
	db, out := filepath.Join(work, "reconcile.duckdb"), filepath.Join(work, "out")
	nights := []string{"2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"}
	for i, d := range nights {
		code, stdout, stderr := runCLI(t, nil, "run", "--db", db, "--out", out, "--date", d)
		if code != exitOK {
			t.Fatalf("night %s exited %d\nstdout:\n%s\nstderr:\n%s", d, code, stdout, stderr)
		}
		truth := filepath.Join(out, "sandbox", "ground-truth-"+d+".json")
		var gt sandbox.GroundTruth
		readJSON(t, truth, &gt)
		want := truthSet(&gt, nil)
		t.Logf("night %s: %d findings in its ground truth", d, len(want))
		if len(want) == 0 {
			t.Fatalf("night %s: the ground truth has no finding: the comparison would prove nothing", d)
		}
		code, sqlOut, stderr := runCLI(t, nil, "sql", "--db", db, "--format", "csv",
			"--var", "ground_truth=@"+truth, "--file", filepath.Join("..", "..", "docs", "compare-ground-truth.sql"))
		if w := "side,findings\nin the ground truth, not found,0\nfound, not in the ground truth,0\n"; code != exitOK ||
			strings.ReplaceAll(sqlOut, `"`, "") != w {
			t.Errorf("night %s: compare-ground-truth.sql: exit %d\n%s\n%s", d, code, sqlOut, stderr)
		}
		conn := openReadOnly(t, db)
		compareFindings(t, dbFindings(t, conn, d), want)
		var open, current int
		if err := conn.QueryRow(`SELECT count(*) FROM findings WHERE run_id = ? AND state = 'open'`, d).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if i > 0 && open == 0 {
			t.Errorf("night %s: no finding open since an earlier night: the world was generated again rather than moved on", d)
		}
		if err := conn.QueryRow(`SELECT count(*) FROM current_findings`).Scan(&current); err != nil {
			t.Fatal(err)
		}
		if current != len(want) {
			t.Errorf("night %s: current_findings holds %d rows, want the night's %d", d, current, len(want))
		}
		conn.Close() // the next night's run opens the database
	}
}
