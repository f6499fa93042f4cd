package outputs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"
)

// maxSheetRows is Excel's row limit per sheet, header and title rows
// included. It is a variable only so that tests can exercise continuation
// sheets without writing a million rows; nothing else changes it.
var maxSheetRows = excelize.TotalRows

// ctxCheckEvery is how many rows are written between checks of the context,
// so a cancelled run stops within milliseconds without paying for a check per
// row.
const ctxCheckEvery = 4096

// ColumnType says how a column's values are stored and formatted in the
// workbook. Typed cells (numbers, dates) are what let finance sort, filter and
// sum without retyping text.
type ColumnType int

// Column types. Text is the zero value, so an undeclared type is shown as is.
const (
	Text      ColumnType = iota
	Integer              // a whole number; beyond ±2^53 (Excel's exact range) written as text
	Amount               // two-decimal number; cell number format "#,##0.00"
	Date                 // a date cell (Excel serial date) formatted yyyy-mm-dd
	Timestamp            // a date-time cell formatted yyyy-mm-dd hh:mm:ss (UTC)
	Bool                 // a TRUE/FALSE cell
	Percent              // a fraction (0.125) shown as a percentage (12.50%)
	Count                // an Integer shown with thousands separators (12,345): counts, not IDs
)

var columnTypeNames = [...]string{"text", "integer", "amount", "date", "timestamp", "bool", "percent", "count"}

// numeric tells whether the column's cells are numbers to Excel (dates
// and times are), which it aligns right: their header goes right too.
func (t ColumnType) numeric() bool {
	switch t {
	case Integer, Amount, Date, Timestamp, Percent, Count:
		return true
	}
	return false
}

func (t ColumnType) String() string {
	if t >= 0 && int(t) < len(columnTypeNames) {
		return columnTypeNames[t]
	}
	return "ColumnType(" + strconv.Itoa(int(t)) + ")"
}

// Column is one column of a block.
type Column struct {
	Header string
	Type   ColumnType
	Width  float64 // 0 = a sensible default by type and header length
	// CurrencyColumn, for an Amount column, is the 1-based position in
	// the block of the column holding each row's ISO 4217 currency code;
	// each amount is then formatted in its own currency ("$1,234.50",
	// "€ 1,234.50", "¥1,235", "1,234.50 CHF"). 0: the plain #,##0.00. A
	// column mixing currencies must never be summed, and the formats make
	// that visible at a glance.
	CurrencyColumn int
	// Wrap wraps text within the column width (and aligns the row's cells
	// of wrapping columns to the top), for prose such as the Legend's.
	Wrap bool
	// Link, for a Text column, makes a value that is the name of one of
	// the workbook's sheets a link to that sheet (the Summary's findings):
	// a reader clicks a row to open its sheet. Any other value stays text.
	Link bool
}

// Block is one table on a sheet: an optional title row, a header row, then one
// row per result row of Query. The query's result columns map to Columns by
// position; a different number of result columns is an error, since it means
// the catalog and the SQL disagree.
type Block struct {
	Title   string
	Query   string
	Args    []any
	Columns []Column
	// Overflow names the Parquet dataset holding the same rows (for example
	// "parquet/findings"). If the block has more rows than a sheet holds,
	// the note row on its first sheet points there, since the data then
	// spans several sheets and is awkward to analyse in Excel.
	Overflow string
	// Record shows a query of one row as label/value pairs: each column's
	// Header in the first sheet column (bold), its typed value beside it.
	// A run's facts read better down a page than across twelve columns,
	// and each value keeps its own type (a date stays a date). No row
	// leaves the values empty; more than one is an error.
	Record bool
	// FromQuery takes the block's columns from its query instead of
	// Columns (which must then be empty): each result column's name is its
	// header and its DuckDB type its ColumnType (see columnsOf), so one SQL
	// statement alone defines a table, typed, and its headers cannot drift
	// from its columns. Text columns are as wide as their longest value
	// (within limits); an Amount column is formatted in the currency of
	// the first column after it named "Currency" or "... currency".
	FromQuery bool
	// Lead, for a FromQuery block, names columns to put first, in this
	// order, the others following in the query's order (a name the query
	// does not have is skipped): the columns a reader needs first are the
	// ones on a printed sheet's first page.
	Lead []string
	perm []int // of a Lead block: the query's column index of each column shown
	// Main marks the sheet's main table when small tables come above it
	// (a sheet's totals): the autofilter covers it rather than the first
	// table, and the rows down to its header stay frozen, so its header is
	// in view however far down the reader scrolls. The tables above it are
	// counted before the sheet is written; if they take more than
	// maxFrozenRows rows, only the first table's header is frozen.
	Main bool
}

