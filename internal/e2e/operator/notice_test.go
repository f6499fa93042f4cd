package operator

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/notify/notifytest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/xuri/excelize/v2"
)

// failingProxy passes requests to the sandbox, and answers 403 for one
// member while fail is set.
func failingProxy(t *testing.T, f *clitest.Fixture, member string, fail *atomic.Bool) string {
	h := f.Srv.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() && r.Header.Get("v-c-merchant-id") == member {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"status":"FORBIDDEN","reason":"NOT_AUTHORIZED","message":"<b>denied</b>"}`)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// digestOf is the one e-mail of a run, its subject decoded and its text
// part read.
func digestOf(t *testing.T, m notifytest.Message) (subject, text string) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	// The text part is the first quoted-printable part; its lines the
	// tests look for carry no character QP would encode.
	body, _ := io.ReadAll(msg.Body)
	text = strings.ReplaceAll(strings.ReplaceAll(string(body), "=\r\n", ""), "\r\n", "\n")
	return subject, text
}

// Three nightly runs as an operator sets them up, with --alarms, --notify
// (e-mail and webhook) and --metrics-file and --metrics-push: a quiet day,
// a day a member fails (the alarms are raised, everywhere they are shown,
// the exit code stays 3), and a day back to normal (the alarms clear).
func TestDigestAndAlarmsOverThreeNights(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	bad := f.Srv.Members()[3]
	var failing atomic.Bool
	f.URL = failingProxy(t, f, bad, &failing)
	smtpSrv := notifytest.StartSMTP(t, false)
	hook := notifytest.StartHook(t)
	push := clitest.StartPushReceiver(t)
	notifyFile := clitest.WriteText(t, "notify.yaml", fmt.Sprintf(`
email:
  server: %s
  from: "Reconcile <reconcile@example.com>"
  to: [finance@example.com]
  username: reconcile
  ca-file: %s
webhook:
  url-file: %s
`, smtpSrv.Addr, smtpSrv.CAFile, clitest.WriteText(t, "hook-url", hook.URL+"/hooks/T0/B0/secret")))
	alarmsFile := clitest.WriteText(t, "alarms.yaml", "members-lost: true\nfailed-share: 0.1\n")
	work := t.TempDir()
	db, out, prom := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), filepath.Join(work, "reconcile.prom")
	envs := map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret, notify.EnvSMTPPassword: smtpSrv.Pass}
	night := func(date string, wantCode int) (subject, text string, samples []clitest.PromSample) {
		t.Helper()
		code, stdout, stderr := clitest.RunCLI(t, envs, f.RunArgs(db, out, "--date", date, "--alarms", alarmsFile, "--notify", notifyFile,
			"--metrics-file", prom, "--metrics-push", push.URL)...)
		if code != wantCode {
			t.Fatalf("%s exited %d, want %d\n%s\n%s", date, code, wantCode, stdout, stderr)
		}
		if strings.Contains(stderr, "not delivered") || strings.Contains(stderr, "not pushed") {
			t.Fatalf("%s: a delivery failed:\n%s", date, stderr)
		}
		msgs := smtpSrv.Messages()
		if len(msgs) == 0 || !msgs[len(msgs)-1].TLS || strings.Join(msgs[len(msgs)-1].To, ",") != "finance@example.com" {
			t.Fatalf("%s: no digest to finance@example.com under TLS: %+v", date, msgs)
		}
		subject, text = digestOf(t, msgs[len(msgs)-1])
		samples = clitest.ParseProm(t, prom)
		if v, _ := clitest.PromValue(samples, "reconcile_notify_deliveries", "channel", "email", "result", "ok"); v != 1 {
			t.Errorf("%s: reconcile_notify_deliveries{email,ok} = %v", date, v)
		}
		if v, _ := clitest.PromValue(samples, "reconcile_notify_deliveries", "channel", "webhook", "result", "ok"); v != 1 {
			t.Errorf("%s: reconcile_notify_deliveries{webhook,ok} = %v", date, v)
		}
		return subject, text, samples
	}
	counts := func(runID string) (newFindings, failed int) {
		conn := clitest.OpenReadOnly(t, db)
		defer conn.Close()
		conn.QueryRow(`SELECT count(*) FROM findings WHERE run_id = ? AND state = 'new'`, runID).Scan(&newFindings)
		conn.QueryRow(`SELECT count(*) FROM run_members WHERE run_id = ? AND status = 'failed'`, runID).Scan(&failed)
		return newFindings, failed
	}
	alarmsIn := func(date string) []struct{ Name string } {
		var m struct{ Alarms []struct{ Name string } }
		clitest.ReadJSON(t, filepath.Join(out, date, "manifest.json"), &m)
		return m.Alarms
	}

	// Night 1: nothing to compare with; no alarm.
	subject, text, samples := night("2026-11-20", cli.ExitOK)
	n, _ := counts("2026-11-20")
	if want := fmt.Sprintf("reconcile 2026-11-20 ok: %d new findings", n); subject != want {
		t.Errorf("night 1 subject %q, want %q", subject, want)
	}
	if !strings.Contains(text, fmt.Sprintf("New today: %d\n", n)) || !strings.Contains(text, "Members: 6 of 6 reconciled, 0 failed") {
		t.Errorf("night 1 digest:\n%s", text)
	}
	for _, name := range []string{"members_lost", "failed_share"} {
		if v, ok := clitest.PromValue(samples, "reconcile_alarm", "name", name); !ok || v != 0 {
			t.Errorf("night 1: reconcile_alarm{name=%q} = %v (%v), want 0", name, v, ok)
		}
	}

	// Night 2: a member answers 403. Partial, exit 3 as always; two alarms.
	failing.Store(true)
	subject, text, samples = night("2026-11-21", cli.ExitPartial)
	n, failed := counts("2026-11-21")
	if want := fmt.Sprintf("[ALARM] reconcile 2026-11-21 partial: %d new findings, %d member failed; alarms: members_lost, failed_share", n, failed); subject != want {
		t.Errorf("night 2 subject %q, want %q", subject, want)
	}
	for _, want := range []string{"ALARMS (2)", bad + " (failed)", "1 of 6 members failed (16.7%), above the limit of 10.0%",
		"Members: 5 of 6 reconciled, 1 failed", bad + ": ", fmt.Sprintf("New today: %d\n", n), "Resolved since 2026-11-20: "} {
		if !strings.Contains(text, want) {
			t.Errorf("night 2 digest lacks %q:\n%s", want, text)
		}
	}
	for _, name := range []string{"members_lost", "failed_share"} {
		if v, _ := clitest.PromValue(samples, "reconcile_alarm", "name", name); v != 1 {
			t.Errorf("night 2: reconcile_alarm{name=%q} = %v, want 1", name, v)
		}
	}
	if got := alarmsIn("2026-11-21"); len(got) != 2 || got[0].Name != "members_lost" || got[1].Name != "failed_share" {
		t.Errorf("night 2 manifest alarms %+v", got)
	}
	wb, err := excelize.OpenFile(filepath.Join(out, "2026-11-21", "reconcile-2026-11-21.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	summary, _ := wb.GetRows("Summary")
	wb.Close()
	var marked bool
	for i, r := range summary {
		if len(r) > 0 && r[0] == "Alarms" && i+2 < len(summary) && summary[i+2][0] == "members_lost" {
			marked = true
		}
	}
	if !marked {
		t.Errorf("night 2: the Summary sheet has no Alarms table naming members_lost")
	}
	// The webhook had the same digest; the push the same metrics, for shard 0/1.
	posts, _ := hook.Received()
	if last, _ := posts[len(posts)-1]["text"].(string); !strings.Contains(last, "[ALARM] reconcile 2026-11-21 partial") {
		t.Errorf("night 2 webhook text: %s", last)
	}
	if method, path, ctype, _ := push.Last(); method != http.MethodPut || path != "/metrics/job/reconcile/shard@base64/MC8x" ||
		!strings.HasPrefix(ctype, "text/plain; version=0.0.4") {
		t.Errorf("push: %s %s (%s)", method, path, ctype)
	}
	if v, _ := clitest.PromValue(push.Samples(t), "reconcile_alarm", "name", "members_lost"); v != 1 {
		t.Errorf("pushed reconcile_alarm{name=members_lost} = %v", v)
	}

	// Night 3: the member is back; nothing is lost, nothing failed.
	failing.Store(false)
	subject, _, samples = night("2026-11-22", cli.ExitOK)
	if strings.Contains(subject, "ALARM") {
		t.Errorf("night 3 subject %q: the alarms should have cleared", subject)
	}
	for _, name := range []string{"members_lost", "failed_share"} {
		if v, _ := clitest.PromValue(samples, "reconcile_alarm", "name", name); v != 0 {
			t.Errorf("night 3: reconcile_alarm{name=%q} = %v, want 0", name, v)
		}
	}
	if got := alarmsIn("2026-11-22"); len(got) != 0 {
		t.Errorf("night 3 manifest alarms %+v, want none", got)
	}
	if _, _, _, n := push.Last(); n != 3 {
		t.Errorf("%d pushes, want one per night", n)
	}
}

// A digest or a push that cannot be delivered is logged and counted; the
// run still succeeds and its outputs are all there.
func TestDeliveryFailuresKeepTheRun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	hook := notifytest.StartHook(t, 500, 500)
	notifyFile := clitest.WriteText(t, "notify.yaml", fmt.Sprintf("email: {server: %q, from: r@example.com, to: [f@example.com]}\nwebhook: {url-file: %q}\n",
		closed, clitest.WriteText(t, "url", hook.URL+"/hook")))
	work := t.TempDir()
	db, out, prom := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), filepath.Join(work, "r.prom")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--notify", notifyFile, "--metrics-file", prom,
		"--metrics-push", "http://"+closed)...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d, want 0: a delivery failure must not fail the run\n%s\n%s", code, stdout, stderr)
	}
	for _, p := range []string{"reconcile-2026-11-20.xlsx", "manifest.json", "reconcile-2026-11-20.duckdb"} {
		if _, err := os.Stat(filepath.Join(out, "2026-11-20", p)); err != nil {
			t.Errorf("output lost: %v", err)
		}
	}
	if strings.Count(stderr, `"msg":"digest not delivered"`) != 2 || !strings.Contains(stderr, `"msg":"metrics not pushed"`) {
		t.Errorf("the failures are not logged:\n%s", stderr)
	}
	samples := clitest.ParseProm(t, prom)
	for _, ch := range []string{"email", "webhook"} {
		if v, _ := clitest.PromValue(samples, "reconcile_notify_deliveries", "channel", ch, "result", "failed"); v != 1 {
			t.Errorf("reconcile_notify_deliveries{%s,failed} = %v, want 1", ch, v)
		}
	}
}

// A run that fails before it publishes tells the run's recipients why.
func TestFailedRunIsNotified(t *testing.T) {
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"status":"UNAUTHORIZED","message":"bad key"}`)
	}))
	defer refusing.Close()
	hook := notifytest.StartHook(t)
	notifyFile := clitest.WriteText(t, "notify.yaml", fmt.Sprintf("webhook: {url-file: %q}\n", clitest.WriteText(t, "url", hook.URL)))
	work := t.TempDir()
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, "run", "--base-url", refusing.URL, "--organization-id", "org", "--key-id", "k",
		"--date", "2026-11-20", "--db", filepath.Join(work, "r.duckdb"), "--out", filepath.Join(work, "out"), "--notify", notifyFile)
	if code != cli.ExitFailed {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	posts, _ := hook.Received()
	if len(posts) != 1 {
		t.Fatalf("%d posts, want the failed run's digest", len(posts))
	}
	text, _ := posts[0]["text"].(string)
	fields, _ := posts[0]["reconcile"].(map[string]any)
	if !strings.Contains(text, "reconcile 2026-11-20 failed: ") || !strings.Contains(text, "401") || fields["status"] != "failed" {
		t.Errorf("failed run's digest: %s %v", text, fields)
	}
}

