// Package reports decides what a run publishes, and publishes it. Its
// catalog says which SQL statement feeds which workbook sheet and Parquet
// dataset, with titles and column types; Publish writes them for a run into
// out/<business date>/ at once, with the DuckDB snapshot and the manifest,
// and points out/current.duckdb at the newest snapshot. How a file is
// written (formats, atomic renames) is package outputs' job.
//
// The sheets' SQL is in queries/reports/, one file per sheet or family
// (summary.sql, findings.sql, billing.sql, payments.sql, legend.sql, and
// publish.sql for the publish step's own lookups), one named statement per
// table, taken with queries.Must. Each takes $1 = run ID and $2 = group ID
// or NULL (the whole run) and starts with the CTEs it needs (scope,
// member_groups, run, scoped_findings, kind_findings, kinds, groups_of,
// member_list), written out in full in every statement rather than
// assembled here: a statement then reads, and runs in `reconcile sql` with
// the run ID and NULL written for $1 and $2, exactly as the workbook runs
// it. The copies are kept equal by a test (queries.TestReportCTEsAgree).
// A finding kind's sheet (queries/reports/kinds/<kind>.sql) is the
// exception: its scope CTEs come from one prelude,
// queries/reports/kind_prelude.sql, that queries.KindSheet puts before it,
// so that a new kind's file holds its columns only. The Parquet datasets'
// statements are built here, one line each, because COPY takes no
// parameters: their run ID and window are written in as literals.
//
// The finding kinds come from the check catalog (queries.Checks), never from
// a list kept here: a new queries/findings/*.sql file gets its sheet, its
// Summary rows, its Legend entry and its manifest count without a change in
// this package. docs/workbook.md describes the workbook a finance reader
// sees.
package reports

