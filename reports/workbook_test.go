package reports

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports/reportstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from this run")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -run %s -update to create it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from the workbook at line %d:\n got: %s\nwant: %s\n(if the change is intended: go test ./reports -run %s -update, and review the diff)",
				path, i+1, g, w, t.Name())
		}
	}
}

func writeFixtureWorkbook(t *testing.T, scope Scope) string {
	t.Helper()
	db := fixtureDB(t)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, Workbook(fixtureRun, scope)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWorkbookGolden compares the whole workbook of the fixture run with
// testdata/workbook.golden: sheet names, headers, values, number formats,
// frozen rows, filters, widths and charts.
func TestWorkbookGolden(t *testing.T) {
	golden(t, "workbook.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{})))
}

// TestGroupWorkbookGolden: the workbook of group 1002 holds its members
// only (m2 is also in 1001 and appears in both), and its Summary names it.
func TestGroupWorkbookGolden(t *testing.T) {
	golden(t, "workbook-group-1002.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{GroupID: "1002"})))
}

// The properties users rely on, asserted directly (the golden file would
// also catch a change, but only as a diff someone might accept).
func TestWorkbookContract(t *testing.T) {
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// A kind longer than Excel's 31 characters names its sheet cut.
	names := KindSheetNames()
	if got := names["installment_not_cancelled_after_refund"]; got != "installment_not_cancelled_after" {
		t.Errorf("sheet of installment_not_cancelled_after_refund: %q", got)
	}
	want := []string{"Summary"}
	for _, kind := range queries.Kinds() {
		want = append(want, names[kind])
	}
	want = append(append(append(append(want, BillingSheets...), PaymentSheets...), SettlementSheets...), "Resolved", "Acknowledgements", "Legend")
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %v, want %v", got, want)
	}
	// A kind's own columns (docs/workbook.md), in order.
	if tab := kindTable(t, f, "skipped_cycle"); !slices.Equal(tab.header, []string{"When", "Merchant ID", "Merchant name", "Group",
		"Payment ID", "Subscription ID", "Subscription code", "Plan", "Customer ID", "Client reference", "Cycle", "Amount", "Currency",
		"State", "First seen", "Acknowledged until", "Owner", "Acknowledgement reason", "Ticket", "Reason"}) {
		t.Errorf("skipped_cycle header %q", tab.header)
	}
	for _, kind := range queries.Kinds() {
		checkKindSheet(t, f, names[kind])
	}
	// Typed cells: amounts keep their value and show in their currency,
	// dates and times are dates, counts are numbers.
	for _, c := range []struct{ sheet, column, raw, shown string }{
		{"skipped_cycle", "Amount", "12.34", "$12.34"},
		{"skipped_cycle", "When", "46351.4166666667", "2026-11-25 10:00:00"},
		{"skipped_cycle", "First seen", "46345", "2026-11-19"},
		{"skipped_cycle", "Cycle", "3", "3"},
		{"amount_mismatch", "Amount", "1500", "¥1,500"},
		{"amount_mismatch", "Difference", "-1", "-¥1"},
		{"subscription_suspended", "Amount", "1234567.89", "1,234,567.89 CHF"},
		{"subscription_delinquent", "Amount", "15", "£15.00"},
		{"subscription_delinquent", "Days outstanding", "6", "6"},
		{"plan_amount_mismatch", "Plan amount", "11", "€ 11.00"},
		{"level3_incomplete", "Acknowledged until", "46371", "2026-12-15"},
		{"level3_incomplete", "State", "acknowledged", "acknowledged"},
	} {
		tab := kindTable(t, f, c.sheet)
		ref := tab.cell(t, c.column, 0)
		raw, _ := f.GetCellValue(c.sheet, ref, excelize.Options{RawCellValue: true})
		shown, _ := f.GetCellValue(c.sheet, ref)
		if raw != c.raw || shown != c.shown {
			t.Errorf("%s!%s (%s) = %q shown %q, want %q shown %q", c.sheet, ref, c.column, raw, shown, c.raw, c.shown)
		}
	}
	// Formula injection: the texts are there, verbatim, as strings, and no
	// sheet of the file holds a formula.
	found := map[string]bool{}
	for _, sheet := range f.GetSheetList() {
		rows, _ := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		for _, r := range rows {
			for _, v := range r {
				for _, evil := range []string{evilGroupName, evilEntity, evilError, "note: -2+3", evilClientRef, evilReason} {
					if strings.Contains(v, evil) {
						found[evil] = true
					}
				}
			}
		}
	}
	if len(found) != 6 {
		t.Errorf("injection texts found as text: %v, want all 6", found)
	}
	for name, x := range reportstest.ZipFiles(t, path, "xl/worksheets/") {
		if strings.Contains(x, "<f>") || strings.Contains(x, "<f ") {
			t.Errorf("%s holds a formula", name)
		}
	}
	if n := len(reportstest.ZipFiles(t, path, "xl/charts/chart")); n != 3 {
		t.Errorf("%d charts, want 3 (findings by kind, funding mix, payments by status)", n)
	}
}

// table is a finding kind's table on its sheet: where its header is and
// what it says.
type table struct {
	sheet     string
	headerRow int // 1-based
	header    []string
	rows      int // data rows
}

// kindTable finds the findings table of a kind's sheet: the header row
// below the "Findings" title, after the totals.
func kindTable(t *testing.T, f *excelize.File, sheet string) table {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) == 1 && r[0] == "Findings" && i+1 < len(rows) {
			return table{sheet: sheet, headerRow: i + 2, header: rows[i+1], rows: len(rows) - i - 2}
		}
	}
	t.Fatalf("sheet %s has no Findings table", sheet)
	return table{}
}

