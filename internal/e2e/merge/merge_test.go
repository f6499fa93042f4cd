package merge

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/notify/notifytest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports"
	"github.com/reconcile/reconcile/reports/reportstest"
)

// mergeAlarms are the alarm rules of TestMergeEqualsFullRun: every kind
// with a finding raises kind_count, and the trend rules read the history
// (a merged database without the earlier runs' findings would see a
// median of 0, and raise them all).
const mergeAlarms = `members-lost: true
failed-share: 0.5
min-history: 1
kinds:
  "*":
    count: 0
    count-vs-median: 3
`

// TestMergeEqualsFullRun runs the four shards of a date and one full run
// against one sandbox, on two business dates (the billing engine a day
// further on the second, so findings are new, still open and resolved, and
// subscriptions change), merges the shards each day and compares the
// merged publication with the full run's: every table's rows (the date's
// rows of the run's tables), the workbook cell by cell (the golden dump,
// but the cells listed in runIdentityCells), the manifest's counts, and
// every Parquet dataset's rows read back from its files. It also checks
// that the merge wrote nothing into the shards' folders. The full run and
// the merge (not the shards) run with --alarms, --notify (a local webhook
// receiver) and --metrics-push: the merge's alarms, checked over the
// merged database and its history, are the full run's (in the Summary and
// the manifest, compared above), and its one digest has the full run's
// numbers, which are the merged publication's (checkMergeNotice).
func TestMergeEqualsFullRun(t *testing.T) {
	t.Parallel() // its own copy of the shared shards' files and databases, and their sandbox
	scale, _ := sandbox.ParseScale(clitest.MergeScale)
	// The first day's four shards are the ones TestShardsMergeToOneRun
	// reads, run once (SharedMergeShards); this test has their sandbox to
	// itself (the other reads only its members and ground truth).
	shards := clitest.SharedMergeShards(t)
	f := shards.F
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook, push := notifytest.StartHook(t), clitest.StartPushReceiver(t)
	notice := []string{"--alarms", clitest.WriteText(t, "alarms.yaml", mergeAlarms),
		"--notify", clitest.WriteText(t, "notify.yaml", "webhook:\n  url-file: "+clitest.WriteText(t, "hook-url", hook.URL+"/hook")+"\n"),
		"--metrics-push", push.URL}
	fullDB, fullOut := filepath.Join(work, "db", "full.duckdb"), filepath.Join(work, "full")
	merged := filepath.Join(work, "merged")
	for day, date := range []string{"2026-11-20", "2026-11-21"} {
		var acks []string
		if day > 0 {
			if _, err := f.Srv.AdvanceClock(24 * time.Hour); err != nil {
				t.Fatal(err)
			}
			acks = []string{"--acknowledgements", acknowledgeSome(t, filepath.Join(fullOut, "2026-11-20", "reconcile-2026-11-20.duckdb"))}
		}
		args := append(append([]string{"--date", date}, notice...), acks...)
		if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(fullDB, fullOut, args...)...); code != cli.ExitOK {
			t.Fatalf("full run of %s exited %d\n%s\n%s", date, code, so, se)
		}
		fullDigest := lastPost(t, hook, 2*day+1)
		var from string
		if day == 0 {
			for i, code := range shards.Codes {
				if code != cli.ExitOK {
					t.Fatalf("shard %d/4 of %s exited %d, want %d\n%s", i, date, code, cli.ExitOK, shards.Out[i])
				}
			}
			from = shards.CopyTo(t, work)
		} else {
			from = clitest.RunShards(t, f, work, date, 4, clitest.AllOK, acks...)
		}
		before := clitest.Tree(t, work)
		code, stdout, stderr := clitest.RunCLI(t, nil, append([]string{"merge", "--date", date, "--from", from, "--out", merged}, notice...)...)
		if code != cli.ExitOK {
			t.Fatalf("merge of %s exited %d\n%s\n%s", date, code, stdout, stderr)
		}
		if strings.Contains(stderr, "not delivered") || strings.Contains(stderr, "not pushed") {
			t.Errorf("merge of %s: a delivery failed:\n%s", date, stderr)
		}
		checkMergeNotice(t, filepath.Join(merged, date), fullDigest, lastPost(t, hook, 2*day+2), push, day > 0)
		for _, d := range clitest.DiffTrees(before, clitest.Tree(t, work)) {
			if !strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(d, "written: "), "removed: "), merged) {
				t.Errorf("the merge changed a file outside its --out: %s", d)
			}
		}
		if !strings.Contains(stdout, fmt.Sprintf("merge %s (ok): 4 of 4 shards, %d of %d members reconciled", date, scale.Members, scale.Members)) {
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
			if day == 1 && (states["new"] == 0 || states["open"] == 0 || states["resolved"] == 0 || states["acknowledged"] == 0) {
				t.Errorf("day 2's merged findings by state %v: new, open, resolved and acknowledged should all occur, else this test proves nothing of the states", states)
			}
		})
	}
	leftovers, _ := filepath.Glob(filepath.Join(merged, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("the merge left %v in its output folder", leftovers)
	}
}

