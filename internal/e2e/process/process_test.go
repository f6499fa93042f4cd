package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/outputs"
)

// These tests run reconcile as a separate process, because what they check
// happens between processes: kill -9 in the middle of a run, and a second
// process on the same database file.

// TestKillAndRerunEqualsCleanRun kills a run with SIGKILL at several points,
// runs the date again (resuming), and compares every table with a run that
// was never interrupted.
func TestKillAndRerunEqualsCleanRun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	if testing.Short() {
		t.Skip("builds the binary and kills it several times: skipped with -short")
	}
	// Answers are slowed by 25ms only while a run that is to be killed
	// goes (so that the kill lands mid-run); the reference run and the
	// re-runs, whose outcome latency does not change, go at full speed.
	slow := &clitest.SlowSwitch{Latency: 25 * time.Millisecond}
	f := clitest.NewFixture(t, sandbox.Config{}, slow.Option())
	work := t.TempDir()
	ref := filepath.Join(work, "ref.duckdb")
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(ref, filepath.Join(work, "ref-out"))...); code != cli.ExitOK {
		t.Fatalf("reference run exited %d\n%s\n%s", code, so, se)
	}
	want := clitest.TableDigests(t, ref)

	killedMidRun := 0
	for i, delay := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1300 * time.Millisecond} {
		db := filepath.Join(work, fmt.Sprintf("k%d.duckdb", i))
		out := filepath.Join(work, fmt.Sprintf("k%d-out", i))
		args := f.RunArgs(db, out, "--concurrency", "2")
		slow.On.Store(true)
		cmd := clitest.StartRun(t, args)
		time.Sleep(delay)
		cmd.Process.Kill() // SIGKILL: no defers, no checkpoint, no cleanup
		err := cmd.Wait()
		slow.On.Store(false)
		var exit *exec.ExitError
		if errors.As(err, &exit) && !exit.Exited() {
			killedMidRun++
		}
		if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, args...); code != cli.ExitOK {
			t.Fatalf("re-run after kill at %v exited %d\n%s\n%s", delay, code, so, se)
		}
		got := clitest.TableDigests(t, db)
		var diffs []string
		for table, w := range want {
			if got[table] != w {
				diffs = append(diffs, fmt.Sprintf("%s: %s, clean run %s", table, got[table], w))
			}
		}
		sort.Strings(diffs)
		if len(diffs) > 0 {
			t.Errorf("after kill -9 at %v and a re-run, tables differ from a clean run:\n  %s", delay, strings.Join(diffs, "\n  "))
		}
	}
	if killedMidRun < 2 {
		t.Errorf("only %d of 4 runs were still going when killed: the test did not exercise a crash", killedMidRun)
	}
}

// TestOneWriter: while one run writes, a second run on the same database
// exits 1 at once with a clear message, and the published snapshot
// (out/current.duckdb) still opens read-only.
func TestOneWriter(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{Latency: 100 * time.Millisecond}})
	fast := clitest.SharedSmallRun(t) // the first run: its own copy of the shared small run
	db, out := fast.Copy(t)
	if code, so, se := fast.Code, fast.Stdout, fast.Stderr; code != cli.ExitOK {
		t.Fatalf("first run exited %d\n%s\n%s", code, so, se)
	}
	writer := clitest.RunCommand(t, f.RunArgs(db, out, "--force", "--concurrency", "1"))
	var writerLog clitest.SyncBuffer
	writer.Stderr = &writerLog
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { writer.Process.Kill(); writer.Wait() }()
	clitest.WaitForLog(t, &writerLog, `"msg":"run started"`) // the writer holds the database from before its run starts
	// The process runs under the default soft limit on Go's memory
	// (gomemory.go), which its run log states; in-process runs (RunCLI)
	// leave the test binary's as it is.
	if log := writerLog.String(); !strings.Contains(log, `"go_memory_limit":"128 MiB"`) {
		t.Errorf("the writer's log does not state the default Go memory limit:\n%s", log)
	}

	code, _, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...)
	if code != cli.ExitFailed || !strings.Contains(stderr, "in use by another process") {
		t.Errorf("second run: exit %d, stderr %q; want 1 and a message that the database is in use", code, stderr)
	}
	if writer.ProcessState != nil {
		t.Fatal("the first run had already finished: the test did not exercise two writers")
	}
	// reconcile sql first: DuckDB refuses to open a file in one process
	// with two configurations, and OpenReadOnly's stays open.
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", filepath.Join(out, outputs.CurrentName), "--format", "csv", "SELECT count(*) AS n FROM findings")
	var n int
	snap := clitest.OpenReadOnly(t, filepath.Join(out, outputs.CurrentName))
	if err := snap.QueryRow(`SELECT count(*) FROM findings`).Scan(&n); err != nil || n == 0 {
		t.Errorf("the published snapshot while a run writes: %d findings, %v", n, err)
	}
	if code != cli.ExitOK || stdout != fmt.Sprintf("n\n%d\n", n) {
		t.Errorf("reconcile sql on the published snapshot while a run writes: exit %d, %q, %s", code, stdout, stderr)
	}
}

