package main

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

	"github.com/reconcile/reconcile/store"
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
	code, _, stderr := runCLI(t, nil, "run", "--db", db, "--out", out, "--date", testDate.Format("2006-01-02"))
	if code != exitFailed || !strings.Contains(stderr, "another reconcile run") {
		t.Fatalf("exit %d, stderr %q; want 1 and the database named as held by another run", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a run that could not take the database wrote %s (%v): the sandbox's journals were rewritten under another run", out, err)
	}
}