import (
	"fmt"
	"unicode"
	"unicode/utf16"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// Scope is what one workbook covers: every member of the run, or the
// members of one group (a member in two groups is in both groups' scopes).
type Scope struct {
	GroupID string // "" = the whole run
}

func (s Scope) arg() any {
	if s.GroupID == "" {
		return nil // SQL NULL: no group filter
	}
	return s.GroupID
}

// Sheet names other than the finding kinds'.
const (
	SummarySheet          = "Summary"
	ResolvedSheet         = "Resolved"
	AcknowledgementsSheet = "Acknowledgements"
	LegendSheet           = "Legend"
)

// The statements of the Summary, finding, Resolved and Legend sheets
// (queries/reports/*.sql). Each takes $1 = run ID and $2 = group ID or
// NULL (the whole run), and starts with the scope CTEs it needs.
var (
	runFactsSQL                  = queries.Must("reports/summary.sql", "RunFacts")
	groupRunFactsSQL             = queries.Must("reports/summary.sql", "GroupRunFacts")
	findingsByKindAndCurrencySQL = queries.Must("reports/summary.sql", "FindingsByKindAndCurrency")
	moneyAtStakeSQL              = queries.Must("reports/summary.sql", "MoneyAtStake")
	kindRankSQL                  = queries.Must("reports/summary.sql", "KindRank")
	fundingMixSQL                = queries.Must("reports/summary.sql", "FundingMix")
	paymentsByStatusSQL          = queries.Must("reports/summary.sql", "PaymentsByStatus")
	membersByGroupSQL            = queries.Must("reports/summary.sql", "MembersByGroup")
	paymentsBilledByGroupSQL     = queries.Must("reports/summary.sql", "PaymentsBilledByGroup")
	findingsByGroupAndKindSQL    = queries.Must("reports/summary.sql", "FindingsByGroupAndKind")
	fundingMixByGroupSQL         = queries.Must("reports/summary.sql", "FundingMixByGroup")
	failedMembersSQL             = queries.Must("reports/summary.sql", "FailedMembers")
	notEnabledMembersSQL         = queries.Must("reports/summary.sql", "NotEnabledMembers")
	kindFindingsSQL              = queries.Must("reports/findings.sql", "KindFindings")
	kindTotalsSQL                = queries.Must("reports/findings.sql", "KindTotals")
	resolvedFindingsSQL          = queries.Must("reports/findings.sql", "ResolvedFindings")
	acknowledgementsSQL          = queries.Must("reports/acknowledgements.sql", "InForce")
	acknowledgementChangesSQL    = queries.Must("reports/acknowledgements.sql", "Changes")
	legendKindsSQL               = queries.Must("reports/legend.sql", "FindingKinds")
	legendStatesSQL              = queries.Must("reports/legend.sql", "States")
	legendNotesSQL               = queries.Must("reports/legend.sql", "ReadingNotes")
)

// Workbook is the finance workbook of a run for scope: a Summary sheet, one
// sheet per finding kind (kindSheet), the recurring-billing and payments
// audit sheets, the findings resolved since the previous run, the
// acknowledgements, and a Legend. The kinds' sheets come in the catalog's
// order; Publish orders them by money at stake (KindRank, WorkbookRanked).
func Workbook(run Publication, scope Scope) outputs.Workbook {
	return WorkbookRanked(run, scope, nil)
}

// WorkbookRanked is Workbook with the kinds' sheets, the Summary's
// "Findings by kind" rows and the Legend's kinds in the order of rank
// (KindRank: the most money at stake first); kinds rank leaves out follow
// in the catalog's order.
func WorkbookRanked(run Publication, scope Scope, rank []string) outputs.Workbook {
	checks := rankChecks(queries.Checks(), rank)
	names := kindSheetNames(checks)
	wb := outputs.Workbook{Title: workbookTitle(run, scope), Paper: run.Paper,
		Sheets: []outputs.Sheet{summarySheet(run, scope, checks, names)}}
	for _, c := range checks {
		wb.Sheets = append(wb.Sheets, kindSheet(run, scope, c, names[c.Kind]))
	}
	wb.Sheets = append(wb.Sheets, billingSheets(run, scope)...)
	wb.Sheets = append(wb.Sheets, paymentSheets(run, scope)...)
	wb.Sheets = append(wb.Sheets, settlementSheets(run, scope)...)
	wb.Sheets = append(wb.Sheets, resolvedSheet(run, scope), acknowledgementsSheet(run, scope),
		legendSheet(run, scope, checks, names))
	return wb
}

// kindSheet is a finding kind's sheet: its totals per currency, then its
// findings today (new, open and acknowledged), one row each, in the
// columns of the kind's own statement (queries/reports/kinds/<kind>.sql)
// or, for a kind without one, the default columns (KindFindings). The
// columns are the statement's own (outputs.Block.FromQuery): a kind gets
// its columns by adding its file, and nothing here names them.
func kindSheet(run Publication, scope Scope, c queries.Check, name string) outputs.Sheet {
	kind := c.Kind
	args := []any{run.RunID, scope.arg(), kind}
	query, ok := queries.KindSheet(kind)
	if !ok {
		query = kindFindingsSQL
	}
	return outputs.Sheet{Name: name, Intro: kindIntro(c), Blocks: []outputs.Block{
		{
			Title: "Totals by currency (new, open and acknowledged)",
			Query: kindTotalsSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Currency", Type: outputs.Text, Width: 12}, {Header: "Findings", Type: outputs.Count},
				{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 1, Width: 16},
				{Header: "Acknowledged", Type: outputs.Count},
				{Header: "Amount acknowledged", Type: outputs.Amount, CurrencyColumn: 1}},
		},
		{
			Title:     "Findings",
			Query:     query,
			Args:      args,
			FromQuery: true,
			Lead:      kindSheetLead,
			Main:      true,
			Overflow:  DatasetDir("findings", run.BusinessDate.Format("2006-01-02")) + "/kind=" + kind,
		},
	}}
}

