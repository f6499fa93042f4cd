package outputs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestWorkbookPrintsLegibly: a sheet prints landscape on the workbook's
// paper with its table's header row repeated on every page; one page wide
// when its columns fit at a legible scale, and otherwise at a fixed
// legible scale across pages (the first columns on the first page), never
// shrunk to one page wide at a few points.
func TestWorkbookPrintsLegibly(t *testing.T) {
	db := openDB(t)
	var wide []Column
	var sel []string
	for i := 0; i < 30; i++ {
		wide = append(wide, Column{Header: fmt.Sprintf("Column %d", i+1), Width: 20})
		sel = append(sel, fmt.Sprintf("'v%d'", i))
	}
	narrow := []Column{{Header: "Merchant ID"}, {Header: "Amount", Type: Amount}}
	for _, paper := range []struct {
		name string
		code int
	}{{"", 9}, {PaperA4, 9}, {PaperLetter, 1}} {
		path := filepath.Join(t.TempDir(), "p.xlsx")
		wb := Workbook{Paper: paper.name, Sheets: []Sheet{
			{Name: "Narrow", Intro: []string{"What it means: a test.", "What to do: nothing."}, Blocks: []Block{
				{Title: "Totals", Query: "SELECT 'x', 1.5", Columns: narrow},
				{Title: "Findings", Query: "SELECT 'm' || i, i FROM range(3) t(i)", Columns: narrow, Main: true}}},
			{Name: "Wide", Blocks: []Block{{Query: "SELECT " + strings.Join(sel, ", ") + " FROM range(2)", Columns: wide}}},
		}}
		if _, err := WriteWorkbook(context.Background(), db, path, wb); err != nil {
			t.Fatal(err)
		}
		f := openXLSX(t, path)
		for _, c := range []struct {
			sheet       string
			fit         bool
			titles      string
			frozen      int
			firstHeader string
		}{
			// The opening lines, an empty row, the totals (title, header,
			// row), an empty row, the main table's title and header.
			{"Narrow", true, "$9:$9", 9, "A9"},
			{"Wide", false, "$1:$1", 1, "A1"},
		} {
			layout, err := f.GetPageLayout(c.sheet)
			if err != nil {
				t.Fatal(err)
			}
			props, err := f.GetSheetProps(c.sheet)
			if err != nil {
				t.Fatal(err)
			}
			fit := props.FitToPage != nil && *props.FitToPage
			if *layout.Orientation != "landscape" || *layout.Size != paper.code || fit != c.fit {
				t.Errorf("paper %q sheet %s: orientation %s, size %d, fit to page %v; want landscape, %d, %v",
					paper.name, c.sheet, *layout.Orientation, *layout.Size, fit, paper.code, c.fit)
			}
			if fit && (layout.FitToWidth == nil || *layout.FitToWidth != 1 || *layout.FitToHeight != 0) {
				t.Errorf("sheet %s: fit %v wide × %v high, want 1 × any", c.sheet, layout.FitToWidth, layout.FitToHeight)
			}
			if !fit && (layout.AdjustTo == nil || *layout.AdjustTo < uint(minLegibleScale*100)) {
				t.Errorf("sheet %s: printed at %v%%, want a legible scale", c.sheet, layout.AdjustTo)
			}
			titles := ""
			for _, d := range f.GetDefinedName() {
				if d.Name == "_xlnm.Print_Titles" && d.Scope == c.sheet {
					titles = d.RefersTo
				}
			}
			if titles != "'"+c.sheet+"'!"+c.titles {
				t.Errorf("sheet %s: print titles %q, want its header row %s", c.sheet, titles, c.titles)
			}
			if v := cell(t, f, c.sheet, c.firstHeader, false); v != narrow[0].Header && v != wide[0].Header {
				t.Errorf("sheet %s: %s is %q, want the main table's header", c.sheet, c.firstHeader, v)
			}
			panes, err := f.GetPanes(c.sheet)
			if err != nil || !panes.Freeze || panes.YSplit != c.frozen {
				t.Errorf("sheet %s: frozen %d rows (%v), want %d: through the main table's header", c.sheet, panes.YSplit, err, c.frozen)
			}
		}
		// The opening lines come first, each its own row, merged across
		// the first columns.
		if a1, a2 := cell(t, f, "Narrow", "A1", false), cell(t, f, "Narrow", "A2", false); a1 != "What it means: a test." || a2 != "What to do: nothing." {
			t.Errorf("opening lines %q, %q", a1, a2)
		}
		merged, _ := f.GetMergeCells("Narrow")
		if len(merged) != 2 || merged[0].GetStartAxis() != "A1" || merged[1].GetStartAxis() != "A2" {
			t.Errorf("merged cells of the opening lines: %v", merged)
		}
		f.Close()
	}
}

