package reports

import (
	"fmt"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
)

// The payments audit's sheets and datasets (docs/payments-audit.md),
// written after the recurring-billing ones: the interchange at risk on
// calls that lost Level II/III, and the mix of the window's payments by
// funding source, device wallet and contactless terminal. Each lists the
// members, then the groups, scoped like the rest of the workbook.

// Sheet names of the payments audit.
const (
	InterchangeSheet = "Interchange at risk"
	FundingSheet     = "Funding sources"
	WalletsSheet     = "Wallets"
	TerminalsSheet   = "Terminals"
)

// PaymentSheets are the payments audit's sheets, in workbook order.
var PaymentSheets = []string{InterchangeSheet, FundingSheet, WalletsSheet, TerminalsSheet}

// KindSheetNames maps each finding kind to its sheet's name: the kind, cut
// to Excel's 31 characters (and numbered if two cuts collide).
func KindSheetNames() map[string]string { return kindSheetNames(queries.Checks()) }

// inWindowDays selects rows of a per-day view (column day) inside the run's
// window, which starts and ends at midnight UTC.
const inWindowDays = `day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)`

func paymentSheets(run Run, scope Scope) []outputs.Sheet {
	args := []any{run.RunID, scope.arg()}
	date := run.BusinessDate.Format("2006-01-02")
	text := func(h string, w float64) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Text, Width: w}
	}
	count := func(h string) outputs.Column { return outputs.Column{Header: h, Type: outputs.Count} }
	amount := func(h string, cur int) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Amount, CurrencyColumn: cur, Width: 16}
	}
	rate := func(h string) outputs.Column { return outputs.Column{Header: h, Type: outputs.Percent} }
	currency := text("Currency", 9)
	memberRows := `WITH ` + scopeCTE + `, member_list AS (SELECT merchant_id FROM scope WHERE status = 'ok')`

	interchange := outputs.Sheet{Name: InterchangeSheet, Blocks: []outputs.Block{
		{
			Title: "Estimated interchange at risk on commercial-card calls that lost Level III or Level II, by member (an estimate from the rate table below)",
			Query: memberRows + `
			SELECT i.merchant_id, g.groups, i.network, i.calls, i.level3_calls, i.level2_calls, i.amount,
			       i.level3_rate, i.level2_rate, i.at_risk, i.currency
			FROM interchange_at_risk i
			JOIN member_list m ON m.merchant_id = i.merchant_id
			LEFT JOIN ` + groupsOf + ` g ON g.merchant_id = i.merchant_id
			WHERE i.run_id = $1
			ORDER BY i.merchant_id, i.network, i.currency`,
			Args: args,
			Columns: []outputs.Column{text("Merchant ID", 0), text("Groups", 12), text("Network", 18),
				count("Calls"), count("Lost Level III"), count("Lost Level II"), amount("Amount", 11),
				rate("Level III difference"), rate("Level II difference"), amount("At risk", 11), currency},
			Overflow: DatasetDir("interchange_at_risk", date),
		},
		{
			Title: "By group",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, count(DISTINCT i.merchant_id), sum(i.calls), sum(i.amount), sum(i.at_risk), i.currency
			FROM member_groups mg
			JOIN interchange_at_risk i ON i.run_id = $1 AND i.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok'
			GROUP BY mg.group_id, i.currency ORDER BY mg.group_id, i.currency`,
			Args: args,
			Columns: []outputs.Column{text("Group", 12), count("Members"), count("Calls"), amount("Amount", 6),
				amount("At risk", 6), currency},
		},
		{
			Title: "Rate table: how much lower the Level II and Level III rates are than the standard commercial rate (* = other networks)",
			Query: `SELECT network, level2_rate, level3_rate, source FROM interchange_rates ORDER BY network = '*', network`,
			Columns: []outputs.Column{text("Network", 18), rate("Level II difference"), rate("Level III difference"),
				text("Source", 30)},
		},
	}}

	fundingCols := func(first outputs.Column) []outputs.Column {
		return []outputs.Column{first, text("Funding source", 16), text("Card platform", 14), text("Card product", 26),
			text("Health card", 11), count("Transactions"), count("Captured"), amount("Captured amount", 9), currency}
	}
	fundingSelect := func(key string) string {
		return key + `, coalesce(f.funding_source, CASE WHEN f.has_card THEN '(unknown)' ELSE '(no card)' END),
			f.card_platform, f.card_product, CASE WHEN f.health_card THEN 'yes' WHEN NOT f.health_card THEN 'no' END,
			sum(f.transactions), sum(f.captured), sum(f.captured_amount), f.currency`
	}
	funding := outputs.Sheet{Name: FundingSheet, Blocks: []outputs.Block{
		{
			Title: "Transactions in the window by the funding source, platform, product and health-card flag of the card's BIN, by member",
			Query: memberRows + `
			SELECT ` + fundingSelect("f.merchant_id") + `
			FROM funding_sources f JOIN member_list m ON m.merchant_id = f.merchant_id
			WHERE ` + inWindowDays + `
			GROUP BY ALL ORDER BY 1, 2, 3, 4, 5, 9`,
			Args:     args,
			Columns:  fundingCols(text("Merchant ID", 0)),
			Overflow: DatasetDir("funding_sources", date),
		},
		{
			Title: "By group",
			Query: `WITH ` + scopeCTE + `
			SELECT ` + fundingSelect("mg.group_id") + `
			FROM member_groups mg JOIN funding_sources f ON f.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok' AND ` + inWindowDays + `
			GROUP BY ALL ORDER BY 1, 2, 3, 4, 5, 9`,
			Args:    args,
			Columns: fundingCols(text("Group", 12)),
		},
	}}

	walletCols := func(first outputs.Column) []outputs.Column {
		return []outputs.Column{first, text("Wallet", 36), text("Payment solution", 10), count("Transactions"),
			count("Captured"), amount("Captured amount", 7), currency}
	}
	wallets := outputs.Sheet{Name: WalletsSheet, Blocks: []outputs.Block{
		{
			Title: "Transactions in the window by device wallet or network token (processingInformation.paymentSolution), by member",
			Query: memberRows + `
			SELECT w.merchant_id, w.wallet, w.payment_solution, sum(w.transactions), sum(w.captured), sum(w.captured_amount), w.currency
			FROM wallet_mix w JOIN member_list m ON m.merchant_id = w.merchant_id
			WHERE ` + inWindowDays + `
			GROUP BY ALL ORDER BY 1, w.payment_solution NULLS LAST, 7`,
			Args:     args,
			Columns:  walletCols(text("Merchant ID", 0)),
			Overflow: DatasetDir("wallet_mix", date),
		},
		{
			Title: "By group",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, w.wallet, w.payment_solution, sum(w.transactions), sum(w.captured), sum(w.captured_amount), w.currency
			FROM member_groups mg JOIN wallet_mix w ON w.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok' AND ` + inWindowDays + `
			GROUP BY ALL ORDER BY 1, w.payment_solution NULLS LAST, 7`,
			Args:    args,
			Columns: walletCols(text("Group", 12)),
		},
	}}

	terminals := outputs.Sheet{Name: TerminalsSheet, Blocks: []outputs.Block{
		{
			Title: "Contactless acceptance: authorizations and sales in the window by terminal (pointOfSaleInformation.terminalId), by member",
			Query: memberRows + `
			SELECT a.merchant_id, g.groups, a.terminal_id, sum(a.transactions), sum(a.approved), sum(a.approved_amount),
			       a.currency, min(a.first_time), max(a.last_time)
			FROM terminal_activity a JOIN member_list m ON m.merchant_id = a.merchant_id
			LEFT JOIN ` + groupsOf + ` g ON g.merchant_id = a.merchant_id
			WHERE ` + inWindowDays + `
			GROUP BY a.merchant_id, g.groups, a.terminal_id, a.currency ORDER BY 1, 3, 7`,
			Args: args,
			Columns: []outputs.Column{text("Merchant ID", 0), text("Groups", 12), text("Terminal", 14), count("Transactions"),
				count("Approved"), amount("Approved amount", 7), currency,
				{Header: "First (UTC)", Type: outputs.Timestamp}, {Header: "Last (UTC)", Type: outputs.Timestamp}},
			Overflow: DatasetDir("terminal_activity", date),
		},
		{
			Title: "By group",
			Query: `WITH ` + scopeCTE + `
			SELECT mg.group_id, count(DISTINCT a.merchant_id || '/' || a.terminal_id), sum(a.transactions), sum(a.approved),
			       sum(a.approved_amount), a.currency
			FROM member_groups mg JOIN terminal_activity a ON a.merchant_id = mg.merchant_id
			WHERE mg.status = 'ok' AND ` + inWindowDays + `
			GROUP BY mg.group_id, a.currency ORDER BY 1, 6`,
			Args: args,
			Columns: []outputs.Column{text("Group", 12), count("Terminals"), count("Transactions"), count("Approved"),
				amount("Approved amount", 6), currency},
		},
	}}
	return []outputs.Sheet{interchange, funding, wallets, terminals}
}

// paymentDatasets are the payments audit's Parquet datasets: the run's
// interchange estimate and rate table, and the per-day mixes of the
// window.
func paymentDatasets(run string, w store.Window) []Dataset {
	days := fmt.Sprintf("day >= DATE %s AND day < DATE %s", sqlString(w.Start.UTC().Format("2006-01-02")),
		sqlString(w.End.UTC().Format("2006-01-02")))
	return []Dataset{
		{Name: "interchange_at_risk", Query: "SELECT * FROM interchange_at_risk WHERE run_id = " + run},
		{Name: "interchange_rates", Query: "SELECT * FROM interchange_rates"},
		{Name: "funding_sources", Query: "SELECT * FROM funding_sources WHERE " + days},
		{Name: "wallet_mix", Query: "SELECT * FROM wallet_mix WHERE " + days},
		{Name: "terminal_activity", Query: "SELECT * FROM terminal_activity WHERE " + days},
	}
}