func capitalize(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

func cutUTF16(s string, n int) string {
	r := []rune(s)
	for len(utf16.Encode(r)) > n {
		r = r[:len(r)-1]
	}
	return string(r)
}

// Charts of the Summary sit to the right of its widest table (9 columns).
const chartColumn = "K"

// workbookTitle is the workbook's title (its document properties and the
// Summary's first row): the date, the group of a group's workbook, and for
// the sandbox's data that it is simulated.
func workbookTitle(run Publication, scope Scope) string {
	title := "Reconciliation " + run.BusinessDate.Format("2006-01-02")
	if scope.GroupID != "" {
		title += ", group " + scope.GroupID
	}
	if run.Source == SourceSandbox {
		title += " — " + SourceLabel(run.Source)
	}
	return title
}

func summarySheet(run Publication, scope Scope, checks []queries.Check, names map[string]string) outputs.Sheet {
	// The whole run shows how many groups it covered; a group's workbook
	// shows the group.
	groupColumn, recordQuery := outputs.Column{Header: "Groups", Type: outputs.Count}, runFactsSQL
	if scope.GroupID != "" {
		groupColumn, recordQuery = outputs.Column{Header: "Group", Type: outputs.Text}, groupRunFactsSQL
	}
	args := []any{run.RunID, scope.arg()}
	kinds := queries.Kinds()
	ranked, sheets := make([]string, len(checks)), make([]string, len(checks))
	for i, c := range checks {
		ranked[i], sheets[i] = c.Kind, names[c.Kind]
	}
	record := []outputs.Column{
		{Header: "Business date", Type: outputs.Date},
		groupColumn,
		{Header: "Status", Type: outputs.Text},
		{Header: "Data source", Type: outputs.Text},
		{Header: "Members", Type: outputs.Count},
		{Header: "Members reconciled", Type: outputs.Count},
		{Header: "Members failed", Type: outputs.Count},
		{Header: "Findings", Type: outputs.Count},
		{Header: "New today", Type: outputs.Count},
		{Header: "Still open", Type: outputs.Count},
		{Header: "Acknowledged", Type: outputs.Count},
		{Header: "Resolved since previous run", Type: outputs.Count},
		{Header: "Previous run", Type: outputs.Date},
		{Header: "Window from (UTC)", Type: outputs.Timestamp},
		{Header: "Window to (UTC)", Type: outputs.Timestamp},
		{Header: "Finished (UTC)", Type: outputs.Timestamp},
		{Header: "Problems", Type: outputs.Text},
		{Header: "Run ID", Type: outputs.Text},
	}
	blocks := []outputs.Block{{Title: workbookTitle(run, scope), Record: true, Query: recordQuery,
		Args: []any{run.RunID, scope.arg(), SourceLabel(run.Source)}, Columns: record}}
	if alarms, ok := alarmsBlock(run, scope); ok {
		blocks = append(blocks, alarms)
	}
	tables := len(blocks) // the charts' blocks are counted from here
	blocks = append(blocks, []outputs.Block{
		{
			// One row per kind and currency, the most money at stake
			// first; the first column links to the kind's sheet.
			Title: "Findings by kind (the most money at stake first; click a finding to open its sheet)",
			Query: findingsByKindAndCurrencySQL,
			Args:  []any{run.RunID, scope.arg(), ranked, sheets},
			Columns: []outputs.Column{
				{Header: "Finding", Type: outputs.Text, Width: 32, Link: true}, {Header: "Currency", Type: outputs.Text, Width: 9},
				{Header: "Findings", Type: outputs.Count},
				{Header: "New today", Type: outputs.Count}, {Header: "Still open", Type: outputs.Count},
				{Header: "Acknowledged", Type: outputs.Count}, {Header: "Resolved", Type: outputs.Count},
				{Header: "Amount at stake", Type: outputs.Amount, CurrencyColumn: 2, Width: 16},
				{Header: "Kind ID", Type: outputs.Text, Width: 30}},
		},
		{
			Title: "Money at stake: the ten largest kinds, in the currency of most findings",
			Query: moneyAtStakeSQL,
			Args:  []any{run.RunID, scope.arg(), ranked, sheets},
			Columns: []outputs.Column{
				{Header: "Finding", Type: outputs.Text}, {Header: "Amount at stake", Type: outputs.Amount, CurrencyColumn: 3},
				{Header: "Currency", Type: outputs.Text}},
		},
		{
			Title: "Funding mix (transactions in the window)",
			Query: fundingMixSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Funding source", Type: outputs.Text}, {Header: "Transactions", Type: outputs.Count},
				{Header: "Share", Type: outputs.Percent}},
		},
		{
			Title: "Subscription payments by status (dated in the window)",
			Query: paymentsByStatusSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Status", Type: outputs.Text}, {Header: "Payments", Type: outputs.Count}},
		},
		{
			Title: "Members by group",
			Query: membersByGroupSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Group", Type: outputs.Text}, {Header: "Name", Type: outputs.Text, Width: 24},
				{Header: "Members", Type: outputs.Count}, {Header: "Reconciled", Type: outputs.Count},
				{Header: "Failed", Type: outputs.Count}},
		},
		{
			Title: "Payments billed by group (PAID, dated in the window)",
			Query: paymentsBilledByGroupSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Group", Type: outputs.Text}, {Header: "Payments", Type: outputs.Count},
				{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 4, Width: 16}, {Header: "Currency", Type: outputs.Text, Width: 9}},
		},
		{
			Title: "Findings by group and kind",
			Query: findingsByGroupAndKindSQL,
			Args:  []any{run.RunID, scope.arg(), kinds},
			Columns: []outputs.Column{
				{Header: "Group", Type: outputs.Text}, {Header: "Kind", Type: outputs.Text, Width: 32},
				{Header: "Findings", Type: outputs.Count}, {Header: "New today", Type: outputs.Count},
				{Header: "Still open", Type: outputs.Count}, {Header: "Acknowledged", Type: outputs.Count},
				{Header: "Resolved", Type: outputs.Count},
				{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 9, Width: 16}, {Header: "Currency", Type: outputs.Text, Width: 9}},
		},
		{
			Title: "Funding mix by group (transactions in the window)",
			Query: fundingMixByGroupSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Group", Type: outputs.Text}, {Header: "Funding source", Type: outputs.Text},
				{Header: "Transactions", Type: outputs.Count},
				{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 5, Width: 16}, {Header: "Currency", Type: outputs.Text, Width: 9}},
		},
		{
			Title: "Failed members",
			Query: failedMembersSQL,
			Args:  args,
			// The error wraps in the second column rather than widening a
			// column every other table of the sheet shares.
			Columns: []outputs.Column{
				{Header: "Merchant ID", Type: outputs.Text}, {Header: "Error", Type: outputs.Text, Wrap: true},
				{Header: "Groups", Type: outputs.Text}},
		},
		{
			// Reconciled, but without what these products would have
			// given (ingest/notenabled.go): not failures, yet a reader
			// must see why such a member has no subscriptions or no
			// transactions.
			Title: "Members with products not enabled",
			Query: notEnabledMembersSQL,
			Args:  args,
			Columns: []outputs.Column{
				{Header: "Merchant ID", Type: outputs.Text}, {Header: "Products not enabled", Type: outputs.Text},
				{Header: "Platform's answer", Type: outputs.Text, Wrap: true}, {Header: "Groups", Type: outputs.Text}},
		},
		waterfallBlock(run, scope),
	}...)
	return outputs.Sheet{Name: SummarySheet, Blocks: blocks, Charts: []outputs.Chart{
		{Title: "Money at stake: the ten largest kinds", Type: outputs.BarChart, Block: tables + 1, Categories: 1, Values: []int{2},
			Cell: chartColumn + "2", Width: 640, Height: 360},
		{Title: "Funding mix", Type: outputs.DoughnutChart, Block: tables + 2, Categories: 1, Values: []int{2},
			Cell: chartColumn + "22"},
		{Title: "Payments by status", Type: outputs.ColumnChart, Block: tables + 3, Categories: 1, Values: []int{2},
			Cell: chartColumn + "40"},
	}}
}

