package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

const sqlExamples = `  reconcile sql --tables                          # tables and views, with what each holds
  reconcile sql --tables findings                 # the columns of one, with what each means
  reconcile sql "SELECT kind, state, count(*) FROM findings WHERE run_id = '2026-11-20' GROUP BY ALL"
  reconcile sql --db out/current.duckdb --format csv "SELECT * FROM current_findings" > findings.csv
  reconcile sql --format json "SELECT * FROM run_members WHERE status = 'failed'"
  reconcile sql --file docs/compare-ground-truth.sql
`

const sqlExitCodes = "Exit codes: 0 ok; 1 the file could not be opened, the SQL failed, or it would write (the file is opened read-only)."

func cmdSQL(ctx context.Context, args []string, e env) error {
	var db, format, file string
	var tables bool
	fs := newFlagSetCodes(`sql [--db PATH] [--format table|csv|json] ("SELECT ..." | --file query.sql | --tables [TABLE])`,
		"Read-only ad-hoc SQL over a reconcile DuckDB file (the working file or a published snapshot).\n"+
			"CSV has a header row; JSON is an array of objects. --tables lists the tables and views, or one's columns,\n"+
			"with the description every one of them carries (DuckDB COMMENT).", sqlExamples, sqlExitCodes, e)
	fs.StringVar(&db, "db", "reconcile.duckdb", "DuckDB file")
	fs.StringVar(&format, "format", "table", "output: table, csv or json")
	fs.StringVar(&file, "file", "", "read the SQL from this file (- for standard input)")
	fs.BoolVar(&tables, "tables", false, "list the tables and views with their descriptions; with a TABLE argument, its columns")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if format != "table" && format != "csv" && format != "json" {
		return fmt.Errorf("sql: --format %q: want table, csv or json", format)
	}
	if tables {
		switch {
		case file != "" || fs.NArg() > 1:
			return fmt.Errorf("sql: --tables takes at most a table name, no SQL")
		case fs.NArg() == 1:
			return describeTable(ctx, db, format, fs.Arg(0), e.stdout)
		}
		return runSQL(ctx, db, format, listTablesSQL, e.stdout)
	}
	var query string
	switch {
	case file != "" && fs.NArg() == 0:
		b, err := readQueryFile(file, e.stdin)
		if err != nil {
			return err
		}
		query = string(b)
	case file == "" && fs.NArg() == 1:
		query = fs.Arg(0)
	default:
		fs.Usage()
		return fmt.Errorf("sql: give one SQL argument, --file or --tables")
	}
	return runSQL(ctx, db, format, query, e.stdout)
}

// listTablesSQL lists the file's tables and views with their comments.
const listTablesSQL = `SELECT name, type, description FROM (
    SELECT table_name AS name, 'table' AS type, coalesce(comment, '') AS description
    FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
    UNION ALL
    SELECT view_name, 'view', coalesce(comment, '')
    FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
) ORDER BY type, name`

// describeTable lists the columns of one table or view with their comments.
func describeTable(ctx context.Context, path, format, table string, w io.Writer) error {
	conn, err := openReadOnlyDB(path)
	if err != nil {
		return err
	}
	var n int
	err = conn.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_columns()
		WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`, table).Scan(&n)
	conn.Close()
	if err != nil {
		return fmt.Errorf("sql: describe %s: %w", table, err)
	}
	if n == 0 {
		return fmt.Errorf("sql: no table or view %q in %s (reconcile sql --tables lists them)", table, path)
	}
	return runSQL(ctx, path, format, `SELECT column_name AS "column", data_type AS type,
		CASE WHEN is_nullable THEN '' ELSE 'not null' END AS "null", coalesce(comment, '') AS description
		FROM duckdb_columns()
		WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?
		ORDER BY column_index`, w, table)
}

// openReadOnlyDB opens a DuckDB file read-only: any statement that would
// write fails, and the file may be the one a run is writing's snapshot.
func openReadOnlyDB(path string) (*sql.DB, error) {
	connector, err := duckdb.NewConnector(path+"?access_mode=read_only", nil)
	if err != nil {
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	return sql.OpenDB(connector), nil
}

func readQueryFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		if stdin == nil {
			return nil, fmt.Errorf("sql: no standard input")
		}
		return io.ReadAll(stdin)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return b, nil
}

func runSQL(ctx context.Context, path, format, query string, w io.Writer, args ...any) error {
	conn, err := openReadOnlyDB(path)
	if err != nil {
		return err
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		if strings.Contains(err.Error(), "read-only") {
			return fmt.Errorf("reconcile sql is read-only; the statement would write: %w", err)
		}
		return fmt.Errorf("sql: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var out resultWriter
	switch format {
	case "csv":
		out = newCSVWriter(w)
	case "json":
		out = &jsonWriter{w: w, cols: cols}
	default:
		out = &tableWriter{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	}
	if err := out.header(cols); err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("sql: %w", err)
		}
		if err := out.row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	return out.close()
}

type resultWriter interface {
	header(cols []string) error
	row(vals []any) error
	close() error
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

func (t *tableWriter) header(cols []string) error {
	fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
	dashes := make([]string, len(cols))
	for i, c := range cols {
		dashes[i] = strings.Repeat("-", max(len(c), 3))
	}
	_, err := fmt.Fprintln(t.tw, strings.Join(dashes, "\t"))
	return err
}

func (t *tableWriter) row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(formatValue(v))
	}
	_, err := fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
	return err
}

func (t *tableWriter) close() error { return t.tw.Flush() }

type csvWriter struct{ w *csv.Writer }

func newCSVWriter(w io.Writer) *csvWriter { return &csvWriter{w: csv.NewWriter(w)} }

func (c *csvWriter) header(cols []string) error { return c.w.Write(cols) }

func (c *csvWriter) row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		cells[i] = formatValue(v)
	}
	return c.w.Write(cells)
}

func (c *csvWriter) close() error { c.w.Flush(); return c.w.Error() }

// jsonWriter writes a JSON array of objects, one per row, keeping values'
// JSON types where they have one.
type jsonWriter struct {
	w     io.Writer
	cols  []string
	count int
}

func (j *jsonWriter) header([]string) error { _, err := io.WriteString(j.w, "["); return err }

func (j *jsonWriter) row(vals []any) error {
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
	_, err := io.WriteString(j.w, b.String())
	return err
}

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

func (j *jsonWriter) close() error {
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
