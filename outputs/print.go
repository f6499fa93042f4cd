package outputs

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Papers a workbook can be set up to print on (Workbook.Paper).
const (
	PaperA4     = "A4"
	PaperLetter = "Letter"
)

// paperSizes are the papers' codes in SpreadsheetML (ECMA-376 paperSize)
// and their printable width in landscape, in millimetres: the long side
// less Excel's default margins of 0.7 inch left and right.
var paperSizes = map[string]struct {
	code      int
	landscape float64
}{
	PaperA4:     {9, 297 - 2*17.78},
	PaperLetter: {1, 279.4 - 2*17.78},
}

// ValidPaper tells whether p names a paper the workbook can be set up for
// ("" is A4).
func ValidPaper(p string) bool {
	_, ok := paperSizes[p]
	return ok || p == ""
}

// Printing. A column width unit is the width of a '0' of the default
// font, 7 pixels at 96 dpi, plus 5 pixels of padding per column: 1.852 mm
// per unit. Below minLegibleScale the 11-point text prints under 7 points,
// which nobody reads on paper; a sheet wider than that on one page is
// printed at printScale, its first columns (the kinds' sheets put who,
// what and how much first) on the first page, the others on the pages
// after, with the header rows repeated.
const (
	mmPerWidthUnit  = 25.4 / 96 * 7
	mmPerColumnPad  = 25.4 / 96 * 5
	minLegibleScale = 0.65
	printScale      = 70
)

// fitsOnePageWide tells whether columns of widths, and the charts
// beside them, print legibly on one landscape page of paper: at
// minLegibleScale or larger.
func fitsOnePageWide(widths []float64, charts []Chart, paper string) bool {
	ps, ok := paperSizes[paper]
	if !ok {
		ps = paperSizes[PaperA4]
	}
	colMM := func(n int) float64 { // the left edge of 0-based column n
		mm := 0.0
		for i := 0; i < n; i++ {
			w := 8.43 // Excel's default width
			if i < len(widths) {
				w = widths[i]
			}
			mm += w*mmPerWidthUnit + mmPerColumnPad
		}
		return mm
	}
	mm := colMM(len(widths))
	for _, c := range charts {
		col, _, err := excelize.CellNameToCoordinates(c.Cell)
		if err != nil {
			continue
		}
		width := c.Width
		if width == 0 {
			width = 480
		}
		mm = max(mm, colMM(col-1)+float64(width)*25.4/96)
	}
	return mm*minLegibleScale <= ps.landscape
}

// setUpPrinting sets a page's printing: landscape, on the workbook's
// paper, one page wide when that stays legible (fitsOnePageWide), else at
// printScale across as many pages as it takes. Sheet properties must be
// set before the page's stream writer starts.
func (w *xlsxWriter) setUpPrinting(name string) error {
	ps, ok := paperSizes[w.paper]
	if !ok {
		ps = paperSizes[PaperA4]
	}
	fit := fitsOnePageWide(w.widths, w.charts, w.paper)
	landscape, size := "landscape", ps.code
	if err := w.f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	layout := &excelize.PageLayoutOptions{Orientation: &landscape, Size: &size}
	if fit {
		one, anyHeight := 1, 0
		layout.FitToWidth, layout.FitToHeight = &one, &anyHeight
	} else {
		scale, order := uint(printScale), "overThenDown"
		layout.AdjustTo, layout.PageOrder = &scale, &order
	}
	return w.f.SetPageLayout(name, layout)
}

// setPrintTitles repeats the header row of a page's filtered table (its
// Main table, or its only one) at the top of every printed page.
func (w *xlsxWriter) setPrintTitles(p *page) error {
	if p.filter == "" || !(p.tables == 1 || p.mainFilter) {
		return nil
	}
	first, _, _ := strings.Cut(p.filter, ":")
	_, row, err := excelize.CellNameToCoordinates(first)
	if err != nil {
		return err
	}
	r := "$" + strconv.Itoa(row)
	return w.f.SetDefinedName(&excelize.DefinedName{
		Name:     "_xlnm.Print_Titles",
		Scope:    p.name,
		RefersTo: quoteSheet(p.name) + "!" + r + ":" + r,
	})
}

// writeIntro writes a sheet's opening lines (Sheet.Intro), one a row,
// each merged across the sheet's first columns (as many as make a
// screen's width) and wrapped there, its row as high as the text needs.
func (w *xlsxWriter) writeIntro(p *page, lines []string) error {
	cols, width := 0, 0.0
	for _, wd := range w.widths {
		if width >= introWidth {
			break
		}
		cols++
		width += wd
	}
	cols, width = max(cols, 1), max(width, 10)
	for _, line := range lines {
		perLine := max(int(width*1.15), 1)
		n := 0
		for _, para := range strings.Split(line, "\n") {
			n += max(1, (len([]rune(para))+perLine-1)/perLine)
		}
		height := float64(min(n, 409/lineHeight) * lineHeight)
		if err := p.setRow([]any{excelize.Cell{StyleID: w.styles.intro, Value: line}},
			excelize.RowOpts{Height: math.Max(height, lineHeight)}); err != nil {
			return err
		}
		if cols > 1 {
			last, _ := excelize.CoordinatesToCellName(cols, p.row)
			if err := p.sw.MergeCell("A"+strconv.Itoa(p.row), last); err != nil {
				return err
			}
		}
	}
	return nil
}

// introWidth is how wide (in width units) a sheet's opening lines run
// before they wrap: about a laptop screen.
const introWidth = 110

// linkCell makes a Link column's value a link to the sheet of that name:
// a HYPERLINK formula (the stream writer writes no hyperlink parts) whose
// cached value is the name, so a reader that does not compute formulas
// still shows it. A value that names no sheet of the workbook stays text:
// only the workbook's own sheet names, written by the program, become
// part of a formula.
func (w *xlsxWriter) linkCell(val any, style int) (excelize.Cell, bool) {
	name, ok := val.(string)
	if !ok || !w.sheetNames[name] {
		return excelize.Cell{}, false
	}
	target := "#" + quoteSheet(name) + "!A1"
	formula := fmt.Sprintf("HYPERLINK(%s,%s)", formulaString(target), formulaString(name))
	return excelize.Cell{StyleID: w.styles.link, Formula: formula, Value: name}, true
}

// formulaString is s as a string literal of a formula, its quotes doubled.
func formulaString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