func resolvedSheet(run Publication, scope Scope) outputs.Sheet {
	return outputs.Sheet{Name: ResolvedSheet, Blocks: []outputs.Block{{
		Query: resolvedFindingsSQL,
		Args:  []any{run.RunID, scope.arg(), queries.Kinds()},
		Columns: []outputs.Column{
			{Header: "Kind", Type: outputs.Text, Width: 30},
			{Header: "Merchant ID", Type: outputs.Text},
			{Header: "Group", Type: outputs.Text, Width: 12},
			{Header: "Entity ID", Type: outputs.Text, Width: 26},
			{Header: "Amount", Type: outputs.Amount, CurrencyColumn: 6},
			{Header: "Currency", Type: outputs.Text, Width: 9},
			{Header: "First seen", Type: outputs.Date},
			{Header: "Facts (as last seen)", Type: outputs.Text, Width: 80},
		},
		Overflow: "parquet/findings/date=" + run.BusinessDate.Format("2006-01-02"),
	}}}
}

// acknowledgementsSheet lists the acknowledgements in force for the
// workbook's members and the changes to them since the previous run.
func acknowledgementsSheet(run Publication, scope Scope) outputs.Sheet {
	text := func(h string, w float64) outputs.Column {
		return outputs.Column{Header: h, Type: outputs.Text, Width: w}
	}
	when := func(h string) outputs.Column { return outputs.Column{Header: h, Type: outputs.Timestamp} }
	return outputs.Sheet{Name: AcknowledgementsSheet, Blocks: []outputs.Block{
		{
			Title: "Acknowledgements in force: reported as acknowledged, not as new or open, until the date given or until the amount changes",
			Query: acknowledgementsSQL,
			Args:  []any{run.RunID, scope.arg(), queries.Kinds()},
			Columns: []outputs.Column{
				text("Kind", 30), text("Merchant ID", 0), text("Merchant name", 20), text("Group", 12), text("Entity ID", 26),
				text("Owner", 16), {Header: "Until", Type: outputs.Date},
				// The reason wraps: it is what the acknowledgement says.
				{Header: "Reason", Type: outputs.Text, Width: 50, Wrap: true}, text("Ticket", 12),
				{Header: "Amount acknowledged", Type: outputs.Amount, CurrencyColumn: 11, Width: 21}, text("Currency", 9),
				text("Finding today", 20), text("Made from", 12), text("Made by", 14), when("Made (UTC)"),
				text("Changed by", 14), when("Changed (UTC)")},
		},
		{
			Title: "Changes since the previous run (the audit trail; all changes: table acknowledgement_audit)",
			Query: acknowledgementChangesSQL,
			Args:  []any{run.RunID, scope.arg()},
			Columns: []outputs.Column{
				when("When (UTC)"), text("By", 14), text("Action", 16), text("From", 16), text("Run", 12), text("Kind", 30),
				text("Merchant ID", 0), text("Entity ID", 26), text("What changed", 60)},
		},
	}}
}

