package groundtruth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports"
)

func TestRunMatchesGroundTruth(t *testing.T) {
	t.Parallel() // its own copy of the shared small run's files and database
	r := clitest.SharedSmallRun(t)
	f := r.F
	db, out := r.Copy(t)
	code, stdout, stderr := r.Code, r.Stdout, r.Stderr
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := clitest.TruthSet(f.Truth, nil)
	for _, kind := range queries.Kinds() {
		if len(f.Truth.Findings[kind]) == 0 {
			t.Errorf("ground truth plants no %s at scale small: the comparison would not test it", kind)
		}
	}
	conn := clitest.OpenReadOnly(t, db)
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), want)

	// Raw records and journal bodies are stored as JSON values that SQL can
	// query, not as JSON strings holding the text.
	for _, q := range []string{
		`SELECT count(*) FROM subscriptions WHERE raw->>'id' IS DISTINCT FROM subscription_id`,
		`SELECT count(*) FROM transactions WHERE raw->>'id' IS DISTINCT FROM transaction_id`,
		`SELECT count(*) FROM journal WHERE json_type(response) <> 'OBJECT'`,
		`SELECT count(*) FROM transactions WHERE json_type(applications) <> 'ARRAY'`,
	} {
		var bad int
		if err := conn.QueryRow(q).Scan(&bad); err != nil || bad != 0 {
			t.Errorf("%s: %d (%v)", q, bad, err)
		}
	}

	// Every output exists and the manifest accounts for each file.
	day := filepath.Join(out, "2026-11-20")
	for _, p := range []string{"reconcile-2026-11-20.xlsx", "manifest.json", "reconcile-2026-11-20.duckdb",
		"parquet/plans/date=2026-11-20/data_0.parquet", "parquet/transactions/date=2026-11-20/data_0.parquet"} {
		if _, err := os.Stat(filepath.Join(day, p)); err != nil {
			t.Errorf("output %s: %v", p, err)
		}
	}
	var man struct {
		RunID          string           `json:"runId"`
		FindingsByKind map[string]int64 `json:"findingsByKind"`
		Files          []struct{ Path string }
	}
	clitest.ReadJSON(t, filepath.Join(day, "manifest.json"), &man)
	if man.RunID != "2026-11-20" || len(man.Files) < 5 {
		t.Errorf("manifest: run %q with %d files", man.RunID, len(man.Files))
	}
	for kind, fs := range f.Truth.Findings {
		if man.FindingsByKind[kind] != int64(len(fs)) {
			t.Errorf("manifest findings %s = %d, ground truth %d", kind, man.FindingsByKind[kind], len(fs))
		}
	}
	// The Parquet findings dataset, read back, holds the same findings.
	pq := clitest.OpenReadOnly(t, filepath.Join(day, "reconcile-2026-11-20.duckdb"))
	var n int
	if err := pq.QueryRow(fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s/parquet/findings/date=*/kind=*/*.parquet', hive_partitioning = true) WHERE state IN ('new', 'open')`, day)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("parquet findings: %d rows, want %d", n, len(want))
	}
	clitest.CheckWorkbook(t, filepath.Join(day, "reconcile-2026-11-20.xlsx"), f.Truth)
	checkFundingTieOut(t, filepath.Join(day, "reconcile-2026-11-20.xlsx"), conn)

	// The snapshot answers like the working file.
	clitest.CompareFindings(t, clitest.DBFindings(t, pq, "2026-11-20"), want)

	// The journals carried full card numbers; nothing written may: no value
	// read back holds a Luhn-valid run of 13-19 digits, and no file's bytes
	// hold any of the journals' card numbers.
	pans := clitest.LuhnRunsInDir(t, f.Journals)
	if len(pans) == 0 {
		t.Fatal("sandbox journals carry no full card numbers: the PAN check below would prove nothing")
	}
	clitest.AssertNoPANs(t, "stdout+stderr", []byte(stdout+stderr))
	for _, p := range []string{db, filepath.Join(day, "reconcile-2026-11-20.duckdb")} {
		clitest.AssertNoneOf(t, p, pans)
	}
	filepath.WalkDir(day, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			clitest.AssertNoneOf(t, p, pans)
		}
		return nil
	})
	if strings.Contains(stdout+stderr, sandbox.DefaultSecret) {
		t.Error("the shared secret appears in the output or logs")
	}
	clitest.AssertNoPANsInDB(t, conn)
	clitest.AssertNoPANsInWorkbook(t, filepath.Join(day, "reconcile-2026-11-20.xlsx"))
	clitest.AssertNoPANsInParquet(t, pq, filepath.Join(day, "parquet"))
	var rejects int
	if err := conn.QueryRow(`SELECT count(*) FROM journal_rejects`).Scan(&rejects); err != nil {
		t.Fatal(err)
	}
	if rejects != len(f.Truth.JournalRejects) {
		t.Errorf("journal_rejects: %d rows, ground truth %d", rejects, len(f.Truth.JournalRejects))
	}
}

// TestRerunSameDateChangesNothing re-runs a date: resumed, then forced with
// incremental pulls, then forced with every list pulled again. No table
// changes its row count or gains a duplicate key.
func TestRerunSameDateChangesNothing(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	// Every run is given the same acknowledgement: made once, audited
	// once, whatever the re-runs.
	acked := f.Truth.Findings["subscription_delinquent"]
	if len(acked) == 0 {
		t.Fatal("the sandbox planted no subscription_delinquent finding to acknowledge")
	}
	acks := clitest.WriteText(t, "acknowledgements.yaml", clitest.DelinquencyAcknowledged(acked[0].MerchantID, acked[0].EntityID))
	runOK := func(extra ...string) int64 {
		t.Helper()
		extra = append(extra, "--acknowledgements", acks)
		if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, extra...)...); code != cli.ExitOK {
			t.Fatalf("run %v exited %d\n%s\n%s", extra, code, so, se)
		}
		return clitest.RunRequests(t, db)
	}
	firstRequests := runOK()
	firstMemberRequests := clitest.MemberRequests(t, db)
	first := clitest.TableCounts(t, db)
	for table, n := range first {
		if n == 0 && table != "journal_rejects" {
			t.Errorf("table %s is empty: the re-run comparison proves nothing for it", table)
		}
	}
	for _, extra := range [][]string{nil, {"--force"}, {"--force", "--full-refresh"}} {
		requests := runOK(extra...)
		switch len(extra) {
		case 0:
			if requests > 5 {
				t.Errorf("a resumed run of a complete date made %d requests", requests)
			}
		case 1:
			if requests*3 > firstRequests {
				t.Errorf("a forced re-run over unchanged data made %d requests, the first run %d", requests, firstRequests)
			}
		case 2:
			// The members' requests: the BINs the first run looked up
			// (with their tokens and transaction details) stay cached.
			if n := clitest.MemberRequests(t, db); n < firstMemberRequests*9/10 {
				t.Errorf("a full refresh made %d requests for its members, the first run %d", n, firstMemberRequests)
			}
		}
		for table, n := range first {
			if got := clitest.TableCounts(t, db)[table]; got != n {
				t.Errorf("after a re-run %v: table %s has %d rows, %d after the first run", extra, table, got, n)
			}
		}
	}
	conn := clitest.OpenReadOnly(t, db)
	for table, key := range clitest.TableKeys {
		var dups int
		q := fmt.Sprintf(`SELECT count(*) FROM (SELECT %s FROM %s GROUP BY ALL HAVING count(*) > 1)`, key, table)
		if err := conn.QueryRow(q).Scan(&dups); err != nil {
			t.Fatal(err)
		}
		if dups > 0 {
			t.Errorf("table %s: %d duplicate keys (%s)", table, dups, key)
		}
	}
	var attempts int
	if err := conn.QueryRow(`SELECT attempts FROM runs WHERE run_id = '2026-11-20'`).Scan(&attempts); err != nil || attempts != 4 {
		t.Errorf("runs.attempts = %d (%v), want 4", attempts, err)
	}
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, nil))
}

func TestFailingMemberIsRecordedAndOthersReported(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	probe := clitest.NewFixture(t, sandbox.Config{})
	bad := probe.Srv.Members()[1]
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{FailMembers: map[string]int{bad: 403}}})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")

	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...)
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var status, errText string
	if err := conn.QueryRow(`SELECT status, error FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = ?`, bad).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "403") {
		t.Errorf("member %s: status %q error %q, want failed with the 403", bad, status, errText)
	}
	var ok int
	if err := conn.QueryRow(`SELECT count(*) FROM run_members WHERE run_id = '2026-11-20' AND status = 'ok'`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if ok != len(f.Srv.Members())-1 {
		t.Errorf("%d members ok, want %d", ok, len(f.Srv.Members())-1)
	}
	// The others are reported exactly; the failed member is not reported on
	// stale or missing data.
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, func(mid string) bool { return mid == bad }))
	if _, err := os.Stat(filepath.Join(out, "2026-11-20", "reconcile-2026-11-20.xlsx")); err != nil {
		t.Errorf("a partial run still publishes its workbook: %v", err)
	}
	if !strings.Contains(stderr, bad) {
		t.Errorf("the failing member is not named in the logs:\n%s", stderr)
	}
}

// TestEmbeddedDefault runs the README's command: no flags but where to
// write, so the embedded sandbox is started and reconciled, and every
// output says its data is simulated.
func TestEmbeddedDefault(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	work := t.TempDir()
	db, out, prom := filepath.Join(work, "reconcile.duckdb"), filepath.Join(work, "out"), filepath.Join(work, "reconcile.prom")
	code, stdout, stderr := clitest.RunCLI(t, nil, "run", "--db", db, "--out", out, "--metrics-file", prom)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	date, _ := pipeline.BusinessDate("", time.Now().UTC())
	d := date.Format("2006-01-02")
	// The README's comparison in SQL: both counts 0.
	truth := filepath.Join(out, "sandbox", "ground-truth-"+d+".json")
	code, sqlOut, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv",
		"--var", "ground_truth=@"+truth, "--file", filepath.Join("..", "..", "..", "docs", "compare-ground-truth.sql"))
	if want := "side,findings\nin the ground truth, not found,0\nfound, not in the ground truth,0\n"; code != cli.ExitOK ||
		strings.ReplaceAll(sqlOut, `"`, "") != want {
		t.Errorf("compare-ground-truth.sql: exit %d\n%s\n%s", code, sqlOut, stderr)
	}
	var gt sandbox.GroundTruth
	clitest.ReadJSON(t, truth, &gt)
	clitest.CompareFindings(t, clitest.DBFindings(t, clitest.OpenReadOnly(t, db), d), clitest.TruthSet(&gt, nil))
	clitest.AssertSourceStamped(t, reports.SourceSandbox, stdout, filepath.Join(out, d), prom)
}

// TestLuhnRunsAsTheRegexpsFindThem: the scan by hand finds what the
// regular expressions it replaced found (digests \b[0-9a-f]{64}\b left
// out, then every maximal run of digits checked), on texts made of card
// numbers, digests, digests joined to a word, and noise.
func TestLuhnRunsAsTheRegexpsFindThem(t *testing.T) {
	t.Parallel()
	digits, hash := regexp.MustCompile(`[0-9]+`), regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	want := func(b []byte) []string {
		var out []string
		for _, m := range digits.FindAll(hash.ReplaceAll(b, nil), -1) {
			if len(m) >= 13 && len(m) <= 19 && clitest.LuhnValid(m) {
				out = append(out, string(m))
			}
		}
		return out
	}
	digest := "4111111111111111" + "ab" + strings.Repeat("0", 46) // a card number's digits inside a digest
	pieces := []string{"4111111111111111", "4000056655665556", "5555555555554444", digest, "x" + digest, digest + "_",
		strings.ToUpper(digest), digest[:63], "12345", " ", "-", "/", "\"", "a", "é", "\n", "0", "9"}
	rng := rand.New(rand.NewPCG(7, 11))
	found := 0
	for range 20000 {
		var b []byte
		for range 1 + rng.IntN(8) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		got, w := clitest.LuhnRuns(b), want(b)
		if !slices.Equal(got, w) {
			t.Fatalf("luhnRuns(%q) = %v, the regexps find %v", b, got, w)
		}
		found += len(w)
	}
	if found == 0 {
		t.Fatal("no text held a card number: the comparison proves nothing")
	}
}