// Bad --alarms, --notify or --metrics-push settings fail the run before it
// starts (exit 1), saying which; a secret is never shown.
func TestBadNoticeSettings(t *testing.T) {
	open := clitest.WriteText(t, "url", "https://hooks.example.com/T/B/TOKEN-XYZ")
	os.Chmod(open, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--alarms", clitest.WriteText(t, "a.yaml", "kinds: {no_such_kind: {count: 1}}")}, "no_such_kind"},
		{[]string{"--alarms", clitest.WriteText(t, "a.yaml", "members-lost: maybe")}, "--alarms"},
		{[]string{"--notify", clitest.WriteText(t, "n.yaml", "emial: {}")}, "emial"},
		{[]string{"--notify", clitest.WriteText(t, "n.yaml", "webhook: {url-file: "+open+"}")}, "chmod 600"},
		{[]string{"--notify", filepath.Join(t.TempDir(), "missing.yaml")}, "--notify"},
		{[]string{"--metrics-push", "http://user:TOKEN-XYZ@pushgateway:9091"}, "credentials"},
		{[]string{"--metrics-push", "pushgateway:9091"}, "--metrics-push"},
	} {
		code, stdout, stderr := clitest.RunCLI(t, nil, append([]string{"run", "--db", filepath.Join(t.TempDir(), "r.duckdb"),
			"--out", t.TempDir()}, tc.args...)...)
		if code != cli.ExitFailed || !strings.Contains(stderr, tc.want) || strings.Contains(stderr+stdout, "TOKEN-XYZ") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a message naming %s", tc.args, code, stderr, tc.want)
		}
	}
}