// legendNotes explain the workbook itself, in finance's words; the kinds
// explain themselves (the Title, Means and Do lines of
// queries/findings/*.sql). How the checks work, in the platform's terms,
// is in docs/workbook.md.
var legendNotes = [][2]string{
	{"Where to start", "The Summary lists every kind of finding with the money at stake in each currency, the most first. Click a finding's name to open its sheet. The sheets of the findings come in the same order."},
	{"Amounts", "Each amount is shown in its own currency ($, €, £, ¥ or the ISO code). Amounts in different currencies are never added up: every total is per currency."},
	{"A finding's sheet", "Its first two lines say what the finding means and what to do. Then its totals per currency, then one row per finding today (new, open or acknowledged), with the customer, the amount and a one-line reason. Filter the Currency column and add up the Amount column to check a total."},
	{"Acknowledging from the workbook", "To say a finding is known and handled, fill the four Acknowledge columns of its row (reason, owner, until: the last date it covers, ticket: optional) and hand the file back to whoever runs reconcile: reconcile ack --from FILE.xlsx records every filled row at once. Rows that cannot be taken are listed with their sheet, row and reason; the others are recorded."},
	{"Acknowledged findings", "An acknowledged finding shows its owner, reason, end date and ticket and is not counted as new or open. It counts again the day after its end date, or as soon as its amount changes. The Acknowledgements sheet lists those in force and every change since the previous run."},
	{"Dates and times", "Dates are business dates; times are UTC. Each run covers its business date and the few days before it (the window)."},
	{"Groups", "A member in two groups is counted in each group's rows; the totals at the top count it once."},
	{"Payments billed", "Subscription payments collected (paid) with a date in the window: the plan's amount, plus any setup fee and surcharge."},
	{"Funding mix", "Card payments in the window by the kind of card: credit, debit, prepaid or charge card; (unknown) when the card's type could not be identified."},
	{"Printing", "Each sheet prints landscape with its column headings repeated on every page. A sheet too wide for one legible page prints its first columns (who, what, how much) on the first page and the rest on the pages after."},
	{"More rows than a sheet holds", "A sheet holds 1,048,576 rows. A longer list continues on the next sheet (\"name (2)\"), and the complete data is in the Parquet dataset the note names."},
	{"Only the members reconciled", "Findings and payments are counted for the merchant accounts this run reconciled; those that failed are listed on the Summary."},
}

