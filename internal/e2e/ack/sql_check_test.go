package ack

import (
	"crypto/sha256"
	"encoding/csv"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/queries"
)

// TestSQLCheckRunsAKindAsTheRunDid: `reconcile sql --check KIND` over the
// file a run left returns, for every kind, exactly the findings that run
// recorded (its members, its window, its session variables), and leaves
// the file as it was: what a check reads is never hidden, and looking
// cannot change it.
func TestSQLCheckRunsAKindAsTheRunDid(t *testing.T) {
	t.Parallel() // its own copy of the shared small run's files and database
	r := clitest.SharedSmallRun(t)
	f := r.F
	db, _ := r.Copy(t)
	if code, stdout, stderr := r.Code, r.Stdout, r.Stderr; code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	before := fileSum(t, db)
	recorded := map[string][]string{}
	conn := clitest.OpenReadOnly(t, db)
	rows, err := conn.Query(`SELECT kind, merchant_id || ' ' || entity_id FROM findings
		WHERE run_id = '2026-11-20' AND state IN ('new', 'open', 'acknowledged')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind, key string
		if err := rows.Scan(&kind, &key); err != nil {
			t.Fatal(err)
		}
		recorded[kind] = append(recorded[kind], key)
	}
	rows.Close()
	conn.Close() // (DuckDB opens a file once per process, in one configuration)

	for _, kind := range queries.Kinds() {
		args := []string{"sql", "--db", db, "--format", "csv", "--check", kind}
		if kind != "double_charge" { // one kind takes the latest run, the others name its date
			args = append(args, "--date", "2026-11-20")
		}
		code, stdout, stderr := clitest.RunCLI(t, nil, args...)
		if code != cli.ExitOK {
			t.Errorf("%s: exit %d: %s", kind, code, stderr)
			continue
		}
		if !strings.Contains(stderr, "run 2026-11-20") || !strings.Contains(stderr, "window_start "+f.Truth.WindowStart[:10]) {
			t.Errorf("%s: stderr does not say which run and window it read: %q", kind, stderr)
		}
		recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Fatalf("%s: csv: %v\n%s", kind, err, stdout)
		}
		if want := []string{"merchant_id", "entity_id", "amount", "currency", "detail"}; !slices.Equal(recs[0], want) {
			t.Errorf("%s: header %q, want %q", kind, recs[0], want)
		}
		var got []string
		for _, r := range recs[1:] {
			got = append(got, r[0]+" "+r[1])
		}
		want := recorded[kind]
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 {
			t.Errorf("%s: the run recorded no finding: the comparison proves nothing", kind)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: --check returns %d findings, the run recorded %d\n got %q\nwant %q", kind, len(got), len(want), got, want)
		}
	}
	// --var changes what the check reads: no pending session is 10 years old.
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv", "--check", "bnpl_session_stale",
		"--var", "bnpl_session_age=87600 hours")
	if code != cli.ExitOK || strings.TrimSpace(stdout) != "merchant_id,entity_id,amount,currency,detail" {
		t.Errorf("--check bnpl_session_stale with an age of 10 years: exit %d, %s\n%s", code, stderr, stdout)
	}
	if after := fileSum(t, db); after != before {
		t.Error("--check changed the database file")
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "nosuch"}, `no such finding kind; the kinds are level3_not_transmitted, `},
		{[]string{"--check", "double_charge", "--date", "2026-11-19"}, "holds no run of 2026-11-19"},
		{[]string{"--check", "double_charge", "--date", "20261120"}, "want YYYY-MM-DD"},
		{[]string{"--check", "double_charge", "SELECT 1"}, "give no SQL"},
		{[]string{"--date", "2026-11-20", "SELECT 1"}, "--date goes with --check"},
	} {
		code, _, stderr := clitest.RunCLI(t, nil, append([]string{"sql", "--db", db}, c.args...)...)
		if code != cli.ExitFailed || !strings.Contains(stderr, c.want) {
			t.Errorf("sql %q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, cli.ExitFailed, c.want)
		}
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