// cell is the reference of a column's cell in the table's data row n
// (0-based).
func (tab table) cell(t *testing.T, column string, n int) string {
	t.Helper()
	i := slices.Index(tab.header, column)
	if i < 0 {
		t.Fatalf("%s has no column %q: %q", tab.sheet, column, tab.header)
	}
	ref, _ := excelize.CoordinatesToCellName(i+1, tab.headerRow+1+n)
	return ref
}

// checkKindSheet asserts what every kind's sheet promises: its totals per
// currency first, which the sheet's own Amount column adds up to; then
// its findings with the columns common to every kind (a reason last, no
// JSON detail), at least one finding in the fixture with its reason,
// numeric headers right-aligned, text indented, the header frozen and
// filtered.
func checkKindSheet(t *testing.T, f *excelize.File, sheet string) {
	t.Helper()
	tab := kindTable(t, f, sheet)
	for _, c := range []string{"Merchant ID", "Merchant name", "Group", "State", "First seen", "Acknowledged until", "Owner",
		"Acknowledgement reason", "Ticket"} {
		if !slices.Contains(tab.header, c) {
			t.Errorf("%s: no column %q: %q", sheet, c, tab.header)
		}
	}
	if last := tab.header[len(tab.header)-1]; last != "Reason" || slices.Contains(tab.header, "Detail") {
		t.Errorf("%s: columns %q, want a Reason last and no Detail", sheet, tab.header)
	}
	if tab.rows == 0 {
		t.Fatalf("%s: no finding in the fixture: its columns are not covered", sheet)
	}
	for n := 0; n < tab.rows; n++ {
		if reason, _ := f.GetCellValue(sheet, tab.cell(t, "Reason", n)); len(reason) < 20 || strings.HasPrefix(reason, "{") {
			t.Errorf("%s row %d: reason %q", sheet, n+1, reason)
		}
	}
	// Totals: per currency, the findings and the sum of the Amount column.
	if head, _ := f.GetRows(sheet); len(head) < 3 || !strings.HasPrefix(head[0][0], "Totals by currency") ||
		!slices.Equal(head[1], []string{"Currency", "Findings", "Amount", "Acknowledged", "Amount acknowledged"}) {
		t.Fatalf("%s does not open with its totals: %q", sheet, head[:min(len(head), 2)])
	}
	sums, counts := map[string]float64{}, map[string]int{}
	amounts := slices.Contains(tab.header, "Amount")
	for n := 0; n < tab.rows; n++ {
		cur := "(no amount)"
		if amounts {
			cur, _ = f.GetCellValue(sheet, tab.cell(t, "Currency", n))
			v, _ := f.GetCellValue(sheet, tab.cell(t, "Amount", n), excelize.Options{RawCellValue: true})
			a, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s row %d: amount %q is not a number", sheet, n+1, v)
			}
			sums[cur] += a
		}
		counts[cur]++
	}
	for r := 3; ; r++ {
		cur, _ := f.GetCellValue(sheet, "A"+strconv.Itoa(r))
		if cur == "" {
			break
		}
		n, _ := f.GetCellValue(sheet, "B"+strconv.Itoa(r), excelize.Options{RawCellValue: true})
		total, _ := f.GetCellValue(sheet, "C"+strconv.Itoa(r), excelize.Options{RawCellValue: true})
		if n != strconv.Itoa(counts[cur]) || amounts && total != strconv.FormatFloat(sums[cur], 'f', -1, 64) {
			t.Errorf("%s totals for %s: %s findings, amount %s; the sheet's rows: %d, %v", sheet, cur, n, total, counts[cur], sums[cur])
		}
		delete(counts, cur)
	}
	if len(counts) > 0 {
		t.Errorf("%s: currencies %v have no totals row", sheet, counts)
	}
	for i, h := range tab.header {
		ref, _ := excelize.CoordinatesToCellName(i+1, tab.headerRow)
		id, _ := f.GetCellStyle(sheet, ref)
		st, _ := f.GetStyle(id)
		right := st.Alignment != nil && st.Alignment.Horizontal == "right"
		val, _ := f.GetCellValue(sheet, tab.cell(t, h, 0), excelize.Options{RawCellValue: true})
		typ, _ := f.GetCellType(sheet, tab.cell(t, h, 0))
		if number := val != "" && typ != excelize.CellTypeInlineString && typ != excelize.CellTypeSharedString; number != right && val != "" {
			t.Errorf("%s: header %q right-aligned %v over a first value %q that is a number: %v", sheet, h, right, val, number)
		}
		// Text stands one indent in, header and cells, so that it never
		// touches the right-aligned number before it ("20" "30 days").
		if !right && (st.Alignment == nil || st.Alignment.Indent < 1) {
			t.Errorf("%s: text header %q is not indented", sheet, h)
		}
		if typ == excelize.CellTypeInlineString || typ == excelize.CellTypeSharedString {
			id, _ := f.GetCellStyle(sheet, tab.cell(t, h, 0))
			if cs, _ := f.GetStyle(id); cs == nil || cs.Alignment == nil || cs.Alignment.Indent < 1 {
				t.Errorf("%s: the text under %q is not indented", sheet, h)
			}
		}
	}
	if panes, _ := f.GetPanes(sheet); !panes.Freeze || panes.YSplit != tab.headerRow {
		t.Errorf("%s: frozen %+v, want the rows down to the findings header (%d)", sheet, panes, tab.headerRow)
	}
	last, _ := excelize.CoordinatesToCellName(len(tab.header), tab.headerRow+tab.rows)
	if !hasFilter(f, sheet, fmt.Sprintf("$A$%d:%s", tab.headerRow, absolute(last))) {
		t.Errorf("%s: no autofilter over its findings", sheet)
	}
}