func legendSheet(run Publication, scope Scope, checks []queries.Check, names map[string]string) outputs.Sheet {
	var kinds, sheets, means, todo []string
	for _, c := range checks {
		m, d := kindTexts(c)
		kinds = append(kinds, c.Kind)
		sheets = append(sheets, names[c.Kind])
		means = append(means, m)
		todo = append(todo, d)
	}
	var topics, notes []string
	for _, n := range append(legendNotes[:len(legendNotes):len(legendNotes)], billingLegendNotes...) {
		topics = append(topics, n[0])
		notes = append(notes, n[1])
	}
	wrap := func(header string, width float64) outputs.Column {
		return outputs.Column{Header: header, Type: outputs.Text, Width: width, Wrap: true}
	}
	return outputs.Sheet{Name: LegendSheet, Blocks: []outputs.Block{
		{
			Title: "Findings (click a name to open its sheet)",
			Query: legendKindsSQL,
			Args:  []any{run.RunID, scope.arg(), kinds, sheets, means, todo},
			Columns: []outputs.Column{
				{Header: "Finding", Type: outputs.Text, Width: 30, Wrap: true, Link: true}, wrap("What it means", 60), wrap("What to do", 50),
				{Header: "Findings", Type: outputs.Count, Width: 10}, wrap("Kind ID", 30)},
		},
		{
			Title:   "States",
			Query:   legendStatesSQL,
			Columns: []outputs.Column{wrap("State", 30), wrap("Meaning", 60)},
		},
		{
			Title:   "Reading this workbook",
			Query:   legendNotesSQL,
			Args:    []any{topics, notes},
			Columns: []outputs.Column{wrap("Topic", 30), wrap("Note", 60)},
		},
	}}
}

// Dataset is one Parquet dataset of a run's output.
type Dataset struct {
	Name  string // folder under parquet/
	Query string // with no parameters: the run id and window are inlined
	// PartitionBy are columns of the query written as Hive partitions
	// under the dataset's date=<business date> folder.
	PartitionBy []string
}

// Datasets lists the Parquet datasets of a run: the run's own records, the
// current state of plans, subscriptions and payments, and the window's
// transactions, journal calls, interchange clearing records, chargebacks
// and retrievals, and the recurring-billing tables
// (billingDatasets). The findings hold the run's resolved rows too (state
// column); count state IN ('new', 'open', 'acknowledged') for its findings.
func Datasets(runID string, w store.Window) []Dataset {
	run := sqlString(runID)
	in := func(col string) string {
		return fmt.Sprintf("%s >= TIMESTAMPTZ %s AND %s < TIMESTAMPTZ %s", col, sqlString(w.Start.UTC().Format("2006-01-02 15:04:05+00")),
			col, sqlString(w.End.UTC().Format("2006-01-02 15:04:05+00")))
	}
	return append([]Dataset{
		{Name: "findings", Query: "SELECT * FROM findings WHERE run_id = " + run, PartitionBy: []string{"kind"}},
		{Name: "finding_kinds", Query: "SELECT * FROM finding_kinds"},
		{Name: "acknowledgements", Query: "SELECT * FROM acknowledgements"},
		{Name: "acknowledgement_audit", Query: "SELECT * FROM acknowledgement_audit"},
		{Name: "merchant_names", Query: "SELECT * FROM merchant_names WHERE run_id = " + run},
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
		// The Reporting API's records of the window (ingest/disputes.go).
		{Name: "interchange_clearing", Query: "SELECT * FROM interchange_clearing WHERE " + in("transaction_time")},
		{Name: "chargebacks", Query: "SELECT * FROM chargebacks WHERE " + in("time")},
		{Name: "retrievals", Query: "SELECT * FROM retrievals WHERE " + in("time")},
	}, append(append(billingDatasets(run), paymentDatasets(run, w)...), settlementDatasets(w)...)...)
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
