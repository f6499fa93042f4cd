package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports/reportstest"
	"github.com/reconcile/reconcile/sandbox"
)

// mergeScale is the sandbox of the merge tests: enough members that each
// of four shards takes several, small enough to run ten times.
const mergeScale = "members=24,subscriptions=10,groups=3"

// runShards runs the shards i/n of date against f, each with its own
// database and output folder (work/db/shard<i>.duckdb, work/shard=<i>), as
// the pods of an Indexed Job would, and returns the glob of their output
// folders.
func runShards(t *testing.T, f *fixture, work, date string, n int, extra ...string) string {
	t.Helper()
	for i := range n {
		db := filepath.Join(work, "db", fmt.Sprintf("shard%d.duckdb", i))
		out := filepath.Join(work, fmt.Sprintf("shard=%d", i))
		args := append(f.runArgs(db, out, "--date", date, "--shard", fmt.Sprintf("%d/%d", i, n)), extra...)
		if code, so, se := runCLI(t, sandboxEnv, args...); code != exitOK {
			t.Fatalf("shard %d/%d of %s exited %d\n%s\n%s", i, n, date, code, so, se)
		}
	}
	return filepath.Join(work, "shard=*")
}

// TestMergeEqualsFullRun runs the four shards of a date and one full run
// against one sandbox, on two business dates (the billing engine a day
// further on the second, so findings are new, still open and resolved, and
// subscriptions change), merges the shards each day and compares the
// merged publication with the full run's: every table's rows (the date's
// rows of the run's tables), the workbook cell by cell (the golden dump,
// but the cells listed in runIdentityCells), the manifest's counts, and
// every Parquet dataset's rows read back from its files. It also checks
// that the merge wrote nothing into the shards' folders.
func TestMergeEqualsFullRun(t *testing.T) {
	scale, _ := sandbox.ParseScale(mergeScale)
	f := newFixture(t, sandbox.Config{Scale: scale})
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	fullDB, fullOut := filepath.Join(work, "db", "full.duckdb"), filepath.Join(work, "full")
	merged := filepath.Join(work, "merged")
	for day, date := range []string{"2026-11-20", "2026-11-21"} {
		if day > 0 {
			if _, err := f.srv.AdvanceClock(24 * time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if code, so, se := runCLI(t, sandboxEnv, f.runArgs(fullDB, fullOut, "--date", date)...); code != exitOK {
			t.Fatalf("full run of %s exited %d\n%s\n%s", date, code, so, se)
		}
		from := runShards(t, f, work, date, 4)
		before := tree(t, work)
		code, stdout, stderr := runCLI(t, nil, "merge", "--date", date, "--from", from, "--out", merged)
		if code != exitOK {
			t.Fatalf("merge of %s exited %d\n%s\n%s", date, code, stdout, stderr)
		}
		for _, d := range diffTrees(before, tree(t, work)) {
			if !strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(d, "written: "), "removed: "), merged) {
				t.Errorf("the merge changed a file outside its --out: %s", d)
			}
		}
		if !strings.Contains(stdout, "merge "+date+" (ok): 4 of 4 shards, 24 of 24 members reconciled") {
			t.Errorf("merge summary:\n%s", stdout)
		}
		t.Run(date, func(t *testing.T) {
			full, mergedDay := filepath.Join(fullOut, date), filepath.Join(merged, date)
			compareTables(t, date, filepath.Join(full, "reconcile-"+date+".duckdb"), filepath.Join(mergedDay, "reconcile-"+date+".duckdb"))
			compareWorkbooks(t, filepath.Join(full, "reconcile-"+date+".xlsx"), filepath.Join(mergedDay, "reconcile-"+date+".xlsx"))
			compareManifests(t, full, mergedDay, 4)
			compareParquet(t, full, mergedDay)
			if link, err := os.Readlink(filepath.Join(merged, outputs.CurrentName)); err != nil || link != filepath.Join(date, "reconcile-"+date+".duckdb") {
				t.Errorf("merged current.duckdb -> %q (%v), want the merged snapshot of %s", link, err, date)
			}
			states := findingStates(t, filepath.Join(mergedDay, "reconcile-"+date+".duckdb"), date)
			if day == 1 && (states["new"] == 0 || states["open"] == 0 || states["resolved"] == 0) {
				t.Errorf("day 2's merged findings by state %v: new, open and resolved should all occur, else this test proves nothing of the states", states)
			}
		})
	}
	leftovers, _ := filepath.Glob(filepath.Join(merged, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("the merge left %v in its output folder", leftovers)
	}
}

// runIdentityCells are the workbook cells of a merged publication that
// say which process ran, not what it found, and so differ from a full
// run's: the Summary's "Finished (UTC)" (the last shard's end, not the
// full run's). Nothing else may differ.
var runIdentityCells = []string{"Finished (UTC)"}

// compareWorkbooks compares the golden dumps of two workbooks line by
// line, but for the values of runIdentityCells.
func compareWorkbooks(t *testing.T, fullPath, mergedPath string) {
	t.Helper()
	full, merged := identityFree(t, reportstest.DumpWorkbook(t, fullPath)), identityFree(t, reportstest.DumpWorkbook(t, mergedPath))
	if len(full) < 500 {
		t.Fatalf("the full run's workbook dumps to %d lines: not a workbook worth comparing", len(full))
	}
	for i := range max(len(full), len(merged)) {
		var a, b string
		if i < len(full) {
			a = full[i]
		}
		if i < len(merged) {
			b = merged[i]
		}
		if a != b {
			t.Errorf("the merged workbook differs from the full run's at dump line %d:\nfull:   %s\nmerged: %s", i+1, a, b)
			return
		}
	}
}

// identityFree is a workbook dump's lines with the value cell of each of
// runIdentityCells' labels on the Summary replaced by a marker; it fails
// when a label is not there (the exclusion would then hide nothing).
func identityFree(t *testing.T, dump string) []string {
	t.Helper()
	lines := strings.Split(dump, "\n")
	sheet := ""
	for _, label := range runIdentityCells {
		row := ""
		for _, l := range lines {
			if strings.HasPrefix(l, "== sheet ") {
				sheet = l
			}
			if m := regexp.MustCompile(`^A(\d+) text "` + regexp.QuoteMeta(label) + `"`).FindStringSubmatch(l); m != nil && sheet == `== sheet "Summary"` {
				row = m[1]
			}
		}
		if row == "" {
			t.Fatalf("no %q on the Summary", label)
		}
		for i, l := range lines {
			if strings.HasPrefix(l, "B"+row+" ") {
				lines[i] = "B" + row + " (run identity: " + label + ")"
			}
		}
	}
	return lines
}

// runTables are the tables whose rows belong to a run: a merged
// publication holds the date's rows of each (its shards' history stays in
// their own snapshots), so only those are compared.
var runTables = map[string]bool{
	"run_members": true, "findings": true, "interchange_at_risk": true, "subscription_status_log": true,
	"subscription_recoveries": true, "delinquency_ageing": true, "subscription_metrics": true, "billing_match": true,
}

// compareTables compares every table of the merged snapshot with the full
// run's, row by row, without the columns that say when or by which process
// a row was written (volatile, and runs.shard): the run's tables on the
// date's rows, runs on every run both hold, the others whole.
func compareTables(t *testing.T, date, fullPath, mergedPath string) {
	t.Helper()
	full, merged := openReadOnly(t, fullPath), openReadOnly(t, mergedPath)
	tables := queryList(t, merged, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`)
	if want := queryList(t, full, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`); !slices.Equal(tables, want) {
		t.Fatalf("merged snapshot's tables %v, full run's %v", tables, want)
	}
	for _, table := range tables {
		var cols []string
		for _, c := range queryList(t, merged, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position`, table) {
			if !volatile[c] && !volatile[table+"."+c] && table+"."+c != "runs.shard" {
				cols = append(cols, `"`+c+`"`)
			}
		}
		where := ""
		switch {
		case runTables[table]:
			where = fmt.Sprintf(" WHERE run_id = '%s'", date)
		case table == "runs":
			where = fmt.Sprintf(" WHERE run_id <= '%s'", date)
		}
		q := fmt.Sprintf(`SELECT CAST(r AS VARCHAR) FROM (SELECT %s FROM %s%s) r ORDER BY 1`, strings.Join(cols, ", "), table, where)
		a, b := queryList(t, full, q), queryList(t, merged, q)
		if table == "findings" && len(a) == 0 {
			t.Errorf("the full run of %s has no findings: nothing compared", date)
		}
		if slices.Equal(a, b) {
			continue
		}
		onlyFull, onlyMerged := setDiff(a, b), setDiff(b, a)
		t.Errorf("table %s: %d rows in the full run, %d merged; only in the full run (%d): %s; only merged (%d): %s",
			table, len(a), len(b), len(onlyFull), first(onlyFull, 3), len(onlyMerged), first(onlyMerged, 3))
	}
}

// compareManifests compares what the two manifests count, and checks the
// merged one lists n shards, each ok and read from its folder.
func compareManifests(t *testing.T, fullDir, mergedDir string, n int) {
	t.Helper()
	full, _, err := outputs.ReadManifest(fullDir)
	if err != nil {
		t.Fatal(err)
	}
	merged, _, err := outputs.ReadManifest(mergedDir)
	if err != nil {
		t.Fatal(err)
	}
	for what, pair := range map[string][2]any{
		"status":          {full.Status, merged.Status},
		"source":          {full.Source, merged.Source},
		"members":         {full.Members, merged.Members},
		"rowCounts":       {full.RowCounts, merged.RowCounts},
		"findingsByKind":  {full.FindingsByKind, merged.FindingsByKind},
		"findingsByState": {full.FindingsByState, merged.FindingsByState},
		"previousRun":     {full.PreviousRun, merged.PreviousRun},
		"window":          {full.WindowStart + full.WindowEnd, merged.WindowStart + merged.WindowEnd},
		"settings":        {full.Settings, merged.Settings},
	} {
		if fmt.Sprint(pair[0]) != fmt.Sprint(pair[1]) {
			t.Errorf("manifest %s: full run %v, merged %v", what, pair[0], pair[1])
		}
	}
	if merged.Shard != "" || len(merged.Shards) != n {
		t.Fatalf("merged manifest: shard %q, %d shards listed, want none and %d", merged.Shard, len(merged.Shards), n)
	}
	for i, s := range merged.Shards {
		if s.Shard != fmt.Sprintf("%d/%d", i, n) || s.Status != "ok" || !strings.HasSuffix(filepath.Dir(s.Folder), fmt.Sprintf("shard=%d", i)) || len(s.ManifestSHA256) != 64 {
			t.Errorf("merged manifest's shard %d: %+v", i, s)
		}
	}
}

// compareParquet counts each dataset's rows in its Parquet files under both
// folders, and checks them against the merged manifest's counts.
func compareParquet(t *testing.T, fullDir, mergedDir string) {
	t.Helper()
	m, _, err := outputs.ReadManifest(mergedDir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(dir, name string) int64 {
		var n int64
		glob := filepath.Join(dir, "parquet", name, "**", "*.parquet")
		if err := db.QueryRow(`SELECT count(*) FROM read_parquet(?, hive_partitioning = true)`, glob).Scan(&n); err != nil {
			t.Fatalf("read %s: %v", glob, err)
		}
		return n
	}
	entries, err := os.ReadDir(filepath.Join(fullDir, "parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(m.RowCounts) {
		t.Errorf("%d datasets in the full run's folder, %d in the merged manifest", len(entries), len(m.RowCounts))
	}
	for _, e := range entries {
		a, b := count(fullDir, e.Name()), count(mergedDir, e.Name())
		if a != b || b != m.RowCounts[e.Name()] {
			t.Errorf("dataset %s: %d rows in the full run's files, %d in the merged files, %d in the merged manifest", e.Name(), a, b, m.RowCounts[e.Name()])
		}
	}
}

func findingStates(t *testing.T, path, runID string) map[string]int {
	t.Helper()
	db := openReadOnly(t, path)
	out := map[string]int{}
	for _, s := range queryList(t, db, `SELECT state FROM findings WHERE run_id = ?`, runID) {
		out[s]++
	}
	return out
}

func queryList(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// setDiff is the rows of a not in b (as multisets).
func setDiff(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func first(list []string, n int) string {
	if len(list) > n {
		return strings.Join(list[:n], " | ") + " | ..."
	}
	return strings.Join(list, " | ")
}
