package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/sandbox"
)

// aSecret is a base64 shared secret as an operator could paste it by
// mistake where a path belongs.
const aSecret = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVk"

// TestLayeredSecretsAreNeverEchoed: an error about a setting names the
// setting and where its value came from; it shows the value unless the
// setting may hold a secret.
func TestLayeredSecretsAreNeverEchoed(t *testing.T) {
	newFlags := func() *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.String("secret-file", "", "")
		fs.Bool("db-password-required", false, "") // a typed secret-bearing setting: its Set can fail
		fs.Float64("rate", 20, "")
		return fs
	}
	cfg := filepath.Join(t.TempDir(), "reconcile.yaml")
	cases := []struct {
		name, env, file, want string
	}{
		{"secret-file from the environment", "RECONCILE_SECRET_FILE=" + aSecret, "", "environment RECONCILE_SECRET_FILE: no readable file there"},
		{"secret-file from the config file", "", "secret-file: " + aSecret, "config " + cfg + ": secret-file: no readable file there"},
		{"a typed secret from the environment", "RECONCILE_DB_PASSWORD_REQUIRED=" + aSecret, "", "environment RECONCILE_DB_PASSWORD_REQUIRED: invalid value"},
		{"a typed secret from the config file", "", "db-password-required: " + aSecret, "config " + cfg + ": db-password-required: invalid value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(cfg, []byte(c.file+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			k, v, _ := strings.Cut(c.env, "=")
			err := applyLayers(newFlags(), func(name string) string { return map[string]string{k: v}[name] }, cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), aSecret) {
				t.Errorf("got %v; want an error with %q and without the value", err, c.want)
			}
		})
	}
	err := applyLayers(newFlags(), func(name string) string { return map[string]string{"RECONCILE_RATE": "fast"}[name] }, "")
	if err == nil || !strings.Contains(err.Error(), `RECONCILE_RATE="fast"`) {
		t.Errorf("a harmless setting's bad value is shown: %v", err)
	}
	secretFile := filepath.Join(t.TempDir(), "secret.b64")
	os.WriteFile(secretFile, []byte(aSecret), 0o600)
	fs := newFlags()
	if err := applyLayers(fs, func(name string) string { return map[string]string{"RECONCILE_SECRET_FILE": secretFile}[name] }, ""); err != nil || fs.Lookup("secret-file").Value.String() != secretFile {
		t.Errorf("a secret file that exists: %v", err)
	}
}

// TestSecretInASettingNeverPrinted: a run given the secret itself where
// the secret file's path belongs (environment or config file) fails, and
// neither stdout nor stderr holds the secret.
func TestSecretInASettingNeverPrinted(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "reconcile.yaml")
	if err := os.WriteFile(cfg, []byte("secret-file: "+aSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--base-url", "http://127.0.0.1:1", "--organization-id", "o", "--key-id", "k",
		"--db", filepath.Join(work, "r.duckdb"), "--out", filepath.Join(work, "out")}
	for name, c := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"environment": {map[string]string{"RECONCILE_SECRET_FILE": aSecret}, nil},
		"config file": {nil, []string{"--config", cfg}},
	} {
		code, stdout, stderr := runCLI(t, c.env, append(base, c.args...)...)
		if code != exitFailed || !regexp.MustCompile(`(?i)secret[-_]file`).MatchString(stderr) {
			t.Errorf("%s: exit %d, stderr %q: want 1 and an error naming the setting", name, code, stderr)
		}
		if strings.Contains(stdout+stderr, aSecret) {
			t.Errorf("%s: the secret is printed:\n%s\n%s", name, stdout, stderr)
		}
	}
}

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
	code, stdout, stderr := runCLI(t, nil, "sandbox", "--addr", "127.0.0.1:0", "--secret-file", aSecret)
	if code != exitFailed || !strings.Contains(stderr, "--secret-file") || strings.Contains(stdout+stderr, aSecret) {
		t.Errorf("unreadable --secret-file: exit %d, stderr %q", code, stderr)
	}
}

// serveSandboxBriefly runs `reconcile sandbox` until its banner is out,
// stops it and returns what it printed.
func serveSandboxBriefly(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"sandbox", "--addr", "127.0.0.1:0"}, args...),
			env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
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
	if code := <-done; code != exitOK {
		t.Errorf("sandbox exited %d: %s", code, stderr.String())
	}
	return stdout.String()
}
