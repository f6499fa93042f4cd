package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/store"
)

// Acknowledging from the workbook. Every finding sheet of the workbook
// ends its rows with the finding's Kind ID and an "Acknowledge" column
// group (WorkbookAckHeaders): finance fills reason, owner, until and
// ticket on the rows it acknowledges and hands the file back;
// `reconcile ack --from FILE.xlsx` reads those rows
// (ReadWorkbookAcknowledgements) and makes each acknowledgement with the
// same checks and audit as `reconcile ack` (AcknowledgeFromWorkbook).
//
// The file is taken as hostile: a regular file of at most maxAckWorkbook
// bytes, unzipped to at most maxAckWorkbookUnzipped, at most maxAckEntries
// filled rows; no formula is evaluated (a cell holding one is refused,
// whatever its cached value), and every value is read as the text or
// number stored in the cell, never as what a formula or format would make
// of it.

// The headers of the columns reconcile ack --from reads on a finding
// sheet: the finding's merchant and kind, and the Acknowledge group.
const (
	WorkbookMerchantHeader = "Merchant ID"
	WorkbookKindHeader     = "Kind ID"
	WorkbookReasonHeader   = "Acknowledge: reason"
	WorkbookOwnerHeader    = "Acknowledge: owner"
	WorkbookUntilHeader    = "Acknowledge: until"
	WorkbookTicketHeader   = "Acknowledge: ticket"
)

// Bounds of a workbook read for acknowledgements.
const (
	maxAckWorkbook         = 64 << 20
	maxAckWorkbookUnzipped = 512 << 20
)

// WorkbookRow is a filled row of a finding sheet: where it is (the sheet
// and its 1-based row, as Excel numbers them) and the acknowledgement it
// makes.
type WorkbookRow struct {
	Sheet string
	Row   int
	Ack   Acknowledgement
}

// WorkbookReject is a filled row that cannot be taken, and why.
type WorkbookReject struct {
	Sheet  string
	Row    int
	Reason string
}

func (r WorkbookReject) String() string {
	return fmt.Sprintf("sheet %q row %d: %s", r.Sheet, r.Row, r.Reason)
}

// ReadWorkbookAcknowledgements reads the filled Acknowledge rows of every
// finding sheet of the workbook at path: a sheet whose header row holds
// Merchant ID, Kind ID and the four Acknowledge columns. A row with the
// four empty is not a row to take. entityHeader names, for a kind, the
// column holding the finding's entity ID (reports.KindSheetEntityHeader).
// Rows are returned checked (Acknowledgement.Validate); the others are
// rejects, with their reason. An error means the file could not be read
// at all.
func ReadWorkbookAcknowledgements(path string, entityHeader func(kind string) string) ([]WorkbookRow, []WorkbookReject, error) {
	b, err := readAckWorkbook(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(b), excelize.Options{
		UnzipSizeLimit: maxAckWorkbookUnzipped, UnzipXMLSizeLimit: 16 << 20})
	if err != nil {
		return nil, nil, fmt.Errorf("workbook %s: not a readable .xlsx file: %w", path, err)
	}
	defer f.Close()
	var rows []WorkbookRow
	var rejects []WorkbookReject
	filled := 0
	for _, sheet := range f.GetSheetList() {
		r, rej, n, err := readAckSheet(f, sheet, entityHeader, maxAckEntries-filled)
		if err != nil {
			return nil, nil, fmt.Errorf("workbook %s: sheet %q: %w", path, sheet, err)
		}
		rows, rejects, filled = append(rows, r...), append(rejects, rej...), filled+n
	}
	return rows, rejects, nil
}