// Sheet is one worksheet of the workbook.
type Sheet struct {
	Name   string  // ≤ 31 characters, Excel-valid, unique ignoring case
	Blocks []Block // written one below the other with an empty row between
	Charts []Chart // native Excel charts over blocks of this sheet
	// Intro are lines the sheet opens with, above its blocks, one a row,
	// wrapped across the first columns (a finding's sheet: what it means,
	// what to do). They stay in view with the frozen header rows.
	Intro []string
}

// Workbook is the whole workbook, sheets in order.
type Workbook struct {
	// Title is the document's title (File > Properties), shown by file
	// browsers and search without opening the file; empty: none.
	Title  string
	Sheets []Sheet
	// Paper is the paper every sheet is set up to print on, landscape
	// (PaperA4, PaperLetter); "" is A4.
	Paper string
}

// WorkbookStats reports what WriteWorkbook wrote.
type WorkbookStats struct {
	Rows map[string]int // data rows written per sheet name, continuation sheets included
}

// WriteWorkbook streams every sheet of wb to an .xlsx file at path, with the
// rows of each block's query.
//
// It uses excelize's StreamWriter only: the ordinary API keeps every cell in
// memory (~12 KB per row, 12 GB for a million rows), the stream writer keeps
// ~16 MB and spills the rest to temp files, which go in path's directory
// because that file system must hold the result anyway. The file is written
// to a temp name in the same directory and renamed to path when complete.
//
// Header rows are bold and frozen (frozen through the first block's header
// row, title and overflow note included), a sheet holding one table gets an
// autofilter over it, column widths are set (by Column.Width or by type), and
// each value is stored as a typed cell per Column.Type; see cellValue for the
// conversions. Text is always stored as a string cell, never as a formula, so
// a value such as "=HYPERLINK(...)" coming from the platform cannot run in
// the reader's Excel.
//
// A block with more rows than fit on a sheet continues on "<Name> (2)",
// "<Name> (3)", ..., each with the block's header; the first sheet then gets
// a note row above the header naming the next sheet and Block.Overflow.
//
// Amount columns with a CurrencyColumn take each row's currency format
// (CurrencyFormat), Record blocks show one row as label/value pairs, and a
// sheet's Charts are native Excel charts over the cells its blocks wrote,
// added before the stream is flushed (the only time a streamed sheet can
// still get its drawing).
func WriteWorkbook(ctx context.Context, q Querier, path string, wb Workbook) (WorkbookStats, error) {
	stats := WorkbookStats{Rows: map[string]int{}}
	used, err := validateWorkbook(wb)
	if err != nil {
		return stats, fmt.Errorf("workbook %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return stats, fmt.Errorf("workbook %s: %w", path, err)
	}
	f := excelize.NewFile(excelize.Options{TmpDir: dir})
	defer f.Close()
	if wb.Title != "" {
		if err := f.SetDocProps(&excelize.DocProperties{Title: wb.Title}); err != nil {
			return stats, fmt.Errorf("workbook %s: title: %w", path, err)
		}
	}
	w := &xlsxWriter{f: f, tmpDir: dir, q: q, used: used, stats: stats, paper: wb.Paper, sheetNames: map[string]bool{}}
	for _, s := range wb.Sheets {
		w.sheetNames[s.Name] = true
	}
	if err := w.newStyles(); err != nil {
		return stats, fmt.Errorf("workbook %s: styles: %w", path, err)
	}
	for _, s := range wb.Sheets {
		if err := w.writeSheet(ctx, s); err != nil {
			return stats, fmt.Errorf("workbook %s: sheet %q: %w", path, s.Name, err)
		}
	}
	err = writeFileAtomic(path, func(out *os.File) error { return writeWorkbookFile(f, out) })
	if err != nil {
		return stats, fmt.Errorf("workbook %s: %w", path, err)
	}
	return stats, nil
}

// validateWorkbook checks what Excel would reject or "repair" before any
// query runs, and returns the sheet names in use (lower-cased, as Excel
// compares them) so continuation sheets can avoid them.
func validateWorkbook(wb Workbook) (map[string]bool, error) {
	if len(wb.Sheets) == 0 {
		return nil, errors.New("no sheets")
	}
	if !ValidPaper(wb.Paper) {
		return nil, fmt.Errorf("paper %q: want %s or %s", wb.Paper, PaperA4, PaperLetter)
	}
	used := map[string]bool{}
	for _, s := range wb.Sheets {
		if err := checkSheetName(s.Name); err != nil {
			return nil, err
		}
		key := strings.ToLower(s.Name)
		if used[key] {
			return nil, fmt.Errorf("sheet name %q used twice (Excel ignores case)", s.Name)
		}
		used[key] = true
		for i, b := range s.Blocks {
			if strings.TrimSpace(b.Query) == "" {
				return nil, fmt.Errorf("sheet %q block %d: empty query", s.Name, i+1)
			}
			switch {
			case b.FromQuery && (len(b.Columns) > 0 || b.Record):
				return nil, fmt.Errorf("sheet %q block %d: columns from the query, yet declared (or a record)", s.Name, i+1)
			case !b.FromQuery && (len(b.Columns) == 0 || len(b.Columns) > excelize.MaxColumns):
				return nil, fmt.Errorf("sheet %q block %d: %d columns", s.Name, i+1, len(b.Columns))
			}
			for _, c := range b.Columns {
				if c.CurrencyColumn < 0 || c.CurrencyColumn > len(b.Columns) {
					return nil, fmt.Errorf("sheet %q block %d column %q: currency column %d of %d",
						s.Name, i+1, c.Header, c.CurrencyColumn, len(b.Columns))
				}
			}
		}
		for i, c := range s.Charts {
			if err := c.validate(s.Blocks); err != nil {
				return nil, fmt.Errorf("sheet %q chart %d: %w", s.Name, i+1, err)
			}
		}
	}
	return used, nil
}

// checkSheetName applies Excel's rules: 1-31 characters (UTF-16 units, as
// Excel counts), none of : \ / ? * [ ], no leading or trailing apostrophe,
// and not the reserved "History".
func checkSheetName(name string) error {
	n := len(utf16.Encode([]rune(name)))
	switch {
	case n == 0:
		return errors.New("empty sheet name")
	case n > excelize.MaxSheetNameLength:
		return fmt.Errorf("sheet name %q longer than %d characters", name, excelize.MaxSheetNameLength)
	case strings.ContainsAny(name, `:\/?*[]`):
		return fmt.Errorf("sheet name %q contains one of : \\ / ? * [ ]", name)
	case strings.HasPrefix(name, "'") || strings.HasSuffix(name, "'"):
		return fmt.Errorf("sheet name %q starts or ends with an apostrophe", name)
	case strings.EqualFold(name, "History"):
		return fmt.Errorf("sheet name %q is reserved by Excel", name)
	}
	return nil
}

// xlsxWriter holds the state of one WriteWorkbook call.
type xlsxWriter struct {
	f      *excelize.File
	tmpDir string // where finished sheets wait for the zip (spillStream)
	q      Querier
	used   map[string]bool // sheet names taken, lower-cased
	stats  WorkbookStats
	sheets int // worksheets created so far
	paper  string
	// sheetNames are the workbook's sheets (Sheet.Name, as written): the
	// values a Link column links.
	sheetNames map[string]bool
	styles     styleSet
	widths     []float64 // column widths of the sheet being written

	// Of the sheet being written: its charts, and where each block's rows
	// landed (on the block's first page), filled as blocks are written.
	charts    []Chart
	chartDone []bool
	placed    map[int]placement
	staged    map[int]*stagedBlock // blocks' rows in temporary tables (stage); nil: not stageable
}

// page is one worksheet being streamed. A Sheet is one page, or several when
// a block continues past the row limit.
type page struct {
	name     string
	sw       *excelize.StreamWriter
	row      int // last row written, 0 before any
	dataRows int
	tables   int    // blocks started on this page
	filter   string // range of the filtered table: header row through last data row
	// mainFilter: filter is a Main block's, kept whatever else the page
	// holds; otherwise it is the first table's, used if it is the only one.
	mainFilter bool
}

func (w *xlsxWriter) writeSheet(ctx context.Context, s Sheet) error {
	w.staged = map[int]*stagedBlock{}
	defer w.unstageAll(ctx)
	blocks, err := w.resolveColumns(ctx, s.Blocks)
	if err != nil {
		return err
	}
	s.Blocks = blocks
	w.widths = columnWidths(s.Blocks)
	w.charts, w.chartDone, w.placed = s.Charts, make([]bool, len(s.Charts)), map[int]placement{}
	cont := 1 // number of the last continuation sheet named
	nextName := func() string {
		for {
			cont++
			name := continuationName(s.Name, cont)
			if key := strings.ToLower(name); !w.used[key] {
				w.used[key] = true
				return name
			}
		}
	}
	if len(s.Blocks) == 0 {
		p, err := w.openPage(s.Name, 0)
		if err != nil {
			return err
		}
		return w.closePage(p)
	}
	var p *page
	opened := false // whether s.Name itself has been used for a page
	lead := w.planMain(ctx, s.Blocks)
	intro := 0 // rows the opening lines and the empty row after them take
	if len(s.Intro) > 0 {
		intro = len(s.Intro) + 1
	}
	for bi, b := range s.Blocks {
		start := 1
		if p != nil {
			start = p.row + 2 // one empty row between blocks
		} else if !opened {
			start += intro
		}
		head := 1 // header row
		if b.Record {
			head = len(b.Columns) // the whole record
		}
		if b.Title != "" {
			head++
		}
		// A block that cannot get its header and one data row on this page
		// starts on the next one.
		if p != nil && start+head > maxSheetRows {
			if err := w.closePage(p); err != nil {
				return err
			}
			p, start = nil, 1
		}
		name := "" // of the page to open, named before the sheet the note names
		if p == nil {
			name = s.Name
			if opened {
				name = nextName()
			}
			opened = true
		}
		capacity := maxSheetRows - (start - 1) - head
		var next string // the continuation sheet the note names
		if over, known := lead.overflows[bi]; !b.Record && (known && over || !known && w.overflows(ctx, bi, b, capacity)) {
			next = nextName()
		}
		if p == nil {
			freeze := head
			if b.Record {
				freeze = head - len(b.Columns) // the title, if any: labels are data
			}
			if next != "" {
				freeze++ // the note row sits between title and header
			}
			if bi == 0 && lead.freeze > 0 {
				freeze = lead.freeze
			}
			first := name == s.Name
			if first {
				freeze += intro
			}
			var err error
			if p, err = w.openPage(name, freeze); err != nil {
				return err
			}
			if first && len(s.Intro) > 0 {
				if err := w.writeIntro(p, s.Intro); err != nil {
					return fmt.Errorf("opening lines: %w", err)
				}
			}
		}
		var err error
		if b.Record {
			err = w.writeRecord(ctx, p, bi, b)
		} else {
			p, err = w.writeBlock(ctx, p, bi, b, next, nextName)
		}
		if err != nil {
			return fmt.Errorf("block %d: %w", bi+1, err)
		}
	}
	return w.closePage(p)
}

// overflows tells whether the block's query returns more than capacity rows,
// so the note can go above the header: a stream writer cannot go back up. It
// is a best-effort hint: if the count fails (say, a statement DuckDB cannot
// nest), the block is written without the note and the real query reports
// any error.
func (w *xlsxWriter) overflows(ctx context.Context, bi int, b Block, capacity int) bool {
	capacity = max(capacity, 0)
	n, ok := w.countRows(ctx, bi, b, capacity+1)
	return ok && n > int64(capacity)
}

// countRows counts the rows of block bi's query: all of them for a staged
// block (stage), else up to limit, by running the query a second time
// wrapped in a count capped by LIMIT so that a huge result is not counted
// to its end. ok is false if the wrapped query fails.
func (w *xlsxWriter) countRows(ctx context.Context, bi int, b Block, limit int) (n int64, ok bool) {
	if s, staged := w.stage(ctx, bi, b); staged {
		return s.rows, true
	}
	count := "SELECT count(*) FROM (SELECT 1 FROM (\n" + trimQuery(b.Query) + "\n) LIMIT " + strconv.Itoa(limit) + ")"
	rows, err := w.q.QueryContext(ctx, count, b.Args...)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	if rows.Next() && rows.Scan(&n) == nil {
		return n, true
	}
	return 0, false
}

// maxFrozenRows bounds the rows frozen above a Main block's header: beyond
// it the frozen part would fill a laptop's screen.
const maxFrozenRows = 20

// leadPlan is what planMain found out ahead of writing a sheet.
type leadPlan struct {
	freeze    int          // rows to freeze on the sheet's first page; 0: the default
	overflows map[int]bool // blocks whose overflow is known already, by index
}

// planMain works out, before the first row of a sheet is written (when a
// stream writer takes its frozen panes), how many rows lie above the
// header of the sheet's Main block: the tables above it, counted, and its
// title and note. Nothing is planned when the Main block is the first (the
// default freezes its header already), when there is none, when a count
// fails or when the rows are more than maxFrozenRows.
func (w *xlsxWriter) planMain(ctx context.Context, blocks []Block) leadPlan {
	m := slices.IndexFunc(blocks, func(b Block) bool { return b.Main })
	if m <= 0 {
		return leadPlan{}
	}
	row := 0 // the last row the blocks before the main one take
	for i, b := range blocks[:m] {
		if i > 0 {
			row++ // the empty row between blocks
		}
		if b.Title != "" {
			row++
		}
		if b.Record {
			row += len(b.Columns)
			continue
		}
		n, ok := w.countRows(ctx, i, b, maxFrozenRows+1)
		if !ok {
			return leadPlan{}
		}
		row += 1 + int(n)
		if row > maxFrozenRows {
			return leadPlan{}
		}
	}
	main := blocks[m]
	row++ // the empty row before the main block
	head := 1
	if main.Title != "" {
		head++
	}
	over := w.overflows(ctx, m, main, maxSheetRows-row-head)
	freeze := row + head
	if over {
		freeze++ // the note row
	}
	if freeze > maxFrozenRows {
		return leadPlan{}
	}
	return leadPlan{freeze: freeze, overflows: map[int]bool{m: over}}
}

// openPage creates a worksheet and its stream writer, sets the column widths
// and freezes the top freeze rows; the stream writer accepts both only
// before the first row.
func (w *xlsxWriter) openPage(name string, freeze int) (*page, error) {
	if w.sheets == 0 {
		if err := w.f.SetSheetName(w.f.GetSheetName(0), name); err != nil {
			return nil, err
		}
	} else if _, err := w.f.NewSheet(name); err != nil {
		return nil, err
	}
	w.sheets++
	w.used[strings.ToLower(name)] = true
	// Printed landscape, one page wide when that stays legible
	// (setUpPrinting). Sheet properties must be set before the stream
	// writer starts.
	if err := w.setUpPrinting(name); err != nil {
		return nil, err
	}
	sw, err := w.f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	for i, width := range w.widths {
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return nil, err
		}
	}
	if freeze > 0 {
		err := sw.SetPanes(&excelize.Panes{
			Freeze:      true,
			YSplit:      freeze,
			TopLeftCell: "A" + strconv.Itoa(freeze+1),
			ActivePane:  "bottomLeft",
			Selection:   []excelize.Selection{{SQRef: "A" + strconv.Itoa(freeze+1), ActiveCell: "A" + strconv.Itoa(freeze+1), Pane: "bottomLeft"}},
		})
		if err != nil {
			return nil, err
		}
	}
	return &page{name: name, sw: sw}, nil
}

