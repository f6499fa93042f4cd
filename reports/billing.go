package reports

import (
	"github.com/reconcile/reconcile/outputs"
)

// The recurring-billing reconciliation's sheets and datasets
// (docs/billing.md), written after the finding sheets: how long
// delinquent subscriptions have been failing, the subscription metrics,
// what skipped cycles defer, and the three-way match of subscription
// payments with transactions and the merchants' journals. Each is grouped
// by group and member, and scoped like the rest of the workbook (a group's
// workbook holds its members only).

// Sheet names of the recurring-billing reconciliation.
const (
	AgeingSheet  = "Ageing"
	MetricsSheet = "Metrics"
	SkippedSheet = "Skipped"
	MatchSheet   = "Three-way match"
)

// BillingSheets are the recurring-billing sheets, in workbook order.
var BillingSheets = []string{AgeingSheet, MetricsSheet, SkippedSheet, MatchSheet}

// ageOrder sorts delinquency_ageing.age_bucket from the youngest.
const ageOrder = `CASE a.age_bucket WHEN '0-7 days' THEN 1 WHEN '8-14 days' THEN 2 WHEN '15-30 days' THEN 3
    WHEN '31-60 days' THEN 4 WHEN '61-90 days' THEN 5 WHEN 'over 90 days' THEN 6 ELSE 7 END`

