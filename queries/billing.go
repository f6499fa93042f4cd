package queries

// BillingReport is one of the statements that fill a run's recurring-billing
// tables after its checks (queries/billing/<table>.sql): an INSERT into
// Table of the rows of run $1 (business date $2), reading the window from
// the DuckDB variables window_start and window_end like the checks. The
// caller deletes the run's earlier rows of Table first, so a re-run of a
// date replaces them.
type BillingReport struct {
	Table string
	SQL   string
}

// billingOrder is the order the reports run in: the status log feeds the
// recoveries, both feed the metrics. merchant_names, the merchants' names
// their payment notifications give, comes from the same billing journals.
var billingOrder = []string{
	"subscription_status_log",
	"subscription_recoveries",
	"delinquency_ageing",
	"subscription_metrics",
	"billing_match",
	"merchant_names",
}

// BillingReports returns the statements of the run's recurring-billing
// tables, in the order they must run.
func BillingReports() []BillingReport {
	out := make([]BillingReport, len(billingOrder))
	for i, t := range billingOrder {
		out[i] = BillingReport{Table: t, SQL: mustRead("billing/" + t + ".sql")}
	}
	return out
}
