package reports

import (
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
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

// The statements of the recurring-billing sheets
// (queries/reports/billing.sql), each taking $1 = run ID and $2 = group
// ID or NULL.
var (
	ageingSQL                = queries.Must("reports/billing.sql", "Ageing")
	ageingAtRiskSQL          = queries.Must("reports/billing.sql", "AgeingAtRisk")
	metricsByGroupSQL        = queries.Must("reports/billing.sql", "MetricsByGroup")
	metricsByMemberSQL       = queries.Must("reports/billing.sql", "MetricsByMember")
	recoveredTodaySQL        = queries.Must("reports/billing.sql", "RecoveredToday")
	churnedTodaySQL          = queries.Must("reports/billing.sql", "ChurnedToday")
	skippedByMemberSQL       = queries.Must("reports/billing.sql", "SkippedByMember")
	skippedBySubscriptionSQL = queries.Must("reports/billing.sql", "SkippedBySubscription")
	matchByMemberSQL         = queries.Must("reports/billing.sql", "MatchByMember")
	matchExceptionsSQL       = queries.Must("reports/billing.sql", "MatchExceptions")
)

func billingSheets(run Publication, scope Scope) []outputs.Sheet {
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
			Query: ageingSQL,
			Args:  args,
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
			Query: ageingAtRiskSQL,
			Args:  args,
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
	metrics := outputs.Sheet{Name: MetricsSheet, Blocks: []outputs.Block{
		{
			Title:   "Subscription metrics by group (MRR: each subscription's amount normalised to a month)",
			Query:   metricsByGroupSQL,
			Args:    args,
			Columns: metricColumns(text("Group", 10)),
		},
		{
			Title:   "By member",
			Query:   metricsByMemberSQL,
			Args:    args,
			Columns: metricColumns(text("Group", 10), text("Merchant ID", 0)),
		},
		{
			Title: "Recovered today (delinquent or suspended when last seen, active now)",
			Query: recoveredTodaySQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Was", 12), text("Now", 12), text("How", 16), {Header: "Paid (UTC)", Type: outputs.Timestamp},
				amount("Amount", 9), currency},
		},
		{
			Title: "Churned today (cancelled or suspended since last seen)",
			Query: churnedTodaySQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Was", 12), text("Now", 12), amount("Billing amount", 7), currency},
		},
	}}

	skipped := outputs.Sheet{Name: SkippedSheet, Blocks: []outputs.Block{
		{
			Title: "Deferred by skipped cycles, by group and member",
			Query: skippedByMemberSQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), currency, count("Subscriptions"),
				count("Skipped, to come"), count("Skipped, past"), amount("Deferred", 3)},
		},
		{
			Title: "By subscription",
			Query: skippedBySubscriptionSQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), text("Subscription ID", 26),
				text("Code", 12), text("Status", 12), text("Cycles", 12), count("Skipped, to come"), amount("To come", 12),
				count("Skipped, past"), amount("Past", 12), amount("Deferred", 12), currency},
			Overflow: DatasetDir("skipped_deferrals", date),
		},
	}}

	match := outputs.Sheet{Name: MatchSheet, Blocks: []outputs.Block{
		{
			Title: "Subscription payments in the window against transactions and the merchant's journal",
			Query: matchByMemberSQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 10), text("Merchant ID", 0), count("Payments"),
				count("Matched all three"), count("Missing"), count("Mismatch"), count("Late (not flagged)")},
		},
		{
			Title: "Exceptions: missing (last look), mismatch, late (may still arrive)",
			Query: matchExceptionsSQL,
			Args:  args,
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
