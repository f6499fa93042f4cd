package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
)

// aSecret is a base64 shared secret as an operator could paste it by
// mistake where a path belongs.
const aSecret = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVk"

// TestLayeredSecretsAreNeverEchoed: an error about a setting names the
// setting and where its value came from; it shows the value unless the
// setting may hold a secret or say where one is.
func TestLayeredSecretsAreNeverEchoed(t *testing.T) {
	newFlags := func() *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.String("secret-file", "", "")
		fs.Bool("p12-password-required", false, "") // secret-bearing by its name, and typed: its value can fail to parse
		fs.Func("db-key-file", "", func(string) error { return errors.New("not a key file") })
		fs.Float64("rate", 20, "")
		return fs
	}
	cfg := filepath.Join(t.TempDir(), "reconcile.yaml")
	cases := []struct {
		name, env, file, want string
	}{
		{"a typed secret from the environment", "RECONCILE_P12_PASSWORD_REQUIRED=" + aSecret, "", "environment RECONCILE_P12_PASSWORD_REQUIRED: invalid value"},
		{"a typed secret from the config file", "", "p12-password-required: " + aSecret, "config " + cfg + ": p12-password-required: invalid value"},
		{"a key file from the environment", "RECONCILE_DB_KEY_FILE=" + aSecret, "", "environment RECONCILE_DB_KEY_FILE: invalid value"},
		{"a key file from the config file", "", "db-key-file: " + aSecret, "config " + cfg + ": db-key-file: invalid value"},
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
	fs := newFlags()
	if err := applyLayers(fs, func(name string) string { return map[string]string{"RECONCILE_SECRET_FILE": aSecret}[name] }, ""); err != nil || fs.Lookup("secret-file").Value.String() != aSecret {
		t.Errorf("a string setting takes any value (the file is read later): %v", err)
	}
	for name, want := range map[string]bool{"secret-file": true, "p12-file": true, "p12-password-file": true, "key-file": true,
		"api-token": true, "key-id": false, "rate": false, "journal": false, "metrics-file": false} {
		if isSecretSetting(name) != want {
			t.Errorf("isSecretSetting(%q) = %v", name, !want)
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
