package reports

import (
	"fmt"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// Settlement and funding (docs/workbook.md): a Settlement sheet of the
// requests settled and in flight, a Funding sheet of each funding day's
// tie-out, the Summary's waterfall billed -> authorized -> captured ->
// settled -> funded, and the Parquet datasets of the three tables.

// Sheet names of settlement and funding.
const (
	SettlementSheet = "Settlement"
	FundingDaySheet = "Funding"
)

// SettlementSheets are the settlement sheets, in workbook order.
var SettlementSheets = []string{SettlementSheet, FundingDaySheet}

var (
	settlementRequestsSQL  = queries.Must("reports/settlement.sql", "SettlementRequests")
	fundingDaysSQL         = queries.Must("reports/settlement.sql", "FundingDays")
	settlementWaterfallSQL = queries.Must("reports/settlement.sql", "SettlementWaterfall")
)

// FundingColumns are the Funding sheet's headers, which tests read back.
var FundingColumns = []string{"Funding day", "Scope", "Group or member", "Group name", "Currency", "Purchases",
	"Refunds", "Fees", "Chargebacks", "Expected", "Funded", "Difference", "Ties out"}

func settlementSheets(run Publication, scope Scope) []outputs.Sheet {
	args := []any{run.RunID, scope.arg()}
	text := func(h string, w float64) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Text, Width: w}
	}
	amount := func(h string, cur int) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Amount, CurrencyColumn: cur, Width: 16}
	}
	ts := func(h string) outputs.Column { return outputs.Column{Header: h, Type: outputs.Timestamp} }
	settlement := outputs.Sheet{Name: SettlementSheet, Blocks: []outputs.Block{{
		Title: "Settlements requested in the window, and purchases not settled yet (in flight: expected within --settlement-days; late: capture_not_settled)",
		Query: settlementRequestsSQL,
		Args:  args,
		Columns: []outputs.Column{ts("Requested (UTC)"), text("Merchant ID", 0), text("Groups", 12), text("Request ID", 24),
			text("Type", 10), text("State", 24), text("Settlement status", 10), text("Batch ID", 12), ts("Batch time (UTC)"),
			amount("Amount", 11), text("Currency", 9), text("Card type", 9), text("Interchange level", 14),
			amount("Interchange", 11), amount("Discount", 11), amount("Dues and assessments", 11), amount("Total fee", 11),
			amount("Funding amount", 19), text("Funding currency", 9)},
		Overflow: DatasetDir("settlements", run.BusinessDate.Format("2006-01-02")),
	}}}
	cols := make([]outputs.Column, len(FundingColumns))
	for i, h := range FundingColumns {
		switch {
		case i == 0:
			cols[i] = outputs.Column{Header: h, Type: outputs.Date}
		case i >= 5 && i <= 11:
			cols[i] = amount(h, 5)
		default:
			cols[i] = text(h, 12)
		}
	}
	funding := outputs.Sheet{Name: FundingDaySheet, Blocks: []outputs.Block{{
		Title:   "Funding per day, group and currency: funded against purchases - refunds - fees - chargebacks (funding_tieout_mismatch where they differ)",
		Query:   fundingDaysSQL,
		Args:    args,
		Columns: cols,
	}}}
	return []outputs.Sheet{settlement, funding}
}

// waterfallBlock is the Summary's waterfall per currency.
func waterfallBlock(run Publication, scope Scope) outputs.Block {
	return outputs.Block{
		Title: "Waterfall per currency: billed -> authorized -> captured -> settled -> funded, with fees; each gap and the kinds that explain it",
		Query: settlementWaterfallSQL,
		Args:  []any{run.RunID, scope.arg()},
		Columns: []outputs.Column{
			{Header: "Currency", Type: outputs.Text, Width: 9}, {Header: "Step", Type: outputs.Count},
			{Header: "Stage", Type: outputs.Text, Width: 12},
			{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 1, Width: 16},
			{Header: "Gap to the stage before", Type: outputs.Amount, CurrencyColumn: 1, Width: 16},
			{Header: "Explained by", Type: outputs.Text, Wrap: true},
			{Header: "Findings", Type: outputs.Count}},
	}
}

// settlementDatasets are the Parquet datasets of the settlement tables.
func settlementDatasets(w store.Window) []Dataset {
	from := sqlString(w.Start.UTC().AddDate(0, 0, -14).Format("2006-01-02 15:04:05+00"))
	start, end := sqlString(w.Start.UTC().Format("2006-01-02 15:04:05+00")), sqlString(w.End.UTC().Format("2006-01-02 15:04:05+00"))
	return []Dataset{
		{Name: "settlements", Query: fmt.Sprintf("SELECT * FROM settlements WHERE request_time >= TIMESTAMPTZ %s AND request_time < TIMESTAMPTZ %s", from, end)},
		{Name: "fundings", Query: fmt.Sprintf("SELECT * FROM fundings WHERE funding_day >= TIMESTAMPTZ %s AND funding_day < TIMESTAMPTZ %s", start, end)},
		{Name: "settlement_batches", Query: fmt.Sprintf("SELECT * FROM settlement_batches WHERE batch_day >= TIMESTAMPTZ %s AND batch_day < TIMESTAMPTZ %s", from, end)},
	}
}
