package faults

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/credentials"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// A run's exit code and outputs tell the truth: what it did not do, it
// does not report as done, and bad input is refused before anything runs.

// runCLIEnv is RunCLI with the platform client's http.Client replaced (the
// test-only seam env.httpClient).
func runCLIEnv(t *testing.T, extraEnv map[string]string, hc *http.Client, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string { return extraEnv[k] }
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv, HTTPClient: hc})
	return code, stdout.String(), stderr.String()
}

// panicking is a transport that panics on the requests it picks, as a bug
// below a member's job would: no server can make the client panic.
type panicking struct {
	base http.RoundTripper
	pick func(*http.Request) string // the panic's value, or "" to pass the request on
}

func (p panicking) RoundTrip(r *http.Request) (*http.Response, error) {
	if v := p.pick(r); v != "" {
		panic(v)
	}
	return p.base.RoundTrip(r)
}

// TestEveryMemberFailedExitsOne: a run in which every member failed
// reconciled nothing, so it exits 1 (failed), not 3 (partial, which tells a
// monitor the rest was reconciled); it still publishes each member's error.
func TestEveryMemberFailedExitsOne(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	hc := &http.Client{Transport: panicking{base: http.DefaultTransport, pick: func(r *http.Request) string {
		// Every member lists its subscriptions first, even one without
		// recurring billing (the platform then refuses): the plans are
		// listed only when needed.
		if r.URL.Path == "/rbs/v1/subscriptions" {
			return "injected panic listing subscriptions"
		}
		return ""
	}}}
	work := t.TempDir()
	db := filepath.Join(work, "r.duckdb")
	code, stdout, stderr := runCLIEnv(t, clitest.SandboxEnv, hc, f.RunArgs(db, filepath.Join(work, "out"))...)
	n := len(f.Srv.Members())
	if code != cli.ExitFailed || !strings.Contains(stderr, fmt.Sprintf("every member failed (%d of %d)", n, n)) {
		t.Fatalf("run exited %d, want %d and every member failed named\n%s\n%s", code, cli.ExitFailed, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var failed int
	if err := conn.QueryRow(`SELECT count(*) FROM run_members WHERE status = 'failed'`).Scan(&failed); err != nil || failed != n {
		t.Errorf("run_members: %d failed (%v), want %d recorded", failed, err, n)
	}
	var status string
	if err := conn.QueryRow(`SELECT status FROM runs`).Scan(&status); err != nil || status != "failed" {
		t.Errorf("runs.status %q (%v), want failed, as the exit code says", status, err)
	}
}

// TestMemberPanicIsRecorded: one member's job panics in its own goroutine
// (the plan listing), another's in a payment list's goroutine within the
// member. Neither crashes the run; both are recorded as failed with the
// panic's message, the others are reconciled, and the exit code is 3.
func TestMemberPanicIsRecorded(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	mids := f.Srv.Members()
	inPlans, inPayments := mids[1], mids[4]
	hc := &http.Client{Transport: panicking{base: http.DefaultTransport, pick: func(r *http.Request) string {
		mid := r.Header.Get("v-c-merchant-id")
		switch {
		case mid == inPlans && r.URL.Path == "/rbs/v1/plans":
			return "injected panic listing plans"
		case mid == inPayments && strings.HasSuffix(r.URL.Path, "/payments"):
			return "injected panic listing payments"
		}
		return ""
	}}}
	work := t.TempDir()
	db := filepath.Join(work, "r.duckdb")
	code, stdout, stderr := runCLIEnv(t, clitest.SandboxEnv, hc, f.RunArgs(db, filepath.Join(work, "out"))...)
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	for mid, want := range map[string]string{inPlans: "panic: injected panic listing plans", inPayments: "panic: injected panic listing payments"} {
		var status, errText string
		if err := conn.QueryRow(`SELECT status, error FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = ?`, mid).Scan(&status, &errText); err != nil {
			t.Fatalf("member %s is not in run_members: %v", mid, err)
		}
		if status != "failed" || !strings.Contains(errText, want) {
			t.Errorf("member %s: %s, %q; want failed with %q", mid, status, errText, want)
		}
	}
	var total, ok, failed int
	if err := conn.QueryRow(`SELECT members_total, members_ok, members_failed FROM runs WHERE run_id = '2026-11-20'`).Scan(&total, &ok, &failed); err != nil {
		t.Fatal(err)
	}
	if total != len(mids) || ok != len(mids)-2 || failed != 2 {
		t.Errorf("runs: %d members, %d ok, %d failed; want %d, %d, 2", total, ok, failed, len(mids), len(mids)-2)
	}
	if !strings.Contains(stdout, fmt.Sprintf("%d of %d members reconciled", len(mids)-2, len(mids))) {
		t.Errorf("the summary does not count the panicked members as not reconciled:\n%s", stdout)
	}
}

// TestNoMembersFailsUnlessAllowed: an organization whose groups have no
// member reconciles nothing: that run fails (exit 1) saying so, unless
// --allow-empty (here from the environment, like every flag) says it is
// expected.
func TestNoMembersFailsUnlessAllowed(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	cfg := f.Srv.Config()
	var group struct{ GroupID, ID string }
	err := f.Env.Do(context.Background(), cfg.OrganizationID, "POST", "/group-management/v1/groups",
		map[string]any{"organizationId": cfg.OrganizationID, "name": "Empty"}, &group)
	if err != nil {
		t.Fatal(err)
	}
	id := group.ID + group.GroupID
	work := t.TempDir()
	args := f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), "--groups", id)
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, args...)
	want := fmt.Sprintf("no members discovered in organization %s's groups (1 group(s) listed of those asked for: %s, none with a member); give --allow-empty", cfg.OrganizationID, id)
	if code != cli.ExitFailed || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
	if strings.Contains(stdout, "workbook:") {
		t.Errorf("a failed empty run published:\n%s", stdout)
	}
	allow := map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret, "RECONCILE_ALLOW_EMPTY": "true"}
	if code, stdout, stderr := clitest.RunCLI(t, allow, args...); code != cli.ExitOK || !strings.Contains(stdout, "0 of 0 members reconciled") {
		t.Errorf("with --allow-empty: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestListingShortfallsFail: a listing that stops early (the sandbox's
// ShortListings fault: empty pages before totalCount is reached) fails the
// member whose listing it is, naming the shortfall (exit 3): never a clean,
// short reconciliation. (The group list is not among the listings: the
// spec's list has no totalCount, so a short one cannot be told; a
// platform that sends one anyway has it checked, platform.TestListingsStopEarlyAreShortfalls.)
func TestListingShortfallsFail(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	probe := clitest.NewFixture(t, sandbox.Config{})
	bad := probe.Srv.Members()[3]
	for _, listing := range sandbox.Listings {
		t.Run(listing, func(t *testing.T) {
			short := sandbox.ShortListing{Listing: listing, MerchantID: bad, Served: 1}
			code, db, stdout, stderr, _ := runWithFaults(t, sandbox.Faults{ShortListings: []sandbox.ShortListing{short}})
			want := "1 distinct " + listing + " but totalCount"
			if code != cli.ExitPartial {
				t.Fatalf("run exited %d, want %d\n%s\n%s", code, cli.ExitPartial, stdout, stderr)
			}
			conn := clitest.OpenReadOnly(t, db)
			var status, errText string
			conn.QueryRow(`SELECT status, error FROM run_members WHERE merchant_id = ?`, bad).Scan(&status, &errText)
			if status != "failed" || !strings.Contains(errText, want) {
				t.Errorf("member %s: %s, %q; want failed with %q", bad, status, errText, want)
			}
			var others int
			conn.QueryRow(`SELECT count(*) FROM run_members WHERE merchant_id <> ? AND status = 'ok'`, bad).Scan(&others)
			if others != len(probe.Srv.Members())-1 {
				t.Errorf("%d other members ok, want %d", others, len(probe.Srv.Members())-1)
			}
		})
	}
}

// TestOverlongBodyFailsTheMember: a proxy pads one member's subscription
// page past the limit of a recurring billing page: that member fails with
// an error naming the endpoint and the limit; the rest are reconciled.
func TestOverlongBodyFailsTheMember(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	bad := f.Srv.Members()[2]
	h := f.Srv.Handler()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/rbs/v1/subscriptions" || r.Header.Get("v-c-merchant-id") != bad {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes()[:1])
		pad := bytes.Repeat([]byte(" "), 1<<16)
		for range 5 << 4 { // 5 MiB of whitespace: still valid JSON
			if _, err := w.Write(pad); err != nil {
				return
			}
		}
		w.Write(rec.Body.Bytes()[1:])
	}))
	defer proxy.Close()
	f.URL = proxy.URL
	work := t.TempDir()
	db := filepath.Join(work, "r.duckdb")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, "out"))...)
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	var status, errText string
	clitest.OpenReadOnly(t, db).QueryRow(`SELECT status, error FROM run_members WHERE merchant_id = ?`, bad).Scan(&status, &errText)
	want := "GET /rbs/v1/subscriptions: invalid response data: response body exceeds 4 MiB, the limit for a page of 100 plans, subscriptions or payments"
	if status != "failed" || !strings.Contains(errText, want) {
		t.Errorf("member %s: %s, %q; want failed with %q", bad, status, errText, want)
	}
}

