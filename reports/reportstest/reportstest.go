// Package reportstest reads workbooks back for tests: DumpWorkbook renders
// what a reader sees, cell by cell, as the text the golden files of
// package reports hold, and that tests elsewhere compare (a merged
// publication's workbook with a full run's).
package reportstest

import (
	"archive/zip"
	"fmt"
	"html"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// builtinFormats names the built-in number formats the writer uses.
var builtinFormats = map[int]string{0: "General", 1: "0", 3: "#,##0", 4: "#,##0.00", 10: "0.00%"}

// DumpWorkbook renders what a reader of the workbook sees, cell by cell: for
// each sheet its frozen rows, autofilter and column widths, then every
// non-empty cell with its type, stored value, shown value, number format,
// boldness, wrapping and horizontal alignment;
// then each chart's title and the cells it plots. Golden files compare this
// text, never the file's bytes (zip and XML details vary harmlessly).
func DumpWorkbook(t testing.TB, path string) string {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	for _, sheet := range f.GetSheetList() {
		fmt.Fprintf(&b, "== sheet %q\n", sheet)
		panes, _ := f.GetPanes(sheet)
		if panes.Freeze {
			fmt.Fprintf(&b, "frozen rows: %d\n", panes.YSplit)
		}
		for _, d := range f.GetDefinedName() {
			if d.Name == "_xlnm._FilterDatabase" && d.Scope == sheet {
				fmt.Fprintf(&b, "autofilter: %s\n", d.RefersTo)
			}
		}
		raw, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		shown, _ := f.GetRows(sheet)
		ncols := 0
		for _, r := range raw {
			ncols = max(ncols, len(r))
		}
		var widths []string
		for c := 1; c <= ncols; c++ {
			name, _ := excelize.ColumnNumberToName(c)
			w, _ := f.GetColWidth(sheet, name)
			widths = append(widths, fmt.Sprintf("%s=%g", name, w))
		}
		fmt.Fprintf(&b, "widths: %s\n", strings.Join(widths, " "))
		for r, row := range raw {
			for c, v := range row {
				if v == "" {
					continue
				}
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				typ, _ := f.GetCellType(sheet, ref)
				kind := map[excelize.CellType]string{excelize.CellTypeInlineString: "text", excelize.CellTypeSharedString: "text",
					excelize.CellTypeBool: "bool", excelize.CellTypeNumber: "number", excelize.CellTypeUnset: "number"}[typ]
				line := fmt.Sprintf("%s %s %q", ref, kind, v)
				if s := shown[r][c]; s != v {
					line += fmt.Sprintf(" shown %q", s)
				}
				styleID, _ := f.GetCellStyle(sheet, ref)
				if st, err := f.GetStyle(styleID); err == nil {
					switch {
					case st.CustomNumFmt != nil:
						line += " fmt " + strconv.Quote(*st.CustomNumFmt)
					case st.NumFmt != 0:
						line += " fmt " + strconv.Quote(builtinFormats[st.NumFmt])
					}
					if st.Font != nil && st.Font.Bold {
						line += " bold"
					}
					if st.Alignment != nil && st.Alignment.WrapText {
						line += " wrap"
					}
					if st.Alignment != nil && st.Alignment.Horizontal != "" {
						line += " " + st.Alignment.Horizontal
					}
				}
				if fm, _ := f.GetCellFormula(sheet, ref); fm != "" {
					line += " FORMULA " + strconv.Quote(fm)
				}
				b.WriteString(line + "\n")
			}
		}
	}
	charts := ZipFiles(t, path, "xl/charts/chart")
	names := make([]string, 0, len(charts))
	for n := range charts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		x := charts[n]
		title := ""
		if m := regexp.MustCompile(`<a:t>([^<]*)</a:t>`).FindStringSubmatch(x); m != nil {
			title = html.UnescapeString(m[1])
		}
		var refs []string
		for _, m := range regexp.MustCompile(`<(?:c:)?f>([^<]*)</(?:c:)?f>`).FindAllStringSubmatch(x, -1) {
			refs = append(refs, html.UnescapeString(m[1]))
		}
		typ := regexp.MustCompile(`<(?:c:)?(barChart|pieChart|doughnutChart|lineChart)>`).FindStringSubmatch(x)
		kind := ""
		if typ != nil {
			kind = typ[1]
		}
		fmt.Fprintf(&b, "== chart %q %s %s\n", title, kind, strings.Join(refs, " "))
	}
	return b.String()
}

// ZipFiles returns the parts of the xlsx file at path whose names start
// with prefix (xl/charts/chart, xl/worksheets/), by name.
func ZipFiles(t testing.TB, path, prefix string) map[string]string {
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
