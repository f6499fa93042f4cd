package outputs

import (
	"archive/zip"
	"context"
	"html"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestCurrencyFormat(t *testing.T) {
	for code, want := range map[string]string{
		"USD":  `[$$-409]#,##0.00`,
		"EUR":  `[$€-x-euro2] #,##0.00`,
		"GBP":  `[$£-809]#,##0.00`,
		"JPY":  `[$¥-411]#,##0`,
		"CHF":  `#,##0.00 "CHF"`,
		"KRW":  `#,##0 "KRW"`,
		"KWD":  `#,##0.000 "KWD"`,
		"":     `#,##0.00`,
		"usd":  `#,##0.00`,
		`"];@`: `#,##0.00`, // never spliced into a format
		"USDX": `#,##0.00`,
	} {
		if got := CurrencyFormat(code); got != want {
			t.Errorf("CurrencyFormat(%q) = %q, want %q", code, got, want)
		}
	}
}

// Amounts beside their currency take that currency's format, row by row,
// and the value itself stays the exact number.
func TestWriteWorkbookCurrencyPerRow(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE a (i INTEGER, amount DECIMAL(18,2), currency VARCHAR)`,
		`INSERT INTO a VALUES (1, 1234.5, 'USD'), (2, -99.1, 'EUR'), (3, 12, 'GBP'), (4, 1500, 'JPY'),
			(5, 7.25, 'CHF'), (6, 3.5, NULL), (7, 8, '=1+1'), (8, 12345.678, 'KWD')`)
	path := filepath.Join(t.TempDir(), "c.xlsx")
	_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{Name: "A", Blocks: []Block{{
		Query:   `SELECT amount, currency, i FROM a ORDER BY i`,
		Columns: []Column{{Header: "Amount", Type: Amount, CurrencyColumn: 2}, {Header: "Currency"}, {Header: "N", Type: Count}},
	}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	for i, want := range []struct{ raw, shown, format string }{
		{"1234.5", "$1,234.50", `[$$-409]#,##0.00`},
		{"-99.1", "-€ 99.10", `[$€-x-euro2] #,##0.00`},
		{"12", "£12.00", `[$£-809]#,##0.00`},
		{"1500", "¥1,500", `[$¥-411]#,##0`},
		{"7.25", `7.25 CHF`, `#,##0.00 "CHF"`},
		{"3.5", "3.50", ``},
		{"8", "8.00", ``},
		{"12345.68", "12,345.680 KWD", `#,##0.000 "KWD"`},
	} {
		ref := "A" + string(rune('2'+i))
		if got := cell(t, f, "A", ref, true); got != want.raw {
			t.Errorf("%s raw = %q, want %q", ref, got, want.raw)
		}
		if got := cell(t, f, "A", ref, false); got != want.shown {
			t.Errorf("%s shown = %q, want %q", ref, got, want.shown)
		}
		id, custom := numFmt(t, f, "A", ref)
		if want.format == "" {
			if id != 4 {
				t.Errorf("%s: format %d %q, want the plain #,##0.00 (4)", ref, id, custom)
			}
		} else if custom != want.format {
			t.Errorf("%s: format %q, want %q", ref, custom, want.format)
		}
	}
	if id, _ := numFmt(t, f, "A", "C2"); id != 3 {
		t.Errorf("count format %d, want #,##0 (3)", id)
	}
}

func zipEntries(t *testing.T, path, prefix string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]string{}
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, prefix) {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[zf.Name] = string(b)
	}
	return out
}

var chartFormula = regexp.MustCompile(`<(?:c:)?f>([^<]*)</(?:c:)?f>`)

