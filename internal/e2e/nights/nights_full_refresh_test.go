package nights

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/queries"
)

// nightsScale is the scale of TestNightsEqualFullRefresh: small's 6 members
// and 20 subscriptions each, which the five nights take to every kind of
// finding (the test checks they do), in half a minute; scale medium's ten
// runs take several.
const nightsScale = "members=6,subscriptions=20,groups=2"

// TestNightsEqualFullRefresh: five nights on a moving sandbox clock, each
// pulled the economical way (payment lists only where one may have
// changed, and the members' transactions in one search across the
// portfolio, --search-scope reseller), report the same findings, entity by
// entity, as the same five nights pulled in full (--full-refresh, one
// search a member); and no member's transaction is lost to the shared
// search.
func TestNightsEqualFullRefresh(t *testing.T) {
	t.Parallel() // its own sandbox, files and databases
	if testing.Short() {
		t.Skip("ten whole runs: skipped with -short")
	}
	scale, err := sandbox.ParseScale(nightsScale)
	if err != nil {
		t.Fatal(err)
	}
	f := clitest.NewFixture(t, sandbox.Config{Scale: scale})
	work := t.TempDir()
	lean, full := filepath.Join(work, "lean.duckdb"), filepath.Join(work, "full.duckdb")
	kinds := map[string]bool{}
	for night := range 5 {
		if night > 0 {
			if _, err := f.Srv.AdvanceClock(24 * time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		date := clitest.TestDate.AddDate(0, 0, night).Format("2006-01-02")
		for _, r := range []struct {
			db    string
			extra []string
		}{
			{lean, []string{"--search-scope", "reseller"}},
			{full, []string{"--full-refresh"}},
		} {
			args := append(f.RunArgs(r.db, filepath.Join(work, "out"), "--date", date), r.extra...)
			if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, args...); code != cli.ExitOK {
				t.Fatalf("night %d (%s) %v exited %d\n%s\n%s", night+1, date, r.extra, code, so, se)
			}
		}
		got, want := findingsOf(t, lean, date), findingsOf(t, full, date)
		if len(want) == 0 {
			t.Fatalf("night %d: the full pull reported no finding", night+1)
		}
		for k := range want {
			kinds[k.Kind] = true
		}
		t.Run(fmt.Sprintf("night %d findings", night+1), func(t *testing.T) { clitest.CompareFindings(t, got, want) })
		leanTxns, fullTxns := memberTransactions(t, lean), memberTransactions(t, full)
		for _, mid := range slices.Sorted(maps.Keys(fullTxns)) {
			if missing := minus(fullTxns[mid], leanTxns[mid]); len(missing) > 0 {
				t.Errorf("night %d: member %s lost %d of its %d transactions to the search across members, e.g. %s",
					night+1, mid, len(missing), len(fullTxns[mid]), missing[0])
			}
			if extra := minus(leanTxns[mid], fullTxns[mid]); len(extra) > 0 {
				t.Errorf("night %d: member %s has %d transactions the member-scoped search does not, e.g. %s",
					night+1, mid, len(extra), extra[0])
			}
		}
		if len(fullTxns) != scale.Members {
			t.Errorf("night %d: %d members have transactions, want all %d", night+1, len(fullTxns), scale.Members)
		}
	}
	t.Logf("kinds the nights reported: %v", slices.Sorted(maps.Keys(kinds)))
	for _, k := range queries.Kinds() {
		if !kinds[k] {
			t.Errorf("no night reported a %s finding: the comparison does not reach that kind", k)
		}
	}
}

// findingsOf are the findings of run runID in the database at path,
// which is closed again for the next run.
func findingsOf(t *testing.T, path, runID string) map[clitest.FindingKey]bool {
	t.Helper()
	db := clitest.OpenReadOnly(t, path)
	defer db.Close()
	return clitest.DBFindings(t, db, runID)
}

// memberTransactions are the transaction IDs in the database, by member.
func memberTransactions(t *testing.T, path string) map[string]map[string]bool {
	t.Helper()
	db := clitest.OpenReadOnly(t, path)
	defer db.Close() // the next night's run opens the file
	rows, err := db.Query(`SELECT merchant_id, transaction_id FROM transactions`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string]bool{}
	for rows.Next() {
		var mid, id string
		if err := rows.Scan(&mid, &id); err != nil {
			t.Fatal(err)
		}
		if out[mid] == nil {
			out[mid] = map[string]bool{}
		}
		out[mid][id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// minus lists the keys of a not in b, sorted.
func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
