package notify

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/notify/notifytest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/reports"
)

// Hostile texts as the platform or a merchant could send them.
const (
	evilGroupName = "EU\r\nBcc: spy@evil.example <script>alert(1)</script> <!channel>"
	evilError     = "list payments: 403 <b>Forbidden</b> for card 4111111111111111\r\nX-Injected: yes"
	testPAN       = "4111111111111111"
)

// fixture is a working database (the product's schema in a real DuckDB
// file) holding run 2026-11-20 compared with 2026-11-19: groups 1001 (m1,
// m2) and 1002 (m2, m3, m4), m4 failed, findings in every state.
func fixture(t *testing.T) *store.Store {
	t.Helper()
	s := storetest.Open(t)
	for _, q := range []string{
		`INSERT INTO runs (run_id, business_date, shard, window_start, window_end, started_at, status, attempts, previous_run) VALUES
			('2026-11-19', DATE '2026-11-19', '0/1', TIMESTAMPTZ '2026-11-16 00:00:00+00', TIMESTAMPTZ '2026-11-20 00:00:00+00', now(), 'ok', 1, NULL),
			('2026-11-20', DATE '2026-11-20', '0/1', TIMESTAMPTZ '2026-11-17 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00', now(), 'partial', 1, '2026-11-19')`,
		`INSERT INTO groups (group_id, organization_id, name, run_id, loaded_at) VALUES
			('1001', 'org', 'Region 1', '2026-11-20', now()), ('1002', 'org', '` + strings.ReplaceAll(evilGroupName, "'", "''") + `', '2026-11-20', now())`,
		`INSERT INTO group_members VALUES ('1001', 'm1', '2026-11-20'), ('1001', 'm2', '2026-11-20'),
			('1002', 'm2', '2026-11-20'), ('1002', 'm3', '2026-11-20'), ('1002', 'm4', '2026-11-20')`,
		`INSERT INTO run_members (run_id, merchant_id, status, error) VALUES ('2026-11-20', 'm1', 'ok', NULL),
			('2026-11-20', 'm2', 'ok', NULL), ('2026-11-20', 'm3', 'ok', NULL), ('2026-11-20', 'm4', 'failed', '` + evilError + `')`,
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, detail, first_seen_run, state) VALUES
			('2026-11-20', DATE '2026-11-20', 'amount_mismatch', 'm1', 'p1', 1000.00, 'USD', '{"card":"` + testPAN + `"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'amount_mismatch', 'm1', 'p2', 234.50, 'USD', '{}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'amount_mismatch', 'm3', 'p3', 99.99, 'EUR', '{}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'bin_unresolved', 'm2', '600000', NULL, NULL, '{}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm2', 's1', 12.34, 'USD', '{}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'subscription_delinquent', 'm1', 's7', 20, 'USD', '{}', '2026-11-19', 'resolved'),
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm3', 's9', 5, 'USD', '{}', '2026-11-19', 'acknowledged')`,
	} {
		if _, err := s.Conn().ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	return s
}

var fixtureRun = reports.Publication{
	RunID: "2026-11-20", BusinessDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Status: "partial",
	Source: reports.SourcePlatform,
	Alarms: []reports.Alarm{
		{Name: "members_lost", Raised: true, Value: 1, Message: "1 member reconciled by run 2026-11-19 is missing or failed today: m4 (failed)"},
		{Name: "failed_share", Value: 0.25, Limit: 0.5, Message: "1 of 4 members failed (25.0%), within the limit of 50.0%"},
	},
}