func hasFilter(f *excelize.File, sheet, ref string) bool {
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm._FilterDatabase" && d.Scope == sheet && strings.HasSuffix(d.RefersTo, "!"+ref) {
			return true
		}
	}
	return false
}

// absolute writes a cell reference with $ signs (B7: $B$7).
func absolute(ref string) string {
	col, row, _ := excelize.SplitCellName(ref)
	return "$" + col + "$" + strconv.Itoa(row)
}

func TestKindSheetNames(t *testing.T) {
	checks := []queries.Check{
		{Kind: "skipped_cycle"},
		{Kind: "summary"},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3)},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3) + "2"},
	}
	got := kindSheetNames(checks)
	want := map[string]string{
		"skipped_cycle": "skipped_cycle",
		"summary":       "summary 2",
		checks[2].Kind:  "a_very_long_kind_name_a_very_lo",
		checks[3].Kind:  "a_very_long_kind_name_a_very_ 2",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("sheet of %q = %q, want %q", k, got[k], w)
		}
	}
}

func TestGroupWorkbookName(t *testing.T) {
	for id, want := range map[string]string{
		"1001":        "reconcile-2026-11-20-group-1001.xlsx",
		"EU_west-2":   "reconcile-2026-11-20-group-EU_west-2.xlsx",
		"../../etc":   "reconcile-2026-11-20-group-______etc-",
		"a/b":         "reconcile-2026-11-20-group-a_b-",
		"a_b":         "reconcile-2026-11-20-group-a_b.xlsx",
		"Région Süd":  "reconcile-2026-11-20-group-R_gion_S_d-",
		"":            "reconcile-2026-11-20-group--",
		"with.dot.id": "reconcile-2026-11-20-group-with_dot_id-",
	} {
		got := GroupWorkbookName("2026-11-20", id)
		if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, ".xlsx") || strings.ContainsAny(got, `/\`) {
			t.Errorf("GroupWorkbookName(%q) = %q, want %s…", id, got, want)
		}
	}
	if GroupWorkbookName("d", "a/b") == GroupWorkbookName("d", "a_b") {
		t.Error("two group IDs share a file name")
	}
}

// A kind without a sheet statement of its own (a check added later) gets
// the default columns: its findings with their member, amount, state and
// acknowledgement, and the detail written out as "key: value" pairs, not
// JSON.
func TestKindSheetDefaultColumns(t *testing.T) {
	db := fixtureDB(t)
	if _, err := db.Exec(`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id, amount, currency, detail, first_seen_run, state)
		VALUES ('2026-11-20', DATE '2026-11-20', 'future_kind', 'm1', 'x1', '1001', 5.25, 'USD',
		        '{"call_kind":"credit","path":"/pts/v2/credits","line_items":3,"note":"=1+1"}', '2026-11-20', 'new')`); err != nil {
		t.Fatal(err)
	}
	if _, ok := queries.KindSheet("future_kind"); ok {
		t.Fatal("future_kind has a sheet statement")
	}
	path := filepath.Join(t.TempDir(), "d.xlsx")
	wb := outputs.Workbook{Sheets: []outputs.Sheet{kindSheet(fixtureRun, Scope{}, "future_kind", "future_kind")}}
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, wb); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := kindTable(t, f, "future_kind")
	if want := []string{"Merchant ID", "Merchant name", "Group", "Entity ID", "Amount", "Currency", "State", "First seen",
		"Acknowledged until", "Owner", "Acknowledgement reason", "Ticket", "Facts"}; !slices.Equal(tab.header, want) || tab.rows != 1 {
		t.Fatalf("default columns %q (%d rows), want %q", tab.header, tab.rows, want)
	}
	facts, _ := f.GetCellValue("future_kind", tab.cell(t, "Facts", 0))
	if want := "call_kind: credit; path: /pts/v2/credits; line_items: 3; note: =1+1"; facts != want {
		t.Errorf("facts %q, want %q", facts, want)
	}
	if amount, _ := f.GetCellValue("future_kind", tab.cell(t, "Amount", 0)); amount != "$5.25" {
		t.Errorf("amount %q", amount)
	}
}

// Every sheet statement of queries/reports/kinds/ is a kind of the
// catalog's: a renamed or removed check leaves no orphan sheet behind.
func TestKindSheetsAreKinds(t *testing.T) {
	kinds := queries.Kinds()
	for _, k := range queries.KindSheets() {
		if !slices.Contains(kinds, k) {
			t.Errorf("queries/reports/kinds/%s.sql: no check queries/findings/%s.sql", k, k)
		}
	}
}

// docs/workbook.md's table of the kinds' columns is the sheets': one row
// per kind of the catalog, in its order, whose When says whether the sheet
// has one, whose ID names the column holding the finding's entity_id (the
// ENTITY of reconcile ack), and whose own columns are the sheet's, in
// order, apart from those every kind's sheet has.
func TestWorkbookDocumentsEveryKind(t *testing.T) {
	doc, err := os.ReadFile("../docs/workbook.md")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		when, id string
		own      []string
	}
	documented := map[string]row{}
	var order []string
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 || !strings.HasPrefix(cells[0], "`") {
			continue
		}
		kind := strings.Trim(cells[0], "`")
		order = append(order, kind)
		documented[kind] = row{when: cells[1], id: cells[2], own: strings.Split(cells[3], ", ")}
	}
	if kinds := queries.Kinds(); !slices.Equal(order, kinds) {
		t.Fatalf("docs/workbook.md documents the kinds %q, want the catalog's %q", order, kinds)
	}
	db := fixtureDB(t)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, Workbook(fixtureRun, Scope{})); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	common := []string{"When", "Merchant ID", "Merchant name", "Group", "Amount", "Currency", "State", "First seen",
		"Acknowledged until", "Owner", "Acknowledgement reason", "Ticket", "Reason"}
	names := KindSheetNames()
	for _, kind := range order {
		doc, sheet := documented[kind], names[kind]
		tab := kindTable(t, f, sheet)
		var own []string
		for _, h := range tab.header {
			if !slices.Contains(common, h) {
				own = append(own, h)
			}
		}
		if !slices.Equal(own, doc.own) {
			t.Errorf("%s: the sheet's own columns are\n  %s\nthe docs say\n  %s", kind, strings.Join(own, ", "), strings.Join(doc.own, ", "))
		}
		if has := slices.Contains(tab.header, "When"); has != (doc.when != "(none)") {
			t.Errorf("%s: the sheet has a When column: %v; the docs say %q", kind, has, doc.when)
		}
		var ids []string
		for n := 0; n < tab.rows; n++ {
			v, _ := f.GetCellValue(sheet, tab.cell(t, doc.id, n))
			ids = append(ids, v)
		}
		rows, err := db.Query(`SELECT entity_id FROM findings WHERE run_id = ? AND kind = ? AND state IN ('new', 'open', 'acknowledged')
			ORDER BY entity_id`, fixtureRun.RunID, kind)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			want = append(want, id)
		}
		rows.Close()
		slices.Sort(ids)
		if !slices.Equal(ids, want) {
			t.Errorf("%s: column %q holds %q, the findings' entity IDs are %q", kind, doc.id, ids, want)
		}
	}
}