// TestSecondSignalExitsAtOnce: the first SIGINT stops a run cleanly (exit
// 130, the run recorded as failed); a second signal, while the clean stop
// is under way, ends the process at once with 130. Both signals are made
// to arrive together (sent while the process is stopped), so the second
// cannot miss the clean stop.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{Latency: 200 * time.Millisecond}})
	work := t.TempDir()
	wait := func(cmd *exec.Cmd) int {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the run did not end within 20s of the signals")
		}
		return cmd.ProcessState.ExitCode()
	}
	start := func(name string) (*exec.Cmd, *clitest.SyncBuffer) {
		args := f.RunArgs(filepath.Join(work, name+".duckdb"), filepath.Join(work, name+"-out"), "--concurrency", "1")
		cmd := exec.Command(clitest.ReconcileBinary(t), args...)
		cmd.Env = append(os.Environ(), "RECONCILE_SECRET="+sandbox.DefaultSecret)
		stderr := &clitest.SyncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		clitest.WaitForLog(t, stderr, `"msg":"member loaded"`) // well into the members stage
		return cmd, stderr
	}

	clean, stderr := start("clean")
	clean.Process.Signal(syscall.SIGINT)
	if code := wait(clean); code != cli.ExitInterrupted || strings.Contains(stderr.String(), "exiting at once") {
		t.Errorf("one SIGINT: exit %d, stderr:\n%s\nwant 130 from a clean stop", code, stderr)
	}
	// One line says what was kept; the members the stop cut short are not
	// each reported as failed.
	if got := stderr.String(); !regexp.MustCompile(`(?m)^reconcile: interrupted: \d+ of \d+ members kept; run again to resume$`).MatchString(got) ||
		strings.Contains(got, `"member failed"`) {
		t.Errorf("one SIGINT: stderr:\n%s\nwant one line \"interrupted: N of M members kept; run again to resume\" and no member failed", got)
	}
	var status string
	if err := clitest.OpenReadOnly(t, filepath.Join(work, "clean.duckdb")).QueryRow(`SELECT status FROM runs`).Scan(&status); err != nil || status != "failed" {
		t.Errorf("after a clean stop the run is %q (%v), want failed", status, err)
	}

	hard, stderr := start("hard")
	hard.Process.Signal(syscall.SIGSTOP)
	hard.Process.Signal(syscall.SIGINT)
	hard.Process.Signal(syscall.SIGTERM)
	hard.Process.Signal(syscall.SIGCONT)
	if code := wait(hard); code != cli.ExitInterrupted || !strings.Contains(stderr.String(), "again: exiting at once") {
		t.Errorf("two signals: exit %d, stderr:\n%s\nwant 130 and the immediate exit's message", code, stderr)
	}
}