// closePage adds the autofilter when the page holds one table (an autofilter
// over several tables would sort one table's rows into another's), flushes
// the stream and records the page's row count.
func (w *xlsxWriter) closePage(p *page) error {
	// Charts go in before Flush, which writes the sheet's drawing reference.
	if err := w.addCharts(p.name); err != nil {
		return err
	}
	if p.filter != "" && (p.tables == 1 || p.mainFilter) {
		// The autofilter element is written by Flush, so it can be set
		// after the rows, once the table's extent is known.
		if err := w.f.AutoFilter(p.name, p.filter, nil); err != nil {
			return err
		}
		if strings.Contains(p.name, "'") {
			if err := w.fixFilterName(p.name); err != nil {
				return err
			}
		}
	}
	if err := w.setPrintTitles(p); err != nil {
		return err
	}
	if err := p.sw.Flush(); err != nil {
		return err
	}
	if err := spillStream(p.sw, w.tmpDir); err != nil {
		return err
	}
	w.stats.Rows[p.name] = p.dataRows
	return nil
}

// fixFilterName rewrites the hidden _xlnm._FilterDatabase name that
// excelize's AutoFilter defines as '<sheet>'!range without doubling an
// apostrophe inside the sheet name, which Excel reads as a broken formula and
// "repairs". The replacement cannot be marked hidden through excelize's API;
// Excel shows it in the Name Manager, which is harmless.
func (w *xlsxWriter) fixFilterName(sheet string) error {
	const name = "_xlnm._FilterDatabase"
	for _, d := range w.f.GetDefinedName() {
		if d.Name != name || d.Scope != sheet {
			continue
		}
		bang := strings.LastIndex(d.RefersTo, "!")
		if bang < 0 {
			return nil
		}
		if err := w.f.DeleteDefinedName(&excelize.DefinedName{Name: name, Scope: sheet}); err != nil {
			return err
		}
		return w.f.SetDefinedName(&excelize.DefinedName{
			Name:     name,
			Scope:    sheet,
			RefersTo: "'" + strings.ReplaceAll(sheet, "'", "''") + "'" + d.RefersTo[bang:],
		})
	}
	return nil
}