// acknowledgeSome writes an acknowledgements file naming five findings of
// the snapshot at path reported new, of five kinds (one at least should
// still be open the next day), and returns its path.
func acknowledgeSome(t *testing.T, path string) string {
	t.Helper()
	rows := queryList(t, clitest.OpenReadOnly(t, path), `
		SELECT format('  - kind: {}
    merchant: "{}"
    entity: "{}"
    reason: known
    owner: Finance
    until: 2026-12-31
', kind, merchant_id, entity_id)
		FROM (SELECT DISTINCT ON (kind) kind, merchant_id, entity_id FROM findings
		      WHERE state = 'new' ORDER BY kind, merchant_id, entity_id)
		ORDER BY 1 LIMIT 5`)
	if len(rows) == 0 {
		t.Fatal("no finding to acknowledge")
	}
	return clitest.WriteText(t, "acknowledgements.yaml", "acknowledgements:\n"+strings.Join(rows, ""))
}

// lastPost is the last JSON body a webhook receiver took, checking that
// it took n in all (one digest per run and per merge).
func lastPost(t *testing.T, hook *notifytest.HookReceiver, n int) map[string]any {
	t.Helper()
	posts, _ := hook.Received()
	if len(posts) != n {
		t.Fatalf("the webhook received %d digests, want %d", len(posts), n)
	}
	return posts[n-1]
}

