package groundtruth

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// The recurring-billing reconciliation end to end (docs/billing.md).

var billingKinds = []string{sandbox.KindMissedCycle, sandbox.KindDoubleCharge, sandbox.KindPlanAmountMismatch,
	sandbox.KindRetryScheduleBreach, sandbox.KindRetriesExhausted, sandbox.KindIntervalExceeds12Months}

func onlyKinds(set map[clitest.FindingKey]bool, kinds []string) map[clitest.FindingKey]bool {
	out := map[clitest.FindingKey]bool{}
	for k := range set {
		if slices.Contains(kinds, k.Kind) {
			out[k] = true
		}
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) map[string]bool {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out[s] = true
	}
	return out
}

func compareSets(t *testing.T, what string, got, want map[string]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: %d missing, %d extra\nmissing:\n  %s\nextra:\n  %s", what, len(missing), len(extra),
			strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	}
}

// TestBillingMatchesGroundTruthMedium runs the medium sandbox (50 members
// × 100 subscriptions) and compares every billing kind, the three-way
// match and the ageing with what the sandbox planted, entity by entity,
// and the metrics with the documented formula over the subscriptions.
func TestBillingMatchesGroundTruthMedium(t *testing.T) {
	t.Parallel() // its own copy of the shared medium run's files and database
	if testing.Short() {
		t.Skip("medium scale: a run of 5,000 subscriptions")
	}
	r := clitest.SharedMediumRun(t) // reads its own copy of the shared medium run
	f := r.F
	db, out := r.Copy(t)
	if code, stdout, stderr := r.Code, r.Stdout, r.Stderr; code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	const run = "2026-11-20"
	want := onlyKinds(clitest.TruthSet(f.Truth, nil), billingKinds)
	for _, k := range billingKinds {
		if len(f.Truth.Findings[k]) < 10 {
			t.Errorf("the medium ground truth plants %d %s: too few to test the rates", len(f.Truth.Findings[k]), k)
		}
	}
	clitest.CompareFindings(t, onlyKinds(clitest.DBFindings(t, conn, run), billingKinds), want)

	// The three-way match, exception by exception.
	wantMatch := map[string]bool{}
	for _, e := range f.Truth.BillingMatch {
		wantMatch[e.MerchantID+"/"+e.PaymentID+"/"+e.Leg+"/"+e.Class] = true
	}
	compareSets(t, "billing_match", queryStrings(t, conn,
		`SELECT merchant_id || '/' || payment_id || '/' || leg || '/' || class FROM billing_match WHERE run_id = ?`, run), wantMatch)
	var late, flaggedLate int
	if err := conn.QueryRow(`SELECT count(*) FILTER (WHERE class = 'late'), count(*) FILTER (WHERE class = 'late' AND flagged)
		FROM billing_match WHERE run_id = ?`, run).Scan(&late, &flaggedLate); err != nil || late == 0 || flaggedLate != 0 {
		t.Errorf("late exceptions: %d, %d of them flagged (%v): late ones are reported, not flagged", late, flaggedLate, err)
	}

	// Ageing: one row per DELINQUENT or SUSPENDED subscription, and what
	// it says of each agrees with its payment list.
	wantAged := map[string]bool{}
	for _, k := range []string{sandbox.KindSubscriptionDelinquent, sandbox.KindSubscriptionSuspended} {
		for _, fd := range f.Truth.Findings[k] {
			wantAged[fd.MerchantID+"/"+fd.EntityID] = true
		}
	}
	compareSets(t, "delinquency_ageing", queryStrings(t, conn,
		`SELECT merchant_id || '/' || subscription_id FROM delinquency_ageing WHERE run_id = ?`, run), wantAged)
	for _, q := range []string{
		// Retries done are the failing cycle's RETRY payments.
		`SELECT count(*) FROM delinquency_ageing a WHERE run_id = '2026-11-20' AND retries_done <> (
		     SELECT count(*) FROM subscription_payments p WHERE p.merchant_id = a.merchant_id
		       AND p.subscription_id = a.subscription_id AND p.billing_cycle = a.failed_cycle AND p.payment_type = 'RETRY')`,
		// A delinquent subscription has retries left and a next retry after the cut-off; a suspended one none.
		`SELECT count(*) FROM delinquency_ageing WHERE run_id = '2026-11-20' AND (
		     (status = 'DELINQUENT' AND (retries_remaining = 0 OR next_retry_at < TIMESTAMPTZ '2026-11-21 00:00:00+00'))
		  OR (status = 'SUSPENDED' AND (retries_remaining <> 0 OR next_retry_at IS NOT NULL)))`,
		// Days count from the first failed payment to the business date.
		`SELECT count(*) FROM delinquency_ageing WHERE run_id = '2026-11-20' AND failed_cycle IS NOT NULL
		   AND days_since_first_failure <> date_diff('day', CAST(first_failed_at AS DATE), DATE '2026-11-20')`,
	} {
		var bad int
		if err := conn.QueryRow(q).Scan(&bad); err != nil || bad != 0 {
			t.Errorf("%d ageing rows break %s (%v)", bad, q, err)
		}
	}

	// Metrics: recomputed here from the subscriptions with the documented
	// normalisation (D × 30.4375 / length, W × 52/12 / length, M / length,
	// Y / (12 × length)), per member and currency.
	type key struct{ mid, cur string }
	type metric struct {
		active, delinquent int
		mrr                float64
	}
	expect := map[key]*metric{}
	rows, err := conn.Query(`SELECT merchant_id, currency, status, CAST(billing_amount AS DOUBLE), billing_period_unit, billing_period_length FROM subscriptions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var mid, cur, status, unit string
		var amount float64
		var length int
		if err := rows.Scan(&mid, &cur, &status, &amount, &unit, &length); err != nil {
			t.Fatal(err)
		}
		m := expect[key{mid, cur}]
		if m == nil {
			m = &metric{}
			expect[key{mid, cur}] = m
		}
		if status != "ACTIVE" && status != "DELINQUENT" {
			continue
		}
		if status == "ACTIVE" {
			m.active++
		} else {
			m.delinquent++
		}
		// In the currency's minor unit (cents; fils of KWD, yen), exactly:
		// amount × num / den, rounded half up.
		ratio := map[string][2]int64{"D": {304375, 10000}, "W": {52, 12}, "M": {1, 1}, "Y": {1, 12}}[unit]
		num, den := ratio[0], ratio[1]*int64(length)
		scale := map[string]float64{"KWD": 1000, "JPY": 1}[cur]
		if scale == 0 {
			scale = 100
		}
		minor := int64(math.Round(amount * scale))
		m.mrr += float64((2*minor*num+den)/(2*den)) / scale
	}
	rows.Close()
	rows, err = conn.Query(`SELECT merchant_id, currency, active, delinquent, CAST(mrr AS DOUBLE) FROM subscription_metrics WHERE run_id = ?`, run)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for rows.Next() {
		var k key
		var got metric
		if err := rows.Scan(&k.mid, &k.cur, &got.active, &got.delinquent, &got.mrr); err != nil {
			t.Fatal(err)
		}
		seen++
		w := expect[k]
		if w == nil || w.active != got.active || w.delinquent != got.delinquent || math.Abs(w.mrr-got.mrr) > 0.005 {
			t.Errorf("metrics of %v: %+v, want %+v", k, got, w)
		}
	}
	rows.Close()
	if seen != len(expect) || seen < 50 {
		t.Errorf("%d metrics rows, want one per member and currency (%d)", seen, len(expect))
	}

	// The workbook's Ageing and Metrics sheets, grouped by group and member.
	wb, err := excelize.OpenFile(filepath.Join(out, run, "reconcile-"+run+".xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	var groupRows int // each subscription once, a member in several groups under all of them together
	if err := conn.QueryRow(`SELECT count(*) FROM delinquency_ageing a
		WHERE a.run_id = ? AND a.merchant_id IN (SELECT merchant_id FROM group_members g WHERE g.run_id = a.run_id)`, run).Scan(&groupRows); err != nil {
		t.Fatal(err)
	}
	ageing, _ := wb.GetRows("Ageing")
	if len(ageing) < 3+groupRows || ageing[1][0] != "Group" || ageing[1][1] != "Merchant ID" || ageing[1][12] != "Amount at risk" {
		t.Fatalf("Ageing sheet: %d rows, header %v; want a title, a header and %d rows", len(ageing), ageing[1], groupRows)
	}
	prev := ""
	for _, r := range ageing[2 : 2+groupRows] {
		if k := r[0] + "\x00" + r[1]; k < prev { // by group, then member
			t.Fatalf("Ageing rows not grouped by group and member: %s after %s", k, prev)
		} else {
			prev = k
		}
	}
	metricsSheet, _ := wb.GetRows("Metrics")
	if len(metricsSheet) < 4 || metricsSheet[1][0] != "Group" || metricsSheet[1][1] != "Currency" || metricsSheet[1][6] != "MRR" {
		t.Fatalf("Metrics sheet header %v", metricsSheet[1])
	}
	if raw, _ := wb.GetCellValue("Metrics", "G3"); !strings.ContainsAny(raw, "$€£") {
		t.Errorf("Metrics G3 = %q: MRR should show in its currency", raw)
	}
}

// TestBillingRecoveryDayOverDay runs a date, moves the sandbox's clock a
// day (its billing engine retries, recovers and suspends), runs the next
// date, and compares the recoveries and churn the second run reports with
// what the sandbox's API shows before and after. Two subscriptions are
// made through the API so that both ways of recovering occur: one whose
// retry succeeds, one whose card is updated before its retry succeeds.
func TestBillingRecoveryDayOverDay(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	ctx := context.Background()
	client := f.Client
	statuses := func() map[string]string { // merchant/subscription -> status
		out := map[string]string{}
		for _, mid := range f.Srv.Members() {
			if slices.Contains(f.Srv.MembersWithoutRecurringBilling(), mid) {
				continue // its /rbs/v1 calls answer "not enabled"
			}
			for s, err := range client.Merchant(mid).Subscriptions(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				out[mid+"/"+s.ID] = s.Status
			}
		}
		return out
	}
	mid := f.Srv.Members()[1]
	m := client.Merchant(mid)
	var tokens []string
	var cancel string
	for s, err := range m.Subscriptions(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, s.CustomerID)
		if s.Status == "ACTIVE" && cancel == "" {
			cancel = s.ID
		}
	}
	// Billed every 2 days; cents .98: the first attempt is declined, the
	// retry an hour later is approved.
	create := func(name, token string) string {
		var resp struct{ ID string }
		err := f.Env.Do(ctx, mid, "POST", "/rbs/v1/subscriptions", map[string]any{
			"subscriptionInformation": map[string]any{"name": name},
			"planInformation": map[string]any{"billingPeriod": map[string]any{"length": "2", "unit": "D"},
				"billingCycles": map[string]any{"total": "0"}},
			"orderInformation":   map[string]any{"amountDetails": map[string]any{"billingAmount": "12.98", "currency": "USD"}},
			"paymentInformation": map[string]any{"customer": map[string]any{"id": token}},
		}, &resp)
		if err != nil {
			t.Fatalf("create subscription %s: %v", name, err)
		}
		return resp.ID
	}
	retried, updated := create("retry succeeds", tokens[0]), create("card updated", tokens[1])

	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...); code != cli.ExitOK {
		t.Fatalf("run 2026-11-20 exited %d\n%s\n%s", code, so, se)
	}
	before := statuses()
	if before[mid+"/"+retried] != "DELINQUENT" || before[mid+"/"+updated] != "DELINQUENT" {
		t.Fatalf("the subscriptions made through the API are %s and %s, want DELINQUENT",
			before[mid+"/"+retried], before[mid+"/"+updated])
	}
	// Between the runs: a new card for one, a cancellation, and a day.
	if err := f.Env.Do(ctx, mid, "PATCH", "/rbs/v1/subscriptions/"+updated,
		map[string]any{"paymentInformation": map[string]any{"customer": map[string]any{"id": tokens[2]}}}, nil); err != nil {
		t.Fatalf("update the card: %v", err)
	}
	if err := f.Env.Do(ctx, mid, "POST", "/rbs/v1/subscriptions/"+cancel+"/cancel", nil, nil); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if _, err := f.Srv.AdvanceClock(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	args := f.RunArgs(db, out)
	for i, a := range args {
		if a == "--date" {
			args[i+1] = "2026-11-21"
		}
	}
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, args...); code != cli.ExitOK {
		t.Fatalf("run 2026-11-21 exited %d\n%s\n%s", code, so, se)
	}
	after := statuses()

	wantRecovered, wantChurned := map[string]bool{}, map[string]bool{}
	for k, was := range before {
		now := after[k]
		if (was == "DELINQUENT" || was == "SUSPENDED") && (now == "ACTIVE" || now == "COMPLETED") {
			wantRecovered[k] = true
		}
		if (was == "PENDING" || was == "ACTIVE" || was == "DELINQUENT") && (now == "CANCELLED" || now == "SUSPENDED") {
			wantChurned[k] = true
		}
	}
	if !wantRecovered[mid+"/"+retried] || !wantRecovered[mid+"/"+updated] || !wantChurned[mid+"/"+cancel] {
		t.Fatalf("the sandbox did not recover %s and %s or churn %s: recovered %v, churned %v",
			retried, updated, cancel, wantRecovered, wantChurned)
	}
	conn := clitest.OpenReadOnly(t, db)
	const run = "2026-11-21"
	compareSets(t, "recovered", queryStrings(t, conn,
		`SELECT merchant_id || '/' || subscription_id FROM subscription_recoveries WHERE run_id = ?`, run), wantRecovered)
	compareSets(t, "churned", queryStrings(t, conn,
		`SELECT merchant_id || '/' || subscription_id FROM subscription_status_log WHERE run_id = ?
		   AND previous_status IN ('PENDING', 'ACTIVE', 'DELINQUENT') AND status IN ('CANCELLED', 'SUSPENDED')`, run), wantChurned)
	how := map[string]string{}
	rows, err := conn.Query(`SELECT subscription_id, how, coalesce(payment_id, '') FROM subscription_recoveries WHERE run_id = ?`, run)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, h, payment string
		if err := rows.Scan(&id, &h, &payment); err != nil {
			t.Fatal(err)
		}
		how[id] = h
		if payment == "" {
			t.Errorf("recovery of %s (%s) names no payment", id, h)
		}
	}
	rows.Close()
	if how[retried] != "retry_succeeded" || how[updated] != "card_updated" {
		t.Errorf("how: %s for the retried subscription, %s for the one with a new card", how[retried], how[updated])
	}
	for id, h := range how {
		if id != updated && h != "retry_succeeded" {
			t.Errorf("subscription %s recovered by %s; the sandbox's recoveries are retries", id, h)
		}
	}
	var recovered, churned int
	if err := conn.QueryRow(`SELECT sum(recovered_today), sum(churned_today) FROM subscription_metrics WHERE run_id = ?`, run).
		Scan(&recovered, &churned); err != nil || recovered != len(wantRecovered) || churned != len(wantChurned) {
		t.Errorf("metrics: recovered %d churned %d (%v), want %d and %d", recovered, churned, err, len(wantRecovered), len(wantChurned))
	}
	// The first run had no earlier run: nothing recovered or churned.
	var first int
	if err := conn.QueryRow(`SELECT count(*) FROM subscription_recoveries WHERE run_id = '2026-11-20'`).Scan(&first); err != nil || first != 0 {
		t.Errorf("the first run reports %d recoveries (%v)", first, err)
	}
	// The workbook of the second run lists them on its Metrics sheet.
	wb, err := excelize.OpenFile(filepath.Join(out, run, "reconcile-"+run+".xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	sheet, _ := wb.GetRows("Metrics")
	listed := 0
	for _, r := range sheet {
		for _, id := range []string{retried, updated} {
			if slices.Contains(r, id) {
				listed++
			}
		}
	}
	if listed < 2 {
		t.Errorf("the Metrics sheet lists %d of the 2 recoveries made through the API", listed)
	}
}