func (p *page) setRow(values []any, opts ...excelize.RowOpts) error {
	p.row++
	return p.sw.SetRow("A"+strconv.Itoa(p.row), values, opts...)
}

// beginTable writes a block's title, note and header rows.
func (w *xlsxWriter) beginTable(p *page, b Block, title, note string) (headerRow int, err error) {
	if p.row > 0 {
		p.row++ // the empty row between blocks
	}
	if title != "" {
		if err := p.setRow([]any{excelize.Cell{StyleID: w.styles.title, Value: title}}); err != nil {
			return 0, err
		}
	}
	if note != "" {
		if err := p.setRow([]any{excelize.Cell{StyleID: w.styles.note, Value: note}}); err != nil {
			return 0, err
		}
	}
	header := make([]any, len(b.Columns))
	for i, c := range b.Columns {
		style := w.styles.header
		if c.Type.numeric() {
			style = w.styles.headerRight // over the numbers, which Excel aligns right
		}
		header[i] = excelize.Cell{StyleID: style, Value: c.Header}
	}
	if err := p.setRow(header); err != nil {
		return 0, err
	}
	p.tables++
	return p.row, nil
}

// endTable records the extent of the page's first table, or of its Main
// table, for its autofilter.
func (p *page) endTable(headerRow, ncols int, main bool) {
	if p.tables != 1 && !main || p.mainFilter {
		return
	}
	last, _ := excelize.CoordinatesToCellName(ncols, p.row)
	p.filter = "A" + strconv.Itoa(headerRow) + ":" + last
	p.mainFilter = main
}

