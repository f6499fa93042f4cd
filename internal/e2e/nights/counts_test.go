package nights

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestMemberCountsAgreeAfterARerun: a re-run of a finished date states the
// same members reconciled everywhere (stdout, the manifest, the metrics,
// the runs table and the workbook's Summary), with the members an earlier
// attempt completed as a field of their own. It printed "0 of 6 members
// reconciled" and wrote "members": {"ok": 0} while the workbook said 6.
func TestMemberCountsAgreeAfterARerun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	metrics := filepath.Join(work, "reconcile.prom")
	n := len(f.Srv.Members())
	for attempt := 1; attempt <= 2; attempt++ {
		code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--metrics-file", metrics)...)
		if code != cli.ExitOK {
			t.Fatalf("attempt %d exited %d\n%s\n%s", attempt, code, stdout, stderr)
		}
		earlier := 0
		if attempt == 2 {
			earlier = n
		}
		wantLine := fmt.Sprintf("%d of %d members reconciled", n, n)
		if earlier > 0 {
			wantLine += fmt.Sprintf(" (%d by an earlier attempt of the date)", earlier)
		}
		if !strings.Contains(stdout, wantLine) {
			t.Errorf("attempt %d: stdout does not say %q:\n%s", attempt, wantLine, stdout)
		}
		day := filepath.Join(out, f.Srv.Config().BusinessDate.Format("2006-01-02"))
		var man struct {
			Members map[string]int `json:"members"`
		}
		clitest.ReadJSON(t, filepath.Join(day, "manifest.json"), &man)
		if man.Members["ok"] != n || man.Members["failed"] != 0 || man.Members["already_done"] != earlier {
			t.Errorf("attempt %d: manifest members %v, want ok %d, failed 0, already_done %d", attempt, man.Members, n, earlier)
		}
		prom, err := os.ReadFile(metrics)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{fmt.Sprintf("reconcile_members{shard=\"0/1\",status=\"ok\"} %d\n", n),
			fmt.Sprintf("reconcile_members_already_done{shard=\"0/1\"} %d\n", earlier)} {
			if !strings.Contains(string(prom), want) {
				t.Errorf("attempt %d: metrics lack %q:\n%s", attempt, want, prom)
			}
		}
		var runsOK int
		conn := clitest.OpenReadOnly(t, db)
		if err := conn.QueryRow(`SELECT members_ok FROM runs ORDER BY started_at DESC LIMIT 1`).Scan(&runsOK); err != nil || runsOK != n {
			t.Errorf("attempt %d: runs.members_ok %d (%v), want %d", attempt, runsOK, err, n)
		}
		conn.Close() // the next attempt opens the file for writing
		if got := summaryValue(t, filepath.Join(day, "reconcile-"+filepath.Base(day)+".xlsx"), "Members reconciled"); got != fmt.Sprint(n) {
			t.Errorf("attempt %d: workbook Members reconciled %q, want %d", attempt, got, n)
		}
	}
}

// summaryValue is the value beside (or below) a label on the Summary sheet.
func summaryValue(t *testing.T, path, label string) string {
	t.Helper()
	wb, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, err := wb.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		for j, c := range r {
			if c != label {
				continue
			}
			if j+1 < len(r) && r[j+1] != "" && !regexp.MustCompile(`[A-Za-z]`).MatchString(r[j+1]) {
				return r[j+1]
			}
			if i+1 < len(rows) && j < len(rows[i+1]) {
				return rows[i+1][j]
			}
		}
	}
	t.Fatalf("no %q on the Summary of %s", label, path)
	return ""
}
