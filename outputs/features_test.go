package outputs

import (
	"archive/zip"
	"context"
	"html"
	"io"
	"path/filepath"
	"regexp"
	"slices"
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
