package groundtruth

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/reports"
)

// paymentKinds are the payments audit's finding kinds (docs/payments-audit.md).
var paymentKinds = []string{
	sandbox.KindLevel3NotTransmitted, sandbox.KindCommercialCardWithoutLevel3, sandbox.KindBinUnresolved,
	sandbox.KindLevel3Incomplete, sandbox.KindLevel2MissingPO, sandbox.KindPrepaidCardOnSubscription,
	sandbox.KindMITWithoutPriorCIT, sandbox.KindMITMissingReason, sandbox.KindMITMissingPreviousTransaction,
	sandbox.KindRecurringIntervalOverYear, sandbox.KindHealthcareCardWithoutAmounts, sandbox.KindHealthcareAmountsExceedTotal,
	sandbox.KindBNPLSessionStale, sandbox.KindBNPLAuthorizedNotCaptured, sandbox.KindBNPLUnsupportedCountryCurrency,
	sandbox.KindInstallmentNotCancelled, sandbox.KindInstallmentRefundsExceed,
	sandbox.KindRetryAfterDoNotRetry, sandbox.KindReattemptsOverNetworkLimit,
}

// atRiskPerCall is the interchange at risk's calls per member, network and
// currency: the amount estimated at the rates (calls without a clearing
// record in their currency) and what was billed back for the others.
const atRiskPerCall = `WITH lost AS (
    SELECT f.merchant_id, f.entity_id, any_value(f.amount) AS amount, any_value(f.currency) AS currency
    FROM current_findings f
    WHERE f.run_id = '2026-11-20' AND f.amount IS NOT NULL AND f.currency IS NOT NULL
      AND f.kind IN ('commercial_card_without_level3', 'level3_not_transmitted', 'level3_incomplete', 'level2_missing_po')
    GROUP BY ALL),
per_call AS (
    SELECT l.merchant_id, l.amount, l.currency, coalesce(upper(b.brand), '*') AS network,
           (SELECT coalesce(ic.billback_amount, ic.fee_charged - ic.fee_expected) FROM interchange_clearing ic
            WHERE ic.merchant_id = l.merchant_id AND ic.request_id = l.entity_id
              AND coalesce(ic.fee_currency, ic.currency) = l.currency LIMIT 1) AS charged
    FROM lost l
    JOIN (SELECT merchant_id, transaction_id, any_value(card_bin) AS bin FROM journal_cards GROUP BY ALL) c
      ON c.merchant_id = l.merchant_id AND c.transaction_id = l.entity_id
    JOIN bin_attributes b ON b.bin = c.bin
    WHERE b.lookup_status = 'COMPLETED' AND business_card_platform(b.card_platform)),
per_group AS (
    SELECT merchant_id, network, currency,
           coalesce(sum(amount) FILTER (WHERE charged IS NULL), 0) AS estimated,
           count(*) FILTER (WHERE charged IS NULL) AS estimated_calls,
           coalesce(sum(charged), 0) AS charged, count(charged) AS charged_calls
    FROM per_call GROUP BY ALL)
`

