package operator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/credentials"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/testcert"
)

// writeFile writes a test file with the given mode (umask aside).
func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// A run authenticates in each mode: jwt against a sandbox on loopback
// with the secret from a file, jwt-p12 against the embedded sandbox, which
// is started trusting the P12 file's certificate (mode and password from
// the environment, as cron would set them).
func TestRunAuthModes(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	dir := t.TempDir()
	// What is tested is that every request of a whole run authenticates:
	// the run is ok (every member reconciled, nothing refused).
	const scale = "members=2,subscriptions=5,groups=1"
	t.Run("jwt", func(t *testing.T) {
		f := clitest.NewFixture(t, sandbox.Config{})
		secret := writeFile(t, filepath.Join(dir, "secret.b64"), []byte(sandbox.DefaultSecret+"\n"), 0o600)
		code, stdout, stderr := clitest.RunCLI(t, nil, f.RunArgs(filepath.Join(dir, "jwt.duckdb"), filepath.Join(dir, "out-jwt"),
			"--auth", "jwt", "--secret-file", secret)...)
		if code != cli.ExitOK || !strings.Contains(stdout, " (ok): 6 of 6 members reconciled") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
	t.Run("jwt-p12 embedded", func(t *testing.T) {
		// No P12 of the user's: the embedded sandbox signs with a
		// throwaway key it trusts, as it uses its test secret for jwt.
		env := map[string]string{"RECONCILE_AUTH": "jwt-p12"}
		code, stdout, stderr := clitest.RunCLI(t, env, "run", "--db", filepath.Join(dir, "p12.duckdb"),
			"--out", filepath.Join(dir, "out-p12"), "--rate", "5000", "--sandbox-scale", scale)
		if code != cli.ExitOK || !strings.Contains(stdout, " (ok): 2 of 2 members reconciled") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
	t.Run("a P12 file without a base URL is refused", func(t *testing.T) {
		// A cron that lost RECONCILE_BASE_URL must not sign the sandbox's
		// requests with the production certificate, nor reconcile it.
		cert := testcert.New(t, sandbox.DefaultOrganizationID, "SBX-RUN-1")
		p12 := writeFile(t, filepath.Join(dir, "key.p12"), cert.P12(t, pkcs12.Modern, "p12 pass"), 0o600)
		env := map[string]string{"RECONCILE_AUTH": "jwt-p12", "RECONCILE_P12_PASSWORD": "p12 pass"}
		code, stdout, stderr := clitest.RunCLI(t, env, "run", "--p12-file", p12, "--db", filepath.Join(dir, "p12x.duckdb"),
			"--out", filepath.Join(dir, "out-p12x"), "--sandbox-scale", scale)
		if code != cli.ExitFailed || !strings.Contains(stderr, "--base-url") {
			t.Fatalf("exit %d, want 1 naming --base-url\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, "p12 pass") {
			t.Error("the P12 password appears in the output")
		}
	})
}

// Credentials that are missing, contradictory or exposed are refused with
// exit 1 and a message that says what to do, and never print a value that
// could be the secret itself.
func TestRunRefusesBadCredentials(t *testing.T) {
	dir := t.TempDir()
	cert := testcert.New(t, "org", "SN-1")
	p12 := writeFile(t, filepath.Join(dir, "key.p12"), cert.P12(t, pkcs12.Modern, "right"), 0o600)
	open := writeFile(t, filepath.Join(dir, "open secret.b64"), []byte(sandbox.DefaultSecret), 0o644)
	groupPass := writeFile(t, filepath.Join(dir, "pass"), []byte("right\n"), 0o640)
	goodPass := writeFile(t, filepath.Join(dir, "pass600"), []byte("right\n"), 0o600)
	wrongPass := writeFile(t, filepath.Join(dir, "wrong600"), []byte("wrong\n"), 0o600)
	db := filepath.Join(dir, "x.duckdb")
	base := []string{"run", "--base-url", "http://127.0.0.1:1", "--organization-id", "o", "--key-id", "k", "--db", db}
	for _, tc := range []struct {
		name   string
		env    map[string]string
		args   []string
		want   []string // in stderr
		hidden string   // never in stdout or stderr
	}{
		{name: "secret file readable by others", args: []string{"--secret-file", open},
			want: []string{"--secret-file (RECONCILE_SECRET_FILE)", "readable by group or others", "mode 0644", "chmod 600 '" + open + "'"}},
		{name: "the secret put where its file belongs", env: map[string]string{"RECONCILE_SECRET_FILE": sandbox.DefaultSecret},
			want: []string{"--secret-file (RECONCILE_SECRET_FILE): cannot open the file it names"}, hidden: sandbox.DefaultSecret},
		{name: "a P12 password file readable by the group", args: []string{"--auth", "jwt-p12", "--p12-file", p12, "--p12-password-file", groupPass},
			want: []string{"--p12-password-file (RECONCILE_P12_PASSWORD_FILE)", "mode 0640", "chmod 600 " + groupPass}},
		{name: "jwt-p12 without a P12 file", args: []string{"--auth", "jwt-p12"}, want: []string{"--auth jwt-p12 needs --p12-file"}},
		{name: "jwt-p12 without a password", args: []string{"--auth", "jwt-p12", "--p12-file", p12},
			want: []string{"needs the P12 password: --p12-password-file or RECONCILE_P12_PASSWORD"}},
		{name: "a wrong P12 password", args: []string{"--auth", "jwt-p12", "--p12-file", p12, "--p12-password-file", wrongPass},
			want: []string{"--p12-file: P12 file: wrong password"}, hidden: "wrong\n"},
		{name: "a P12 file that is not one", env: map[string]string{"RECONCILE_P12_PASSWORD": "right"},
			args: []string{"--auth", "jwt-p12", "--p12-file", goodPass}, want: []string{"--p12-file: P12 file:"}},
		{name: "a P12 file that does not exist", env: map[string]string{"RECONCILE_P12_PASSWORD": "right"},
			args: []string{"--auth", "jwt-p12", "--p12-file", filepath.Join(dir, "nope-p12")},
			want: []string{"--p12-file (RECONCILE_P12_FILE): cannot open the file it names: no such file"}, hidden: "nope-p12"},
		{name: "a P12 file with a shared-secret mode", env: map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret},
			args: []string{"--auth", "jwt", "--p12-file", p12}, want: []string{"--p12-file and --p12-password-file are for --auth jwt-p12, not jwt"}},
		{name: "jwt without a secret", args: []string{"--auth", "jwt"}, want: []string{"no credentials: give --secret-file or RECONCILE_SECRET"}},
		{name: "an unknown mode", env: map[string]string{"RECONCILE_AUTH": "oauth"},
			want: []string{`--auth: unknown authentication mode "oauth" (want http-signature, jwt or jwt-p12)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := clitest.RunCLI(t, tc.env, append(append([]string{}, base...), tc.args...)...)
			if code != cli.ExitFailed {
				t.Errorf("exit %d, want %d", code, cli.ExitFailed)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, clitest.Printed(w)) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tc.hidden != "" && strings.Contains(stdout+stderr, tc.hidden) {
				t.Errorf("output repeats %q:\n%s%s", tc.hidden, stdout, stderr)
			}
		})
	}
	// The P12 file itself (encrypted with its password) is not refused for
	// its mode; the password file and the P12 given right work.
	if _, err := credentials.Load(credentials.Settings{Auth: "jwt-p12", P12File: p12, P12PasswordFile: goodPass}, func(string) string { return "" }); err != nil {
		t.Errorf("a good P12 and password: %v", err)
	}
}
