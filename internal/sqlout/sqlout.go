// Package sqlout writes the rows of `reconcile sql` as a table for a
// terminal, as CSV a spreadsheet opens safely, or as JSON: every value as
// an analyst expects it (decimals exact, times in RFC 3339), and no text
// that could move a terminal's cursor or run as a spreadsheet formula.
package sqlout

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/reconcile/reconcile/internal/safetext"
)

// New is the Writer of format (table, csv or json) to w. With raw, CSV
// text cells are written as they are, formulas included.
func New(format string, raw bool, w io.Writer) Writer {
	switch format {
	case "csv":
		return &csvWriter{w: csv.NewWriter(w), raw: raw}
	case "json":
		return &jsonWriter{w: w}
	}
	return &tableWriter{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
}

// Writer writes a result: its header, then each row, then Close.
type Writer interface {
	Header(cols []string) error
	Row(vals []any) error
	Close() error
}

// formatValue renders a scanned DuckDB value as text.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.UTC().Format(time.RFC3339Nano)
	case duckdb.Decimal:
		return decimalString(x)
	case *big.Int:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case map[string]any, []any, duckdb.Map:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

type tableWriter struct{ tw *tabwriter.Writer }

// The table format is for a terminal: the platform's text in a cell, or a
// column's name, is shown with its control characters escaped.
func (t *tableWriter) Header(cols []string) error {
	names := make([]string, len(cols))
	dashes := make([]string, len(cols))
	for i, c := range cols {
		names[i] = safetext.Line(c)
		dashes[i] = strings.Repeat("-", max(len(names[i]), 3))
	}
	fmt.Fprintln(t.tw, strings.Join(names, "\t"))
	_, err := fmt.Fprintln(t.tw, strings.Join(dashes, "\t"))
	return err
}

func (t *tableWriter) Row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = safetext.Line(formatValue(v))
	}
	_, err := fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
	return err
}

func (t *tableWriter) Close() error { return t.tw.Flush() }

// csvWriter writes CSV with a header row. CSV is data, not a display: text
// keeps its control characters (quoted where CSV needs it). A text cell
// that a spreadsheet would take for a formula gets a leading quote, unless
// raw: the platform's data must not run in the reader's spreadsheet.
type csvWriter struct {
	w   *csv.Writer
	raw bool
}

func (c *csvWriter) Header(cols []string) error { return c.w.Write(cols) }

func (c *csvWriter) Row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = formatValue(v)
		if !c.raw && isText(v) {
			cells[i] = neutralizeFormula(cells[i])
		}
	}
	return c.w.Write(cells)
}

// isText reports whether a scanned value is text (VARCHAR, BLOB), as
// opposed to a number, date or structure whose rendering is ours.
func isText(v any) bool {
	switch v.(type) {
	case string, []byte:
		return true
	}
	return false
}

// neutralizeFormula prefixes a single quote to text that a spreadsheet
// would read as a formula or a command: it starts with =, +, -, @, tab or
// carriage return (OWASP, CSV injection).
func neutralizeFormula(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

func (c *csvWriter) Close() error { c.w.Flush(); return c.w.Error() }

// jsonWriter writes a JSON array of objects, one per row, keeping values'
// JSON types where they have one.
type jsonWriter struct {
	w     io.Writer
	cols  []string
	count int
}

func (j *jsonWriter) Header(cols []string) error {
	j.cols = cols
	_, err := io.WriteString(j.w, "[")
	return err
}

func (j *jsonWriter) Row(vals []any) error {
	var b strings.Builder
	if j.count > 0 {
		b.WriteString(",")
	}
	b.WriteString("\n  {")
	for i, c := range j.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(c)
		b.Write(k)
		b.WriteString(": ")
		b.Write(jsonValue(vals[i]))
	}
	b.WriteString("}")
	j.count++
	_, err := io.WriteString(j.w, escapeC1(b.String()))
	return err
}

// escapeC1 writes the C1 control characters (U+0080-U+009F) and DEL of JSON
// text as \u escapes. encoding/json escapes C0 but leaves these raw, and
// some terminals act on them (U+009B is CSI); the decoded data is the same.
// In JSON text they can only occur inside strings, where \u is valid.
func escapeC1(s string) string {
	if !strings.ContainsFunc(s, isC1OrDEL) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isC1OrDEL(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isC1OrDEL(r rune) bool { return r == 0x7f || r >= 0x80 && r <= 0x9f }

func jsonValue(v any) []byte {
	var x any = v
	switch t := v.(type) {
	case duckdb.Decimal:
		x = json.Number(decimalString(t))
	case *big.Int:
		x = json.Number(t.String())
	case time.Time, []byte:
		x = formatValue(t)
	}
	b, err := json.Marshal(x)
	if err != nil {
		b, _ = json.Marshal(formatValue(v))
	}
	return b
}

func (j *jsonWriter) Close() error {
	if j.count > 0 {
		_, err := io.WriteString(j.w, "\n]\n")
		return err
	}
	_, err := io.WriteString(j.w, "]\n")
	return err
}

// decimalString keeps a DECIMAL's scale (12.30 stays "12.30";
// duckdb.Decimal.String drops trailing zeros).
func decimalString(d duckdb.Decimal) string {
	if d.Value == nil {
		return ""
	}
	digits := new(big.Int).Abs(d.Value).String()
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	scale := int(d.Scale)
	if scale == 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}