// writeBlock writes one block starting on p and returns the page it ended on.
// next, if not empty, is the continuation sheet announced by the note row.
func (w *xlsxWriter) writeBlock(ctx context.Context, p *page, bi int, b Block, next string, nextName func() string) (*page, error) {
	rows, err := w.openRows(ctx, bi, b)
	if err != nil {
		return p, fmt.Errorf("query: %w", err)
	}
	defer w.unstage(ctx, bi)
	defer rows.Close()
	types := rows.ColumnTypes()
	if len(types) != len(b.Columns) {
		return p, fmt.Errorf("query returns %d columns, block declares %d", len(types), len(b.Columns))
	}
	dbTypes := make([]string, len(types))
	for i, t := range types {
		dbTypes[i] = t.DatabaseTypeName()
	}
	if b.perm != nil { // the columns in the order Lead made (leadColumns)
		dbTypes = permuted(dbTypes, b.perm)
	}

	note := ""
	if next != "" {
		note = fmt.Sprintf("This table has more rows than one sheet holds: it continues on sheet %q and the sheets after it.", next)
		if b.Overflow != "" {
			note += " The full data is in the Parquet dataset " + b.Overflow + "."
		}
	}
	headerRow, err := w.beginTable(p, b, b.Title, note)
	if err != nil {
		return p, err
	}
	// Where the rows land on this first page, for charts over the block.
	place := placement{page: p.name, header: headerRow, first: headerRow + 1, last: headerRow}
	placed := false
	setPlaced := func() {
		if !placed {
			if p.name == place.page {
				place.last = p.row
			}
			w.placed[bi] = place
			placed = true
		}
	}

	n := len(b.Columns)
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var shown []any // the row in the block's column order, when Lead moved columns
	if b.perm != nil {
		shown = make([]any, n)
	}
	// SetRow accepts *Cell, so one set of cells is reused for every row
	// instead of boxing a new Cell per value.
	cells := make([]excelize.Cell, n)
	out := make([]any, n)
	wraps := false
	for _, c := range b.Columns {
		wraps = wraps || c.Wrap
	}
	for written := 0; rows.Next(); written++ {
		if written%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return p, err
			}
		}
		if p.row >= maxSheetRows {
			p.endTable(headerRow, n, b.Main)
			setPlaced()
			if err := w.closePage(p); err != nil {
				return p, err
			}
			name := next
			if name == "" {
				name = nextName()
			}
			next = ""
			head := 1
			title := ""
			if b.Title != "" {
				title = b.Title + " (continued)"
				head++
			}
			if p, err = w.openPage(name, head); err != nil {
				return p, err
			}
			if headerRow, err = w.beginTable(p, b, title, ""); err != nil {
				return p, err
			}
		}
		if err := rows.Scan(ptrs...); err != nil {
			return p, fmt.Errorf("scan row: %w", err)
		}
		vals := vals
		if b.perm != nil {
			vals = permuteInto(shown, vals, b.perm)
		}
		for i, v := range vals {
			val := cellValue(v, b.Columns[i].Type, dbTypes[i])
			if val == nil {
				out[i] = nil // an empty cell, not an empty string
				continue
			}
			style, err := w.styleOf(b.Columns[i], val, vals)
			if err == nil && wraps {
				style, err = w.topAligned(style)
			}
			if err != nil {
				return p, err
			}
			cells[i] = excelize.Cell{StyleID: style, Value: val}
			if b.Columns[i].Link {
				if link, ok := w.linkCell(val, style); ok {
					cells[i] = link
				}
			}
			out[i] = &cells[i]
		}
		var opts []excelize.RowOpts
		if wraps {
			// Readers keep a row's stored height (LibreOffice does not fit
			// rows to wrapped text on load), so the height is set here.
			opts = []excelize.RowOpts{{Height: wrappedHeight(b.Columns, w.widths, out)}}
		}
		if err := p.setRow(out, opts...); err != nil {
			return p, fmt.Errorf("row %d: %w", p.row, err)
		}
		p.dataRows++
	}
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("query: %w", err)
	}
	p.endTable(headerRow, n, b.Main)
	setPlaced()
	return p, nil
}

