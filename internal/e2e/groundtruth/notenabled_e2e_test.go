package groundtruth

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/reports"
)

// TestMemberWithoutRecurringBillingIsReconciled: the sandbox's member whose
// account lacks Recurring Billing answers every /rbs/v1 call "not enabled".
// The run reconciles it on its card transactions: it is ok (exit 0), its
// transactions are loaded and its findings are the ground truth's (card
// findings, no billing ones), run_members names the product with the
// platform's answer, and the Summary lists it.
func TestMemberWithoutRecurringBillingIsReconciled(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	without := f.Srv.MembersWithoutRecurringBilling()
	if len(without) != 1 {
		t.Fatalf("the sandbox has %d members without Recurring Billing (%v), want 1", len(without), without)
	}
	mid := without[0]
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitOK, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var status, products, message string
	var errText *string
	var txns, subs int
	if err := conn.QueryRow(`SELECT status, error, coalesce(products_not_enabled, ''), coalesce(not_enabled_message, ''),
			transactions, subscriptions
		FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = ?`, mid).
		Scan(&status, &errText, &products, &message, &txns, &subs); err != nil {
		t.Fatal(err)
	}
	if status != "ok" || errText != nil {
		t.Errorf("member %s: status %q error %v, want ok", mid, status, errText)
	}
	if products != "recurring billing" {
		t.Errorf("member %s: products_not_enabled %q, want %q", mid, products, "recurring billing")
	}
	for _, want := range []string{"recurring billing: ", "/rbs/v1/", "400", "INVALID_MERCHANT_CONFIGURATION", "not enabled"} {
		if !strings.Contains(message, want) {
			t.Errorf("member %s: not_enabled_message %q lacks %q", mid, message, want)
		}
	}
	var stored int
	if err := conn.QueryRow(`SELECT count(*) FROM transactions WHERE merchant_id = ?`, mid).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if txns == 0 || stored != txns || subs != 0 {
		t.Errorf("member %s: %d transactions pulled, %d stored, %d subscriptions; want its transactions and no subscriptions", mid, txns, stored, subs)
	}
	// The other member with a product not enabled: the sandbox's member
	// that may not read reports (the Reporting API), ok too.
	noReports := f.Srv.MembersWithoutReporting()
	if len(noReports) != 1 || noReports[0] == mid {
		t.Fatalf("members without reports %v, want one other than %s", noReports, mid)
	}
	var others int
	if err := conn.QueryRow(`SELECT count(*) FROM run_members WHERE run_id = '2026-11-20' AND merchant_id NOT IN (?, ?)
		AND products_not_enabled IS NOT NULL`, mid, noReports[0]).Scan(&others); err != nil {
		t.Fatal(err)
	}
	if others != 0 {
		t.Errorf("%d other members have products not enabled, want none", others)
	}
	var reportsStatus, reportsProducts string
	if err := conn.QueryRow(`SELECT status, coalesce(products_not_enabled, '') FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = ?`,
		noReports[0]).Scan(&reportsStatus, &reportsProducts); err != nil {
		t.Fatal(err)
	}
	if reportsStatus != "ok" || reportsProducts != "reporting" {
		t.Errorf("member %s without reports: status %q, products not enabled %q; want ok and reporting", noReports[0], reportsStatus, reportsProducts)
	}
	// Its card findings are the ground truth's, like every other member's.
	want := clitest.TruthSet(f.Truth, nil)
	card := 0
	for k := range want {
		if k.MerchantID == mid {
			card++
		}
	}
	if card == 0 {
		t.Fatalf("the ground truth holds no finding of %s: the test would prove nothing", mid)
	}
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), want)

	wb, err := excelize.OpenFile(filepath.Join(out, "2026-11-20", "reconcile-2026-11-20.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, err := wb.GetRows(reports.SummarySheet)
	if err != nil {
		t.Fatal(err)
	}
	title, shown := false, false
	for _, row := range rows {
		line := strings.Join(row, "|")
		title = title || strings.Contains(line, "Members with products not enabled")
		if title && strings.Contains(line, mid) && strings.Contains(line, "recurring billing") &&
			strings.Contains(line, "INVALID_MERCHANT_CONFIGURATION") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("the Summary does not list %s under Members with products not enabled with the platform's answer", mid)
	}
}

// TestMemberWithoutTransactionSearchIsReconciled: a member whose Transaction
// Search answers 403 (as BIN lookup's FORBIDDEN_ACCESS: unverified for
// Transaction Search) is reconciled on its recurring billing: ok, exit 0,
// its subscriptions loaded, no transactions, the product recorded.
func TestMemberWithoutTransactionSearchIsReconciled(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	probe := clitest.NewFixture(t, sandbox.Config{})
	mid := probe.Srv.Members()[1]
	f := clitest.NewFixture(t, sandbox.Config{}, sandboxtest.WithHandler(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/tss/v2/searches" && r.Header.Get("v-c-merchant-id") == mid {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte(`{"submitTimeUtc":"2026-11-21T02:00:00Z","status":"FORBIDDEN_ACCESS","reason":"FORBIDDEN_ACCESS","message":"Transaction Search is not enabled for this merchant"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}))
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitOK, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var status, products, message string
	var subs, txns int
	if err := conn.QueryRow(`SELECT status, coalesce(products_not_enabled, ''), coalesce(not_enabled_message, ''),
			(SELECT count(*) FROM subscriptions WHERE merchant_id = $1), (SELECT count(*) FROM transactions WHERE merchant_id = $1)
		FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = $1`, mid).Scan(&status, &products, &message, &subs, &txns); err != nil {
		t.Fatal(err)
	}
	if status != "ok" || products != "transaction search" || !strings.Contains(message, "403") ||
		!strings.Contains(message, "Transaction Search is not enabled") || subs == 0 || txns != 0 {
		t.Errorf("member %s: status %s, products %q, message %q, %d subscriptions, %d transactions; want ok, transaction search with the 403, its subscriptions and no transactions",
			mid, status, products, message, subs, txns)
	}
}