// readAckWorkbook reads the file, a regular one within maxAckWorkbook.
func readAckWorkbook(path string) ([]byte, error) {
	// Stat before open: opening a FIFO with no writer blocks in open(2).
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("workbook: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("workbook %s: not a regular file", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workbook: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("workbook %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("workbook %s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxAckWorkbook+1))
	if err != nil {
		return nil, fmt.Errorf("workbook %s: %w", path, err)
	}
	if len(b) > maxAckWorkbook {
		return nil, fmt.Errorf("workbook %s: larger than %d MiB, not a workbook to acknowledge from", path, maxAckWorkbook>>20)
	}
	return b, nil
}

// ackColumns are the 0-based positions of the columns read on a sheet.
type ackColumns struct {
	merchant, kind, reason, owner, until, ticket int
	header                                       []string
}

// readAckSheet reads one sheet's filled rows; room is how many more
// filled rows the workbook may hold. n counts the filled rows met.
func readAckSheet(f *excelize.File, sheet string, entityHeader func(string) string, room int) (
	rows []WorkbookRow, rejects []WorkbookReject, n int, err error) {
	it, err := f.Rows(sheet)
	if err != nil {
		return nil, nil, 0, err
	}
	defer it.Close()
	var cols *ackColumns
	for r := 1; it.Next(); r++ {
		cells, err := it.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return nil, nil, n, fmt.Errorf("row %d: %w", r, err)
		}
		if cols == nil {
			cols = ackHeader(cells)
			continue
		}
		get := func(i int) string {
			if i < len(cells) {
				return cells[i]
			}
			return ""
		}
		if strings.TrimSpace(get(cols.reason)+get(cols.owner)+get(cols.until)+get(cols.ticket)) == "" {
			continue
		}
		if slices.Equal(cells, cols.header) { // a continuation's header, repeated
			continue
		}
		n++
		if n > room {
			return nil, nil, n, fmt.Errorf("more than %d filled rows in the workbook", maxAckEntries)
		}
		a, reason := ackOfRow(f, sheet, r, cols, cells, get, entityHeader)
		if reason != "" {
			rejects = append(rejects, WorkbookReject{Sheet: sheet, Row: r, Reason: reason})
			continue
		}
		rows = append(rows, WorkbookRow{Sheet: sheet, Row: r, Ack: a})
	}
	if err := it.Error(); err != nil {
		return nil, nil, n, err
	}
	return rows, rejects, n, nil
}

// ackHeader recognises a finding table's header row: it holds Merchant ID,
// Kind ID and the four Acknowledge columns. nil: not this row.
func ackHeader(cells []string) *ackColumns {
	pos := map[string]int{}
	for i, c := range cells {
		if _, dup := pos[c]; !dup {
			pos[c] = i
		}
	}
	c := &ackColumns{header: append([]string(nil), cells...)}
	for _, h := range []struct {
		name string
		to   *int
	}{
		{WorkbookMerchantHeader, &c.merchant}, {WorkbookKindHeader, &c.kind}, {WorkbookReasonHeader, &c.reason},
		{WorkbookOwnerHeader, &c.owner}, {WorkbookUntilHeader, &c.until}, {WorkbookTicketHeader, &c.ticket},
	} {
		i, ok := pos[h.name]
		if !ok {
			return nil
		}
		*h.to = i
	}
	return c
}

// ackOfRow makes the acknowledgement of a filled row, or says why not.
func ackOfRow(f *excelize.File, sheet string, r int, cols *ackColumns, cells []string, get func(int) string,
	entityHeader func(string) string) (Acknowledgement, string) {
	kind := strings.TrimSpace(get(cols.kind))
	if kind == "" {
		return Acknowledgement{}, "no Kind ID: the row is not a finding's"
	}
	entityCol := -1
	if h := entityHeader(kind); h != "" {
		for i, c := range cols.header {
			if c == h {
				entityCol = i
				break
			}
		}
	}
	if entityCol < 0 {
		return Acknowledgement{}, fmt.Sprintf("kind %q: this sheet has no column of its finding's ID", truncate(kind, 64))
	}
	// No formula is evaluated: a cell that holds one is refused, whatever
	// value it shows.
	for _, i := range []int{cols.merchant, cols.kind, entityCol, cols.reason, cols.owner, cols.until, cols.ticket} {
		ref, _ := excelize.CoordinatesToCellName(i+1, r)
		if fm, err := f.GetCellFormula(sheet, ref); err != nil || fm != "" {
			return Acknowledgement{}, fmt.Sprintf("cell %s (%s) holds a formula; type the value itself", ref, cols.header[i])
		}
	}
	until, err := cellDate(get(cols.until))
	if err != nil {
		return Acknowledgement{}, fmt.Sprintf("%s: %v", WorkbookUntilHeader, err)
	}
	a := Acknowledgement{
		Kind:       kind,
		MerchantID: strings.TrimSpace(get(cols.merchant)),
		EntityID:   get(entityCol),
		Reason:     strings.TrimSpace(get(cols.reason)),
		Owner:      strings.TrimSpace(get(cols.owner)),
		Until:      until,
		Ticket:     strings.TrimSpace(get(cols.ticket)),
	}
	if err := a.Validate(); err != nil {
		return a, err.Error()
	}
	return a, ""
}

// cellDate reads a date cell's raw value: a date typed as text
// (YYYY-MM-DD), or the number a spreadsheet stores for a date (days since
// 1899-12-30, a time of day ignored).
func cellDate(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, errors.New("missing: the last date the acknowledgement covers, YYYY-MM-DD")
	}
	if d, err := time.Parse(time.DateOnly, v); err == nil {
		return d, nil
	}
	if x, err := strconv.ParseFloat(v, 64); err == nil && x >= 1 && x < 2958466 { // up to 9999-12-31
		t, err := excelize.ExcelDateToTime(x, false)
		if err == nil {
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date; write it YYYY-MM-DD", truncate(v, 40))
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// WorkbookResult is what importing a workbook's rows did.
type WorkbookResult struct {
	Acknowledged int              // made or changed
	Unchanged    int              // already acknowledged so
	Rejected     []WorkbookReject // rows the checks refused, with why
}

// AcknowledgeFromWorkbook makes the acknowledgement of each row, as
// `reconcile ack` does (Acknowledge: the same checks, the finding one the
// latest run reported, the end date not before its business date), each
// audited with c.By and the source "workbook <path>". A row refused is
// listed with its sheet, row and reason; the others are made. An error is
// one the database gave, which stops the import (the rows before it are
// made).
func AcknowledgeFromWorkbook(ctx context.Context, s *store.Store, path string, rows []WorkbookRow, c Change) (WorkbookResult, error) {
	var res WorkbookResult
	c.Source = "workbook " + path
	for _, r := range rows {
		_, changed, err := acknowledge(ctx, s, r.Ack, c)
		switch {
		case err == nil && changed:
			res.Acknowledged++
		case err == nil:
			res.Unchanged++
		case errors.Is(err, ErrNoFinding) || errors.As(err, new(refusal)):
			res.Rejected = append(res.Rejected, WorkbookReject{Sheet: r.Sheet, Row: r.Row, Reason: err.Error()})
		default:
			return res, fmt.Errorf("sheet %q row %d: %w", r.Sheet, r.Row, err)
		}
	}
	return res, nil
}
