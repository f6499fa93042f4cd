package process

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestScheduleNeverOverlapsAndWaitsForTheRunningJob runs the scheduler
// in-process every second, with runs made slower than a second by the
// sandbox's latency: ticks that find a run going are skipped, and stopping
// (what SIGTERM does: the context is cancelled) waits for the running job,
// which finishes ok instead of being interrupted.
func TestScheduleNeverOverlapsAndWaitsForTheRunningJob(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{Latency: 25 * time.Millisecond}})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	args := append([]string{"schedule", "--cron", "@every 1s", "--run-now"}, f.RunArgs(db, out, "--concurrency", "2")[1:]...)

	var stdout, stderr clitest.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return clitest.SandboxEnv[k] }})
	}()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(stderr.String(), `"msg":"scheduled run started"`) < 2 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no second run within a minute:\n%s", stderr.String())
		}
		select {
		case code := <-done:
			t.Fatalf("schedule exited %d on its own:\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel() // as SIGTERM would, while the second run is going
	var code int
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("schedule did not stop:\n%s", stderr.String())
	}
	if code != cli.ExitOK {
		t.Fatalf("schedule exited %d, want 0 after a graceful stop:\n%s", code, stderr.String())
	}

	// Read the scheduler's own log lines in order.
	type event struct {
		Msg      string `json:"msg"`
		Run      int    `json:"run"`
		ExitCode *int   `json:"exit_code"`
		Duration string `json:"duration"`
	}
	var events []event
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil && (strings.HasPrefix(e.Msg, "scheduled run") || strings.HasPrefix(e.Msg, "schedule")) {
			events = append(events, e)
		}
	}
	running, started, finished, skipped, slow := 0, 0, 0, 0, 0
	for _, e := range events {
		switch e.Msg {
		case "scheduled run started":
			running++
			started++
			if running > 1 {
				t.Errorf("run %d started while another was running", e.Run)
			}
		case "scheduled run finished":
			running--
			finished++
			if e.ExitCode == nil || *e.ExitCode != cli.ExitOK {
				t.Errorf("run %d finished with exit code %v, want 0: stopping must not interrupt it", e.Run, e.ExitCode)
			}
			if d, err := time.ParseDuration(e.Duration); err == nil && d > time.Second {
				slow++
			}
		case "scheduled run skipped: the previous run is still running":
			skipped++
		}
	}
	if started < 2 || finished != started {
		t.Errorf("%d runs started, %d finished: the running job must finish before the process exits", started, finished)
	}
	if slow > 0 && skipped == 0 {
		t.Errorf("%d runs took over a second on a 1s schedule, yet no tick was skipped", slow)
	}
	if slow == 0 {
		t.Errorf("no run took over a second: the test cannot show that ticks are skipped; raise the sandbox's latency")
	}
	if last := events[len(events)-1]; last.Msg != "schedule stopped" {
		t.Errorf("last event %q, want the schedule stopped", last.Msg)
	}
	if n := strings.Count(stdout.String(), "run 2026-11-20 (ok)"); n != finished {
		t.Errorf("%d run summaries on stdout for %d runs", n, finished)
	}
}
