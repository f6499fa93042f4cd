package outputs

import (
	"archive/zip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/xuri/excelize/v2"
)

func openXLSX(t *testing.T, path string) *excelize.File {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func cell(t *testing.T, f *excelize.File, sheet, ref string, raw bool) string {
	t.Helper()
	v, err := f.GetCellValue(sheet, ref, excelize.Options{RawCellValue: raw})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func numFmt(t *testing.T, f *excelize.File, sheet, ref string) (int, string) {
	t.Helper()
	id, err := f.GetCellStyle(sheet, ref)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	custom := ""
	if st.CustomNumFmt != nil {
		custom = *st.CustomNumFmt
	}
	return st.NumFmt, custom
}

func sheetXML(t *testing.T, path, sheetFile string) string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.Name == "xl/worksheets/"+sheetFile {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	t.Fatalf("%s not in %s", sheetFile, path)
	return ""
}

var typedColumns = []Column{
	{Header: "Merchant", Type: Text},
	{Header: "Count", Type: Integer},
	{Header: "Amount", Type: Amount},
	{Header: "Day", Type: Date},
	{Header: "Submitted (UTC)", Type: Timestamp},
	{Header: "Settled", Type: Bool},
	{Header: "Detail", Type: Text, Width: 40},
}

func TestWriteWorkbookTypedCells(t *testing.T) {
	db := openDB(t)
	mustExec(t, db,
		`CREATE TABLE t (id INTEGER, merchant VARCHAR, n BIGINT, amount DECIMAL(18,2), day DATE, ts TIMESTAMPTZ, settled BOOLEAN, detail JSON)`,
		`INSERT INTO t VALUES
			(1, 'mid001', 42, 12.34, DATE '2026-11-20', TIMESTAMPTZ '2026-11-20 14:03:11+00', true, '{"b":1,"a":"x<y"}'),
			(2, 'mid002', -7, -1234567.89, DATE '2026-01-01', TIMESTAMPTZ '2026-01-01 23:59:59.7+00', false, '[1,"two"]'),
			(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	)
	path := filepath.Join(t.TempDir(), "reconcile-2026-11-20.xlsx")
	wb := Workbook{Sheets: []Sheet{
		{Name: "Findings", Blocks: []Block{{
			Query:   `SELECT merchant, n, amount, day, ts, settled, detail FROM t ORDER BY id`,
			Columns: typedColumns,
		}}},
		{Name: "Summary", Blocks: []Block{
			{
				Title:   "By merchant",
				Query:   `SELECT merchant, count(*), sum(amount) FROM t WHERE merchant IS NOT NULL GROUP BY merchant ORDER BY merchant`,
				Columns: []Column{{Header: "Merchant"}, {Header: "Rows", Type: Integer}, {Header: "Total", Type: Amount}},
			},
			{
				Title:   "Settled share",
				Query:   `SELECT avg(CASE WHEN settled THEN 1 ELSE 0 END) FROM t WHERE settled IS NOT NULL AND n > ?`,
				Args:    []any{-100},
				Columns: []Column{{Header: "Share", Type: Percent}},
			},
		}},
	}}
	stats, err := WriteWorkbook(context.Background(), db, path, wb)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"Findings": 3, "Summary": 3}; !equalMaps(stats.Rows, want) {
		t.Errorf("stats = %v, want %v", stats.Rows, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("output dir holds %d entries, want only the workbook (no temp or spill files)", len(entries))
	}

	f := openXLSX(t, path)
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Findings", "Summary"}) {
		t.Fatalf("sheets = %v", got)
	}
	rows, err := f.GetRows("Findings")
	if err != nil {
		t.Fatal(err)
	}
	var headers []string
	for _, c := range typedColumns {
		headers = append(headers, c.Header)
	}
	if !slices.Equal(rows[0], headers) {
		t.Errorf("header = %q, want %q", rows[0], headers)
	}
	if len(rows) != 3 { // GetRows drops the trailing all-empty row
		t.Errorf("GetRows returned %d rows, want 3", len(rows))
	}

	// Header: bold and frozen; autofilter over the single table.
	id, _ := f.GetCellStyle("Findings", "A1")
	if st, _ := f.GetStyle(id); st.Font == nil || !st.Font.Bold {
		t.Error("header cell is not bold")
	}
	panes, err := f.GetPanes("Findings")
	if err != nil {
		t.Fatal(err)
	}
	if !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
		t.Errorf("panes = %+v, want frozen below row 1", panes)
	}
	if !hasAutoFilter(f, "Findings", "$A$1:$G$4") {
		t.Errorf("no autofilter over A1:G4; defined names %+v", f.GetDefinedName())
	}
	// excelize writes the element's ref in absolute form ($A$1:$G$4).
	if x := sheetXML(t, path, "sheet1.xml"); !strings.Contains(x, `<autoFilter ref="$A$1:$G$4"`) && !strings.Contains(x, `<autoFilter ref="A1:G4"`) {
		t.Errorf("sheet1.xml has no autoFilter element over A1:G4")
	}
	// A text column is as wide as asked, and the indent its text stands in.
	if w, _ := f.GetColWidth("Findings", "G"); w != 41.5 {
		t.Errorf("width of G = %v, want 40 + 1.5", w)
	}
	if w, _ := f.GetColWidth("Findings", "E"); w < 19 {
		t.Errorf("width of timestamp column E = %v, want a default fitting a timestamp", w)
	}

	// Text and integer.
	if got := cell(t, f, "Findings", "A2", false); got != "mid001" {
		t.Errorf("A2 = %q", got)
	}
	if ct, _ := f.GetCellType("Findings", "A2"); ct != excelize.CellTypeInlineString {
		t.Errorf("A2 type = %v, want inline string", ct)
	}
	if got := cell(t, f, "Findings", "B3", true); got != "-7" {
		t.Errorf("B3 = %q", got)
	}
	// Amounts: the exact two-decimal value, number format #,##0.00.
	if got := cell(t, f, "Findings", "C2", true); got != "12.34" {
		t.Errorf("C2 raw = %q, want 12.34", got)
	}
	if got := cell(t, f, "Findings", "C3", false); got != "-1,234,567.89" {
		t.Errorf("C3 formatted = %q", got)
	}
	if id, custom := numFmt(t, f, "Findings", "C2"); id != 4 && custom != "#,##0.00" {
		t.Errorf("amount format = %d %q, want #,##0.00", id, custom)
	}
	// Dates: serial numbers with the date format.
	if got := cell(t, f, "Findings", "D2", true); got != "46346" {
		t.Errorf("D2 raw = %q, want serial 46346", got)
	}
	if got := cell(t, f, "Findings", "D2", false); got != "2026-11-20" {
		t.Errorf("D2 formatted = %q", got)
	}
	if ct, _ := f.GetCellType("Findings", "D2"); ct != excelize.CellTypeUnset && ct != excelize.CellTypeNumber {
		t.Errorf("D2 type = %v, want a number cell", ct)
	}
	if _, custom := numFmt(t, f, "Findings", "D2"); custom != "yyyy-mm-dd" {
		t.Errorf("date format = %q", custom)
	}
	// Timestamps in UTC, cut to the second.
	if got := cell(t, f, "Findings", "E2", false); got != "2026-11-20 14:03:11" {
		t.Errorf("E2 = %q", got)
	}
	if got := cell(t, f, "Findings", "E3", false); got != "2026-01-01 23:59:59" {
		t.Errorf("E3 = %q (sub-second part must not round up)", got)
	}
	if _, custom := numFmt(t, f, "Findings", "E2"); custom != "yyyy-mm-dd hh:mm:ss" {
		t.Errorf("timestamp format = %q", custom)
	}
	// Booleans and JSON.
	if ct, _ := f.GetCellType("Findings", "F2"); ct != excelize.CellTypeBool {
		t.Errorf("F2 type = %v, want bool", ct)
	}
	if got := cell(t, f, "Findings", "F3", false); got != "FALSE" {
		t.Errorf("F3 = %q", got)
	}
	if got := cell(t, f, "Findings", "G2", false); got != `{"a":"x<y","b":1}` {
		t.Errorf("G2 = %q", got)
	}
	if got := cell(t, f, "Findings", "G3", false); got != `[1,"two"]` {
		t.Errorf("G3 = %q", got)
	}
	// NULL: empty cells.
	for _, ref := range []string{"A4", "B4", "C4", "D4", "E4", "F4", "G4"} {
		if ct, _ := f.GetCellType("Findings", ref); ct != excelize.CellTypeUnset {
			t.Errorf("%s type = %v, want no cell", ref, ct)
		}
		if got := cell(t, f, "Findings", ref, true); got != "" {
			t.Errorf("%s = %q, want empty", ref, got)
		}
	}

	// Two titled blocks, one empty row apart; frozen through the first
	// block's header; no autofilter across two tables.
	want := [][]string{
		{"By merchant"},
		{"Merchant", "Rows", "Total"},
		{"mid001", "1", "12.34"},
		{"mid002", "1", "-1,234,567.89"},
		nil,
		{"Settled share"},
		{"Share"},
		{"50.00%"},
	}
	got, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Summary rows =\n%q\nwant\n%q", got, want)
	}
	id, _ = f.GetCellStyle("Summary", "A1")
	if st, _ := f.GetStyle(id); st.Font == nil || !st.Font.Bold {
		t.Error("title is not bold")
	}
	if panes, _ := f.GetPanes("Summary"); !panes.Freeze || panes.YSplit != 2 {
		t.Errorf("Summary panes = %+v, want frozen below row 2", panes)
	}
	if hasAutoFilter(f, "Summary", "") {
		t.Error("a two-block sheet got an autofilter")
	}
}

func hasAutoFilter(f *excelize.File, sheet, ref string) bool {
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm._FilterDatabase" && d.Scope == sheet && strings.HasSuffix(d.RefersTo, ref) {
			return true
		}
	}
	return false
}

func equalMaps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Text from the platform ends up in finance's Excel: it must never become a
// formula, whatever it starts with.
func TestWriteWorkbookNoFormulaInjection(t *testing.T) {
	db := openDB(t)
	values := []string{"=1+2", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1", "=HYPERLINK(\"http://x\",\"y\")", " =1 "}
	mustExec(t, db, `CREATE TABLE t (i INTEGER, v VARCHAR)`)
	for i, v := range values {
		if _, err := db.Exec(`INSERT INTO t VALUES (?, ?)`, i, v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "w.xlsx")
	_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{
		Name: "Text",
		Blocks: []Block{{
			Query:   `SELECT v, v, v FROM t ORDER BY i`,
			Columns: []Column{{Header: "Text"}, {Header: "As amount", Type: Amount}, {Header: "As date", Type: Date}},
		}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	for i, v := range values {
		ref := fmt.Sprintf("A%d", i+2)
		if got := cell(t, f, "Text", ref, true); got != v {
			t.Errorf("%s = %q, want %q", ref, got, v)
		}
		if ct, _ := f.GetCellType("Text", ref); ct != excelize.CellTypeInlineString {
			t.Errorf("%s type = %v, want a string cell", ref, ct)
		}
		// In typed columns such text is a number ("+1" is 1) or stays
		// text; it is never a formula either.
		for _, col := range []string{"A", "B", "C"} {
			ref := fmt.Sprintf("%s%d", col, i+2)
			if fm, err := f.GetCellFormula("Text", ref); err != nil || fm != "" {
				t.Errorf("%s formula = %q, %v; want none", ref, fm, err)
			}
		}
	}
	if got := cell(t, f, "Text", "B3", true); got != "1" {
		t.Errorf(`"+1" in an Amount column = %q, want the number 1`, got)
	}
	if got := cell(t, f, "Text", "B2", true); got != "=1+2" {
		t.Errorf(`"=1+2" in an Amount column = %q, want the text`, got)
	}
	if x := sheetXML(t, path, "sheet1.xml"); strings.Contains(x, "<f>") {
		t.Error("sheet XML contains a formula element")
	}
}

func TestWriteWorkbookOverflow(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 10

	db := openDB(t)
	mustExec(t, db, `CREATE TABLE big AS SELECT range AS id, 'row ' || range AS label FROM range(25)`)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	cols := []Column{{Header: "ID", Type: Integer}, {Header: "Label"}}
	stats, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{
		{Name: "Big", Blocks: []Block{{Title: "All rows", Query: `SELECT id, label FROM big ORDER BY id`, Columns: cols, Overflow: "parquet/big"}}},
		{Name: "Small", Blocks: []Block{{Query: `SELECT id, label FROM big WHERE id < 3 ORDER BY id`, Columns: cols}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Big: title, note, header + 7 rows; then title, header + 8 rows per sheet.
	wantStats := map[string]int{"Big": 7, "Big (2)": 8, "Big (3)": 8, "Big (4)": 2, "Small": 3}
	if !equalMaps(stats.Rows, wantStats) {
		t.Errorf("stats = %v, want %v", stats.Rows, wantStats)
	}
	f := openXLSX(t, path)
	if got, want := f.GetSheetList(), []string{"Big", "Big (2)", "Big (3)", "Big (4)", "Small"}; !slices.Equal(got, want) {
		t.Fatalf("sheets = %v, want %v", got, want)
	}
	note := cell(t, f, "Big", "A2", false)
	if !strings.Contains(note, `"Big (2)"`) || !strings.Contains(note, "parquet/big") {
		t.Errorf("note = %q, want the next sheet and the dataset named", note)
	}
	if got := cell(t, f, "Big", "A3", false); got != "ID" {
		t.Errorf("Big!A3 = %q, want the header", got)
	}
	if panes, _ := f.GetPanes("Big"); panes.YSplit != 3 {
		t.Errorf("Big frozen at %d rows, want 3 (title, note, header)", panes.YSplit)
	}
	if panes, _ := f.GetPanes("Big (2)"); panes.YSplit != 2 {
		t.Errorf("Big (2) frozen at %d rows, want 2", panes.YSplit)
	}
	// Every row exactly once, in order, across the sheets.
	var ids []string
	for _, name := range []string{"Big", "Big (2)", "Big (3)", "Big (4)"} {
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > maxSheetRows {
			t.Errorf("%s has %d rows, limit %d", name, len(rows), maxSheetRows)
		}
		start := 2
		if name == "Big" {
			start = 3
		} else if rows[0][0] != "All rows (continued)" || rows[1][0] != "ID" {
			t.Errorf("%s starts %q, want the title and header again", name, rows[:2])
		}
		for _, r := range rows[start:] {
			ids = append(ids, r[0])
		}
		if !hasAutoFilter(f, name, "") {
			t.Errorf("%s has no autofilter", name)
		}
	}
	for i, id := range ids {
		if id != fmt.Sprint(i) {
			t.Fatalf("row %d has id %s", i, id)
		}
	}
	if len(ids) != 25 {
		t.Errorf("%d data rows across sheets, want 25", len(ids))
	}
}

// A block that does not fit below the previous one starts on the next sheet,
// and the note of its overflow names the sheet after that.
func TestWriteWorkbookBlockStartsNextSheet(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 10
	db := openDB(t)
	cols := []Column{{Header: "N", Type: Integer}}
	path := filepath.Join(t.TempDir(), "w.xlsx")
	stats, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{
		Name: "S",
		Blocks: []Block{
			{Title: "A", Query: "SELECT range FROM range(7)", Columns: cols},
			{Title: "B", Query: "SELECT range FROM range(12)", Columns: cols},
		},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"S": 7, "S (2)": 7, "S (3)": 5}; !equalMaps(stats.Rows, want) {
		t.Errorf("stats = %v, want %v", stats.Rows, want)
	}
	f := openXLSX(t, path)
	if got := f.GetSheetList(); !slices.Equal(got, []string{"S", "S (2)", "S (3)"}) {
		t.Errorf("sheets = %v", got)
	}
	if got := cell(t, f, "S (2)", "A1", false); got != "B" {
		t.Errorf("S (2)!A1 = %q, want block B's title", got)
	}
	if note := cell(t, f, "S (2)", "A2", false); !strings.Contains(note, `"S (3)"`) {
		t.Errorf("note = %q, want it to name S (3)", note)
	}
	if !hasAutoFilter(f, "S", "$A$2:$A$9") {
		t.Errorf("S has one table and no autofilter over it: %+v", f.GetDefinedName())
	}
}

// failingCount is a Querier whose row-count pre-check fails, as it would for
// a statement DuckDB cannot nest in a subquery (nor store in a table).
type failingCount struct{ Querier }

func (q failingCount) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if strings.HasPrefix(query, "SELECT count(*) FROM (SELECT 1 FROM (") {
		return nil, errors.New("cannot nest")
	}
	return q.Querier.QueryContext(ctx, query, args...)
}

func (q failingCount) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if strings.HasPrefix(query, "CREATE OR REPLACE TEMP TABLE") {
		return nil, errors.New("cannot store")
	}
	return q.Querier.ExecContext(ctx, query, args...)
}

// Without the pre-count's answer there is no note, but the rows still
// continue on a next sheet, whose name is cut to Excel's 31 characters.
func TestWriteWorkbookOverflowWithoutNote(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 5
	db := openDB(t)
	mustExec(t, db, `CREATE TABLE t AS SELECT range AS x FROM range(6)`)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	long := strings.Repeat("x", 31)
	stats, err := WriteWorkbook(context.Background(), failingCount{db}, path, Workbook{Sheets: []Sheet{{
		Name:   long,
		Blocks: []Block{{Query: `SELECT x FROM t ORDER BY x`, Columns: []Column{{Header: "X", Type: Integer}}, Overflow: "parquet/t"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{long: 4, strings.Repeat("x", 27) + " (2)": 2}
	if !equalMaps(stats.Rows, want) {
		t.Errorf("stats = %v, want %v", stats.Rows, want)
	}
	f := openXLSX(t, path)
	if got := cell(t, f, long, "A1", false); got != "X" {
		t.Errorf("A1 = %q, want the header (no note)", got)
	}
}

// excelize's AutoFilter writes '<sheet>'!range without doubling an
// apostrophe in the sheet name; the writer repairs the defined name.
func TestWriteWorkbookApostropheSheetName(t *testing.T) {
	db := openDB(t)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	_, err := WriteWorkbook(context.Background(), db, path, Workbook{Sheets: []Sheet{{
		Name:   "Merchant's view",
		Blocks: []Block{{Query: "SELECT range FROM range(3)", Columns: []Column{{Header: "N", Type: Integer}}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	var refs []string
	for _, d := range f.GetDefinedName() {
		if d.Name == "_xlnm._FilterDatabase" {
			refs = append(refs, d.RefersTo)
		}
	}
	if want := []string{"'Merchant''s view'!$A$1:$A$4"}; !slices.Equal(refs, want) {
		t.Errorf("filter names refer to %q, want %q", refs, want)
	}
}

func TestWriteWorkbookRejects(t *testing.T) {
	db := openDB(t)
	dir := t.TempDir()
	ok := Block{Query: "SELECT 1", Columns: []Column{{Header: "n", Type: Integer}}}
	for name, wb := range map[string]Workbook{
		"no sheets":      {},
		"long name":      {Sheets: []Sheet{{Name: strings.Repeat("x", 32), Blocks: []Block{ok}}}},
		"bad char":       {Sheets: []Sheet{{Name: "a/b", Blocks: []Block{ok}}}},
		"duplicate":      {Sheets: []Sheet{{Name: "Sheet", Blocks: []Block{ok}}, {Name: "SHEET", Blocks: []Block{ok}}}},
		"column count":   {Sheets: []Sheet{{Name: "S", Blocks: []Block{{Query: "SELECT 1, 2", Columns: ok.Columns}}}}},
		"failing query":  {Sheets: []Sheet{{Name: "S", Blocks: []Block{{Query: "SELECT * FROM missing", Columns: ok.Columns}}}}},
		"empty query":    {Sheets: []Sheet{{Name: "S", Blocks: []Block{{Columns: ok.Columns}}}}},
		"reserved name":  {Sheets: []Sheet{{Name: "history", Blocks: []Block{ok}}}},
		"leading quote":  {Sheets: []Sheet{{Name: "'x", Blocks: []Block{ok}}}},
		"no columns":     {Sheets: []Sheet{{Name: "S", Blocks: []Block{{Query: "SELECT 1"}}}}},
		"cancelled rows": {Sheets: []Sheet{{Name: "S", Blocks: []Block{{Query: "SELECT range FROM range(10)", Columns: ok.Columns}}}}},
	} {
		ctx := context.Background()
		if name == "cancelled rows" {
			c, cancel := context.WithCancel(ctx)
			cancel()
			ctx = c
		}
		path := filepath.Join(dir, "w.xlsx")
		if _, err := WriteWorkbook(ctx, db, path, wb); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: a workbook was published despite the error", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed writes left %d files behind", len(entries))
	}
}

func TestCellValue(t *testing.T) {
	dec := func(v int64, scale uint8) duckdb.Decimal {
		return duckdb.Decimal{Width: 18, Scale: scale, Value: big.NewInt(v)}
	}
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	ts := time.Date(2026, 11, 20, 14, 3, 11, 700_000_000, time.FixedZone("CET", 3600))
	uuid := []byte{0x6f, 0x9b, 0x3c, 0x1e, 0x2a, 0x4d, 0x4e, 0x8f, 0x9a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71}
	for _, tc := range []struct {
		v      any
		t      ColumnType
		dbType string
		want   any
	}{
		{nil, Amount, "", nil},
		{dec(1234, 2), Amount, "", 12.34},
		{dec(123450, 4), Amount, "", 12.345}, // three decimals kept (KWD)
		{dec(-123450, 4), Amount, "", -12.345},
		{dec(123455, 4), Amount, "", 12.346}, // half away from zero
		{dec(-123455, 4), Amount, "", -12.346},
		{dec(1234, 2), Text, "", "12.34"},
		{dec(1230, 2), Text, "", "12.30"},
		{dec(-5, 2), Text, "", "-0.05"},
		{0.1 + 0.2, Amount, "", 0.3},
		{int64(7), Amount, "", 7.0},
		{"12.345", Amount, "", 12.345},
		{"12.3455", Amount, "", 12.346},
		{"n/a", Amount, "", "n/a"},
		{int32(5), Integer, "", int64(5)},
		{uint64(1) << 60, Integer, "", "1152921504606846976"},
		{huge, Integer, "", "123456789012345678901234567890"},
		{big.NewInt(99), Integer, "", int64(99)},
		{dec(4200, 2), Integer, "", int64(42)},
		{"17", Integer, "", int64(17)},
		{3.0, Integer, "", int64(3)},
		{0.125, Percent, "", 0.125},
		{dec(125, 3), Percent, "", 0.125},
		{3.0 / 7, Percent, "", 0.4285714286}, // no run of 13 digits in the file
		{ts, Date, "", int64(46346)},
		{"2026-11-20", Date, "", int64(46346)},
		{"2026-11-20T13:03:11Z", Timestamp, "", 46346 + roundFraction((13*3600+3*60+11)/86400.0)},
		{"2026-11-20 13:03:11+00", Timestamp, "", 46346 + roundFraction((13*3600+3*60+11)/86400.0)},
		{ts, Timestamp, "", 46346 + roundFraction((13*3600+3*60+11)/86400.0)},
		{time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC), Date, "DATE", "1899-01-01"},
		{ts, Text, "TIMESTAMPTZ", "2026-11-20T13:03:11.7Z"},
		{"yes?", Date, "", "yes?"},
		{true, Bool, "", true},
		{int8(0), Bool, "", false},
		{"true", Bool, "", true},
		{true, Text, "", "true"},
		{map[string]any{"b": 1.0, "a": "<&>"}, Text, "", `{"a":"<&>","b":1}`},
		{[]any{1.0, "x"}, Integer, "", `[1,"x"]`},
		{[]byte("plain"), Text, "BLOB", "plain"},
		{[]byte{0xff, 0x00}, Text, "BLOB", `\xff00`},
		{uuid, Text, "UUID", "6f9b3c1e-2a4d-4e8f-9a1b-2c3d4e5f6071"},
		{duckdb.Interval{Days: 1}, Text, "INTERVAL", `{"days":1,"months":0,"micros":0}`},
		{2.5, Text, "", "2.5"},
	} {
		got := cellValue(tc.v, tc.t, tc.dbType)
		if got != tc.want {
			t.Errorf("cellValue(%#v, %v) = %#v (%T), want %#v (%T)", tc.v, tc.t, got, got, tc.want, tc.want)
		}
	}
}

// A timestamp cell's serial, as the file writes it, keeps its second and
// holds no run of 13 digits or more (which a data-loss scanner would take
// for a card number), for every second of a day.
func TestTimestampSerialsHoldNoLongDigitRuns(t *testing.T) {
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	long := regexp.MustCompile(`[0-9]{13,}`)
	for s := 0; s < 86400; s++ {
		serial, ok := excelSerial(day.Add(time.Duration(s)*time.Second), false)
		text := strconv.FormatFloat(serial, 'f', -1, 64)
		if !ok || long.MatchString(text) || math.Abs((serial-46346)*86400-float64(s)) > 1e-4 {
			t.Fatalf("second %d of the day: serial %s", s, text)
		}
	}
}

func TestContinuationName(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    int
		want string
	}{
		{"Findings", 2, "Findings (2)"},
		{strings.Repeat("x", 31), 2, strings.Repeat("x", 27) + " (2)"},
		{strings.Repeat("x", 31), 10, strings.Repeat("x", 26) + " (10)"},
		{"Ümlaut-heavy sheet name ÄÖÜäöü", 3, "Ümlaut-heavy sheet name ÄÖÜ (3)"},
		{strings.Repeat("💶", 15), 2, strings.Repeat("💶", 13) + " (2)"}, // Excel counts UTF-16 units
	} {
		got := continuationName(tc.name, tc.k)
		if got != tc.want {
			t.Errorf("continuationName(%q, %d) = %q, want %q", tc.name, tc.k, got, tc.want)
		}
		if err := checkSheetName(got); err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkWriteWorkbook writes 100k rows x 8 mixed columns from DuckDB,
// the shape of a large findings sheet; compare rows/s with docs/dev/ceilings.md's
// ~45-70k rows/s ceiling for the stream writer.
func BenchmarkWriteWorkbook(b *testing.B) {
	const n = 100_000
	db := openDB(b)
	mustExec(b, db, fmt.Sprintf(`CREATE TABLE bench AS SELECT
		range AS id,
		'mid' || lpad((range %% 500)::VARCHAR, 3, '0') AS merchant_id,
		'pay_' || md5(range::VARCHAR) AS payment_id,
		((range * 7919) %% 1000000 / 100.0)::DECIMAL(18,2) AS amount,
		DATE '2026-11-20' - (range %% 30)::INTEGER AS day,
		TIMESTAMPTZ '2026-11-20 00:00:00+00' + to_seconds(range) AS submitted,
		range %% 3 = 0 AS settled,
		('{"reason":"r' || (range %% 7) || '"}')::JSON AS detail
		FROM range(%d)`, n))
	wb := Workbook{Sheets: []Sheet{{Name: "Findings", Blocks: []Block{{
		Query: `SELECT * FROM bench ORDER BY id`,
		Columns: []Column{
			{Header: "ID", Type: Integer}, {Header: "Merchant"}, {Header: "Payment"},
			{Header: "Amount", Type: Amount}, {Header: "Day", Type: Date},
			{Header: "Submitted (UTC)", Type: Timestamp}, {Header: "Settled", Type: Bool},
			{Header: "Detail"},
		},
	}}}}}
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	iters := 0
	for b.Loop() {
		stats, err := WriteWorkbook(context.Background(), db, filepath.Join(dir, "bench.xlsx"), wb)
		if err != nil {
			b.Fatal(err)
		}
		if stats.Rows["Findings"] != n {
			b.Fatalf("wrote %d rows", stats.Rows["Findings"])
		}
		iters++
	}
	b.ReportMetric(float64(n*iters)/time.Since(start).Seconds(), "rows/s")
}

// BenchmarkWriteWorkbookCurrencies is the finding-sheet shape: amounts
// formatted per row in the currency of the next column (five currencies),
// to show that per-row number formats cost nothing against the stream
// writer's ceiling.
func BenchmarkWriteWorkbookCurrencies(b *testing.B) {
	const n = 100_000
	db := openDB(b)
	mustExec(b, db, fmt.Sprintf(`CREATE TABLE bench AS SELECT
		'mid' || lpad((range %% 500)::VARCHAR, 3, '0') AS merchant_id,
		'pay_' || md5(range::VARCHAR) AS payment_id,
		((range * 7919) %% 1000000 / 100.0)::DECIMAL(18,2) AS amount,
		['USD', 'EUR', 'GBP', 'JPY', 'CHF'][range %% 5 + 1] AS currency,
		DATE '2026-11-20' - (range %% 30)::INTEGER AS first_seen,
		('{"reason":"r' || (range %% 7) || '"}')::JSON AS detail
		FROM range(%d)`, n))
	wb := Workbook{Sheets: []Sheet{{Name: "Findings", Blocks: []Block{{
		Query: `SELECT * FROM bench`,
		Columns: []Column{
			{Header: "Merchant"}, {Header: "Payment"}, {Header: "Amount", Type: Amount, CurrencyColumn: 4},
			{Header: "Currency"}, {Header: "First seen", Type: Date}, {Header: "Detail"},
		},
	}}}}}
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	iters := 0
	for b.Loop() {
		if _, err := WriteWorkbook(context.Background(), db, filepath.Join(dir, "bench.xlsx"), wb); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	b.ReportMetric(float64(n*iters)/time.Since(start).Seconds(), "rows/s")
}
