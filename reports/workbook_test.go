package reports

import (
	"context"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports/reportstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/, and the kinds' table of docs/workbook.md, from this run")

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
	// As Publish writes it: the kinds by money at stake.
	if err := writeRankedWorkbook(context.Background(), db, path, fixtureRun, scope); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWorkbookGolden compares the whole workbook of the fixture run with
// testdata/workbook.golden: sheet names, headers, values, number formats,
// frozen rows, filters, widths and charts.
func TestWorkbookGolden(t *testing.T) {
	t.Parallel() // its own database and files
	golden(t, "workbook.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{})))
}

// TestGroupWorkbookGolden: the workbook of group 1002 holds its members
// only (m2 is also in 1001 and appears in both), and its Summary names it.
func TestGroupWorkbookGolden(t *testing.T) {
	t.Parallel() // its own database and files
	golden(t, "workbook-group-1002.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{GroupID: "1002"})))
}

// The properties users rely on, asserted directly (the golden file would
// also catch a change, but only as a diff someone might accept).
func TestWorkbookContract(t *testing.T) {
	t.Parallel() // its own database and files
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// A kind's sheet is named for people, not by its snake-case id.
	names := KindSheetNames()
	if got := names["level3_not_transmitted"]; got != "Level III not transmitted" {
		t.Errorf("sheet of level3_not_transmitted: %q", got)
	}
	// Its sheets come by money at stake, the most first.
	rank, err := KindRank(context.Background(), fixtureDB(t), fixtureRun.RunID, Scope{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Summary"}
	for _, kind := range rank {
		want = append(want, names[kind])
	}
	want = append(append(append(append(want, BillingSheets...), PaymentSheets...), SettlementSheets...), "Resolved", "Acknowledgements", "Legend")
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %v, want %v", got, want)
	}
	// A kind's own columns (docs/workbook.md), in order.
	if tab := kindTable(t, f, sheetOf("skipped_cycle")); !slices.Equal(tab.header, []string{"When", "Merchant ID", "Merchant name",
		"Amount", "Currency", "State", "Group", "Payment ID", "Subscription ID", "Subscription code", "Plan", "Customer ID", "Client reference",
		"Cycle", "First seen", "Reason", "Kind ID", "Acknowledge: reason", "Acknowledge: owner", "Acknowledge: until", "Acknowledge: ticket"}) {
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
		// Who the customer is, by the name the subscription bills.
		{"subscription_delinquent", "Customer", "Sato", "Sato"},
		{"subscription_suspended", "Customer", "Jürgen Groß", "Jürgen Groß"},
		{"plan_amount_mismatch", "Plan amount", "11", "€ 11.00"},
		{"level3_incomplete", "Acknowledge: until", "46371", "2026-12-15"},
		{"level3_incomplete", "State", "acknowledged", "acknowledged"},
	} {
		sheet := sheetOf(c.sheet)
		tab := kindTable(t, f, sheet)
		ref := tab.cell(t, c.column, 0)
		raw, _ := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
		shown, _ := f.GetCellValue(sheet, ref)
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
	// The only formulas are the links to the workbook's own sheets.
	sheets := f.GetSheetList()
	link := regexp.MustCompile(`<f>HYPERLINK\("#'((?:[^']|'')+)'!A1","((?:[^"]|"")+)"\)</f>`)
	for name, x := range reportstest.ZipFiles(t, path, "xl/worksheets/") {
		x = html.UnescapeString(x)
		for _, m := range link.FindAllStringSubmatch(x, -1) {
			target, shown := strings.ReplaceAll(m[1], "''", "'"), strings.ReplaceAll(m[2], `""`, `"`)
			if !slices.Contains(sheets, target) || target != shown {
				t.Errorf("%s links to %q (shown %q), not a sheet of the workbook", name, target, shown)
			}
		}
		if x := link.ReplaceAllString(x, ""); strings.Contains(x, "<f>") || strings.Contains(x, "<f ") {
			i := max(strings.Index(x, "<f>"), strings.Index(x, "<f "))
			t.Errorf("%s holds a formula other than a link to a sheet: %s", name, x[i:min(len(x), i+120)])
		}
	}
	if n := len(reportstest.ZipFiles(t, path, "xl/charts/chart")); n != 3 {
		t.Errorf("%d charts, want 3 (money at stake, funding mix, payments by status)", n)
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
	if _, err := f.GetSheetIndex(sheet); err != nil || !slices.Contains(f.GetSheetList(), sheet) {
		t.Fatalf("sheet %s does not exist", sheet)
	}
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
	for _, c := range []string{"Merchant ID", "Merchant name", "Group", "State", "First seen", "Kind ID", "Acknowledge: reason",
		"Acknowledge: owner", "Acknowledge: until", "Acknowledge: ticket"} {
		if !slices.Contains(tab.header, c) {
			t.Errorf("%s: no column %q: %q", sheet, c, tab.header)
		}
	}
	ackGroup := []string{"Reason", "Kind ID", "Acknowledge: reason", "Acknowledge: owner", "Acknowledge: until", "Acknowledge: ticket"}
	if len(tab.header) < len(ackGroup) || !slices.Equal(tab.header[len(tab.header)-len(ackGroup):], ackGroup) || slices.Contains(tab.header, "Detail") {
		t.Errorf("%s: columns %q, want a Reason, the Kind ID and the Acknowledge columns last, and no Detail", sheet, tab.header)
	}
	if tab.rows == 0 {
		t.Fatalf("%s: no finding in the fixture: its columns are not covered", sheet)
	}
	for n := 0; n < tab.rows; n++ {
		if reason, _ := f.GetCellValue(sheet, tab.cell(t, "Reason", n)); len(reason) < 20 || strings.HasPrefix(reason, "{") {
			t.Errorf("%s row %d: reason %q", sheet, n+1, reason)
		}
	}
	// The sheet opens with what its findings mean and what to do, in
	// two lines, then the totals: per currency, the findings and the sum
	// of the Amount column.
	head, _ := f.GetRows(sheet)
	if len(head) < 6 || !strings.HasPrefix(head[0][0], "What it means: ") || !strings.HasPrefix(head[1][0], "What to do: ") || len(head[2]) != 0 {
		t.Fatalf("%s does not open with what it means and what to do: %q", sheet, head[:min(len(head), 3)])
	}
	const off = 3 // the opening lines and the empty row after them
	if !strings.HasPrefix(head[off][0], "Totals by currency") ||
		!slices.Equal(head[off+1], []string{"Currency", "Findings", "Amount", "Acknowledged", "Amount acknowledged"}) {
		t.Fatalf("%s does not go on with its totals: %q", sheet, head[off:off+2])
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
	for r := off + 3; ; r++ {
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
	t.Parallel() // its own database and files
	checks := []queries.Check{
		{Kind: "skipped_cycle"},
		{Kind: "summary"},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3)},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3) + "2"},
		{Kind: "level3_x", Title: "Level III: sent, not passed on"},
		{Kind: "level3_y", Title: "Level III: sent, not passed on"},
	}
	got := kindSheetNames(checks)
	want := map[string]string{
		"skipped_cycle": "Skipped cycle",
		"summary":       "Summary 2",
		checks[2].Kind:  "A very long kind name a very",
		checks[3].Kind:  "A very long kind name a very 2",
		"level3_x":      "Level III- sent, not passed on",
		"level3_y":      "Level III- sent, not passed 2",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("sheet of %q = %q, want %q", k, got[k], w)
		}
	}
}

func TestGroupWorkbookName(t *testing.T) {
	t.Parallel() // its own database and files
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
	t.Parallel() // its own database and files
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
	wb := outputs.Workbook{Sheets: []outputs.Sheet{kindSheet(fixtureRun, Scope{}, queries.Check{Kind: "future_kind"}, "future_kind")}}
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, wb); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := kindTable(t, f, "future_kind")
	if want := []string{"Merchant ID", "Merchant name", "Amount", "Currency", "State", "Group", "Entity ID", "First seen",
		"Facts", "Kind ID", "Acknowledge: reason", "Acknowledge: owner", "Acknowledge: until", "Acknowledge: ticket"}; !slices.Equal(tab.header, want) || tab.rows != 1 {
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
	t.Parallel() // its own database and files
	kinds := queries.Kinds()
	for _, k := range queries.KindSheets() {
		if !slices.Contains(kinds, k) {
			t.Errorf("queries/reports/kinds/%s.sql: no check queries/findings/%s.sql", k, k)
		}
	}
}

// docs/workbook.md's table of the kinds' columns is the sheets', and is
// written from them: one row per kind of the catalog, in its order, whose
// When and ID are the "-- When:" and "-- ID:" lines of the kind's sheet
// file (queries/reports/kinds/<kind>.sql), and whose own columns are the
// sheet's, in order, apart from those every kind's sheet has. `go test
// ./reports -run TestWorkbookDocumentsEveryKind -update` rewrites the
// table, so a new kind's row is generated, not written. The sheet has a
// When column unless When is "(none)", and its ID column holds the
// findings' entity_id (the ENTITY of reconcile ack).
func TestWorkbookDocumentsEveryKind(t *testing.T) {
	t.Parallel() // its own database and files
	const docPath = "../docs/workbook.md"
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		when, id string
		own      []string
	}
	documented := map[string]row{}
	order := queries.Kinds()
	for _, kind := range order {
		sheet, ok := queries.KindSheet(kind)
		if !ok {
			t.Fatalf("%s: no sheet queries/reports/kinds/%s.sql", kind, kind)
		}
		var r row
		for _, line := range strings.Split(sheet, "\n") {
			if v, ok := strings.CutPrefix(line, "-- When: "); ok {
				r.when = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "-- ID: "); ok {
				r.id = strings.TrimSpace(v)
			}
		}
		if r.when == "" || r.id == "" {
			t.Errorf("queries/reports/kinds/%s.sql: its leading comment needs a line \"-- When: <what the When column shows, or (none)>\" and a line \"-- ID: <the column holding entity_id>\"", kind)
		}
		documented[kind] = r
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
		"Reason", "Kind ID", "Acknowledge: reason", "Acknowledge: owner", "Acknowledge: until", "Acknowledge: ticket"}
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
		doc.own = own
		documented[kind] = doc
		if has := slices.Contains(tab.header, "When"); has != (doc.when != "(none)") {
			t.Errorf("%s: the sheet has a When column: %v; its \"-- When:\" line says %q", kind, has, doc.when)
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
	table := []string{kindsTableHeader, "|---|---|---|---|"}
	for _, kind := range order {
		r := documented[kind]
		table = append(table, fmt.Sprintf("| `%s` | %s | %s | %s |", kind, r.when, r.id, strings.Join(r.own, ", ")))
	}
	lines := strings.Split(string(doc), "\n")
	start := slices.Index(lines, kindsTableHeader)
	if start < 0 {
		t.Fatalf("%s: no line %q opens the kinds' table", docPath, kindsTableHeader)
	}
	end := start
	for end < len(lines) && strings.HasPrefix(lines[end], "|") {
		end++
	}
	if got := strings.Join(lines[start:end], "\n"); got != strings.Join(table, "\n") {
		if *update {
			out := slices.Concat(lines[:start], table, lines[end:])
			if err := os.WriteFile(docPath, []byte(strings.Join(out, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s: the kinds' table is not the sheets' (go test ./reports -run %s -update rewrites it; review the diff)\n got:\n%s\nwant:\n%s",
			docPath, t.Name(), got, strings.Join(table, "\n"))
	}
}

// kindsTableHeader opens the kinds' table of docs/workbook.md.
const kindsTableHeader = "| kind | When | ID | its own columns, in order |"

// sheetOf is the name of kind's sheet.
func sheetOf(kind string) string { return KindSheetNames()[kind] }