func billingSheets(run Run, scope Scope) []outputs.Sheet {
	args := []any{run.RunID, scope.arg()}
	date := run.BusinessDate.Format("2006-01-02")
	text := func(h string, w float64) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Text, Width: w}
	}
	count := func(h string) outputs.Column { return outputs.Column{Header: h, Type: outputs.Count} }
	amount := func(h string, cur int) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Amount, CurrencyColumn: cur, Width: 16}
	}
	currency := text("Currency", 9)
	ageing := outputs.Sheet{Name: AgeingSheet, Blocks: []outputs.Block{
		{
			Title: "Delinquent and suspended subscriptions, by group and member, longest failing first",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, a.merchant_id, a.subscription_id, s.code, a.status, a.failed_cycle,
			       a.first_failed_at, a.days_since_first_failure, a.age_bucket, a.retries_done, a.retries_remaining,
			       a.next_retry_at, a.amount_at_risk, a.currency
			FROM member_groups mg
			JOIN delinquency_ageing a ON a.run_id = $1 AND a.merchant_id = mg.merchant_id
			LEFT JOIN subscriptions s ON s.merchant_id = a.merchant_id AND s.subscription_id = a.subscription_id
			WHERE mg.status = 'ok'
			ORDER BY mg.group_id, a.merchant_id, a.days_since_first_failure DESC NULLS LAST, a.subscription_id`,
			Args: args,
			Columns: []outputs.Column{
				text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26), text("Code", 12),
				text("Status", 12), {Header: "Failed cycle", Type: outputs.Integer},
				{Header: "First failed (UTC)", Type: outputs.Timestamp}, count("Days"), text("Age", 14),
				count("Retries done"), count("Retries left"), {Header: "Next retry (UTC)", Type: outputs.Timestamp},
				amount("Amount at risk", 14), currency},
			Overflow: DatasetDir("delinquency_ageing", date),
		},
		{
			Title: "At risk by group, member and age",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, a.merchant_id, a.age_bucket, count(*), sum(a.amount_at_risk), a.currency
			FROM member_groups mg
			JOIN delinquency_ageing a ON a.run_id = $1 AND a.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			GROUP BY mg.group_id, a.merchant_id, a.age_bucket, ` + ageOrder + `, a.currency
			ORDER BY mg.group_id, a.merchant_id, ` + ageOrder + `, a.currency`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Age", 14),
				count("Subscriptions"), amount("Amount at risk", 6), currency},
		},
	}}

	metricColumns := func(lead ...outputs.Column) []outputs.Column {
		cur := len(lead) + 1
		return append(lead, currency, count("Subscriptions"), count("Active"), count("Delinquent"), count("Suspended"),
			amount("MRR", cur), amount("MRR at risk", cur), count("Churned today"), count("Recovered today"),
			count("Skipped cycles"), amount("Deferred by skips", cur))
	}
	sums := `sum(m.subscriptions), sum(m.active), sum(m.delinquent), sum(m.suspended), sum(m.mrr), sum(m.mrr_at_risk),
	         sum(m.churned_today), sum(m.recovered_today), sum(m.skipped_cycles), sum(m.deferred_amount)`
	metrics := outputs.Sheet{Name: MetricsSheet, Blocks: []outputs.Block{
		{
			Title: "Subscription metrics by group (MRR: each subscription's amount normalised to a month)",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, m.currency, ` + sums + `
			FROM member_groups mg
			JOIN subscription_metrics m ON m.run_id = $1 AND m.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			GROUP BY mg.group_id, m.currency ORDER BY mg.group_id, m.currency NULLS LAST`,
			Args:    args,
			Columns: metricColumns(text("Group", 10)),
		},
		{
			Title: "By member",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, m.merchant_id, m.currency, ` + sums + `
			FROM member_groups mg
			JOIN subscription_metrics m ON m.run_id = $1 AND m.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			GROUP BY mg.group_id, m.merchant_id, m.currency ORDER BY mg.group_id, m.merchant_id, m.currency NULLS LAST`,
			Args:    args,
			Columns: metricColumns(text("Group", 10), text("Merchant ID", 0)),
		},
		{
			Title: "Recovered today (delinquent or suspended when last seen, active now)",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, r.merchant_id, r.subscription_id, r.previous_status, r.status, r.how,
			       r.paid_at, r.amount, r.currency
			FROM member_groups mg
			JOIN subscription_recoveries r ON r.run_id = $1 AND r.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			ORDER BY mg.group_id, r.merchant_id, r.subscription_id`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Was", 12), text("Now", 12), text("How", 16), {Header: "Paid (UTC)", Type: outputs.Timestamp},
				amount("Amount", 9), currency},
		},
		{
			Title: "Churned today (cancelled or suspended since last seen)",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, l.merchant_id, l.subscription_id, l.previous_status, l.status, s.billing_amount, s.currency
			FROM member_groups mg
			JOIN subscription_status_log l ON l.run_id = $1 AND l.merchant_id = mg.merchant_id
			LEFT JOIN subscriptions s ON s.merchant_id = l.merchant_id AND s.subscription_id = l.subscription_id
			WHERE mg.status = 'ok'
			  AND l.previous_status IN ('PENDING', 'ACTIVE', 'DELINQUENT') AND l.status IN ('CANCELLED', 'SUSPENDED')
			ORDER BY mg.group_id, l.merchant_id, l.subscription_id`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Was", 12), text("Now", 12), amount("Billing amount", 7), currency},
		},
	}}

	skipped := outputs.Sheet{Name: SkippedSheet, Blocks: []outputs.Block{
		{
			Title: "Deferred by skipped cycles, by group and member",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, d.merchant_id, d.currency, count(DISTINCT d.subscription_id),
			       sum(d.skipped_cycles), sum(d.past_skipped_cycles), sum(d.deferred_amount)
			FROM member_groups mg
			JOIN skipped_deferrals d ON d.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			GROUP BY mg.group_id, d.merchant_id, d.currency ORDER BY mg.group_id, d.merchant_id, d.currency`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), currency, count("Subscriptions"),
				count("Skipped, to come"), count("Skipped, past"), amount("Deferred", 3)},
		},
		{
			Title: "By subscription",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, d.merchant_id, d.subscription_id, s.code, s.status, d.cycles,
			       d.skipped_cycles, d.skipped_amount, d.past_skipped_cycles, d.past_skipped_amount, d.deferred_amount,
			       d.currency
			FROM member_groups mg
			JOIN skipped_deferrals d ON d.merchant_id = mg.merchant_id
			LEFT JOIN subscriptions s ON s.merchant_id = d.merchant_id AND s.subscription_id = d.subscription_id
			WHERE mg.status = 'ok'
			ORDER BY mg.group_id, d.merchant_id, d.subscription_id`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Code", 12), text("Status", 12), text("Cycles", 12), count("Skipped, to come"), amount("To come", 12),
				count("Skipped, past"), amount("Past", 12), amount("Deferred", 12), currency},
			Overflow: DatasetDir("skipped_deferrals", date),
		},
	}}

	match := outputs.Sheet{Name: MatchSheet, Blocks: []outputs.Block{
		{
			Title: "Subscription payments in the window against transactions and the merchant's journal",
			Query: `WITH ` + scopeCTE + `,
			pays AS (
			    SELECT p.merchant_id, count(*) AS n
			    FROM subscription_payments p
			    WHERE p.status IN ('PAID', 'FAILED')
			      AND p.payment_date >= (SELECT window_start FROM run) AND p.payment_date < (SELECT window_end FROM run)
			    GROUP BY ALL
			),
			ex AS (
			    SELECT merchant_id, count(DISTINCT payment_id) AS payments,
			           count(*) FILTER (WHERE class = 'missing') AS missing,
			           count(*) FILTER (WHERE class = 'late') AS late,
			           count(*) FILTER (WHERE class = 'mismatch') AS mismatch
			    FROM billing_match WHERE run_id = $1 GROUP BY ALL
			)
			SELECT mg.group_id, mg.merchant_id, coalesce(p.n, 0), coalesce(p.n, 0) - coalesce(ex.payments, 0),
			       coalesce(ex.missing, 0), coalesce(ex.mismatch, 0), coalesce(ex.late, 0)
			FROM member_groups mg
			LEFT JOIN pays p ON p.merchant_id = mg.merchant_id
			LEFT JOIN ex ON ex.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			ORDER BY mg.group_id, mg.merchant_id`,
			Args: args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), count("Payments"),
				count("Matched all three"), count("Missing"), count("Mismatch"), count("Late (not flagged)")},
		},
		{
			Title: "Exceptions: missing (last look), mismatch, late (may still arrive)",
			Query: `WITH ` + scopeCTE + `
			SELECT b.merchant_id, g.groups, b.payment_id, b.leg, b.class, b.reasons, b.subscription_id,
			       b.transaction_id, b.payment_date, b.payment_status, b.amount, b.currency,
			       b.found_amount, b.found_currency, b.found_status
			FROM billing_match b
			LEFT JOIN ` + groupsOf + ` g ON g.merchant_id = b.merchant_id
			WHERE b.run_id = $1 AND b.merchant_id IN (SELECT merchant_id FROM scope WHERE status = 'ok')
			ORDER BY b.merchant_id, CASE b.class WHEN 'missing' THEN 1 WHEN 'mismatch' THEN 2 ELSE 3 END,
			         b.payment_id, b.leg`,
			Args: args,
			Columns: []outputs.Column{text("Merchant ID", 0), text("Group", 12), text("Payment ID", 26), text("Leg", 12),
				text("Class", 10), text("Reasons", 16), text("Subscription ID", 26), text("Transaction ID", 26),
				{Header: "Payment date (UTC)", Type: outputs.Timestamp}, text("Status", 9),
				amount("Expected", 12), currency, amount("Found", 14), text("Found currency", 9), text("Found status", 16)},
			Overflow: DatasetDir("billing_match", date),
		},
	}}
	return []outputs.Sheet{ageing, metrics, skipped, match}
}

