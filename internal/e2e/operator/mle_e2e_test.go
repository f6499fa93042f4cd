package operator

import (
	"bytes"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/testcert"
)

// runClockColumns are the columns that record when a run happened (its
// wall clock), not what it read: they differ between any two runs.
var runClockColumns = map[string]bool{
	"started_at": true, "finished_at": true, "loaded_at": true, "fetched_at": true, "imported_at": true,
	"first_seen_at": true, "last_seen_at": true, "updated_at": true, "duration_ms": true, "requests": true, "retries": true,
	"payments_pulled_at": true, "looked_up_at": true, "done_at": true,
}

// tableContents dumps every table of TableKeys, rows sorted, without the
// run-clock columns, for two runs' databases to be compared.
func tableContents(t *testing.T, path string) map[string][]string {
	t.Helper()
	db := clitest.OpenReadOnly(t, path)
	out := map[string][]string{}
	for table := range clitest.TableKeys {
		rows, err := db.Query(`SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position`, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			// A BIN lookup's raw answer carries the id and time the
			// platform gives each lookup afresh; its attributes are
			// compared in their own columns.
			if !runClockColumns[c] && !(table == "bin_attributes" && c == "raw") {
				cols = append(cols, fmt.Sprintf("CAST(%q AS VARCHAR)", c))
			}
		}
		rows.Close()
		out[table] = dumpRows(t, db, "SELECT "+strings.Join(cols, ", ")+" FROM "+table)
	}
	return out
}

func dumpRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			fmt.Fprintf(&b, "%s=%q|", cols[i], v.String)
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}

// countEncrypted wraps the sandbox's handler to count the answers that
// went out encrypted and in the clear.
func countEncrypted(enc, plain *atomic.Int64) sandboxtest.Option {
	return sandboxtest.WithHandler(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pw := &peekWriter{ResponseWriter: w}
			h.ServeHTTP(pw, r)
			if bytes.HasPrefix(pw.head, []byte(`{"encryptedResponse":"`)) {
				enc.Add(1)
			} else if len(pw.head) > 0 {
				plain.Add(1)
			}
		})
	})
}

type peekWriter struct {
	http.ResponseWriter
	head []byte
}

func (p *peekWriter) Write(b []byte) (int, error) {
	if len(p.head) < 32 {
		p.head = append(p.head, b[:min(len(b), 32-len(p.head))]...)
	}
	return p.ResponseWriter.Write(b)
}

// TestResponseMLEWholeRun: a whole run against a sandbox that encrypts
// every answer (--auth jwt with the portal's P12 as --response-mle-key)
// loads the same tables, row for row, as the same run in the clear; the
// manifest, the metrics and --alarms carry the key's expiry; and no output
// holds the key, its password or a decrypted body's envelope.
func TestResponseMLEWholeRun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	dir := t.TempDir()
	const kid = "MLE-E2E-1"
	const password = "portal-p12-password"
	cert := testcert.NewValid(t, sandbox.DefaultOrganizationID, kid, time.Now().Add(-time.Hour), time.Now().Add(30*24*time.Hour))
	keyFile := writeFile(t, filepath.Join(dir, "response-mle.p12"), cert.P12(t, pkcs12.Modern, password), 0o600)
	passFile := writeFile(t, filepath.Join(dir, "mle.pass"), []byte(password+"\n"), 0o600)
	secretFile := writeFile(t, filepath.Join(dir, "secret.b64"), []byte(sandbox.DefaultSecret+"\n"), 0o600)
	pub, err := sandbox.ParseCertificate(cert.PEM(), "")
	if err != nil {
		t.Fatal(err)
	}
	alarmsFile := writeFile(t, filepath.Join(dir, "alarms.yaml"), []byte("members-lost: true\n"), 0o644)

	plain := clitest.NewFixture(t, sandbox.Config{})
	var enc, clear atomic.Int64
	encrypted := clitest.NewFixture(t, sandbox.Config{ResponseMLE: []sandbox.Certificate{pub}}, countEncrypted(&enc, &clear))

	plainDB, encDB := filepath.Join(dir, "plain.duckdb"), filepath.Join(dir, "enc.duckdb")
	code, stdout, stderr := clitest.RunCLI(t, nil, plain.RunArgs(plainDB, filepath.Join(dir, "out-plain"),
		"--auth", "jwt", "--secret-file", secretFile)...)
	if code != cli.ExitOK {
		t.Fatalf("plain run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	metrics := filepath.Join(dir, "metrics.prom")
	encOut := filepath.Join(dir, "out-enc")
	code, stdout, stderr = clitest.RunCLI(t, map[string]string{"RECONCILE_RESPONSE_MLE_KEY": keyFile}, encrypted.RunArgs(encDB, encOut,
		"--auth", "jwt", "--secret-file", secretFile, "--response-mle-password-file", passFile,
		"--journal", filepath.Join(plain.Journals, "*.ndjson"), // the same journal paths as the plain run's
		"--alarms", alarmsFile, "--metrics-file", metrics)...)
	if code != cli.ExitOK {
		t.Fatalf("encrypted run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if enc.Load() < 10 || clear.Load() != 0 {
		t.Fatalf("%d answers encrypted, %d in the clear: the sandbox did not encrypt every answer", enc.Load(), clear.Load())
	}

	got, want := tableContents(t, encDB), tableContents(t, plainDB)
	for table := range clitest.TableKeys {
		if len(want[table]) == 0 && table != "journal_rejects" && table != "acknowledgements" && table != "acknowledgement_audit" && table != "upgrades" {
			t.Errorf("table %s is empty in the plain run: nothing compared", table)
		}
		if strings.Join(got[table], "\n") != strings.Join(want[table], "\n") {
			t.Errorf("table %s: %d rows encrypted, %d plain, contents differ", table, len(got[table]), len(want[table]))
			for i := range min(len(got[table]), len(want[table])) {
				if got[table][i] != want[table][i] {
					t.Logf("first difference:\n  encrypted %s\n  plain     %s", got[table][i], want[table][i])
					break
				}
			}
		}
	}

	// The key's expiry: the manifest, the metrics, the alarm (30 days <= 60)
	// and a warning.
	manifests, _ := filepath.Glob(filepath.Join(encOut, "*", "manifest.json"))
	if len(manifests) == 0 {
		manifests, _ = filepath.Glob(filepath.Join(encOut, "*", "*", "manifest.json"))
	}
	if len(manifests) == 0 {
		t.Fatal("no manifest published")
	}
	var m struct {
		ResponseMLEKey struct {
			Kid      string `json:"kid"`
			NotAfter string `json:"notAfter"`
			DaysLeft *int   `json:"daysLeft"`
		} `json:"responseMleKey"`
		Alarms []struct{ Name, Message string }
	}
	b, err := os.ReadFile(manifests[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.ResponseMLEKey.Kid != kid || m.ResponseMLEKey.NotAfter != cert.Cert.NotAfter.UTC().Format(time.RFC3339) ||
		m.ResponseMLEKey.DaysLeft == nil || *m.ResponseMLEKey.DaysLeft != 29 {
		t.Errorf("manifest responseMleKey = %+v, want kid %s, notAfter %s, 29 days left", m.ResponseMLEKey, kid, cert.Cert.NotAfter.UTC().Format(time.RFC3339))
	}
	raised := false
	for _, a := range m.Alarms {
		raised = raised || a.Name == "response_mle_key_expiry" && strings.Contains(a.Message, kid)
	}
	if !raised {
		t.Errorf("no response_mle_key_expiry alarm in the manifest: %+v", m.Alarms)
	}
	mb, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`reconcile_response_mle_key_expiry_timestamp_seconds{shard="0/1"} %s`, strconv.FormatFloat(float64(cert.Cert.NotAfter.Unix()), 'g', -1, 64)); !strings.Contains(string(mb), want) {
		t.Errorf("metrics lack %q", want)
	}
	if !strings.Contains(stderr, "response MLE key "+kid+" expires on") {
		t.Errorf("no warning of the key's expiry on stderr:\n%s", stderr)
	}

	// No output holds key material, the password or an envelope.
	der, err := pkcs8(cert)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(der)
	needles := []string{password, cert.Key.D.String()[:24], fmt.Sprintf("%x", cert.Key.D)[:24], b64[100:140], "encryptedResponse"}
	scan := func(name string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				t.Errorf("%s holds %.12q…", name, n)
			}
		}
	}
	scan("stdout", []byte(stdout))
	scan("stderr", []byte(stderr))
	for _, root := range []string{encOut, metrics, encDB} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			scan(p, data)
			return nil
		})
	}
}

