package outputs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// ChartType is the kind of a native Excel chart.
type ChartType int

// Chart types. Each is drawn by Excel (or LibreOffice) from the sheet's own
// cells, so a reader can see and check the numbers behind every bar.
const (
	BarChart        ChartType = iota // horizontal bars: long category names stay readable
	StackedBarChart                  // horizontal bars, one segment per series
	ColumnChart                      // vertical bars
	PieChart
	DoughnutChart
)

var excelChartTypes = map[ChartType]excelize.ChartType{
	BarChart:        excelize.Bar,
	StackedBarChart: excelize.BarStacked,
	ColumnChart:     excelize.Col,
	PieChart:        excelize.Pie,
	DoughnutChart:   excelize.Doughnut,
}

// Chart plots rows of one block of its sheet: one category per row, one
// series per value column, named by the column's header.
type Chart struct {
	Title      string
	Type       ChartType
	Block      int    // 0-based index of the sheet's block whose rows are plotted
	Categories int    // 1-based column of the block holding the category labels
	Values     []int  // 1-based columns holding the numbers, one series each
	Cell       string // top-left cell of the chart, e.g. "J2"
	Width      uint   // pixels; 0 = 480
	Height     uint   // pixels; 0 = 288
}

func (c Chart) validate(blocks []Block) error {
	if _, ok := excelChartTypes[c.Type]; !ok {
		return fmt.Errorf("unknown chart type %d", c.Type)
	}
	if c.Block < 0 || c.Block >= len(blocks) {
		return fmt.Errorf("block %d of %d", c.Block, len(blocks))
	}
	b := blocks[c.Block]
	if b.Record {
		return errors.New("a chart cannot plot a record block")
	}
	cols := append([]int{c.Categories}, c.Values...)
	if len(c.Values) == 0 {
		return errors.New("no value column")
	}
	for _, col := range cols {
		if col < 1 || col > len(b.Columns) {
			return fmt.Errorf("column %d of %d", col, len(b.Columns))
		}
	}
	if _, _, err := excelize.CellNameToCoordinates(c.Cell); err != nil {
		return fmt.Errorf("anchor cell %q: %w", c.Cell, err)
	}
	return nil
}

// placement is where a block's rows landed: its page (sheet), header row,
// and first and last data rows on that page (last < first when it has
// none). A block that continues on further sheets is placed by its first.
type placement struct {
	page                string
	header, first, last int
}

// addCharts adds every chart of the current sheet whose block was written
// on page and has rows. A chart over an empty block is left out: an empty
// plot area tells the reader less than the empty table beside it.
func (w *xlsxWriter) addCharts(page string) error {
	for i, c := range w.charts {
		pl, ok := w.placed[c.Block]
		if !ok || pl.page != page || w.chartDone[i] {
			continue
		}
		w.chartDone[i] = true
		if pl.last < pl.first {
			continue
		}
		ref := func(col, r1, r2 int) string {
			a, _ := excelize.CoordinatesToCellName(col, r1, true)
			if r2 == 0 {
				return quoteSheet(page) + "!" + a
			}
			b, _ := excelize.CoordinatesToCellName(col, r2, true)
			return quoteSheet(page) + "!" + a + ":" + b
		}
		chart := &excelize.Chart{
			Type:      excelChartTypes[c.Type],
			Title:     []excelize.RichTextRun{{Text: c.Title}},
			Dimension: excelize.ChartDimension{Width: 480, Height: 288},
			Legend:    excelize.ChartLegend{Position: "bottom"},
			PlotArea:  excelize.ChartPlotArea{ShowVal: c.Type == BarChart || c.Type == ColumnChart},
		}
		if c.Width > 0 {
			chart.Dimension.Width = c.Width
		}
		if c.Height > 0 {
			chart.Dimension.Height = c.Height
		}
		if c.Type == PieChart || c.Type == DoughnutChart {
			chart.PlotArea.ShowPercent = true
			chart.Legend.Position = "right"
		}
		if len(c.Values) == 1 && c.Type != PieChart && c.Type != DoughnutChart {
			chart.Legend.Position = "none"
		}
		// Axis labels in dark grey (the default renders nearly white in
		// LibreOffice); horizontal bars list categories top-down, in the
		// table's order, instead of Excel's bottom-up.
		axisFont := excelize.Font{Color: "404040"}
		chart.XAxis = excelize.ChartAxis{Font: axisFont, ReverseOrder: c.Type == BarChart || c.Type == StackedBarChart}
		chart.YAxis = excelize.ChartAxis{Font: axisFont}
		for _, v := range c.Values {
			chart.Series = append(chart.Series, excelize.ChartSeries{
				Name:       ref(v, pl.header, 0),
				Categories: ref(c.Categories, pl.first, pl.last),
				Values:     ref(v, pl.first, pl.last),
			})
		}
		if err := w.f.AddChart(page, c.Cell, chart); err != nil {
			return fmt.Errorf("chart %q: %w", c.Title, err)
		}
	}
	return nil
}

// quoteSheet quotes a sheet name for a cell reference: 'Name'!$A$1, with an
// apostrophe in the name doubled.
func quoteSheet(name string) string {
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}