// continuationName is "<name> (k)", the name cut short (by runes) so the
// result keeps within Excel's 31 characters.
func continuationName(name string, k int) string {
	suffix := " (" + strconv.Itoa(k) + ")"
	r := []rune(name)
	for len(utf16.Encode(r))+len(suffix) > excelize.MaxSheetNameLength {
		r = r[:len(r)-1]
	}
	return strings.TrimRight(string(r), "'") + suffix
}

// columnWidths gives each column index the widest width any block of the
// sheet wants there: widths are per sheet column, and the stream writer takes
// them only before the first row.
func columnWidths(blocks []Block) []float64 {
	var widths []float64
	want := func(i int, wd float64) {
		// Rounded to hundredths: 13*1.15+2 is 16.949999999999999 in
		// binary, and a run of 13 or more digits in the file is what a
		// data-loss scanner takes for a card number.
		wd = math.Round(min(wd, excelize.MaxColumnWidth)*100) / 100
		for len(widths) <= i {
			widths = append(widths, 0)
		}
		widths[i] = max(widths[i], wd)
	}
	for _, b := range blocks {
		for i, c := range b.Columns {
			wd := c.Width
			if b.Record {
				// Labels in the first column, values in the second.
				want(0, min(float64(len([]rune(c.Header)))*1.15+2, 50))
				if wd <= 0 {
					wd = defaultWidth(Column{Type: c.Type})
				}
				want(1, wd+indentWidth(c.Type))
				continue
			}
			if wd <= 0 {
				wd = defaultWidth(c)
			}
			want(i, wd+indentWidth(c.Type))
		}
	}
	return widths
}