// A record block shows one row as typed label/value pairs; charts plot the
// rows of the blocks they name, wherever those rows landed, and a chart over
// an empty block is left out.
func TestWriteWorkbookRecordAndCharts(t *testing.T) {
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE k (kind VARCHAR, n BIGINT, o BIGINT)`,
		`INSERT INTO k VALUES ('skipped_cycle', 8, 1), ('amount_mismatch', 1, 0), ('bin_unresolved', 5, 5)`)
	path := filepath.Join(t.TempDir(), "r.xlsx")
	sheet := Sheet{Name: "Sum'mary", Blocks: []Block{
		{Title: "Run", Record: true,
			Query: `SELECT DATE '2026-11-20', 'ok', 6::BIGINT, 1234.5::DECIMAL(18,2), 'EUR'`,
			Columns: []Column{{Header: "Business date", Type: Date}, {Header: "Status"}, {Header: "Members", Type: Count},
				{Header: "Billed", Type: Amount, CurrencyColumn: 5}, {Header: "Currency"}}},
		{Title: "Findings by kind", Query: `SELECT kind, n, o FROM k ORDER BY n DESC`,
			Columns: []Column{{Header: "Kind"}, {Header: "New", Type: Count}, {Header: "Still open", Type: Count}}},
		{Title: "Nothing", Query: `SELECT kind, n FROM k WHERE false`,
			Columns: []Column{{Header: "Kind"}, {Header: "N", Type: Count}}},
	}, Charts: []Chart{
		{Title: "Findings by kind", Type: StackedBarChart, Block: 1, Categories: 1, Values: []int{2, 3}, Cell: "F2"},
		{Title: "Empty", Type: PieChart, Block: 2, Categories: 1, Values: []int{2}, Cell: "F20"},
	}}
	if _, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{sheet}}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	rows, err := f.GetRows("Sum'mary")
	if err != nil {
		t.Fatal(err)
	}
	wantTop := [][]string{{"Run"}, {"Business date", "2026-11-20"}, {"Status", "ok"}, {"Members", "6"}, {"Billed", "€ 1,234.50"}, {"Currency", "EUR"}, nil, {"Findings by kind"}, {"Kind", "New", "Still open"}}
	for i, want := range wantTop {
		if !slices.Equal(rows[i], want) {
			t.Errorf("row %d = %q, want %q", i+1, rows[i], want)
		}
	}
	if got := cell(t, f, "Sum'mary", "B2", true); got != "46346" {
		t.Errorf("record date B2 = %q, want the serial date 46346", got)
	}
	if _, custom := numFmt(t, f, "Sum'mary", "B2"); custom != "yyyy-mm-dd" {
		t.Errorf("record date format %q", custom)
	}
	id, _ := f.GetCellStyle("Sum'mary", "A3")
	if st, _ := f.GetStyle(id); st.Font == nil || !st.Font.Bold {
		t.Error("record labels are not bold")
	}
	if panes, _ := f.GetPanes("Sum'mary"); !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("panes %+v: a sheet opening with a record freezes its title only", panes)
	}
	charts := zipEntries(t, path, "xl/charts/chart")
	if len(charts) != 1 {
		t.Fatalf("%d charts, want 1 (the empty block's chart left out)", len(charts))
	}
	var refs []string
	for _, x := range charts {
		for _, m := range chartFormula.FindAllStringSubmatch(x, -1) {
			refs = append(refs, html.UnescapeString(m[1]))
		}
		if !strings.Contains(x, "Findings by kind") || !regexp.MustCompile(`<(c:)?grouping val="stacked"`).MatchString(x) {
			t.Errorf("chart XML lacks its title or stacking:\n%.600s", x)
		}
	}
	slices.Sort(refs)
	refs = slices.Compact(refs)
	want := []string{"'Sum''mary'!$A$10:$A$12", "'Sum''mary'!$B$10:$B$12", "'Sum''mary'!$B$9", "'Sum''mary'!$C$10:$C$12", "'Sum''mary'!$C$9"}
	if !slices.Equal(refs, want) {
		t.Errorf("chart references %q, want %q", refs, want)
	}
	if d := zipEntries(t, path, "xl/drawings/drawing1.xml"); len(d) != 1 {
		t.Error("no drawing part for the sheet")
	}
	if x := sheetXML(t, path, "sheet1.xml"); !strings.Contains(x, "<drawing ") {
		t.Error("the sheet does not reference its drawing")
	}
}

func TestWriteWorkbookRejectsBadCharts(t *testing.T) {
	db := openDB(t)
	b := Block{Query: "SELECT 'a', 1", Columns: []Column{{Header: "K"}, {Header: "N", Type: Count}}}
	for name, c := range map[string]Chart{
		"block":  {Block: 1, Categories: 1, Values: []int{2}, Cell: "D1"},
		"column": {Block: 0, Categories: 1, Values: []int{3}, Cell: "D1"},
		"none":   {Block: 0, Categories: 1, Cell: "D1"},
		"cell":   {Block: 0, Categories: 1, Values: []int{2}, Cell: "D"},
		"type":   {Type: 99, Block: 0, Categories: 1, Values: []int{2}, Cell: "D1"},
	} {
		_, err := WriteWorkbook(context.Background(), db, filepath.Join(t.TempDir(), "x.xlsx"),
			Workbook{Sheets: []Sheet{{Name: "S", Blocks: []Block{b}, Charts: []Chart{c}}}})
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	bad := b
	bad.Columns = []Column{{Header: "K", Type: Amount, CurrencyColumn: 3}, {Header: "N"}}
	if _, err := WriteWorkbook(context.Background(), db, filepath.Join(t.TempDir(), "x.xlsx"),
		Workbook{Sheets: []Sheet{{Name: "S", Blocks: []Block{bad}}}}); err == nil {
		t.Error("a currency column out of range: no error")
	}
	rec := Block{Record: true, Query: "SELECT range FROM range(2)", Columns: []Column{{Header: "N", Type: Count}}}
	if _, err := WriteWorkbook(context.Background(), db, filepath.Join(t.TempDir(), "x.xlsx"),
		Workbook{Sheets: []Sheet{{Name: "S", Blocks: []Block{rec}}}}); err == nil {
		t.Error("a record block over two rows: no error")
	}
}

// A FromQuery block takes its headers from the query's column names and
// its cell types from their DuckDB types; an amount is formatted in the
// currency of the next "... currency" column, text columns are as wide as
// their longest value, and numeric headers stand right over their numbers.
func TestWriteWorkbookColumnsFromQuery(t *testing.T) {
	db := openDB(t)
	path := filepath.Join(t.TempDir(), "q.xlsx")
	_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{Name: "Q", Blocks: []Block{{
		FromQuery: true,
		Query: `SELECT TIMESTAMPTZ '2026-11-18 10:00:00+00' AS "When", DATE '2026-11-19' AS "Due date",
		               'a reason longer than the header, by far' AS "Reason", 12.5::DECIMAL(18,2) AS "Expected amount",
		               'EUR' AS "Currency", 3::INTEGER AS "Cycle", 99::DECIMAL(18,2) AS "Transaction amount",
		               'JPY' AS "Transaction currency", true AS "Settled", '=1+1' AS "Note"`,
	}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	head, _ := f.GetRows("Q")
	want := []string{"When", "Due date", "Reason", "Expected amount", "Currency", "Cycle", "Transaction amount", "Transaction currency", "Settled", "Note"}
	if !slices.Equal(head[0], want) {
		t.Fatalf("headers %q, want %q", head[0], want)
	}
	for _, c := range []struct{ ref, raw, shown string }{
		{"A2", "46344.4166666667", "2026-11-18 10:00:00"},
		{"B2", "46345", "2026-11-19"},
		{"D2", "12.5", "€ 12.50"},
		{"F2", "3", "3"},
		{"G2", "99", "¥99"},
		{"I2", "1", "TRUE"},
		{"J2", "=1+1", "=1+1"},
	} {
		if raw, shown := cell(t, f, "Q", c.ref, true), cell(t, f, "Q", c.ref, false); raw != c.raw || shown != c.shown {
			t.Errorf("Q!%s = %q shown %q, want %q shown %q", c.ref, raw, shown, c.raw, c.shown)
		}
	}
	if fm, _ := f.GetCellFormula("Q", "J2"); fm != "" {
		t.Errorf("text from a query became the formula %q", fm)
	}
	if w, _ := f.GetColWidth("Q", "C"); w < 40 || w > maxFittedWidth {
		t.Errorf("the reason column is %g wide, want it fitted to its 39 characters", w)
	}
	for ref, right := range map[string]bool{"A1": true, "B1": true, "C1": false, "D1": true, "E1": false, "F1": true} {
		id, _ := f.GetCellStyle("Q", ref)
		st, _ := f.GetStyle(id)
		got := st.Alignment != nil && st.Alignment.Horizontal == "right"
		if got != right || st.Font == nil || !st.Font.Bold {
			t.Errorf("header %s: right-aligned %v, want %v (bold: %v)", ref, got, right, st.Font != nil && st.Font.Bold)
		}
	}
}

// A column no cell type fits (a DOUBLE, JSON) fails the workbook with the
// column's name: the statement must say what the value is.
func TestWriteWorkbookColumnsFromQueryRefusesUntypedColumns(t *testing.T) {
	db := openDB(t)
	for q, name := range map[string]string{
		`SELECT 'a' AS "Kind", 1.5::DOUBLE AS "Ratio"`:       `"Ratio" is a DOUBLE`,
		`SELECT '{"a":1}'::JSON AS "Detail"`:                 `"Detail" is a JSON`,
		`SELECT 'a' AS "Kind" FROM range(1) WHERE range < 0`: "",
	} {
		_, err := WriteWorkbook(context.Background(), db, filepath.Join(t.TempDir(), "u.xlsx"), Workbook{Sheets: []Sheet{{
			Name: "U", Blocks: []Block{{FromQuery: true, Query: q}}}}})
		switch {
		case name == "" && err != nil:
			t.Errorf("%s: %v (no rows is no error)", q, err)
		case name != "" && (err == nil || !strings.Contains(err.Error(), name)):
			t.Errorf("%s: error %v, want one naming %s", q, err, name)
		}
	}
	_, err := WriteWorkbook(context.Background(), db, filepath.Join(t.TempDir(), "d.xlsx"), Workbook{Sheets: []Sheet{{
		Name: "D", Blocks: []Block{{FromQuery: true, Query: "SELECT 1", Columns: []Column{{Header: "N"}}}}}}})
	if err == nil {
		t.Error("a block with columns from its query and declared ones was written")
	}
}

// A Main block below a small table gets the sheet's autofilter, and the
// rows down to its header stay frozen; when the tables above it are too
// long to freeze, only the first header is.
func TestWriteWorkbookMainBlock(t *testing.T) {
	db := openDB(t)
	totals := func(n int) Block {
		return Block{Title: "Totals", Query: "SELECT 'USD', range FROM range(" + strconv.Itoa(n) + ")",
			Columns: []Column{{Header: "Currency"}, {Header: "N", Type: Count}}}
	}
	main := Block{Title: "Rows", Query: "SELECT range, 'x' FROM range(30)", Main: true,
		Columns: []Column{{Header: "N", Type: Count}, {Header: "X"}}}
	for _, c := range []struct {
		totals int
		freeze int
		filter string
	}{
		{2, 7, "$A$7:$B$37"},   // Totals, header, 2 rows, empty, Rows, header: 7
		{30, 2, "$A$35:$B$65"}, // too many rows above: the first header only
	} {
		path := filepath.Join(t.TempDir(), "m.xlsx")
		_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{Name: "M",
			Blocks: []Block{totals(c.totals), main}}}})
		if err != nil {
			t.Fatal(err)
		}
		f := openXLSX(t, path)
		if panes, _ := f.GetPanes("M"); !panes.Freeze || panes.YSplit != c.freeze {
			t.Errorf("%d totals rows: frozen %+v, want %d rows", c.totals, panes, c.freeze)
		}
		if !hasAutoFilter(f, "M", c.filter) {
			t.Errorf("%d totals rows: no autofilter over the main table %s: %+v", c.totals, c.filter, f.GetDefinedName())
		}
		if got := cell(t, f, "M", "A"+strconv.Itoa(c.freeze), false); c.freeze == 7 && got != "N" {
			t.Errorf("the last frozen row starts %q, want the main table's header", got)
		}
	}
}

// A Main block too long for its sheet gets its note between its title and
// header, frozen with them, and continues on the next sheet with its own
// autofilter.
func TestWriteWorkbookMainBlockOverflows(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 20
	db := openDB(t)
	path := filepath.Join(t.TempDir(), "o.xlsx")
	_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{Name: "M", Blocks: []Block{
		{Title: "Totals", Query: "SELECT 'USD', range FROM range(2)", Columns: []Column{{Header: "Currency"}, {Header: "N", Type: Count}}},
		{Title: "Rows", Query: "SELECT range FROM range(30)", Main: true, Columns: []Column{{Header: "N", Type: Count}}, Overflow: "parquet/m"},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	if panes, _ := f.GetPanes("M"); !panes.Freeze || panes.YSplit != 8 {
		t.Errorf("frozen %+v, want 8 rows: totals (5), the main table's title, note and header", panes)
	}
	if note := cell(t, f, "M", "A7", false); !strings.Contains(note, `"M (2)"`) || !strings.Contains(note, "parquet/m") {
		t.Errorf("M!A7 = %q, want the note naming M (2) and the dataset", note)
	}
	if got := cell(t, f, "M", "A8", false); got != "N" {
		t.Errorf("M!A8 = %q, want the main table's header", got)
	}
	if !hasAutoFilter(f, "M", "$A$8:$A$20") || !hasAutoFilter(f, "M (2)", "$A$2:$A$20") {
		t.Errorf("autofilters %+v", f.GetDefinedName())
	}
}
