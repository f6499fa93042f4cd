package operator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// aSecret is a base64 shared secret as an operator could paste it by
// mistake where a path belongs.
const aSecret = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVk"

// TestSandboxPrintsOnlyTheTestSecret: the sandbox's banner shows the
// documented test secret, never one given in a file, and an unreadable
// --secret-file does not echo its path (a slip may put the secret there).
func TestSandboxPrintsOnlyTheTestSecret(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "own.b64")
	test := filepath.Join(dir, "test.b64")
	os.WriteFile(own, []byte(aSecret+"\n"), 0o600)
	os.WriteFile(test, []byte(sandbox.DefaultSecret), 0o600)
	for _, c := range []struct {
		name       string
		args       []string
		shown, not string
	}{
		{"default", nil, sandbox.DefaultSecret, ""},
		{"the test secret in a file", []string{"--secret-file", test}, sandbox.DefaultSecret, ""},
		{"a secret of its own", []string{"--secret-file", own}, "secret from --secret-file (not shown)", aSecret},
	} {
		stdout := serveSandboxBriefly(t, c.args...)
		if !strings.Contains(stdout, c.shown) || (c.not != "" && strings.Contains(stdout, c.not)) {
			t.Errorf("%s: banner\n%s\nwant %q, never %q", c.name, stdout, c.shown, c.not)
		}
	}
	code, stdout, stderr := clitest.RunCLI(t, nil, "sandbox", "--addr", "127.0.0.1:0", "--secret-file", aSecret)
	if code != cli.ExitFailed || !strings.Contains(stderr, "--secret-file") || strings.Contains(stdout+stderr, aSecret) {
		t.Errorf("unreadable --secret-file: exit %d, stderr %q", code, stderr)
	}
}

// serveSandboxBriefly runs `reconcile sandbox` until its banner is out,
// stops it and returns what it printed.
func serveSandboxBriefly(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr clitest.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...),
			cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	}()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stdout.String(), "(assigned to group ID)"); {
		select {
		case code := <-done:
			t.Fatalf("sandbox exited %d: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no banner from the sandbox")
		}
	}
	cancel()
	if code := <-done; code != cli.ExitOK {
		t.Errorf("sandbox exited %d: %s", code, stderr.String())
	}
	return stdout.String()
}
