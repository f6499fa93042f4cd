package reports

import (
	"fmt"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
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

// KindSheetNames maps each finding kind to its sheet's name: its title, cut
// at a word to Excel's 31 characters (and numbered if two collide).
func KindSheetNames() map[string]string { return kindSheetNames(queries.Checks()) }

// The statements of the payments audit's sheets
// (queries/reports/payments.sql), each but the rate table's taking
// $1 = run ID and $2 = group ID or NULL.
var (
	interchangeByMemberSQL = queries.Must("reports/payments.sql", "InterchangeByMember")
	interchangeByGroupSQL  = queries.Must("reports/payments.sql", "InterchangeByGroup")
	interchangeRatesSQL    = queries.Must("reports/payments.sql", "InterchangeRates")
	fundingByMemberSQL     = queries.Must("reports/payments.sql", "FundingByMember")
	fundingByGroupSQL      = queries.Must("reports/payments.sql", "FundingByGroup")
	walletsByMemberSQL     = queries.Must("reports/payments.sql", "WalletsByMember")
	walletsByGroupSQL      = queries.Must("reports/payments.sql", "WalletsByGroup")
	terminalsByMemberSQL   = queries.Must("reports/payments.sql", "TerminalsByMember")
	terminalsByGroupSQL    = queries.Must("reports/payments.sql", "TerminalsByGroup")
)

func paymentSheets(run Publication, scope Scope) []outputs.Sheet {
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

	interchange := outputs.Sheet{Name: InterchangeSheet, Blocks: []outputs.Block{
		{
			Title: "Estimated interchange at risk on commercial-card calls that lost Level III or Level II, by member (an estimate from the rate table below)",
			Query: interchangeByMemberSQL,
			Args:  args,
			Columns: []outputs.Column{text("Merchant ID", 0), text("Groups", 12), text("Network", 18),
				count("Calls"), count("Lost Level III"), count("Lost Level II"), amount("Amount", 11),
				rate("Level III difference"), rate("Level II difference"), amount("At risk", 11), currency},
			Overflow: DatasetDir("interchange_at_risk", date),
		},
		{
			Title: "By group",
			Query: interchangeByGroupSQL,
			Args:  args,
			Columns: []outputs.Column{text("Group", 12), count("Members"), count("Calls"), amount("Amount", 6),
				amount("At risk", 6), currency},
		},
		{
			Title: "Rate table: how much lower the Level II and Level III rates are than the standard commercial rate (* = other networks)",
			Query: interchangeRatesSQL,
			Columns: []outputs.Column{text("Network", 18), rate("Level II difference"), rate("Level III difference"),
				text("Source", 30)},
		},
	}}

	fundingCols := func(first outputs.Column) []outputs.Column {
		return []outputs.Column{first, text("Funding source", 16), text("Card platform", 14), text("Card product", 26),
			text("Health card", 11), count("Transactions"), count("Captured"), amount("Captured amount", 9), currency}
	}
	funding := outputs.Sheet{Name: FundingSheet, Blocks: []outputs.Block{
		{
			Title:    "Transactions in the window by the funding source, platform, product and health-card flag of the card's BIN, by member",
			Query:    fundingByMemberSQL,
			Args:     args,
			Columns:  fundingCols(text("Merchant ID", 0)),
			Overflow: DatasetDir("funding_sources", date),
		},
		{
			Title:   "By group",
			Query:   fundingByGroupSQL,
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
			Title:    "Transactions in the window by device wallet or network token (processingInformation.paymentSolution), by member",
			Query:    walletsByMemberSQL,
			Args:     args,
			Columns:  walletCols(text("Merchant ID", 0)),
			Overflow: DatasetDir("wallet_mix", date),
		},
		{
			Title:   "By group",
			Query:   walletsByGroupSQL,
			Args:    args,
			Columns: walletCols(text("Group", 12)),
		},
	}}

	terminals := outputs.Sheet{Name: TerminalsSheet, Blocks: []outputs.Block{
		{
			Title: "Contactless acceptance: authorizations and sales in the window by terminal (pointOfSaleInformation.terminalId), by member",
			Query: terminalsByMemberSQL,
			Args:  args,
			Columns: []outputs.Column{text("Merchant ID", 0), text("Groups", 12), text("Terminal", 14), count("Transactions"),
				count("Approved"), amount("Approved amount", 7), currency,
				{Header: "First (UTC)", Type: outputs.Timestamp}, {Header: "Last (UTC)", Type: outputs.Timestamp}},
			Overflow: DatasetDir("terminal_activity", date),
		},
		{
			Title: "By group",
			Query: terminalsByGroupSQL,
			Args:  args,
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
