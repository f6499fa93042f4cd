package operator

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/reports"
)

// Two nightly runs on the sandbox as an operator sets them up: per-group
// workbooks, a metrics file, then the next day. Checks what finance and
// monitoring read: a member in two groups is in both groups' workbooks, the
// metrics parse and count the ground truth, and the second day's workbook,
// manifest and findings table agree on what is new, still open and resolved.
func TestOperatorOutputsOverTwoDays(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db, out, prom := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), filepath.Join(work, "reconcile.prom")

	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--split-by", "group", "--metrics-file", prom)...)
	if code != cli.ExitOK {
		t.Fatalf("day 1 exited %d\n%s\n%s", code, stdout, stderr)
	}
	day1 := filepath.Join(out, "2026-11-20")

	// A member in two groups: its findings are in both groups' workbooks.
	conn := clitest.OpenReadOnly(t, db)
	var shared string
	var groups []string
	err := conn.QueryRow(`SELECT merchant_id, list(group_id ORDER BY group_id) FROM group_members
		GROUP BY merchant_id HAVING count(*) > 1 AND merchant_id IN (SELECT merchant_id FROM findings)
		ORDER BY merchant_id LIMIT 1`).Scan(&shared, (*stringList)(&groups))
	if err != nil {
		t.Fatalf("the sandbox has no member in two groups with findings, so the split cannot be tested: %v", err)
	}
	var kind string
	if err := conn.QueryRow(`SELECT kind FROM findings WHERE merchant_id = ? ORDER BY kind LIMIT 1`, shared).Scan(&kind); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		path := filepath.Join(day1, reports.GroupWorkbookName("2026-11-20", g))
		if !sheetHasMerchant(t, path, reports.KindSheetNames()[kind], shared) {
			t.Errorf("group %s's workbook has no %s finding of %s, which is in groups %v", g, kind, shared, groups)
		}
	}
	if !strings.Contains(stdout, "group workbooks: ") {
		t.Errorf("the run's summary does not list the group workbooks:\n%s", stdout)
	}

	// A run against a --base-url (the sandbox standalone) is stamped as
	// the platform's data.
	clitest.AssertSourceStamped(t, reports.SourcePlatform, stdout, day1, prom)

	// The metrics file parses and counts what the sandbox planted.
	samples := clitest.ParseProm(t, prom)
	if v, _ := clitest.PromValue(samples, "reconcile_run_success"); v != 1 {
		t.Errorf("reconcile_run_success = %v", v)
	}
	if v, _ := clitest.PromValue(samples, "reconcile_members", "status", "ok"); int(v) != len(f.Srv.Members()) {
		t.Errorf("reconcile_members{status=ok} = %v, want %d", v, len(f.Srv.Members()))
	}
	for kind, fs := range f.Truth.Findings {
		if v, ok := clitest.PromValue(samples, "reconcile_findings", "kind", kind, "state", "new"); !ok || int(v) != len(fs) {
			t.Errorf(`reconcile_findings{kind=%q,state="new"} = %v (%v), want %d on the first day`, kind, v, ok, len(fs))
		}
	}
	for _, name := range []string{"reconcile_run_duration_seconds", "reconcile_run_requests", "reconcile_run_retries", "reconcile_run_finished_timestamp_seconds"} {
		if _, ok := clitest.PromValue(samples, name); !ok {
			t.Errorf("metrics file has no %s", name)
		}
	}

	// Day 2: the same platform, the next business date. (The run needs the
	// file to itself: DuckDB refuses a writer beside this test's reader.)
	conn.Close()
	code, stdout, stderr = clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--date", "2026-11-21")...)
	if code != cli.ExitOK {
		t.Fatalf("day 2 exited %d\n%s\n%s", code, stdout, stderr)
	}
	conn = clitest.OpenReadOnly(t, db)
	counts := map[string]int{}
	rows, err := conn.Query(`SELECT state, count(*) FROM findings WHERE run_id = '2026-11-21' GROUP BY state`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		var n int
		rows.Scan(&s, &n)
		counts[s] = n
	}
	rows.Close()
	// The window moves a day: findings dated on its first day are resolved,
	// the others stay open (new ones are day 1's, and ingest's test's).
	if counts["resolved"] == 0 || counts["open"] == 0 {
		t.Fatalf("day 2 states %v: the shifted window should resolve some findings and keep others, else this test proves nothing", counts)
	}
	// Each open finding was reported on day 1, each resolved one too and
	// not on day 2; new ones were not on day 1.
	var bad int
	err = conn.QueryRow(`SELECT count(*) FROM findings d2
		LEFT JOIN findings d1 ON d1.run_id = '2026-11-20' AND d1.kind = d2.kind AND d1.merchant_id = d2.merchant_id AND d1.entity_id = d2.entity_id
		WHERE d2.run_id = '2026-11-21' AND ((d2.state IN ('open', 'resolved')) <> (d1.kind IS NOT NULL)
		   OR (d2.state = 'open' AND d2.first_seen_run <> '2026-11-20'))`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Errorf("%d day-2 findings whose state disagrees with day 1 (%v)", bad, err)
	}
	if want := fmt.Sprintf("since 2026-11-20: %d new, %d still open, %d resolved", counts["new"], counts["open"], counts["resolved"]); !strings.Contains(stdout, want) {
		t.Errorf("summary lacks %q:\n%s", want, stdout)
	}

	// The workbook tells the same story.
	wb, err := excelize.OpenFile(filepath.Join(out, "2026-11-21", "reconcile-2026-11-21.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	resolved, _ := wb.GetRows("Resolved")
	if len(resolved)-1 != counts["resolved"] {
		t.Errorf("Resolved sheet: %d rows, findings table: %d resolved", len(resolved)-1, counts["resolved"])
	}
	summary, _ := wb.GetRows("Summary")
	facts := map[string]string{}
	for _, r := range summary {
		if len(r) >= 2 {
			facts[r[0]] = r[1]
		}
	}
	for label, want := range map[string]string{
		"New today": fmt.Sprint(counts["new"]), "Still open": fmt.Sprint(counts["open"]),
		"Resolved since previous run": fmt.Sprint(counts["resolved"]), "Previous run": "2026-11-20",
		"Findings": fmt.Sprint(counts["new"] + counts["open"]),
	} {
		if facts[label] != want {
			t.Errorf("Summary %q = %q, want %q", label, facts[label], want)
		}
	}
	var man struct {
		FindingsByKind  map[string]int64            `json:"findingsByKind"`
		FindingsByState map[string]map[string]int64 `json:"findingsByState"`
		PreviousRun     string                      `json:"previousRun"`
	}
	clitest.ReadJSON(t, filepath.Join(out, "2026-11-21", "manifest.json"), &man)
	var sumKind, sumResolved int64
	for k, n := range man.FindingsByKind {
		sumKind += n
		sumResolved += man.FindingsByState["resolved"][k]
	}
	if sumKind != int64(counts["new"]+counts["open"]) || sumResolved != int64(counts["resolved"]) || man.PreviousRun != "2026-11-20" {
		t.Errorf("manifest: %d findings, %d resolved, previous %q; table: %v", sumKind, sumResolved, man.PreviousRun, counts)
	}
}

func sheetHasMerchant(t *testing.T, path, sheet, merchant string) bool {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := clitest.FindingTable(t, f, sheet)
	col := slices.Index(tab.Header, "Merchant ID")
	return slices.ContainsFunc(tab.Rows, func(r []string) bool { return col >= 0 && col < len(r) && r[col] == merchant })
}

// stringList scans a DuckDB VARCHAR[] list.
type stringList []string

func (l *stringList) Scan(v any) error {
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("list: %T", v)
	}
	for _, it := range items {
		*l = append(*l, fmt.Sprint(it))
	}
	return nil
}
