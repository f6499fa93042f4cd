package faults

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// groupRequests counts the requests a sandbox receives at any group
// management path, versioned or not.
func groupRequests(n *atomic.Int64) sandboxtest.Option {
	return sandboxtest.WithHandler(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "groups") {
				n.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
}

// memberResult is what a run stored of one member: its status, its rows
// and its findings (kind, entity, amount, currency).
type memberResult struct {
	Status                                     string
	Subscriptions, Payments, Transactions, Sum int
	Findings                                   []string
}

func memberResults(t *testing.T, db *sql.DB, mids []string) map[string]memberResult {
	t.Helper()
	out := map[string]memberResult{}
	for _, mid := range mids {
		var r memberResult
		if err := db.QueryRow(`SELECT status FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = ?`, mid).Scan(&r.Status); err != nil {
			t.Fatalf("run_members of %s: %v", mid, err)
		}
		for table, n := range map[string]*int{"subscriptions": &r.Subscriptions, "subscription_payments": &r.Payments, "transactions": &r.Transactions} {
			if err := db.QueryRow(`SELECT count(*) FROM `+table+` WHERE merchant_id = ?`, mid).Scan(n); err != nil {
				t.Fatalf("%s of %s: %v", table, mid, err)
			}
		}
		rows, err := db.Query(`SELECT kind || ' ' || entity_id || ' ' || coalesce(CAST(amount AS VARCHAR), '') || ' ' || coalesce(currency, '') || ' ' || state
			FROM findings WHERE run_id = '2026-11-20' AND merchant_id = ? ORDER BY 1`, mid)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var f string
			rows.Scan(&f)
			r.Findings = append(r.Findings, f)
		}
		rows.Close()
		out[mid] = r
	}
	return out
}

// withoutFundingTieouts is r without its funding_tieout_mismatch findings.
func withoutFundingTieouts(r memberResult) memberResult {
	r.Findings = slices.DeleteFunc(slices.Clone(r.Findings), func(f string) bool { return strings.HasPrefix(f, "funding_tieout_mismatch ") })
	return r
}

// TestRunNamedMerchants: `reconcile run --merchants A,B` and
// `--merchants @FILE` reconcile exactly those members, as a run that
// discovers them through the groups does (the same status, rows and
// findings per member), without a single group management request; the
// members belong to no group. --merchants with --groups is refused.
func TestRunNamedMerchants(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	var groupCalls atomic.Int64
	f := clitest.NewFixture(t, sandbox.Config{}, groupRequests(&groupCalls))
	all := f.Srv.Members()
	named := []string{all[1], all[4]}
	work := t.TempDir()

	discovered := filepath.Join(work, "discovered.duckdb")
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(discovered, filepath.Join(work, "out0"))...); code != cli.ExitOK {
		t.Fatalf("discovered run exited %d\n%s\n%s", code, so, se)
	}
	if groupCalls.Load() == 0 {
		t.Fatal("the discovered run made no group request: the count is not measuring")
	}
	conn := clitest.OpenReadOnly(t, discovered)
	want := memberResults(t, conn, named)
	conn.Close()
	for _, mid := range named {
		if want[mid].Status != "ok" || want[mid].Subscriptions == 0 {
			t.Fatalf("discovered run: member %s %+v, want a reconciled member with subscriptions", mid, want[mid])
		}
	}

	file := filepath.Join(work, "mids.txt")
	text := fmt.Sprintf("# the members of this night\n\n  %s  \n%s # again, taken once\n\t%s\n", named[0], named[0], named[1])
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, list := range []string{named[0] + ", " + named[1], "@" + file} {
		t.Run(list, func(t *testing.T) {
			groupCalls.Store(0)
			db := filepath.Join(work, fmt.Sprintf("named%d.duckdb", i))
			code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, fmt.Sprintf("out%d", i+1)), "--merchants", list)...)
			if code != cli.ExitOK {
				t.Fatalf("run --merchants %s exited %d\n%s\n%s", list, code, so, se)
			}
			if n := groupCalls.Load(); n != 0 {
				t.Errorf("run --merchants made %d group management request(s), want none", n)
			}
			if !strings.Contains(so, "2 of 2 members reconciled") {
				t.Errorf("summary:\n%s", so)
			}
			conn := clitest.OpenReadOnly(t, db)
			var members []string
			rows, err := conn.Query(`SELECT merchant_id FROM run_members WHERE run_id = '2026-11-20' ORDER BY 1`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var mid string
				rows.Scan(&mid)
				members = append(members, mid)
			}
			rows.Close()
			if !slices.Equal(members, named) {
				t.Errorf("run_members %v, want exactly %v", members, named)
			}
			got := memberResults(t, conn, named)
			// A funding tie-out is the scope's the reports were read for:
			// the group in a discovered run, the member itself when named
			// (ingest/settlement.go). Those differ by definition; the
			// named run must tie each member out on its own instead.
			for _, mid := range named {
				var own int
				conn.QueryRow(`SELECT count(*) FROM fundings WHERE scope_type = 'member' AND scope_id = ?`, mid).Scan(&own)
				if own == 0 {
					t.Errorf("member %s named: no funding of its own read", mid)
				}
				got[mid], want[mid] = withoutFundingTieouts(got[mid]), withoutFundingTieouts(want[mid])
			}
			for _, mid := range named {
				if fmt.Sprint(got[mid]) != fmt.Sprint(want[mid]) {
					t.Errorf("member %s:\n named      %+v\n discovered %+v", mid, got[mid], want[mid])
				}
			}
			var memberships int
			conn.QueryRow(`SELECT count(*) FROM group_members WHERE run_id = '2026-11-20'`).Scan(&memberships)
			if memberships != 0 {
				t.Errorf("%d group memberships stored for members named directly, want none", memberships)
			}
			gotAll, wantAll := clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, func(mid string) bool { return !slices.Contains(named, mid) })
			for _, m := range []map[clitest.FindingKey]bool{gotAll, wantAll} {
				for k := range m {
					if k.Kind == "funding_tieout_mismatch" {
						delete(m, k)
					}
				}
			}
			clitest.CompareFindings(t, gotAll, wantAll)
		})
	}

	// --shard splits the members named as it splits discovered ones: each
	// in exactly one shard.
	four := strings.Join(all[:4], ",")
	owner := map[string]int{}
	for i := range 2 {
		db := filepath.Join(work, fmt.Sprintf("shard%d.duckdb", i))
		code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, fmt.Sprintf("outs%d", i)), "--merchants", four, "--shard", fmt.Sprintf("%d/2", i))...)
		if code != cli.ExitOK {
			t.Fatalf("--merchants with --shard %d/2 exited %d\n%s\n%s", i, code, so, se)
		}
		conn := clitest.OpenReadOnly(t, db)
		rows, _ := conn.Query(`SELECT merchant_id FROM run_members WHERE run_id = '2026-11-20' AND status = 'ok'`)
		for rows.Next() {
			var mid string
			rows.Scan(&mid)
			if prev, dup := owner[mid]; dup {
				t.Errorf("member %s in shards %d and %d", mid, prev, i)
			}
			owner[mid] = i
		}
		rows.Close()
		conn.Close()
	}
	if len(owner) != 4 {
		t.Errorf("the shards reconciled %v, want the 4 named", owner)
	}

	code, _, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(filepath.Join(work, "both.duckdb"), filepath.Join(work, "outb"), "--merchants", named[0], "--groups", "1001")...)
	if code != cli.ExitFailed || !strings.Contains(se, "--merchants and --groups") {
		t.Errorf("--merchants with --groups: exit %d\n%s", code, se)
	}
	empty := filepath.Join(work, "empty.txt")
	os.WriteFile(empty, []byte("# nobody\n\n"), 0o600)
	code, _, se = clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(filepath.Join(work, "empty.duckdb"), filepath.Join(work, "oute"), "--merchants", "@"+empty)...)
	if code != cli.ExitFailed || !strings.Contains(se, "no merchant ID in it") {
		t.Errorf("--merchants @empty: exit %d\n%s", code, se)
	}
}