// checkMergeNotice checks what the merge into dir told: its digest has
// the full run's numbers but the workbook's path, and they are the merged
// manifest's; its metrics were pushed as the merge's own group
// (shard="merged") with the merged run's members and alarms, every alarm
// the manifest lists raised. On the second day (history) some kind with
// findings has its trend rule clear, which a merge without the earlier
// runs' findings (a median of 0) could not.
func checkMergeNotice(t *testing.T, dir string, full, merged map[string]any, push *clitest.PushReceiver, history bool) {
	t.Helper()
	m, _, err := outputs.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	fullNums, _ := full["reconcile"].(map[string]any)
	nums, _ := merged["reconcile"].(map[string]any)
	if nums["workbook"] != filepath.Join(dir, "reconcile-"+m.RunID+".xlsx") {
		t.Errorf("the merge's digest names the workbook %v", nums["workbook"])
	}
	for _, k := range []string{"businessDate", "status", "simulated", "members", "membersFailed", "newFindings",
		"openFindings", "resolvedFindings", "acknowledgedFindings", "alarms"} {
		if fmt.Sprint(nums[k]) != fmt.Sprint(fullNums[k]) {
			t.Errorf("the merge's digest says %s %v, the full run's %v", k, nums[k], fullNums[k])
		}
	}
	sum := func(state string) (n int64) {
		for _, c := range m.FindingsByState[state] {
			n += c
		}
		return n
	}
	for k, want := range map[string]any{"status": m.Status, "members": m.Members["ok"] + m.Members["failed"],
		"membersFailed": m.Members["failed"], "newFindings": sum("new"), "openFindings": sum("open"),
		"resolvedFindings": sum("resolved"), "alarms": len(m.Alarms)} {
		got := nums[k]
		if list, ok := got.([]any); ok {
			got = len(list)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the merge's digest says %s %v, its manifest %v", k, got, want)
		}
	}
	if len(m.Alarms) == 0 {
		t.Errorf("the merged manifest lists no alarm: kind_count should be raised for every kind with findings")
	}
	if _, path, _, _ := push.Last(); path != "/metrics/job/reconcile/shard@base64/bWVyZ2Vk" {
		t.Errorf("the merge pushed to %s, want its own group shard=merged", path)
	}
	samples := push.Samples(t)
	if v, _ := clitest.PromValue(samples, "reconcile_members", "shard", "merged", "status", "ok"); int(v) != m.Members["ok"] {
		t.Errorf("pushed reconcile_members{ok} = %v, the manifest %d", v, m.Members["ok"])
	}
	for _, a := range m.Alarms {
		labels := []string{"name", a.Name}
		if a.Kind != "" {
			labels = append(labels, "kind", a.Kind)
		}
		if a.Currency != "" {
			labels = append(labels, "currency", a.Currency)
		}
		if v, ok := clitest.PromValue(samples, "reconcile_alarm", labels...); !ok || v != 1 {
			t.Errorf("pushed reconcile_alarm%v = %v (%v), want 1", labels, v, ok)
		}
	}
	if !history {
		return
	}
	clear := false
	for kind, n := range m.FindingsByKind {
		if v, ok := clitest.PromValue(samples, "reconcile_alarm", "name", "kind_count_trend", "kind", kind); n > 0 && ok && v == 0 {
			clear = true
		}
	}
	if !clear {
		t.Errorf("no kind with findings has its trend alarm clear: the merged database lacks the history")
	}
}

// runIdentityCells are the workbook cells of a merged publication that
// say which process ran, not what it found, and so differ from a full
// run's: the Summary's "Finished (UTC)" (the last shard's end, not the
// full run's). Nothing else may differ, but for correlationIDs and
// runIdentityColumns.
var runIdentityCells = []string{"Finished (UTC)"}

// runIdentityColumns are the columns, by sheet and header, whose cells
// say when a process made a change: the Acknowledgements sheet's times an
// acknowledgement was made and changed (the shard's run, not the full
// run, applied the file).
var runIdentityColumns = map[string][]string{"Acknowledgements": {"Made (UTC)", "Changed (UTC)", "When (UTC)"}}

// correlationIDs are the platform's request ids quoted in a failed
// member's error: one per request, so a shard's request and the full
// run's never share one. Compared as "(correlation id ...)".
var correlationIDs = regexp.MustCompile(`correlation id [0-9a-fA-F-]{36}`)

func withoutCorrelationIDs(s string) string {
	return correlationIDs.ReplaceAllString(s, "correlation id ...")
}

// compareWorkbooks compares the golden dumps of two workbooks line by
// line, but for the values of runIdentityCells.
func compareWorkbooks(t *testing.T, fullPath, mergedPath string) {
	t.Helper()
	full := identityFree(t, withoutCorrelationIDs(reportstest.DumpWorkbook(t, fullPath)))
	merged := identityFree(t, withoutCorrelationIDs(reportstest.DumpWorkbook(t, mergedPath)))
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
	header := regexp.MustCompile(`^([A-Z]+)(\d+) text "([^"]*)"`)
	cell := regexp.MustCompile(`^([A-Z]+)(\d+) `)
	found := map[string]bool{}
	columns := map[string]int{} // column letter -> its header's row, in the sheet at hand
	for i, l := range lines {
		if name, ok := strings.CutPrefix(l, "== sheet "); ok {
			sheet, columns = strings.Trim(name, `"`), map[string]int{}
			continue
		}
		if m := header.FindStringSubmatch(l); m != nil && slices.Contains(runIdentityColumns[sheet], m[3]) {
			row, _ := strconv.Atoi(m[2])
			columns[m[1]] = row
			found[m[3]] = true
			continue
		}
		if m := cell.FindStringSubmatch(l); m != nil {
			if head, ok := columns[m[1]]; ok {
				if row, _ := strconv.Atoi(m[2]); row > head {
					lines[i] = m[1] + m[2] + " (run identity)"
				}
			}
		}
	}
	for _, labels := range runIdentityColumns {
		for _, label := range labels {
			if !found[label] {
				t.Fatalf("no column %q in the workbook", label)
			}
		}
	}
	return lines
}