// TestBadInputRefused: values that used to crash a run, hang it, or make it
// do lasting harm are refused with a message naming the setting, exit 1,
// before anything starts.
func TestBadInputRefused(t *testing.T) {
	limits := filepath.Join(t.TempDir(), "limits.csv")
	if err := os.WriteFile(limits, []byte("network,reattempts,window\nVISA,20,720d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"shard dividing by zero":      {[]string{"--shard", "0/4294967296"}, `shard "0/4294967296": want i/n with 1 <= n <= 65536`},
		"shard out of range":          {[]string{"--shard", "4/4"}, `shard "4/4"`},
		"rate NaN":                    {[]string{"--rate", "NaN"}, "--rate NaN: want requests per second"},
		"rate Inf":                    {[]string{"--rate", "Inf"}, "--rate +Inf: want requests per second"},
		"rate negative":               {[]string{"--rate", "-1"}, "--rate -1: want requests per second"},
		"date far ahead":              {[]string{"--date", "9999-12-31"}, "--date 9999-12-31: want a date from 2000-01-01 to"},
		"date before 2000":            {[]string{"--date", "1999-12-31"}, "--date 1999-12-31: want a date from 2000-01-01 to"},
		"memory limit without a unit": {[]string{"--memory-limit", "256"}, `--memory-limit: memory limit "256": want a size with its unit, e.g. 256MB or 2GB`},
		"date that does not exist":    {[]string{"--date", "2026-11-31"}, "--date 2026-11-31: no such date"},
		"date not a leap year":        {[]string{"--date", "2026-02-29"}, "--date 2026-02-29: no such date"},
		"lookback before 2000":        {[]string{"--date", "2000-01-31", "--lookback", "31"}, "--lookback 31: want at most 30 days, so that the window starts no earlier than 2000-01-01"},
		"lookback of millennia":       {[]string{"--lookback", "1000000"}, "--lookback 1000000: want at most"},
		"concurrency huge":            {[]string{"--concurrency", "1000000000"}, "--concurrency 1000000000: want 1 to 256"},
		"member timeout":              {[]string{"--member-timeout", "-1s"}, "--member-timeout -1s"},
		"search time form":            {[]string{"--search-time-form", "unix"}, `--search-time-form: search time form "unix": want epoch, iso or datemath`},
		"retry limit over a year":     {[]string{"--retry-limits", limits}, `window "720d": give one from 1s to 366d`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			out := filepath.Join(work, "out")
			args := append([]string{"run", "--db", filepath.Join(work, "r.duckdb"), "--out", out}, tc.args...)
			code, _, stderr := clitest.RunCLI(t, nil, args...)
			if code != cli.ExitFailed || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused run wrote %s (%v)", out, err)
			}
		})
	}
	// Tomorrow is the last date accepted (a run may be started early for
	// a time zone ahead of UTC).
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02")
	if _, err := pipeline.BusinessDate(tomorrow, time.Now().UTC()); err != nil {
		t.Errorf("--date %s (tomorrow): %v", tomorrow, err)
	}
}