// published makes the files a publish step would have written: the whole
// run's workbook and group 1001's.
func published(t *testing.T) *reports.Published {
	t.Helper()
	dir := t.TempDir()
	pub := &reports.Published{Workbook: filepath.Join(dir, "reconcile-2026-11-20.xlsx"), PreviousRun: "2026-11-19",
		GroupWorkbooks: map[string]string{"1001": filepath.Join(dir, "reconcile-2026-11-20-group-1001.xlsx")}}
	for i, p := range []string{pub.Workbook, pub.GroupWorkbooks["1001"]} {
		if err := os.WriteFile(p, bytes.Repeat([]byte{byte('a' + i), 0, 0xff}, 3000), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return pub
}

// config parses an --notify file of text, with %[1]s the SMTP server, %[2]s
// its CA file, %[3]s and %[4]s files of webhook URLs.
func config(t *testing.T, text string, args ...any) *Config {
	t.Helper()
	getenv := func(k string) string { return map[string]string{EnvSMTPPassword: "s3cret pass"}[k] }
	c, err := Parse([]byte(fmt.Sprintf(text, args...)), func(_, path string) ([]byte, error) { return os.ReadFile(path) }, getenv)
	if err != nil {
		t.Fatal(err)
	}
	c.retryWait = 10 * time.Millisecond
	c.Timeout = 10 * time.Second
	return c
}

func secretFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// message is a received e-mail taken apart: headers, subject decoded, the
// text and HTML parts decoded, and attachments by file name.
type message struct {
	header      mail.Header
	subject     string
	text, html  string
	attachments map[string][]byte
}

func parseMessage(t *testing.T, data []byte) message {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v\n%s", err, data)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	out := message{header: m.Header, subject: subject, attachments: map[string][]byte{}}
	var walk func(ct string, body io.Reader)
	walk = func(ct string, body io.Reader) {
		typ, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(typ, "multipart/") {
			t.Fatalf("a leaf %s outside a multipart", typ)
		}
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
			var data []byte
			switch p.Header.Get("Content-Transfer-Encoding") {
			case "quoted-printable":
				data, err = io.ReadAll(quotedprintable.NewReader(p))
			case "base64":
				data, err = io.ReadAll(base64.NewDecoder(base64.StdEncoding, p))
			default:
				if strings.HasPrefix(pt, "multipart/") {
					walk(p.Header.Get("Content-Type"), p)
					continue
				}
				data, err = io.ReadAll(p)
			}
			if err != nil {
				t.Fatal(err)
			}
			_, disp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
			switch {
			case disp["filename"] != "":
				out.attachments[disp["filename"]] = data
			case pt == "text/plain":
				out.text = strings.ReplaceAll(string(data), "\r\n", "\n")
			case pt == "text/html":
				out.html = strings.ReplaceAll(string(data), "\r\n", "\n")
			}
		}
	}
	walk(m.Header.Get("Content-Type"), m.Body)
	return out
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func TestEmailDigests(t *testing.T) {
	srv := notifytest.StartSMTP(t, false)
	db := fixture(t)
	pub := published(t)
	cfg := config(t, `
email:
  server: %[1]s
  from: "Reconcile <reconcile@example.com>"
  to: [finance@example.com, "Payments Ops <ops@example.com>"]
  username: reconcile
  ca-file: %[2]s
groups:
  "1001":
    to: [owner-1001@example.com]
  "1002":
    to: [owner-1002@example.com]
  "9999":
    to: [nobody@example.com]   # not a group of the run: no digest
`, srv.Addr, srv.CAFile)
	deliveries := Send(context.Background(), db.Conn(), cfg, fixtureRun, pub)
	for _, d := range deliveries {
		if d.Err != nil {
			t.Fatalf("delivery %+v", d)
		}
	}
	got := srv.Messages()
	if len(got) != 3 || len(deliveries) != 3 {
		t.Fatalf("%d messages, %d deliveries; want the run's and groups 1001's and 1002's", len(got), len(deliveries))
	}
	for _, m := range got {
		if !m.TLS || m.From != "reconcile@example.com" {
			t.Errorf("message to %v sent under TLS %v, from %s", m.To, m.TLS, m.From)
		}
	}
	if want := []string{"reconcile", "reconcile", "reconcile"}; !slices.Equal(srv.Auths(), want) {
		t.Errorf("AUTH %v, want one per message", srv.Auths())
	}

	// The whole run's digest.
	run := got[0]
	if want := []string{"finance@example.com", "ops@example.com"}; !slices.Equal(run.To, want) {
		t.Errorf("recipients %v, want %v", run.To, want)
	}
	m := parseMessage(t, run.Data)
	if want := "[ALARM] reconcile 2026-11-20 partial: 4 new findings, 1 member failed; alarms: members_lost"; m.subject != want {
		t.Errorf("subject %q, want %q", m.subject, want)
	}
	if to := m.header.Get("To"); !strings.Contains(to, "finance@example.com") || !strings.Contains(to, `"Payments Ops" <ops@example.com>`) {
		t.Errorf("To: %s", to)
	}
	mustContain(t, "the run's text", m.text,
		"ALARMS (1)", "[members_lost] 1 member reconciled by run 2026-11-19",
		"Members: 3 of 4 reconciled, 1 failed",
		"New today: 4", "amount_mismatch", "EUR 99.99, USD 1,234.50", "bin_unresolved",
		"Still open: 1", "Resolved since 2026-11-19: 1", "Acknowledged: 1",
		"Workbook: "+pub.Workbook+" (attached: reconcile-2026-11-20.xlsx)")
	if strings.Contains(m.text, "failed_share") {
		t.Error("a clear alarm is listed in the digest")
	}
	mustContain(t, "the run's HTML", m.html, "<td>amount_mismatch</td><td align=\"right\">3</td><td>EUR 99.99, USD 1,234.50</td>",
		"Acknowledged: 1", "members_lost")
	wb, _ := os.ReadFile(pub.Workbook)
	if !bytes.Equal(m.attachments["reconcile-2026-11-20.xlsx"], wb) {
		t.Errorf("the workbook is not attached as it is (%d bytes, want %d)", len(m.attachments["reconcile-2026-11-20.xlsx"]), len(wb))
	}

	// Group 1001: its members only, its own workbook, no run alarm.
	g := parseMessage(t, got[1].Data)
	if !slices.Equal(got[1].To, []string{"owner-1001@example.com"}) || g.subject != "reconcile 2026-11-20 group 1001 (Region 1) partial: 3 new findings" {
		t.Errorf("group 1001: to %v, subject %q", got[1].To, g.subject)
	}
	mustContain(t, "group 1001's text", g.text, "Members: 2 of 2 reconciled, 0 failed", "New today: 3", "USD 1,234.50\n",
		"Still open: 1", "Resolved since 2026-11-19: 1", "Acknowledged: 0")
	if _, ok := g.attachments["reconcile-2026-11-20-group-1001.xlsx"]; !ok || len(g.attachments) != 1 {
		t.Errorf("group 1001's attachments %v, want its own workbook only", slices.Collect(mapsKeys(g.attachments)))
	}
	// Group 1002 has no workbook of its own: the whole run's is named, not sent.
	g2 := parseMessage(t, got[2].Data)
	if len(g2.attachments) != 0 || !strings.Contains(g2.text, "not attached to a group's digest") {
		t.Errorf("group 1002 got the whole run's workbook: %d attachments\n%s", len(g2.attachments), g2.text)
	}
	mustContain(t, "group 1002's text", g2.text, "Members: 2 of 3 reconciled, 1 failed", "EUR 99.99", "Acknowledged: 1")
}

// Outside text is shown, never obeyed: no header forged through the
// subject, HTML escaped, the card number masked, no finding detail read.
func TestEmailHostileText(t *testing.T) {
	srv := notifytest.StartSMTP(t, false)
	db := fixture(t)
	cfg := config(t, `
email: {server: "%[1]s", from: reconcile@example.com, username: reconcile, ca-file: "%[2]s"}
groups: {"1002": {to: [owner@example.com]}}
`, srv.Addr, srv.CAFile)
	for _, d := range Send(context.Background(), db.Conn(), cfg, fixtureRun, published(t)) {
		if d.Err != nil {
			t.Fatal(d.Err)
		}
	}
	got := srv.Messages()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	if !slices.Equal(got[0].To, []string{"owner@example.com"}) {
		t.Errorf("recipients %v: the group's name added one", got[0].To)
	}
	m := parseMessage(t, got[0].Data)
	for k := range m.header {
		if !slices.Contains([]string{"From", "To", "Subject", "Date", "Message-Id", "Mime-Version", "Auto-Submitted", "Content-Type"}, k) {
			t.Errorf("header %s: %q", k, m.header[k])
		}
	}
	if !strings.Contains(m.subject, `EU\x0d\x0aBcc: spy@evil.example`) {
		t.Errorf("subject %q: the group's name should be there, its line break escaped", m.subject)
	}
	if strings.Contains(m.html, "<script>") || strings.Contains(m.html, "<b>Forbidden") || !strings.Contains(m.html, "&lt;script&gt;") {
		t.Errorf("HTML not escaped:\n%s", m.html)
	}
	for _, part := range []string{string(got[0].Data), m.text, m.html, m.subject} {
		if strings.Contains(part, testPAN) {
			t.Errorf("the card number reached the message:\n%s", part)
		}
	}
	mustContain(t, "the text", m.text, `m4: list payments: 403 <b>Forbidden</b> for card 411111XXXXXX1111\x0d\x0aX-Injected: yes`)
}

// A server that offers no STARTTLS gets nothing: no password, no digest.
func TestEmailRefusesCleartext(t *testing.T) {
	srv := notifytest.StartSMTP(t, true)
	cfg := config(t, `email: {server: "%[1]s", from: r@example.com, to: [f@example.com], username: reconcile}`, srv.Addr)
	ds := Deliver(context.Background(), cfg, []Digest{{BusinessDate: "2026-11-20", Status: "ok", to: cfg.Email.To}})
	if len(ds) != 1 || !errors.Is(ds[0].Err, ErrNoSTARTTLS) {
		t.Fatalf("deliveries %+v, want ErrNoSTARTTLS", ds)
	}
	if len(srv.Messages()) != 0 || len(srv.Auths()) != 0 {
		t.Error("something was sent in clear")
	}
}

// The server's certificate is verified: one the client was not told to
// trust is refused before anything is sent.
func TestEmailVerifiesTheServer(t *testing.T) {
	srv := notifytest.StartSMTP(t, false)
	cfg := config(t, `email: {server: "%[1]s", from: r@example.com, to: [f@example.com], username: reconcile}`, srv.Addr)
	ds := Deliver(context.Background(), cfg, []Digest{{BusinessDate: "2026-11-20", Status: "ok", to: cfg.Email.To}})
	if len(ds) != 1 || ds[0].Err == nil || !strings.Contains(ds[0].Err.Error(), "certificate") {
		t.Fatalf("deliveries %+v, want a certificate error", ds)
	}
	if len(srv.Messages()) != 0 {
		t.Error("sent to an unverified server")
	}
	// A wrong password: the server refuses, permanently, and says so.
	srv.SetPassword("other")
	cfg = config(t, `email: {server: "%[1]s", from: r@example.com, to: [f@example.com], username: reconcile, ca-file: "%[2]s"}`, srv.Addr, srv.CAFile)
	ds = Deliver(context.Background(), cfg, []Digest{{BusinessDate: "2026-11-20", Status: "ok", to: cfg.Email.To}})
	if len(ds) != 1 || ds[0].Err == nil || !strings.Contains(ds[0].Err.Error(), "AUTH as reconcile") || strings.Contains(ds[0].Err.Error(), "s3cret") {
		t.Fatalf("deliveries %+v, want an AUTH error without the password", ds)
	}
}

// A long subject of non-ASCII text is folded: every line of the message
// keeps to RFC 5322's limit, and the subject reads back whole.
func TestLongSubjectIsFolded(t *testing.T) {
	from, _ := mail.ParseAddress("r@example.com")
	to, _ := mail.ParseAddress("Ünïcödé Öwner <o@example.com>")
	d := Digest{BusinessDate: "2026-11-20", Status: "ok", GroupID: "1001", GroupName: "Région Süd " + strings.Repeat("✓", 300), to: []*mail.Address{to}}
	msg, err := buildMessage(from, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(msg), "\r\n") {
		if len(line) > 998 {
			t.Errorf("a line of %d characters: %q", len(line), line)
		}
	}
	m := parseMessage(t, msg)
	if m.subject != d.Subject() || !strings.Contains(m.subject, "Région Süd ✓") {
		t.Errorf("subject %q, want %q", m.subject, d.Subject())
	}
	if got, err := m.header.AddressList("To"); err != nil || len(got) != 1 || got[0].Name != "Ünïcödé Öwner" {
		t.Errorf("To %v, %v", got, err)
	}
}

func TestEmailAttachmentLimit(t *testing.T) {
	srv := notifytest.StartSMTP(t, false)
	db := fixture(t)
	cfg := config(t, `email: {server: "%[1]s", from: r@example.com, to: [f@example.com], username: reconcile, ca-file: "%[2]s", attach-max: 8KB}`,
		srv.Addr, srv.CAFile)
	for _, d := range Send(context.Background(), db.Conn(), cfg, fixtureRun, published(t)) {
		if d.Err != nil {
			t.Fatal(d.Err)
		}
	}
	m := parseMessage(t, srv.Messages()[0].Data)
	if len(m.attachments) != 0 || !strings.Contains(m.text, "(not attached: 9 KB is over the 8 KB limit)") {
		t.Errorf("a 9 KB workbook with attach-max 8KB: %d attachments\n%s", len(m.attachments), m.text)
	}
}

func TestWebhookDigests(t *testing.T) {
	hook, group := notifytest.StartHook(t), notifytest.StartHook(t)
	db := fixture(t)
	pub := published(t)
	cfg := config(t, `
webhook: {url-file: "%[3]s"}
groups: {"1002": {webhook-url-file: "%[4]s"}}
`, "", "", secretFile(t, hook.URL+"/services/T000/B000/token"), secretFile(t, group.URL+"/hook/1002"))
	for _, d := range Send(context.Background(), db.Conn(), cfg, fixtureRun, pub) {
		if d.Err != nil || strings.Contains(d.To, "token") {
			t.Fatalf("delivery %+v", d)
		}
	}
	posts, paths := hook.Received()
	if len(posts) != 1 || paths[0] != "/services/T000/B000/token" {
		t.Fatalf("run webhook: %d posts at %v", len(posts), paths)
	}
	text, _ := posts[0]["text"].(string)
	mustContain(t, "the run's webhook text", text, "*[ALARM] reconcile 2026-11-20 partial: 4 new findings, 1 member failed; alarms: members_lost*",
		"New today: 4", "EUR 99.99, USD 1,234.50", "Resolved since 2026-11-19: 1", "Acknowledged: 1", "Workbook: "+pub.Workbook,
		"&lt;b&gt;Forbidden&lt;/b&gt;")
	fields, _ := posts[0]["reconcile"].(map[string]any)
	for k, want := range map[string]any{"newFindings": 4.0, "openFindings": 1.0, "resolvedFindings": 1.0, "acknowledgedFindings": 1.0,
		"membersFailed": 1.0, "status": "partial", "businessDate": "2026-11-20", "simulated": false} {
		if fields[k] != want {
			t.Errorf("reconcile.%s = %v, want %v", k, fields[k], want)
		}
	}
	if alarms, _ := fields["alarms"].([]any); len(alarms) != 1 || alarms[0] != "members_lost" {
		t.Errorf("reconcile.alarms = %v", fields["alarms"])
	}
	if strings.Contains(text, "attached") {
		t.Error("a webhook says the workbook is attached")
	}

	gposts, _ := group.Received()
	if len(gposts) != 1 {
		t.Fatalf("group webhook: %d posts", len(gposts))
	}
	gtext, _ := gposts[0]["text"].(string)
	// No mention or link from the group's name: Slack's control characters are entities.
	if strings.Contains(gtext, "<!channel>") || strings.Contains(gtext, "<script>") || !strings.Contains(gtext, "&lt;!channel&gt;") {
		t.Errorf("group webhook text not escaped: %s", gtext)
	}
	mustContain(t, "group 1002's webhook text", gtext, "New today: 2", "EUR 99.99", "Members: 2 of 3 reconciled, 1 failed")
}

// A delivery that fails is reported, not fatal: a 5xx is tried once more, a
// 4xx is not, and an unreachable server is an error like any other. The
// error names the webhook's host, never its URL.
func TestDeliveryFailuresAreReported(t *testing.T) {
	flaky, gone := notifytest.StartHook(t, 503, 503), notifytest.StartHook(t, 404)
	cfg := config(t, `
webhook: {url-file: "%[3]s"}
groups: {"1001": {webhook-url-file: "%[4]s"}}
`, "", "", secretFile(t, flaky.URL+"/secret-token"), secretFile(t, gone.URL+"/secret-token"))
	ds := Deliver(context.Background(), cfg, []Digest{
		{BusinessDate: "2026-11-20", Status: "ok", webhook: cfg.Webhook},
		{BusinessDate: "2026-11-20", Status: "ok", GroupID: "1001", webhook: cfg.Groups["1001"].Webhook},
	})
	if len(ds) != 2 || ds[0].Err == nil || ds[1].Err == nil {
		t.Fatalf("deliveries %+v, want two failures", ds)
	}
	if _, paths := flaky.Received(); len(paths) != 2 {
		t.Errorf("a 503 was tried %d times, want twice", len(paths))
	}
	if _, paths := gone.Received(); len(paths) != 1 {
		t.Errorf("a 404 was tried %d times, want once", len(paths))
	}
	for _, d := range ds {
		if msg := d.Err.Error(); strings.Contains(msg, "secret-token") || strings.Contains(msg, "\x1b") {
			t.Errorf("error shows the URL or raw control characters: %s", msg)
		}
	}
	// Unreachable: a closed port.
	flaky.Close()
	ds = Deliver(context.Background(), cfg, []Digest{{BusinessDate: "2026-11-20", Status: "ok", webhook: cfg.Webhook}})
	if len(ds) != 1 || ds[0].Err == nil || strings.Contains(ds[0].Err.Error(), "secret-token") {
		t.Errorf("an unreachable webhook: %+v", ds)
	}
	// A database that cannot be read: one "digest" failure, nothing sent.
	db := fixture(t)
	db.Close()
	ds = Send(context.Background(), db.Conn(), cfg, fixtureRun, published(t))
	if len(ds) != 1 || ds[0].Channel != ChannelDigest || ds[0].Err == nil {
		t.Errorf("unreadable database: %+v", ds)
	}
}

func TestFailedRunDigest(t *testing.T) {
	hook := notifytest.StartHook(t)
	cfg := config(t, `webhook: {url-file: "%[3]s"}`, "", "", secretFile(t, hook.URL))
	ds := Deliver(context.Background(), cfg, FailedRun(cfg, "2026-11-20", reports.SourceSandbox,
		errors.New("list groups: 503 for card "+testPAN)))
	if len(ds) != 1 || ds[0].Err != nil {
		t.Fatalf("%+v", ds)
	}
	posts, _ := hook.Received()
	text, _ := posts[0]["text"].(string)
	mustContain(t, "failed run's text", text, "[SIMULATED] reconcile 2026-11-20 failed: list groups: 503", "SIMULATED DATA (sandbox)",
		"The run failed before it published anything")
	if strings.Contains(text, testPAN) {
		t.Error("the card number in the error reached the webhook")
	}
}

func TestParseConfig(t *testing.T) {
	read := func(_, path string) ([]byte, error) { return os.ReadFile(path) }
	noenv := func(string) string { return "" }
	url := secretFile(t, "https://hooks.example.com/services/T/B/TOKEN-XYZ")
	c, err := Parse([]byte("email: {server: 'smtp.example.com:587', from: r@example.com, to: [a@example.com]}\nwebhook: {url-file: "+url+"}"), read, noenv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Email.AttachMax != DefaultAttachMax || c.Webhook.Host != "hooks.example.com" || c.Timeout != 30*time.Second {
		t.Errorf("defaults: %+v %+v", c.Email, c.Webhook)
	}
	if s := fmt.Sprintf("%v %+v %#v", c.Webhook.URL, *c.Webhook, c.Webhook.URL); strings.Contains(s, "TOKEN-XYZ") {
		t.Errorf("a webhook URL printed: %s", s)
	}
	bad := secretFile(t, "ftp://x/TOKEN-XYZ")
	for text, want := range map[string]string{
		"":          "empty",
		"emial: {}": "emial",
		"email: {server: smtp.example.com, from: r@example.com, to: [a@example.com]}":         "host:port",
		"email: {server: 'h:25', from: \"r@example.com\\r\\nBcc: x@y\", to: [a@example.com]}": "line break",
		"email: {server: 'h:25', from: r@example.com, to: [not an address]}":                  "not an address",
		"email: {server: 'h:25', from: r@example.com, to: [a@example.com], username: u}":      "RECONCILE_SMTP_PASSWORD",
		"email: {server: 'h:25', from: r@example.com, to: [a@example.com], attach-max: 5PB}":  "attach-max",
		"webhook: {}":                                     "RECONCILE_WEBHOOK_URL",
		"webhook: {url-file: " + bad + "}":                "not an http(s) URL",
		"groups: {'1001': {to: [a@example.com]}}":         "needs the email section",
		"groups: {'1001': {}}":                            "neither",
		"email: {server: 'h:25', from: r@example.com}":    "sends nowhere",
		"timeout: soon\nwebhook: {url-file: " + url + "}": "timeout",
	} {
		_, err := Parse([]byte(text), read, noenv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error naming %q", text, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "TOKEN-XYZ") {
			t.Errorf("error shows a secret: %v", err)
		}
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
