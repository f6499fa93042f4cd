package process

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/store"
)

// TestHoldDatabase is not a test of its own: TestLockedRunTouchesNothing
// runs the test binary on it to hold a database open in another process,
// as a second reconcile run would find it.
func TestHoldDatabase(t *testing.T) {
	path := os.Getenv("RECONCILE_TEST_HOLD_DB")
	if path == "" {
		t.Skip("a helper process of TestLockedRunTouchesNothing")
	}
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test closes our standard input
}

// TestLockedRunTouchesNothing: a run whose database another process holds
// fails on the lock before it writes anything: the embedded sandbox's
// journals and ground truth (under --out) are not rewritten, no output
// folder appears.
func TestLockedRunTouchesNothing(t *testing.T) {
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	holder := exec.Command(os.Args[0], "-test.run", "^TestHoldDatabase$")
	holder.Env = append(os.Environ(), "RECONCILE_TEST_HOLD_DB="+db)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = holder.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || strings.TrimSpace(line) != "held" {
		t.Fatalf("the holding process said %q, %v", line, err)
	}
	code, _, stderr := clitest.RunCLI(t, nil, "run", "--db", db, "--out", out, "--date", clitest.TestDate.Format("2006-01-02"))
	if code != cli.ExitFailed || !strings.Contains(stderr, "another reconcile run") {
		t.Fatalf("exit %d, stderr %q; want 1 and the database named as held by another run", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a run that could not take the database wrote %s (%v): the sandbox's journals were rewritten under another run", out, err)
	}
}

// TestSandboxJournalsNotThroughALink: the embedded sandbox writes its
// journals and ground truth under --out/sandbox only when that is a folder
// of its own: a symbolic link there (or at its journals folder) is refused,
// and nothing is written where it points.
func TestSandboxJournalsNotThroughALink(t *testing.T) {
	for _, at := range []string{"sandbox", "sandbox/journals-" + clitest.TestDate.Format("2006-01-02")} {
		work := t.TempDir()
		out, elsewhere := filepath.Join(work, "out"), filepath.Join(work, "elsewhere")
		if err := os.MkdirAll(filepath.Dir(filepath.Join(out, at)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(elsewhere, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(elsewhere, filepath.Join(out, at)); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := clitest.RunCLI(t, nil, "run", "--db", filepath.Join(work, "r.duckdb"), "--out", out, "--date", clitest.TestDate.Format("2006-01-02"))
		if code != cli.ExitFailed || !strings.Contains(stderr, "is a symbolic link") {
			t.Errorf("link at %s: exit %d, stderr %q; want 1 and the link refused", at, code, stderr)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Errorf("link at %s: the sandbox wrote %d entries where the link points", at, len(entries))
		}
	}
}

// TestEmbeddedSandboxNotHeldToThePlatformRate: a run on the embedded
// sandbox is not held to the platform's default of 20 requests a second
// (a medium demo waited minutes for it), unless --rate says so. The
// embedded sandbox is two members of four subscriptions: what is checked
// is the rate logged, and at 20 requests a second small's requests would
// only be waited for.
func TestEmbeddedSandboxNotHeldToThePlatformRate(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	for args, want := range map[string]string{"": `"rate":5000`, "--rate 20": `"rate":20`} {
		work := t.TempDir()
		cmd := append([]string{"run", "--db", filepath.Join(work, "r.duckdb"), "--out", filepath.Join(work, "out"),
			"--date", clitest.TestDate.Format("2006-01-02"), "--log-level", "info", "--sandbox-scale", "members=2,subscriptions=4,groups=1"},
			strings.Fields(args)...)
		code, stdout, stderr := clitest.RunCLI(t, nil, cmd...)
		if code != cli.ExitOK || !strings.Contains(stderr, `"msg":"embedded sandbox","rate"`) || !strings.Contains(stderr, want) {
			t.Errorf("run %s: exit %d, want the embedded sandbox's rate logged as %s\n%s\n%.2000s", args, code, want, stdout, stderr)
		}
	}
}