// TestPaymentsAuditAtMediumScale runs the medium sandbox (50 members) with
// its journals and compares every payments-audit kind with the ground
// truth, entity by entity; then checks what the reports built on the same
// sources say against the journals and Transaction Search, the
// interchange estimate against the rate file it was given, the retry
// limits against theirs (the documented defaults, as a file), and that a
// longer --bnpl-session-age judges no session stale and looser
// --retry-limits no reattempt over them.
func TestPaymentsAuditAtMediumScale(t *testing.T) {
	t.Parallel() // its own copy of the shared medium run's files and database
	if testing.Short() {
		t.Skip("medium scale: about 20 s")
	}
	r := clitest.SharedMediumRun(t) // its own copy of the shared medium run, made with the files below
	f, rates, limits := r.F, r.Rates, r.Limits
	db, out := r.Copy(t)
	work := filepath.Dir(db)
	if code, stdout, stderr := r.Code, r.Stdout, r.Stderr; code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	mine := map[string]bool{}
	for _, k := range paymentKinds {
		mine[k] = true
		if len(f.Truth.Findings[k]) == 0 {
			t.Errorf("ground truth plants no %s at scale medium", k)
		}
	}
	conn := clitest.OpenReadOnly(t, db)
	only := func(set map[clitest.FindingKey]bool) map[clitest.FindingKey]bool {
		outSet := map[clitest.FindingKey]bool{}
		for k := range set {
			if mine[k.Kind] {
				outSet[k] = true
			}
		}
		return outSet
	}
	clitest.CompareFindings(t, only(clitest.DBFindings(t, conn, "2026-11-20")), only(clitest.TruthSet(f.Truth, nil)))

	// The interchange estimate used the file's rates: each row is its
	// amount times the rate of the level lost, per call.
	checks := map[string]string{
		"rate table from the file": `SELECT count(*) FILTER (WHERE source <> '` + cardmask.MaskText(rates) + `') + abs(count(*) - 3) FROM interchange_rates`,
		"estimate rows":            `SELECT CASE WHEN count(*) > 10 THEN 0 ELSE 1 END FROM interchange_at_risk WHERE run_id = '2026-11-20'`,
		"only commercial networks": `SELECT count(*) FROM interchange_at_risk WHERE network NOT IN ('VISA', 'MASTERCARD')`,
		// A call whose interchange clearing record the Reporting API gave
		// counts what was billed back; the others are estimated at the rates.
		"rates applied": atRiskPerCall + `SELECT count(*) FROM interchange_at_risk i JOIN interchange_rates r USING (network)
			JOIN per_group g USING (merchant_id, network, currency)
			WHERE i.level3_rate <> r.level3_rate OR i.level2_rate <> r.level2_rate
			   OR i.at_risk > g.charged + round(g.estimated * r.level3_rate, 2) + 0.01 * g.estimated_calls
			   OR i.at_risk < g.charged + round(g.estimated * least(r.level2_rate, r.level3_rate), 2) - 0.01 * g.estimated_calls`,
		"what was charged counted": atRiskPerCall + `SELECT CASE WHEN count(*) FILTER (WHERE charged_calls > 0) > 0
			AND count(*) FILTER (WHERE charged > 0) > 0 THEN 0 ELSE 1 END FROM per_group`,
		"calls counted once": `SELECT abs((SELECT sum(calls) FROM interchange_at_risk WHERE run_id = '2026-11-20') -
			(SELECT count(DISTINCT f.merchant_id || f.entity_id) FROM current_findings f
			 JOIN journal_cards c ON c.merchant_id = f.merchant_id AND c.transaction_id = f.entity_id
			 JOIN bin_attributes b ON b.bin = c.card_bin
			 WHERE f.run_id = '2026-11-20' AND b.card_platform IN ('BUSINESS', 'CORPORATE', 'COMMERCIAL', 'GOVERNMENT') AND f.kind IN
			   ('commercial_card_without_level3', 'level3_not_transmitted', 'level3_incomplete', 'level2_missing_po')))`,
		// The reports read the same sources as the journals and the search.
		"funding sources count every transaction": `SELECT abs((SELECT sum(transactions) FROM funding_sources
			WHERE day >= DATE '2026-11-17' AND day < DATE '2026-11-21') -
			(SELECT count(*) FROM transactions WHERE submit_time >= TIMESTAMPTZ '2026-11-17 00:00:00+00' AND submit_time < TIMESTAMPTZ '2026-11-21 00:00:00+00'))`,
		"wallets as journaled": `SELECT abs((SELECT sum(transactions) FROM wallet_mix WHERE payment_solution IS NOT NULL
			AND day >= DATE '2026-11-17' AND day < DATE '2026-11-21') -
			(SELECT count(*) FROM journal WHERE payment_solution IS NOT NULL AND call_kind IN ('authorization', 'sale')
			 AND time >= TIMESTAMPTZ '2026-11-17 00:00:00+00' AND time < TIMESTAMPTZ '2026-11-21 00:00:00+00'))`,
		"some wallets":   `SELECT CASE WHEN count(DISTINCT payment_solution) >= 5 THEN 0 ELSE 1 END FROM wallet_mix`,
		"some terminals": `SELECT CASE WHEN count(DISTINCT terminal_id) >= 20 AND sum(approved_amount) > 0 THEN 0 ELSE 1 END FROM terminal_activity`,
		"BINs looked up once, never a full number": `SELECT count(*) FROM bin_attributes WHERE length(bin) <> 6`,
		"retry limits from the file": `SELECT count(*) FILTER (WHERE source <> '` + cardmask.MaskText(limits) + `') + abs(count(*) - 3) +
			count(*) FILTER (WHERE network = 'VISA' AND NOT (reattempts = 20 AND window_length = INTERVAL 30 DAY AND cit_mit_apart)) FROM retry_limits`,
		// Both retry kinds count the billing engine's attempts and the merchant's.
		"retry findings from both sources": `SELECT 4 - count(DISTINCT kind || (detail->>'source')) FROM current_findings
			WHERE run_id = '2026-11-20' AND kind IN ('retry_after_do_not_retry', 'reattempts_over_network_limit')`,
	}
	for what, q := range checks {
		var bad float64
		if err := conn.QueryRow(q).Scan(&bad); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, q)
		}
		if bad != 0 {
			t.Errorf("%s: %v\n%s", what, bad, q)
		}
	}
	// (Card numbers: TestRunMatchesGroundTruth scans every value of the
	// same tables at scale small, whose journals carry the same kinds of
	// call with full card numbers; a scan here would double the time.)
	conn.Close()

	// The workbook carries the audit's sheets, each with rows.
	wb, err := excelize.OpenFile(filepath.Join(out, "2026-11-20", "reconcile-2026-11-20.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sheet := range reports.PaymentSheets {
		rows, err := wb.GetRows(sheet)
		if err != nil || len(rows) < 5 {
			t.Errorf("sheet %s: %d rows (%v)", sheet, len(rows), err)
		}
	}
	wb.Close()
	for _, d := range []string{"interchange_at_risk", "funding_sources", "wallet_mix", "terminal_activity"} {
		if _, err := os.Stat(filepath.Join(out, "2026-11-20", "parquet", d, "date=2026-11-20", "data_0.parquet")); err != nil {
			t.Errorf("dataset %s: %v", d, err)
		}
	}

	// Run the date again with sessions judged after a week, and reattempts
	// allowed 100 times in any window: no session is stale, no reattempt
	// is over, and the charges after a refusal are still reported.
	loose := filepath.Join(work, "loose.yaml")
	if err := os.WriteFile(loose, []byte("VISA:\n  - {reattempts: 100, window: 30d}\nMASTERCARD:\n  - {reattempts: 100, window: 1d}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, r.Args(db, out, "--bnpl-session-age", "168h", "--retry-limits", loose)...)
	if code != cli.ExitOK {
		t.Fatalf("re-run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	counts := map[string]int{}
	rows, err := clitest.OpenReadOnly(t, db).Query(`SELECT kind, count(*) FROM current_findings WHERE run_id = '2026-11-20' GROUP BY kind`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			t.Fatal(err)
		}
		counts[kind] = n
	}
	rows.Close()
	if counts[sandbox.KindBNPLSessionStale] != 0 {
		t.Errorf("with --bnpl-session-age 168h: %d stale sessions, want none", counts[sandbox.KindBNPLSessionStale])
	}
	if counts[sandbox.KindReattemptsOverNetworkLimit] != 0 {
		t.Errorf("with 100 reattempts allowed: %d reattempts over the limit, want none", counts[sandbox.KindReattemptsOverNetworkLimit])
	}
	if n := len(f.Truth.Findings[sandbox.KindRetryAfterDoNotRetry]); counts[sandbox.KindRetryAfterDoNotRetry] != n {
		t.Errorf("with other retry limits: %d charges after a refusal, want the same %d", counts[sandbox.KindRetryAfterDoNotRetry], n)
	}
}
