// Package reports is the report catalog: which query feeds which workbook
// sheet and Parquet dataset, with titles and column types, and the publish
// step that writes them for a run into out/<business date>/ at once.
package reports

import (
	"fmt"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// findingColumns are the columns every finding sheet starts with.
var findingColumns = []outputs.Column{
	{Header: "Merchant ID", Type: outputs.Text},
	{Header: "Group", Type: outputs.Text},
	{Header: "Entity ID", Type: outputs.Text, Width: 26},
	{Header: "Amount", Type: outputs.Amount},
	{Header: "Currency", Type: outputs.Text, Width: 9},
	{Header: "First seen", Type: outputs.Text, Width: 12},
	{Header: "Detail", Type: outputs.Text, Width: 80},
}

// Workbook is the finance workbook of a run: a Summary sheet, then one sheet
// per finding kind.
func Workbook(runID string) outputs.Workbook {
	wb := outputs.Workbook{Sheets: []outputs.Sheet{summarySheet(runID)}}
	for _, c := range queries.Checks() {
		wb.Sheets = append(wb.Sheets, outputs.Sheet{
			Name: c.Kind,
			Blocks: []outputs.Block{{
				Query: `SELECT merchant_id, group_id, entity_id, amount, currency, first_seen_run, CAST(detail AS VARCHAR)
				        FROM findings WHERE run_id = ? AND kind = ?
				        ORDER BY merchant_id, entity_id`,
				Args:     []any{runID, c.Kind},
				Columns:  findingColumns,
				Overflow: "parquet/findings/kind=" + c.Kind,
			}},
		})
	}
	return wb
}

func summarySheet(runID string) outputs.Sheet {
	return outputs.Sheet{Name: "Summary", Blocks: []outputs.Block{
		{
			Title: "Run",
			Query: `SELECT 'Run' AS k, run_id AS v FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Business date', strftime(business_date, '%Y-%m-%d') FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Window (UTC)', strftime(window_start, '%Y-%m-%d %H:%M') || ' to ' || strftime(window_end, '%Y-%m-%d %H:%M') FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Status', status FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Members reconciled', CAST(members_ok AS VARCHAR) || ' of ' || CAST(members_total AS VARCHAR) FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Members failed', CAST(members_failed AS VARCHAR) FROM runs WHERE run_id = $1
			  UNION ALL SELECT 'Findings', CAST(findings AS VARCHAR) FROM runs WHERE run_id = $1`,
			Args:    []any{runID},
			Columns: []outputs.Column{{Header: "", Type: outputs.Text, Width: 22}, {Header: "", Type: outputs.Text, Width: 40}},
		},
		{
			Title: "Findings by kind",
			Query: `WITH k(kind, ord) AS (SELECT unnest($2::VARCHAR[]), generate_subscripts($2::VARCHAR[], 1))
			SELECT k.kind, count(f.entity_id), f.currency, sum(f.amount)
			FROM k LEFT JOIN findings f ON f.kind = k.kind AND f.run_id = $1
			GROUP BY k.kind, k.ord, f.currency ORDER BY k.ord, f.currency`,
			Args: []any{runID, queries.Kinds()},
			Columns: []outputs.Column{
				{Header: "Kind", Type: outputs.Text, Width: 32}, {Header: "Findings", Type: outputs.Integer},
				{Header: "Currency", Type: outputs.Text}, {Header: "Amount", Type: outputs.Amount}},
		},
		{
			Title: "Members by group",
			Query: `SELECT g.group_id, g.name, count(*) AS members,
			       count(*) FILTER (WHERE rm.status = 'ok') AS ok,
			       count(*) FILTER (WHERE rm.status = 'failed') AS failed
			FROM groups g JOIN group_members gm USING (group_id)
			JOIN run_members rm ON rm.merchant_id = gm.merchant_id AND rm.run_id = $1
			GROUP BY ALL ORDER BY g.group_id`,
			Args: []any{runID},
			Columns: []outputs.Column{
				{Header: "Group", Type: outputs.Text}, {Header: "Name", Type: outputs.Text, Width: 30},
				{Header: "Members", Type: outputs.Integer}, {Header: "Reconciled", Type: outputs.Integer},
				{Header: "Failed", Type: outputs.Integer}},
		},
		{
			Title: "Failed members",
			Query: `SELECT merchant_id, error FROM run_members WHERE run_id = $1 AND status = 'failed' ORDER BY merchant_id`,
			Args:  []any{runID},
			Columns: []outputs.Column{
				{Header: "Merchant ID", Type: outputs.Text}, {Header: "Error", Type: outputs.Text, Width: 100}},
		},
	}}
}

// Dataset is one Parquet dataset of a run's output.
type Dataset struct {
	Name        string // folder under parquet/
	Query       string // with no parameters: the run id and window are inlined
	PartitionBy []string
}

// Datasets lists the Parquet datasets of a run: the run's own records, the
// current state of plans, subscriptions and payments, and the window's
// transactions and journal calls.
func Datasets(runID string, w Window) []Dataset {
	run := sqlString(runID)
	in := func(col string) string {
		return fmt.Sprintf("%s >= TIMESTAMPTZ %s AND %s < TIMESTAMPTZ %s", col, sqlString(w.Start.UTC().Format("2006-01-02 15:04:05+00")),
			col, sqlString(w.End.UTC().Format("2006-01-02 15:04:05+00")))
	}
	return []Dataset{
		{Name: "findings", Query: "SELECT * FROM findings WHERE run_id = " + run, PartitionBy: []string{"kind"}},
		{Name: "runs", Query: "SELECT * FROM runs WHERE run_id = " + run},
		{Name: "run_members", Query: "SELECT * FROM run_members WHERE run_id = " + run},
		{Name: "groups", Query: "SELECT * FROM groups"},
		{Name: "group_members", Query: "SELECT * FROM group_members"},
		{Name: "plans", Query: "SELECT * FROM plans"},
		{Name: "subscriptions", Query: "SELECT * FROM subscriptions"},
		{Name: "subscription_payments", Query: "SELECT * FROM subscription_payments"},
		{Name: "transactions", Query: "SELECT * FROM transactions WHERE " + in("submit_time")},
		{Name: "journal", Query: "SELECT * FROM journal WHERE " + in("time")},
		{Name: "journal_files", Query: "SELECT * FROM journal_files"},
		{Name: "journal_rejects", Query: "SELECT * FROM journal_rejects"},
		{Name: "bin_attributes", Query: "SELECT * FROM bin_attributes"},
	}
}

func sqlString(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}