// TestRunWithoutGroupManagement: against a platform that answers group
// management 404 (both list forms) or 403, a run fails with one message
// naming what was tried, the platform's words and what to do; the same
// run with --merchants (here from the environment) reconciles them.
func TestRunWithoutGroupManagement(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	for _, status := range []int{404, 403} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{GroupsUnavailable: status}})
			org := f.Srv.Config().OrganizationID
			work := t.TempDir()
			code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"))...)
			wants := []string{
				"group management is not available to this key (organization " + org + ")",
				"GET /group-management/v1/groups?organizationId=" + org + " answered " + fmt.Sprint(status),
				"Group Management is not enabled for this organization",
				"--merchants MID,MID", "--groups-path", "have Group Management enabled for the key",
			}
			if status == 404 {
				wants = append(wants, "then GET /group-management/v1/groups/"+org+" answered 404 notEnabled")
			}
			if code != cli.ExitFailed {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitFailed, so, se)
			}
			for _, w := range wants {
				if !strings.Contains(se, w) {
					t.Errorf("stderr does not say %q:\n%s", w, se)
				}
			}
			if n := strings.Count(se, "group management is not available"); n != 1 {
				t.Errorf("the error is told %d times, want once:\n%s", n, se)
			}
			mids := f.Srv.Members()[:3]
			env := map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret, "RECONCILE_MERCHANTS": strings.Join(mids, ",")}
			db := filepath.Join(work, "named.duckdb")
			if code, so, se := clitest.RunCLI(t, env, f.RunArgs(db, filepath.Join(work, "out2"))...); code != cli.ExitOK || !strings.Contains(so, "3 of 3 members reconciled") {
				t.Fatalf("with RECONCILE_MERCHANTS: exit %d\n%s\n%s", code, so, se)
			}
			conn := clitest.OpenReadOnly(t, db)
			// Named members are tied out on their own, not per group
			// (see TestRunNamedMerchants): the rest matches.
			gotAll, wantAll := clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, func(mid string) bool { return !slices.Contains(mids, mid) })
			for _, m := range []map[clitest.FindingKey]bool{gotAll, wantAll} {
				for k := range m {
					if k.Kind == "funding_tieout_mismatch" {
						delete(m, k)
					}
				}
			}
			clitest.CompareFindings(t, gotAll, wantAll)
		})
	}
}
