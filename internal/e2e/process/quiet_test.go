package process

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// onTerminal runs the CLI with stderr on a pseudo-terminal, as an operator
// at a shell runs it, and returns what the terminal received and stdout.
func onTerminal(t *testing.T, args ...string) (code int, screen, stdout string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: 200}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, ptmx) // until the terminal's other end closes
		close(done)
	}()
	var so bytes.Buffer
	getenv := func(k string) string { return clitest.SandboxEnv[k] }
	code = cli.Run(context.Background(), args, cli.Env{Stdout: &so, Stderr: tty, Getenv: getenv})
	tty.Close()
	<-done
	return code, out.String(), so.String()
}

// On a terminal at the default level, the status line, warnings and a
// final line show; a line per member does not (it would scroll the rest
// away at ten thousand members). --log-level debug shows them again.
func TestQuietTerminal(t *testing.T) {
	t.Parallel() // its own sandboxes, files and pseudo-terminal
	probe := clitest.NewFixture(t, sandbox.Config{})
	bad := probe.Srv.Members()[1]
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{FailMembers: map[string]int{bad: 403}}})
	work := t.TempDir()
	code, screen, stdout := onTerminal(t, f.RunArgs(filepath.Join(work, "a.duckdb"), filepath.Join(work, "a"))...)
	if code != cli.ExitPartial {
		t.Fatalf("exit %d\n%s\n%s", code, screen, stdout)
	}
	for _, want := range []string{
		"members 6/6 [############] 0 in flight · 1 error",    // the status line
		`level=WARN msg="member failed"`,                      // a warning,
		"merchant_id=" + bad + ` error="list subscriptions: `, // with its reason
		"done · members 6/6, 1 error · ",                      // the final line
		`msg="run finished"`,                                  // the run's own records
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, `msg="member loaded"`) || strings.Contains(screen, `msg="journal file"`) ||
		strings.Contains(screen, "memory.") {
		t.Errorf("a line per member or journal file, or memory internals, on the terminal:\n%s", screen)
	}
	if !strings.Contains(stdout, "run 2026-11-20 (partial): 5 of 6 members reconciled") {
		t.Errorf("the summary on stdout:\n%s", stdout)
	}

	_, screen, _ = onTerminal(t, f.RunArgs(filepath.Join(work, "b.duckdb"), filepath.Join(work, "b"), "--log-level", "debug")...)
	if strings.Count(screen, `msg="member loaded"`) != 5 || !strings.Contains(screen, `msg="run memory"`) {
		t.Errorf("--log-level debug: want a line per loaded member and the run's memory:\n%s", screen)
	}
}
