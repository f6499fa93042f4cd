package clitest

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// ReconcileBinary is the reconcile binary, built once per test binary
// (without the duckdb_arrow tag) for the tests that need a process of
// their own: to kill it, signal it, or hold its lock. Main removes it.
func ReconcileBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "reconcile-bin")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "reconcile")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/reconcile/reconcile/cmd/reconcile").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// StartRun starts reconcile with args as a process (RunCommand).
func StartRun(t *testing.T, args []string) *exec.Cmd {
	t.Helper()
	cmd := RunCommand(t, args)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// RunCommand is reconcile with args as a process not yet started, its
// environment the test's (GOMEMLIMIT left out) with the sandbox's secret.
func RunCommand(t *testing.T, args []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(ReconcileBinary(t), args...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "GOMEMLIMIT=") }),
		"RECONCILE_SECRET="+sandbox.DefaultSecret)
	return cmd
}

// Volatile columns differ between two correct runs (times, attempt and
// request counts, members a resumed attempt skipped, the BIN lookup
// response's own id and time inside bin_attributes.raw, when an
// acknowledgement changed, which numbers its audit rows, and when a
// once-only upgrade was done); everything else must be equal.
var Volatile = map[string]bool{
	"loaded_at": true, "imported_at": true, "looked_up_at": true, "payments_pulled_at": true,
	"started_at": true, "finished_at": true, "attempts": true, "requests": true, "retries": true,
	"members_skipped": true, "bin_attributes.raw": true,
	"created_at": true, "updated_at": true, "changed_at": true, "acknowledgement_audit.seq": true, "done_at": true,
}

// TableDigests returns, per table, a digest of its rows without volatile
// columns, so two databases can be compared table by table.
func TableDigests(t *testing.T, path string) map[string]string {
	t.Helper()
	db := OpenReadOnly(t, path)
	defer db.Close()
	out := map[string]string{}
	for table := range TableKeys {
		rows, err := db.Query(`SELECT column_name FROM information_schema.columns
			WHERE table_schema = 'main' AND table_name = ? ORDER BY ordinal_position`, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			rows.Scan(&c)
			if !Volatile[c] && !Volatile[table+"."+c] {
				cols = append(cols, `"`+c+`"`)
			}
		}
		rows.Close()
		var digest sql.NullString
		var n int
		q := fmt.Sprintf(`SELECT count(*), md5(string_agg(CAST(r AS VARCHAR), '|' ORDER BY CAST(r AS VARCHAR)))
			FROM (SELECT %s FROM %s) r`, strings.Join(cols, ", "), table)
		if err := db.QueryRow(q).Scan(&n, &digest); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out[table] = fmt.Sprintf("%d rows %s", n, digest.String)
	}
	return out
}

// WaitForLog waits until a process's log holds want (a minute at most:
// a loaded machine starts a process slowly, and a fixed sleep then
// signalled it before the stage the test is about).
func WaitForLog(t *testing.T, log *SyncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the process's log within a minute:\n%s", want, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