// TestWriteWorkbookLinksToSheets: a Link column's value that names a sheet
// of the workbook becomes a link to it (a HYPERLINK formula showing the
// name); any other value, a formula-like one included, stays text.
func TestWriteWorkbookLinksToSheets(t *testing.T) {
	db := openDB(t)
	path := filepath.Join(t.TempDir(), "l.xlsx")
	wb := Workbook{Sheets: []Sheet{
		{Name: "Summary", Blocks: []Block{{Query: `SELECT * FROM (VALUES ('Billed "twice"'), ('Owner''s sheet'), ('=HYPERLINK("http://x")'), ('Nowhere')) v(s)`,
			Columns: []Column{{Header: "Finding", Link: true}}}}},
		{Name: `Billed "twice"`, Blocks: []Block{{Query: "SELECT 1", Columns: []Column{{Header: "n", Type: Count}}}}},
		{Name: "Owner's sheet", Blocks: []Block{{Query: "SELECT 1", Columns: []Column{{Header: "n", Type: Count}}}}},
	}}
	if _, err := WriteWorkbook(context.Background(), db, path, wb); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	defer f.Close()
	for ref, want := range map[string]string{
		"A2": `HYPERLINK("#'Billed ""twice""'!A1","Billed ""twice""")`,
		"A3": `HYPERLINK("#'Owner''s sheet'!A1","Owner's sheet")`,
		"A4": "",
		"A5": "",
	} {
		got, err := f.GetCellFormula("Summary", ref)
		if err != nil || got != want {
			t.Errorf("Summary!%s formula %q (%v), want %q", ref, got, err, want)
		}
	}
	if v := cell(t, f, "Summary", "A3", true); v != "Owner's sheet" {
		t.Errorf("Summary!A3 shows %q, want the sheet's name", v)
	}
	if v, _ := f.GetCellType("Summary", "A4"); v == excelize.CellTypeFormula {
		t.Error("a value that names no sheet became a formula")
	}
}

// TestWriteWorkbookLeadColumns: a FromQuery block's Lead columns come
// first, in Lead's order, the others after them in the query's order; the
// values move with their headers and an amount keeps its own currency's
// format.
func TestWriteWorkbookLeadColumns(t *testing.T) {
	db := openDB(t)
	path := filepath.Join(t.TempDir(), "lead.xlsx")
	wb := Workbook{Sheets: []Sheet{{Name: "Kind", Blocks: []Block{{
		Query:     `SELECT 'm1' AS "Merchant ID", 's1' AS "Subscription ID", 12.5::DECIMAL(18,2) AS "Amount", 'EUR' AS "Currency", 'Jane' AS "Customer"`,
		FromQuery: true,
		Lead:      []string{"Merchant ID", "Customer", "Amount", "Currency", "No such column"},
	}}}}}
	if _, err := WriteWorkbook(context.Background(), db, path, wb); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	defer f.Close()
	rows, _ := f.GetRows("Kind")
	if len(rows) != 2 || strings.Join(rows[0], ",") != "Merchant ID,Customer,Amount,Currency,Subscription ID" ||
		strings.Join(rows[1], ",") != "m1,Jane,€ 12.50,EUR,s1" {
		t.Errorf("rows %q, want the lead columns first and their values with them", rows)
	}
}