// indentWidth is the room a column of type t gives the indent its text
// stands in (styleSet.text): none for a numeric column, whose numbers and
// header stand right.
func indentWidth(t ColumnType) float64 {
	if t.numeric() {
		return 0
	}
	return 1.5
}

// defaultWidth fits a typical value of the type and the bold header, capped so
// one long header does not push the other columns off screen. Widths cannot
// follow the data: a stream writer sets them before the first row.
func defaultWidth(c Column) float64 {
	var base float64
	switch c.Type {
	case Integer, Count:
		base = 12
	case Amount:
		base = 14
	case Date:
		base = 12
	case Timestamp:
		base = 20
	case Bool:
		base = 8
	case Percent:
		base = 10
	default:
		base = 18
	}
	header := float64(len([]rune(c.Header)))*1.15 + 2
	return min(max(base, header), 50)
}

// styleSet holds the style IDs of one file. Number formats go through
// excelize's built-in IDs where Excel has one (#,##0 is 3, #,##0.00 is 4,
// 0.00% is 10), custom codes otherwise.
type styleSet struct {
	title, header, note int
	intro, link         int // a sheet's opening lines; a link to a sheet
	headerRight         int // the header of a numeric column
	// text and wrap (and header, over them) stand one indent in from
	// the left: a text column that follows a number column (right-aligned)
	// would otherwise touch it, and "20" beside "30 days" reads "2030 days".
	text            int
	label, wrap     int
	integer, amount int
	count           int
	date, timestamp int
	percent         int
	currency        map[string]int // amount styles per ISO 4217 code, made on first use
	top             map[int]int    // top-aligned variants of styles, made on first use
}