// TestForeignDatabaseRefused: --db naming another program's DuckDB file
// fails the run with a clear message, and the file is left as it was.
func TestForeignDatabaseRefused(t *testing.T) {
	work := t.TempDir()
	path := filepath.Join(work, "theirs.duckdb")
	db := clitest.OpenReadWrite(t, path)
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := clitest.RunCLI(t, nil, "run", "--db", path, "--out", filepath.Join(work, "out"))
	if code != cli.ExitFailed || !strings.Contains(stderr, "not a reconcile database: it holds invoices") {
		t.Errorf("exit %d, stderr %q; want 1 and a message that it is not a reconcile database", code, stderr)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the refused database file changed")
	}
}

// TestCredentialsWithoutBaseURLRefused: a credential given in any layer
// (flag, environment, config file) with no base URL is a production setup
// that lost its platform address: the run is refused, naming the missing
// base URL, rather than reconciling the sandbox's simulated data.
func TestCredentialsWithoutBaseURLRefused(t *testing.T) {
	work := t.TempDir()
	secretFile := filepath.Join(work, "secret.b64")
	config := filepath.Join(work, "reconcile.yaml")
	if err := os.WriteFile(secretFile, []byte(sandbox.DefaultSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("key-id: 0a1b2c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"RECONCILE_SECRET":   {map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret}, nil, "RECONCILE_SECRET"},
		"RECONCILE_KEY_ID":   {map[string]string{"RECONCILE_KEY_ID": "0a1b2c"}, nil, "--key-id"},
		"--key-id":           {nil, []string{"--key-id", "0a1b2c"}, "--key-id"},
		"--secret-file":      {nil, []string{"--secret-file", secretFile}, "--secret-file"},
		"key-id in a config": {nil, []string{"--config", config}, "--key-id"},
		// The response MLE key and its password (issue 35).
		"--response-mle-key":              {nil, []string{"--response-mle-key", secretFile}, "--response-mle-key"},
		"RECONCILE_RESPONSE_MLE_PASSWORD": {map[string]string{"RECONCILE_RESPONSE_MLE_PASSWORD": "pw"}, nil, "RECONCILE_RESPONSE_MLE_PASSWORD"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--db", filepath.Join(t.TempDir(), "r.duckdb"), "--out", out}, tc.args...)
			code, stdout, stderr := clitest.RunCLI(t, tc.env, args...)
			if code != cli.ExitFailed || !strings.Contains(stderr, "no --base-url (RECONCILE_BASE_URL) is set, but credentials are ("+tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and a refusal naming the missing base URL and %s", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) || stdout != "" {
				t.Errorf("the refused run wrote %s (%v) or printed %q", out, err, stdout)
			}
		})
	}
}

// TestCredentialSettingsRule: the rule that finds credential settings
// covers settings this file does not know yet, such as the certificate
// settings of another authentication, and leaves the others alone (--auth
// is a mode, not a credential: the embedded sandbox serves every mode).
func TestCredentialSettingsRule(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	for _, name := range []string{"key-id", "secret-file", "portfolio-id", "auth", "p12-file", "p12-password-file", "client-cert",
		"bin-refresh-age", "memory-limit", "journal", "base-url", "organization-id", "sandbox-seed"} {
		fs.String(name, "", "")
		fs.Set(name, "x")
	}
	got := credentials.Given(fs, func(string) string { return "" })
	want := "[--client-cert --key-id --p12-file --p12-password-file --portfolio-id --secret-file]"
	if fmt.Sprint(got) != want {
		t.Errorf("credential settings %v, want %s", got, want)
	}
}

// TestJournalProblemIsNotAMemberFailure: a run whose members all
// reconciled but whose journal import failed is partial (exit 3) and says
// what failed; it does not say that members failed.
func TestJournalProblemIsNotAMemberFailure(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	args := f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"))
	args = append(args, "--journal", "[") // a glob that cannot be read
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, args...)
	if code != cli.ExitPartial || !strings.Contains(stderr, `journal glob "["`) {
		t.Fatalf("exit %d, stderr %q; want 3 and the journal's problem", code, stderr)
	}
	if strings.Contains(stderr, "members failed") || strings.Contains(stdout, "failed ") {
		t.Errorf("only the journal failed, but the run says members failed:\n%s\n%s", stdout, stderr)
	}
}