// runTables are the tables whose rows belong to a run: a merged
// publication holds the date's rows of each (its shards' history stays in
// their own snapshots), so only those are compared. run_members and
// findings are not among them: the merge copies every run's (the alarms'
// history), and they are compared whole.
var runTables = map[string]bool{
	"interchange_at_risk": true, "subscription_status_log": true,
	"subscription_recoveries": true, "delinquency_ageing": true, "subscription_metrics": true, "billing_match": true,
}

// compareTables compares every table of the merged snapshot with the full
// run's, row by row, without the columns that say when or by which process
// a row was written (volatile, and runs.shard): the run's tables on the
// date's rows, runs on every run both hold, the others whole.
func compareTables(t *testing.T, date, fullPath, mergedPath string) {
	t.Helper()
	full, merged := clitest.OpenReadOnly(t, fullPath), clitest.OpenReadOnly(t, mergedPath)
	tables := queryList(t, merged, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`)
	if want := queryList(t, full, `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1`); !slices.Equal(tables, want) {
		t.Fatalf("merged snapshot's tables %v, full run's %v", tables, want)
	}
	for _, table := range tables {
		var cols []string
		for _, c := range queryList(t, merged, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position`, table) {
			if !clitest.Volatile[c] && !clitest.Volatile[table+"."+c] && table+"."+c != "runs.shard" {
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
		for i := range a {
			a[i] = withoutCorrelationIDs(a[i])
		}
		for i := range b {
			b[i] = withoutCorrelationIDs(b[i])
		}
		slices.Sort(a)
		slices.Sort(b)
		if table == "findings" && len(a) == 0 {
			t.Errorf("the full run of %s has no findings: nothing compared", date)
		}
		if slices.Equal(a, b) {
			continue
		}
		onlyFull, onlyMerged := setDiff(a, b), setDiff(b, a)
		t.Errorf("table %s: %d rows in the full run, %d merged; only in the full run (%d): %s; only merged (%d): %s",
			table, len(a), len(b), len(onlyFull), clitest.First(onlyFull, 3), len(onlyMerged), clitest.First(onlyMerged, 3))
	}
}

// compareManifests compares what the two manifests count, and checks the
// merged one lists n shards, each read from its folder with the status
// and manifest found there.
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
		"alarms":          {full.Alarms, merged.Alarms},
	} {
		if fmt.Sprint(pair[0]) != fmt.Sprint(pair[1]) {
			t.Errorf("manifest %s: full run %v, merged %v", what, pair[0], pair[1])
		}
	}
	if merged.Shard != "" || len(merged.Shards) != n {
		t.Fatalf("merged manifest: shard %q, %d shards listed, want none and %d", merged.Shard, len(merged.Shards), n)
	}
	for i, s := range merged.Shards {
		own, sum, err := outputs.ReadManifest(s.Folder)
		if err != nil || s.Shard != fmt.Sprintf("%d/%d", i, n) || own.Shard != s.Shard || s.Status != own.Status ||
			s.ManifestSHA256 != sum || !strings.HasSuffix(filepath.Dir(s.Folder), fmt.Sprintf("shard=%d", i)) {
			t.Errorf("merged manifest's shard %d: %+v; its folder's manifest: shard %q, status %q, SHA-256 %s (%v)", i, s, own.Shard, own.Status, sum, err)
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
	db := clitest.OpenReadOnly(t, path)
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

// mergeCase is a tree of shard folders made for one case of
// TestMergeRefusesWhatIsNoRun from the shards published once.
type mergeCase struct {
	t    *testing.T
	dir  string // the case's folder: shard=<i> folders, and merged/
	date string
}

// copyShard copies the publication of the date of base's shard folder
// name into the case as folder as (symbolic links, current.duckdb, left
// out).
func (c *mergeCase) copyShard(base, name, as string) {
	c.t.Helper()
	src, dst := filepath.Join(base, name, c.date), filepath.Join(c.dir, as, c.date)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		}
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// merge runs reconcile merge over the case's shard folders into its
// merged/ folder, and checks that it wrote nothing into them.
func (c *mergeCase) merge(extra ...string) (int, string, string) {
	c.t.Helper()
	before := clitest.Tree(c.t, c.dir)
	args := append([]string{"merge", "--date", c.date, "--from", filepath.Join(c.dir, "shard=*"), "--out", c.out()}, extra...)
	code, stdout, stderr := clitest.RunCLI(c.t, nil, args...)
	for _, d := range clitest.DiffTrees(before, clitest.Tree(c.t, c.dir)) {
		if !strings.Contains(d, string(filepath.Separator)+"merged") {
			c.t.Errorf("the merge changed a shard's folder: %s", d)
		}
	}
	return code, stdout, stderr
}

func (c *mergeCase) out() string { return filepath.Join(c.dir, "merged") }

// refused runs the merge and checks that it exits 1 with a message
// holding each of want, and publishes nothing: no date folder, no
// current.duckdb, no temp file left in its output folder.
func (c *mergeCase) refused(want ...string) {
	c.t.Helper()
	code, stdout, stderr := c.merge()
	if code != cli.ExitFailed {
		c.t.Fatalf("merge exited %d, want 1 (refused)\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, clitest.Printed(w)) {
			c.t.Errorf("the refusal does not say %q:\n%s", w, stderr)
		}
	}
	entries, _ := os.ReadDir(c.out())
	for _, e := range entries {
		c.t.Errorf("a refused merge left %s in its output folder", e.Name())
	}
}

// TestMergeRefusesWhatIsNoRun publishes the four shards of a date once
// (one of them partial: a member the sandbox fails) and merges trees made
// from them: a merge of shards that do not make one run is refused with a
// message naming what is wrong, and publishes nothing: a shard missing,
// one whose run failed, shards of different n, one run with another
// --lookback, a snapshot that is not what its manifest says, a shard
// published twice, a snapshot with a view in place of a table, an --out
// inside a shard's folder, a --from that matches nothing. With
// --allow-partial the missing shard's members are failed members of a
// partial run, in the Summary and the manifest. And the four shards,
// one partial, merge to what a full run with that member failing publishes.
func TestMergeRefusesWhatIsNoRun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	const date = "2026-11-20"
	scale, _ := sandbox.ParseScale("members=8,subscriptions=4,groups=2")
	probe, err := sandbox.New(sandbox.Config{Scale: scale, BusinessDate: clitest.TestDate, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	bad := probe.Members()[len(probe.Members())-1] // the last: no BIN lookup acts for it (they act for the lowest MID that carries the BIN)
	f := clitest.NewFixture(t, sandbox.Config{Scale: scale, Faults: sandbox.Faults{FailMembers: map[string]int{bad: 403}}})
	owned := map[int][]string{}
	for _, mid := range f.Srv.Members() {
		for i := range 4 {
			if (groups.Shard{Index: i, Count: 4}).Owns(mid) {
				owned[i] = append(owned[i], mid)
			}
		}
	}
	badShard, gone := -1, -1
	for i := range 4 {
		if slices.Contains(owned[i], bad) {
			badShard = i
		}
	}
	for i := range 4 {
		if i != badShard && len(owned[i]) > 0 {
			gone = i
			break
		}
	}
	if badShard < 0 || gone < 0 {
		t.Fatalf("members by shard %v: no shard to leave out besides the failing member's", owned)
	}
	work := t.TempDir()
	base := filepath.Join(work, "base")
	clitest.RunShards(t, f, base, date, 4, func(i int) int {
		if i == badShard {
			return cli.ExitPartial
		}
		return cli.ExitOK
	})
	newCase := func(t *testing.T, skip ...int) *mergeCase {
		c := &mergeCase{t: t, dir: t.TempDir(), date: date}
		for i := range 4 {
			if !slices.Contains(skip, i) {
				name := fmt.Sprintf("shard=%d", i)
				c.copyShard(base, name, name)
			}
		}
		return c
	}
	goneShard := fmt.Sprintf("%d/4", gone)

	t.Run("missing", func(t *testing.T) {
		newCase(t, gone).refused("shards missing for "+date, goneShard+": no publication for "+date, "--allow-partial")
	})
	t.Run("missing, told", func(t *testing.T) {
		// A refused merge tells --notify's recipients, and its metrics say it failed.
		hook, push := notifytest.StartHook(t), clitest.StartPushReceiver(t)
		notifyFile := clitest.WriteText(t, "notify.yaml", "webhook:\n  url-file: "+clitest.WriteText(t, "hook-url", hook.URL+"/hook")+"\n")
		code, stdout, stderr := newCase(t, gone).merge("--notify", notifyFile, "--metrics-push", push.URL)
		if code != cli.ExitFailed {
			t.Fatalf("merge exited %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		posts, _ := hook.Received()
		if len(posts) != 1 {
			t.Fatalf("%d digests of the refused merge, want 1", len(posts))
		}
		nums, _ := posts[0]["reconcile"].(map[string]any)
		if nums["status"] != "failed" || nums["businessDate"] != date || !strings.Contains(fmt.Sprint(nums["error"]), "shards missing for "+date) {
			t.Errorf("the refused merge's digest: %v", nums)
		}
		if v, _ := clitest.PromValue(push.Samples(t), "reconcile_run_success", "shard", "merged"); v != 0 {
			t.Errorf("pushed reconcile_run_success = %v, want 0", v)
		}
	})
	t.Run("failed", func(t *testing.T) {
		c := newCase(t, gone)
		name := fmt.Sprintf("shard=%d", gone)
		if err := os.MkdirAll(filepath.Join(c.dir, name), 0o755); err != nil { // the pod's volume
			t.Fatal(err)
		}
		if code, out := clitest.RunShard(t, f, c.dir, name, date, goneShard, "--organization-id", "no-such-organization"); code != cli.ExitFailed {
			t.Fatalf("the failing shard exited %d, want 1\n%s", code, out)
		}
		c.refused(filepath.Join(c.dir, name)+": no publication for "+date+" (its run failed or has not finished)", goneShard)
	})
	t.Run("different n", func(t *testing.T) {
		c := newCase(t)
		if code, out := clitest.RunShard(t, f, c.dir, "shard=x", date, "1/2"); code != cli.ExitOK && code != cli.ExitPartial {
			t.Fatalf("shard 1/2 exited %d\n%s", code, out)
		}
		c.refused("split differently", "1/2 in "+filepath.Join(c.dir, "shard=x"), "0/4 in ")
	})
	t.Run("different settings", func(t *testing.T) {
		c := newCase(t, gone)
		name := fmt.Sprintf("shard=%d", gone)
		if code, out := clitest.RunShard(t, f, c.dir, name, date, goneShard, "--lookback", "2"); code != cli.ExitOK {
			t.Fatalf("shard %s with --lookback 2 exited %d\n%s", goneShard, code, out)
		}
		c.refused("different settings", `--lookback: "2" in `+goneShard+`; "3" in `)
	})
	t.Run("snapshot not as its manifest says", func(t *testing.T) {
		c := newCase(t)
		snap := filepath.Join(c.dir, fmt.Sprintf("shard=%d", gone), date, "reconcile-"+date+".duckdb")
		fh, err := os.OpenFile(snap, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write([]byte("x"))
		fh.Close()
		c.refused(goneShard + ": its snapshot does not match its manifest")
	})
	t.Run("published twice", func(t *testing.T) {
		c := newCase(t)
		c.copyShard(base, "shard=1", "shard=1-again")
		c.refused("shard 1/4 of " + date + " is published twice")
	})
	t.Run("a view in place of a table", func(t *testing.T) {
		c := newCase(t)
		dir := filepath.Join(c.dir, fmt.Sprintf("shard=%d", gone), date)
		db := clitest.OpenReadWrite(t, filepath.Join(dir, "reconcile-"+date+".duckdb"))
		if _, err := db.Exec(`DROP TABLE plans; CREATE VIEW plans AS SELECT * FROM subscriptions`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		m, _, err := outputs.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := outputs.WriteManifest(dir, m); err != nil { // the snapshot's new hash: a consistent forgery
			t.Fatal(err)
		}
		c.refused("merge shard "+goneShard, "its snapshot has no table plans")
	})
	t.Run("out inside a shard", func(t *testing.T) {
		c := newCase(t)
		inside := filepath.Join(c.dir, "shard=0", "merged")
		code, _, stderr := clitest.RunCLI(t, nil, "merge", "--date", date, "--from", filepath.Join(c.dir, "shard=*"), "--out", inside)
		if code != cli.ExitFailed || !strings.Contains(stderr, "never writes into a shard's folder") {
			t.Errorf("--out inside a shard: exit %d\n%s", code, stderr)
		}
		if _, err := os.Stat(inside); err == nil {
			t.Errorf("the refused merge made %s", inside)
		}
	})
	t.Run("nothing matched", func(t *testing.T) {
		c := &mergeCase{t: t, dir: t.TempDir(), date: date}
		c.refused("matches no folder")
	})

	t.Run("allow partial", func(t *testing.T) {
		c := newCase(t, gone)
		// Its digest cannot be delivered (the webhook answers 500, twice):
		// logged and counted, the merge's outcome and outputs as without it.
		hook := notifytest.StartHook(t, 500, 500)
		notifyFile := clitest.WriteText(t, "notify.yaml", "webhook:\n  url-file: "+clitest.WriteText(t, "hook-url", hook.URL+"/hook")+"\n")
		prom := filepath.Join(t.TempDir(), "merge.prom")
		code, stdout, stderr := c.merge("--allow-partial", "--notify", notifyFile, "--metrics-file", prom)
		if code != cli.ExitPartial {
			t.Fatalf("merge --allow-partial exited %d, want 3\n%s\n%s", code, stdout, stderr)
		}
		if !strings.Contains(stderr, "digest not delivered") {
			t.Errorf("the failed delivery is not logged:\n%s", stderr)
		}
		if _, paths := hook.Received(); len(paths) != 2 {
			t.Errorf("the webhook was tried %d times, want 2 (a 500 is tried once more)", len(paths))
		}
		samples := clitest.ParseProm(t, prom)
		if v, _ := clitest.PromValue(samples, "reconcile_notify_deliveries", "channel", "webhook", "result", "failed"); v != 1 {
			t.Errorf("reconcile_notify_deliveries{webhook,failed} = %v, want 1", v)
		}
		if v, _ := clitest.PromValue(samples, "reconcile_run_exit_code", "shard", "merged"); v != cli.ExitPartial {
			t.Errorf("reconcile_run_exit_code = %v, want 3", v)
		}
		failed := len(owned[gone]) + 1 // and the member the sandbox fails
		if want := fmt.Sprintf("merge %s (partial): 3 of 4 shards, %d of 8 members reconciled", date, 8-failed); !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
		dir := filepath.Join(c.out(), date)
		m, _, err := outputs.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != "partial" || m.Members["failed"] != failed || m.Members["ok"] != 8-failed || len(m.Shards) != 4 {
			t.Errorf("manifest: status %s, members %v, %d shards", m.Status, m.Members, len(m.Shards))
		}
		for i, s := range m.Shards {
			switch {
			case i == gone && (s.Status != "missing" || !strings.Contains(s.Reason, "no publication for "+date)):
				t.Errorf("manifest: the missing shard is %+v", s)
			case i == badShard && s.Status != "partial", i != gone && i != badShard && s.Status != "ok":
				t.Errorf("manifest: shard %d is %+v", i, s)
			}
		}
		facts, failedRows := summaryOf(t, filepath.Join(dir, "reconcile-"+date+".xlsx"))
		for label, want := range map[string]string{
			"Status": "partial", "Members": "8", "Members reconciled": fmt.Sprint(8 - failed),
			"Members failed": fmt.Sprint(failed),
			"Problems":       fmt.Sprintf("shards missing from the merge: %s (%d members)", goneShard, len(owned[gone])),
		} {
			if facts[label] != want {
				t.Errorf("Summary %q = %q, want %q", label, facts[label], want)
			}
		}
		for _, mid := range owned[gone] {
			if !strings.Contains(failedRows[mid], "shard "+goneShard+" is missing from the merge") {
				t.Errorf("Failed members: %s is %q, want its shard named missing", mid, failedRows[mid])
			}
		}
		if !strings.Contains(failedRows[bad], "403") {
			t.Errorf("Failed members: %s (the sandbox fails it) is %q", bad, failedRows[bad])
		}
		snap := clitest.OpenReadOnly(t, filepath.Join(dir, "reconcile-"+date+".duckdb"))
		if n := queryList(t, snap, `SELECT merchant_id FROM findings WHERE merchant_id IN (SELECT unnest(?::VARCHAR[]))`, owned[gone]); len(n) > 0 {
			t.Errorf("findings of the missing shard's members: %v", n)
		}
	})

	t.Run("one shard partial equals a full run with that member failing", func(t *testing.T) {
		c := newCase(t)
		code, stdout, stderr := c.merge()
		if code != cli.ExitPartial || !strings.Contains(stdout, "(partial): 4 of 4 shards, 7 of 8 members reconciled") {
			t.Fatalf("merge exited %d, want 3\n%s\n%s", code, stdout, stderr)
		}
		fullDB, fullOut := filepath.Join(c.dir, "full.duckdb"), filepath.Join(c.dir, "full")
		if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(fullDB, fullOut)...); code != cli.ExitPartial {
			t.Fatalf("full run exited %d, want 3\n%s\n%s", code, so, se)
		}
		full, merged := filepath.Join(fullOut, date), filepath.Join(c.out(), date)
		compareTables(t, date, filepath.Join(full, "reconcile-"+date+".duckdb"), filepath.Join(merged, "reconcile-"+date+".duckdb"))
		compareWorkbooks(t, filepath.Join(full, "reconcile-"+date+".xlsx"), filepath.Join(merged, "reconcile-"+date+".xlsx"))
		compareManifests(t, full, merged, 4)
	})
}

// summaryOf reads a workbook's Summary: its facts (label -> shown value)
// and its Failed members table (merchant ID -> error).
func summaryOf(t *testing.T, path string) (facts, failed map[string]string) {
	t.Helper()
	wb, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, err := wb.GetRows(reports.SummarySheet)
	if err != nil {
		t.Fatal(err)
	}
	facts, failed = map[string]string{}, map[string]string{}
	inFailed := false
	for _, r := range rows {
		if len(r) == 0 {
			continue
		}
		if r[0] == "Failed members" {
			inFailed = true
			continue
		}
		if len(r) >= 2 {
			if inFailed {
				failed[r[0]] = r[1]
			} else if _, seen := facts[r[0]]; !seen {
				facts[r[0]] = r[1]
			}
		}
	}
	return facts, failed
}
