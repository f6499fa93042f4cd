package nights

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
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
		code, stdout, stderr := clitest.RunCLI(t, nil, "run", "--db", db, "--out", out, "--date", d)
		if code != cli.ExitOK {
			t.Fatalf("night %s exited %d\nstdout:\n%s\nstderr:\n%s", d, code, stdout, stderr)
		}
		truth := filepath.Join(out, "sandbox", "ground-truth-"+d+".json")
		var gt sandbox.GroundTruth
		clitest.ReadJSON(t, truth, &gt)
		want := clitest.TruthSet(&gt, nil)
		t.Logf("night %s: %d findings in its ground truth", d, len(want))
		if len(want) == 0 {
			t.Fatalf("night %s: the ground truth has no finding: the comparison would prove nothing", d)
		}
		code, sqlOut, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv",
			"--var", "ground_truth=@"+truth, "--file", filepath.Join("..", "..", "..", "docs", "compare-ground-truth.sql"))
		if w := "side,findings\nin the ground truth, not found,0\nfound, not in the ground truth,0\n"; code != cli.ExitOK ||
			strings.ReplaceAll(sqlOut, `"`, "") != w {
			t.Errorf("night %s: compare-ground-truth.sql: exit %d\n%s\n%s", d, code, sqlOut, stderr)
		}
		conn := clitest.OpenReadOnly(t, db)
		clitest.CompareFindings(t, clitest.DBFindings(t, conn, d), want)
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
	checkParquetAcrossNights(t, db, out)

	// Another world on the same database, or a night before its first, is
	// refused with what to do, before anything is written.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--date", "2026-11-19"}, "before 2026-11-20, the first night of this database's simulated world"},
		{[]string{"--date", "2026-11-25", "--sandbox-seed", "8"}, "another seed or scale is another world: give a new --db"},
	} {
		code, _, stderr := clitest.RunCLI(t, nil, append([]string{"run", "--db", db, "--out", out}, c.args...)...)
		if code == cli.ExitOK || !strings.Contains(stderr, c.want) {
			t.Errorf("run %v on the database of 2026-11-20's world: exit %d\n%s\nwant an error saying %q", c.args, code, stderr, c.want)
		}
	}
}

// TestScheduleRunNowOnTheSandboxNextNight: `reconcile schedule --run-now`
// on the embedded sandbox, as its help suggests, the night after a first
// run on the same database: its run (the day before it starts) reads the
// database's world moved on to that night, and finds that night's ground
// truth, entity by entity.
func TestScheduleRunNowOnTheSandboxNextNight(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	work := t.TempDir()
	db, out := filepath.Join(work, "reconcile.duckdb"), filepath.Join(work, "out")
	first := time.Now().UTC().AddDate(0, 0, -2).Format(time.DateOnly)
	if code, stdout, stderr := clitest.RunCLI(t, nil, "run", "--db", db, "--out", out, "--date", first); code != cli.ExitOK {
		t.Fatalf("first night %s exited %d\nstdout:\n%s\nstderr:\n%s", first, code, stdout, stderr)
	}

	var stdout, stderr clitest.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"schedule", "--cron", "@every 24h", "--run-now", "--db", db, "--out", out},
			cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	}()
	for !strings.Contains(stderr.String(), `"msg":"scheduled run finished"`) {
		select {
		case code := <-done:
			t.Fatalf("schedule exited %d on its own:\n%s", code, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("schedule exited %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"exit_code":0`) {
		t.Fatalf("the scheduled run failed:\n%s", stderr.String())
	}
	truths, err := filepath.Glob(filepath.Join(out, "sandbox", "ground-truth-*.json"))
	if err != nil || len(truths) != 2 {
		t.Fatalf("ground truths %v (%v), want the first night's and the scheduled run's", truths, err)
	}
	var gt sandbox.GroundTruth
	clitest.ReadJSON(t, truths[1], &gt) // the later night sorts last
	if gt.BusinessDate <= first || gt.WorldDate != first {
		t.Errorf("the scheduled run's ground truth is of %s in the world of %q, want a night after %s in that world", gt.BusinessDate, gt.WorldDate, first)
	}
	conn := clitest.OpenReadOnly(t, db)
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, gt.BusinessDate), clitest.TruthSet(&gt, nil))
	var open int
	if err := conn.QueryRow(`SELECT count(*) FROM findings WHERE run_id = ? AND state = 'open'`, gt.BusinessDate).Scan(&open); err != nil || open == 0 {
		t.Errorf("the scheduled night has %d findings open since the first (%v): not the same world moved on", open, err)
	}
}

// docSQL is the ```sql block of a doc that holds marker, with its out/
// paths under out.
func docSQL(t *testing.T, doc, marker, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```sql\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, marker) {
			return strings.ReplaceAll(block, "'out/", "'"+filepath.ToSlash(out)+"/")
		}
	}
	t.Fatalf("docs/%s has no SQL example %q", doc, marker)
	return ""
}

// checkParquetAcrossNights reads the Parquet datasets of every night as
// docs/workbook.md says to, with DuckDB: the findings per night equal the
// database's, and the payments and transactions, which a night's dataset
// holds again while they stay in its state or window, read once each (a
// plain union over the days counted them once per night).
func checkParquetAcrossNights(t *testing.T, db, out string) {
	t.Helper()
	conn := clitest.OpenReadOnly(t, db)
	defer conn.Close()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	perNight := func(q string) string {
		t.Helper()
		var s string
		if err := conn.QueryRow(`SELECT string_agg(d || ' ' || kind || ' ' || n, ', ' ORDER BY d, kind) FROM (` + q + `) AS x(d, kind, n)`).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	got := perNight(strings.TrimSuffix(strings.TrimSpace(docSQL(t, "workbook.md", "-- Findings per night and kind", out)), ";"))
	want := perNight(`SELECT CAST(business_date AS VARCHAR), kind, count(*) FROM findings_history GROUP BY ALL`)
	if got != want {
		t.Errorf("findings per night in Parquet, read as documented:\n%s\nin the database:\n%s", got, want)
	}
	for _, c := range []struct{ marker, table, key string }{
		{"-- Subscription payments as they stand now", "subscription_payments", "merchant_id, payment_id"},
		{"-- Transactions over all days", "transactions", "merchant_id, transaction_id"},
	} {
		q := strings.TrimSuffix(strings.TrimSpace(docSQL(t, "workbook.md", c.marker, out)), ";")
		rows := count(`SELECT count(*) FROM (` + q + `)`)
		distinct := count(`SELECT count(*) FROM (SELECT DISTINCT ` + c.key + ` FROM (` + q + `))`)
		inDB := count(`SELECT count(*) FROM ` + c.table)
		union := count(fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s/*/parquet/%s/*/*.parquet', hive_partitioning = true)`, filepath.ToSlash(out), c.table))
		if rows != inDB || distinct != rows {
			t.Errorf("%s over five nights, read as documented: %d rows (%d distinct), want the database's %d, each once", c.table, rows, distinct, inDB)
		}
		if union <= inDB {
			t.Errorf("%s: the plain union over the nights has %d rows for %d records: the test would not show the double counting", c.table, union, inDB)
		}
	}
}