// TestResponseMLERunRefusals: a response key with the HTTP signature, a P12
// without its password, a password file others may read, and an HTTP
// signature against a platform that encrypts each fail with one message
// that says what to do, and never the password.
func TestResponseMLERunRefusals(t *testing.T) {
	dir := t.TempDir()
	const password = "another-portal-pass"
	cert := testcert.New(t, sandbox.DefaultOrganizationID, "MLE-E2E-2")
	keyFile := writeFile(t, filepath.Join(dir, "k.p12"), cert.P12(t, pkcs12.Modern, password), 0o600)
	pub, err := sandbox.ParseCertificate(cert.PEM(), "")
	if err != nil {
		t.Fatal(err)
	}
	f := clitest.NewFixture(t, sandbox.Config{ResponseMLE: []sandbox.Certificate{pub}})
	env := map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret, "RECONCILE_RESPONSE_MLE_PASSWORD": password}
	cases := []struct {
		name  string
		env   map[string]string
		extra []string
		want  []string
	}{
		{"HTTP signature with a key", env, []string{"--response-mle-key", keyFile}, []string{"--response-mle-key needs --auth jwt or jwt-p12"}},
		{"P12 without password", clitest.SandboxEnv, []string{"--auth", "jwt", "--response-mle-key", keyFile}, []string{"RECONCILE_RESPONSE_MLE_PASSWORD"}},
		{"password file others read", clitest.SandboxEnv, []string{"--auth", "jwt", "--response-mle-key", keyFile, "--response-mle-password-file",
			writeFile(t, filepath.Join(dir, "open.pass"), []byte(password), 0o644)}, []string{"chmod 600"}},
		{"HTTP signature against encryption", clitest.SandboxEnv, nil, []string{"move to JWT", "--auth jwt", "--response-mle-key"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := clitest.RunCLI(t, tc.env, f.RunArgs(filepath.Join(dir, fmt.Sprintf("r%d.duckdb", i)), filepath.Join(dir, fmt.Sprintf("out%d", i)), tc.extra...)...)
			if code != cli.ExitFailed {
				t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stdout+stderr, password) {
				t.Error("the password appears in the output")
			}
			if n := strings.Count(stdout+stderr, "move to JWT"); n > 2 {
				t.Errorf("the advice is repeated %d times:\n%s", n, stdout+stderr)
			}
		})
	}
}

func pkcs8(c testcert.Cert) ([]byte, error) { return x509.MarshalPKCS8PrivateKey(c.Key) }