// billingLegendNotes explain the recurring-billing sheets on the Legend.
var billingLegendNotes = [][2]string{
	{"Ageing", "Every DELINQUENT or SUSPENDED subscription: days since its failing cycle's payment first failed (to the business date), the retries done and those the documented schedule still allows (daily 1, weekly 3, monthly 5, yearly 3; none once suspended), when the next is due, and the amount at risk (the failed payment, or the billing amount when none failed)."},
	{"MRR", "Monthly recurring revenue of the ACTIVE and DELINQUENT subscriptions, each amount normalised to a month: daily × 30.4375 / length, weekly × 52 / 12 / length, monthly / length, yearly / (12 × length). Per currency, never converted. MRR at risk is the DELINQUENT part."},
	{"Churned and recovered today", "Compared with the latest earlier run that saw each subscription: churned went from pending, active or delinquent to cancelled or suspended; recovered went from delinquent or suspended to active (or completed), with how where the data tells (card updated, retry succeeded, reactivated)."},
	{"Skipped", "Cycles the merchant skipped, still to come or past, and the billing amount they defer (not collected)."},
	{"Three-way match", "Each subscription payment paid or failed in the window against its transaction (Transaction Search) and the merchant's journal of payment notifications. Missing: absent, and the payment is on the window's first day, so this is the last run to look. Late: absent but may still arrive (not flagged). Mismatch: another amount, currency or outcome."},
}

// billingDatasets are the Parquet datasets of the recurring-billing tables:
// the run's rows of the per-run tables, the current schedules.
func billingDatasets(run string) []Dataset {
	ofRun := func(table string) Dataset {
		return Dataset{Name: table, Query: "SELECT * FROM " + table + " WHERE run_id = " + run}
	}
	return []Dataset{
		{Name: "subscription_schedules", Query: "SELECT * FROM subscription_schedules"},
		{Name: "expected_cycles", Query: "SELECT * FROM expected_cycles"},
		{Name: "skipped_deferrals", Query: "SELECT * FROM skipped_deferrals"},
		ofRun("subscription_status_log"),
		ofRun("subscription_recoveries"),
		ofRun("delinquency_ageing"),
		ofRun("subscription_metrics"),
		ofRun("billing_match"),
	}
}
