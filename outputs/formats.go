package outputs

import (
	"context"
	"errors"
	"fmt"

	"github.com/xuri/excelize/v2"
)

// currencySymbols are the currencies shown with their symbol, in the locale
// Excel associates with it, so "$1,234.50" reads as dollars in any Excel
// and LibreOffice. Others show their ISO code after the number, which no
// reader can mistake (a bare "$" could be CAD or AUD).
var currencySymbols = map[string]string{
	"USD": `[$$-409]`,
	"EUR": `[$€-x-euro2] `,
	"GBP": `[$£-809]`,
	"JPY": `[$¥-411]`,
}

// minorUnits are the ISO 4217 currencies without two decimals; amounts are
// stored as DECIMAL(18,3), so this only changes how many decimals show.
var minorUnits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
}

// CurrencyFormat is the Excel number format of an amount in the given ISO
// 4217 currency: "[$$-409]#,##0.00" for USD, "[$€-x-euro2] #,##0.00" for
// EUR, "[$£-809]#,##0.00" for GBP, "[$¥-411]#,##0" for JPY, and
// `#,##0.00 "CHF"` for the others (with their number of decimals). A code
// that is not three letters A-Z gets the plain "#,##0.00": the code goes
// into the format string, so it is never taken from outside unchecked.
func CurrencyFormat(code string) string {
	if !isCurrencyCode(code) {
		return "#,##0.00"
	}
	number := "#,##0.00"
	switch minorUnits[code] {
	case 0:
		if _, ok := minorUnits[code]; ok {
			number = "#,##0"
		}
	case 3:
		number = "#,##0.000"
	}
	if sym, ok := currencySymbols[code]; ok {
		return sym + number
	}
	return number + ` "` + code + `"`
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// styleOf is the style of a converted value of column c; row is the whole
// scanned row, where an Amount column finds its currency.
func (w *xlsxWriter) styleOf(c Column, val any, row []any) (int, error) {
	style := w.styles.of(c.Type, val)
	if c.Wrap {
		if _, isText := val.(string); isText {
			return w.styles.wrap, nil
		}
	}
	if c.CurrencyColumn > 0 && style == w.styles.amount {
		cur := row[c.CurrencyColumn-1]
		if cur == nil {
			return style, nil
		}
		return w.currencyStyle(text(cur, ""))
	}
	return style, nil
}

// currencyStyle returns (creating on first use) the amount style of one
// currency. A style per currency, not per cell: a workbook holds a handful.
func (w *xlsxWriter) currencyStyle(code string) (int, error) {
	if !isCurrencyCode(code) {
		return w.styles.amount, nil
	}
	if id, ok := w.styles.currency[code]; ok {
		return id, nil
	}
	format := CurrencyFormat(code)
	id, err := w.f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	if err != nil {
		return 0, fmt.Errorf("style for %s: %w", code, err)
	}
	w.styles.currency[code] = id
	return id, nil
}

// writeRecord writes a Record block: its title, then one row per column,
// the header as a bold label in the first sheet column and the value,
// typed, in the second.
func (w *xlsxWriter) writeRecord(ctx context.Context, p *page, bi int, b Block) error {
	rows, err := w.q.QueryContext(ctx, b.Query, b.Args...)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if len(types) != len(b.Columns) {
		return fmt.Errorf("query returns %d columns, block declares %d", len(types), len(b.Columns))
	}
	vals := make([]any, len(b.Columns))
	if rows.Next() {
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("scan row: %w", err)
		}
		if rows.Next() {
			return errors.New("a record block's query returned more than one row")
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	if p.row > 0 {
		p.row++ // the empty row between blocks
	}
	if b.Title != "" {
		if err := p.setRow([]any{excelize.Cell{StyleID: w.styles.title, Value: b.Title}}); err != nil {
			return err
		}
	}
	w.placed[bi] = placement{page: p.name, header: p.row, first: p.row + 1, last: p.row + len(b.Columns)}
	for i, c := range b.Columns {
		row := []any{excelize.Cell{StyleID: w.styles.label, Value: c.Header}, nil}
		if val := cellValue(vals[i], c.Type, types[i].DatabaseTypeName()); val != nil {
			style, err := w.styleOf(c, val, vals)
			if err != nil {
				return err
			}
			row[1] = excelize.Cell{StyleID: style, Value: val}
		}
		if err := p.setRow(row); err != nil {
			return err
		}
	}
	return nil
}
