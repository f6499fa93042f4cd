package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRunNeedsCredentialsForARealPlatform(t *testing.T) {
	code, _, stderr := RunCLI(t, nil, "run", "--base-url", "http://127.0.0.1:1", "--organization-id", "o",
		"--db", filepath.Join(t.TempDir(), "x.duckdb"))
	if code != ExitFailed || !strings.Contains(stderr, "no credentials") {
		t.Errorf("exit %d, stderr %q: want 1 and a message about credentials", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, stderr := RunCLI(t, nil, "frobnicate"); code != ExitFailed || !strings.Contains(stderr, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := RunCLI(t, nil, "version"); code != ExitOK || !strings.HasPrefix(stdout, "reconcile ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}
