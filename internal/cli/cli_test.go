package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunNeedsCredentialsForARealPlatform(t *testing.T) {
	code, _, stderr := runCLI(t, nil, "run", "--base-url", "http://127.0.0.1:1", "--organization-id", "o",
		"--db", filepath.Join(t.TempDir(), "x.duckdb"))
	if code != ExitFailed || !strings.Contains(stderr, "no credentials") {
		t.Errorf("exit %d, stderr %q: want 1 and a message about credentials", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, stderr := runCLI(t, nil, "frobnicate"); code != ExitFailed || !strings.Contains(stderr, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := runCLI(t, nil, "version"); code != ExitOK || !strings.HasPrefix(stdout, "reconcile ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// RunCLI runs the CLI in-process, as clitest.RunCLI does for the
// end-to-end tests (which this package's tests cannot import: clitest
// imports cli), and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, extraEnv map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string { return extraEnv[k] }
	code := Run(context.Background(), args, Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv})
	return code, stdout.String(), stderr.String()
}