func (w *xlsxWriter) newStyles() error {
	dateFmt, tsFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"
	for _, s := range []struct {
		id    *int
		style excelize.Style
	}{
		{&w.styles.title, excelize.Style{Font: &excelize.Font{Bold: true, Size: 13}}},
		{&w.styles.header, excelize.Style{
			Font:      &excelize.Font{Bold: true},
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"D9E1F2"}},
			Border:    []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}},
			Alignment: &excelize.Alignment{Horizontal: "left", Indent: 1},
		}},
		{&w.styles.headerRight, excelize.Style{
			Font:      &excelize.Font{Bold: true},
			Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"D9E1F2"}},
			Border:    []excelize.Border{{Type: "bottom", Color: "8EA9DB", Style: 1}},
			Alignment: &excelize.Alignment{Horizontal: "right"},
		}},
		{&w.styles.note, excelize.Style{Font: &excelize.Font{Italic: true, Color: "9C5700"}}},
		{&w.styles.intro, excelize.Style{Font: &excelize.Font{Size: 11, Color: "1F3864"},
			Alignment: &excelize.Alignment{Horizontal: "left", Vertical: "top", WrapText: true}}},
		{&w.styles.link, excelize.Style{Font: &excelize.Font{Color: "0563C1", Underline: "single"},
			Alignment: &excelize.Alignment{Horizontal: "left", Vertical: "top", WrapText: true, Indent: 1}}},
		{&w.styles.label, excelize.Style{Font: &excelize.Font{Bold: true}}},
		{&w.styles.text, excelize.Style{Alignment: &excelize.Alignment{Horizontal: "left", Indent: 1}}},
		{&w.styles.wrap, excelize.Style{Alignment: &excelize.Alignment{Horizontal: "left", WrapText: true, Vertical: "top", Indent: 1}}},
		{&w.styles.integer, excelize.Style{NumFmt: 1}},
		{&w.styles.count, excelize.Style{NumFmt: 3}},
		{&w.styles.amount, excelize.Style{NumFmt: 4}},
		{&w.styles.date, excelize.Style{CustomNumFmt: &dateFmt}},
		{&w.styles.timestamp, excelize.Style{CustomNumFmt: &tsFmt}},
		{&w.styles.percent, excelize.Style{NumFmt: 10}},
	} {
		id, err := w.f.NewStyle(&s.style)
		if err != nil {
			return err
		}
		*s.id = id
	}
	w.styles.currency, w.styles.top = map[string]int{}, map[int]int{}
	return nil
}

// of is the style of a converted value in a column of type t: a value that
// could not be given the column's type (text in a Date column, say) is
// shown plainly.
func (s styleSet) of(t ColumnType, val any) int {
	if _, isText := val.(string); isText {
		return s.text
	}
	switch t {
	case Integer:
		return s.integer
	case Count:
		return s.count
	case Amount:
		return s.amount
	case Date:
		return s.date
	case Timestamp:
		return s.timestamp
	case Percent:
		return s.percent
	}
	return 0
}

// topAligned returns a variant of style aligned to the top of the cell, so
// that the short cells of a row with wrapped text line up with its first
// line instead of its last.
func (w *xlsxWriter) topAligned(style int) (int, error) {
	if id, ok := w.styles.top[style]; ok {
		return id, nil
	}
	st, err := w.f.GetStyle(style)
	if err != nil {
		return 0, err
	}
	if st.Alignment == nil {
		st.Alignment = &excelize.Alignment{}
	}
	st.Alignment.Vertical = "top"
	id, err := w.f.NewStyle(st)
	if err != nil {
		return 0, err
	}
	w.styles.top[style] = id
	return id, nil
}

// lineHeight is the height in points of one line of the default 11-point
// font, Excel's default row height.
const lineHeight = 15

// wrappedHeight estimates the height a row needs for its wrapping text
// cells: the most lines any of them takes at its column's width (a width
// unit is one '0' of the default font; prose runs about 15% narrower).
func wrappedHeight(cols []Column, widths []float64, row []any) float64 {
	lines := 1
	for i, c := range cols {
		if !c.Wrap || i >= len(widths) {
			continue
		}
		cell, ok := row[i].(*excelize.Cell)
		if !ok {
			continue
		}
		s, ok := cell.Value.(string)
		if !ok {
			continue
		}
		perLine := max(int(widths[i]*1.15), 1)
		n := 0
		for _, para := range strings.Split(s, "\n") {
			n += max(1, (len([]rune(para))+perLine-1)/perLine)
		}
		lines = max(lines, n)
	}
	return float64(min(lines, 409/lineHeight) * lineHeight) // Excel's limit: 409 points
}
