package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile/reconcile/internal/secretfile"
	"github.com/reconcile/reconcile/internal/sqlguard"
	"github.com/reconcile/reconcile/internal/sqlout"
	"github.com/reconcile/reconcile/queries"
)

const sqlExamples = `  reconcile sql --tables                          # tables and views, with what each holds
  reconcile sql --tables findings                 # the columns of one, with what each means
  reconcile sql "SELECT kind, state, count(*) FROM findings WHERE run_id = '2026-11-20' GROUP BY ALL"
  reconcile sql --db out/current.duckdb --format csv "SELECT * FROM current_findings" > findings.csv
  reconcile sql --format json "SELECT * FROM run_members WHERE status = 'failed'"
  reconcile sql --var ground_truth=@out/sandbox/ground-truth-2026-11-20.json --file docs/compare-ground-truth.sql
  reconcile sql --check double_charge --date 2026-11-20   # a finding check's file, run as that run ran it
`

const sqlExitCodes = "Exit codes: 0 ok; 1 the file could not be opened, the SQL failed, or it would do more than read."

const sqlSynopsis = `Read-only ad-hoc SQL over a reconcile DuckDB file (the working file or a published snapshot).

Read-only means the SQL reads that one file and nothing else: it runs queries (SELECT, FROM, WITH,
SHOW, DESCRIBE, SUMMARIZE) and SET VARIABLE; COPY, EXPORT, ATTACH, INSTALL, LOAD, CALL, PRAGMA, SET of
a setting and every statement that would write are refused, and no other file (read_csv, read_text,
read_parquet, ...), URL or extension can be opened. --var hands a value, or a file you name, to the
query as getvariable('NAME'). For the published Parquet datasets use DuckDB's own CLI or another
Parquet reader.

CSV has a header row; a text cell starting with =, +, -, @, tab or carriage return gets a leading '
so that a spreadsheet never runs it as a formula (--raw writes text as is). JSON is an array of
objects. The table format shows control characters as escapes (\x1b). --tables lists the tables and
views, or one's columns, with the description every one of them carries (DuckDB COMMENT).

--check KIND runs the finding check queries/findings/KIND.sql as the run of --date (default: the
latest run in the file) ran it: a check reads the member tables through temp views of the same names
holding the run's reconciled members (plans, subscriptions, subscription_payments, transactions,
journal, subscription_schedules, expected_cycles, run_members), and the session variables
window_start and window_end (the run's window) and bnpl_session_age (24 hours unless --var sets it).`

func cmdSQL(ctx context.Context, args []string, e env) error {
	var db, format, file, check, date string
	var tables, raw bool
	var vars sqlVars
	fs := newFlagSetCodes(`sql [--db PATH] [--format table|csv|json] [--var NAME=VALUE|@FILE]... ("SELECT ..." | --file query.sql | --tables [TABLE] | --check KIND [--date YYYY-MM-DD])`,
		sqlSynopsis, sqlExamples, sqlExitCodes, e)
	fs.StringVar(&db, "db", "reconcile.duckdb", "DuckDB file")
	fs.StringVar(&format, "format", "table", "output: table, csv or json")
	fs.StringVar(&file, "file", "", "read the SQL from this file (- for standard input)")
	fs.BoolVar(&tables, "tables", false, "list the tables and views with their descriptions; with a TABLE argument, its columns")
	fs.BoolVar(&raw, "raw", false, "csv: write text cells as they are, even those a spreadsheet would read as a formula")
	fs.StringVar(&check, "check", "", "run the finding check of this `KIND` (queries/findings/KIND.sql) over the run's members, window and variables, as the run did")
	fs.StringVar(&date, "date", "", "with --check: the business date of the run (YYYY-MM-DD); default the latest in the file")
	fs.Var(&vars, "var", "set a variable the query reads as getvariable('NAME'): `NAME=VALUE`, or NAME=@FILE for FILE's content; repeatable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if format != "table" && format != "csv" && format != "json" {
		return fmt.Errorf("sql: --format %q: want table, csv or json", format)
	}
	var query string
	switch {
	case date != "" && check == "":
		return fmt.Errorf("sql: --date goes with --check")
	case check != "" && (tables || file != "" || fs.NArg() > 0):
		return fmt.Errorf("sql: --check runs the check's own file: give no SQL, --file or --tables with it")
	case check != "":
	case tables && (file != "" || fs.NArg() > 1):
		return fmt.Errorf("sql: --tables takes at most a table name, no SQL")
	case tables:
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
	conn, err := sqlguard.Open(ctx, db)
	if err != nil {
		return fmt.Errorf("sql: %w", err)
	}
	defer conn.Close()
	if check != "" {
		var about string
		if query, about, err = conn.PrepareCheck(ctx, check, date); err != nil {
			return fmt.Errorf("sql: %w", err)
		}
		fmt.Fprintln(e.stderr, about)
	}
	for _, v := range vars {
		if err := conn.SetVariable(ctx, v.name, v.value); err != nil {
			return fmt.Errorf("sql: --var: %w", err)
		}
	}
	out := sqlout.New(format, raw, e.stdout)
	switch {
	case tables && fs.NArg() == 1:
		return describeTable(ctx, conn, db, fs.Arg(0), out)
	case tables:
		return runSQL(ctx, conn, listTablesSQL, out)
	}
	return runSQL(ctx, conn, query, out)
}

// sqlVars are the --var flags, in order.
type sqlVars []struct{ name, value string }

func (v *sqlVars) String() string { return "" }

// Set takes NAME=VALUE, or NAME=@FILE for the file's content: a query can
// use a file's data (e.g. JSON) that its SQL cannot open itself, since only
// the person running the command names the file.
func (v *sqlVars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || !isIdentifier(name) {
		return fmt.Errorf("want NAME=VALUE or NAME=@FILE, NAME a letter or _ then letters, digits or _")
	}
	if path, isFile := strings.CutPrefix(value, "@"); isFile {
		b, err := secretfile.ReadBounded(path, maxVarFile)
		if err != nil {
			return err
		}
		value = string(b)
	}
	*v = append(*v, struct{ name, value string }{name, value})
	return nil
}

// isIdentifier reports whether s is a plain ASCII SQL identifier, safe to
// write into a statement unquoted.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || !sqlguard.IsIdentByte(c) || i == 0 && c >= '0' && c <= '9' {
			return false
		}
	}
	return s != ""
}

// The statements of --tables (queries/cli/sql.sql): the file's tables and
// views, and one's columns, with the comment every one of them carries.
var (
	listTablesSQL  = queries.Must("cli/sql.sql", "Tables")
	columnCountSQL = queries.Must("cli/sql.sql", "ColumnCount")
	columnsSQL     = queries.Must("cli/sql.sql", "Columns")
)

// describeTable lists the columns of one table or view with their comments.
func describeTable(ctx context.Context, conn *sqlguard.DB, path, table string, out sqlout.Writer) error {
	var n int
	rows, err := conn.Query(ctx, columnCountSQL, table)
	if err == nil {
		for rows.Next() {
			err = rows.Scan(&n)
		}
		err = errors.Join(err, rows.Err(), rows.Close())
	}
	if err != nil {
		return fmt.Errorf("sql: describe %s: %w", table, err)
	}
	if n == 0 {
		return fmt.Errorf("sql: no table or view %q in %s (reconcile sql --tables lists them)", table, path)
	}
	return runSQL(ctx, conn, columnsSQL, out, table)
}

// Bounds of what `reconcile sql` reads from files: far above any query or
// ground-truth file (a large sandbox's ground truth is tens of MiB), far
// below what would exhaust a laptop's memory.
const (
	maxQueryFile = 16 << 20  // --file, or standard input
	maxVarFile   = 512 << 20 // --var NAME=@FILE
)

func readQueryFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		if stdin == nil {
			return nil, fmt.Errorf("sql: no standard input")
		}
		b, err := io.ReadAll(io.LimitReader(stdin, maxQueryFile+1))
		if err == nil && len(b) > maxQueryFile {
			err = fmt.Errorf("standard input holds more than %d MiB of SQL", maxQueryFile>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("sql: %w", err)
		}
		return b, nil
	}
	b, err := secretfile.ReadBounded(path, maxQueryFile)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return b, nil
}

// runSQL runs query (its statements checked one by one, see sqlguard.DB)
// and writes the last statement's rows to out.
func runSQL(ctx context.Context, conn *sqlguard.DB, query string, out sqlout.Writer, args ...any) error {
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return sqlError(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if err := out.Header(cols); err != nil {
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
		if err := out.Row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return sqlError(err)
	}
	return out.Close()
}

// sqlError says which of reconcile sql's limits a DuckDB error comes from.
func sqlError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "disabled by configuration"):
		return fmt.Errorf("sql: reconcile sql reads its database file only: no other file, URL or extension "+
			"(for the Parquet datasets use DuckDB's own CLI or another Parquet reader): %w", err)
	case strings.Contains(msg, "configuration has been locked"):
		return fmt.Errorf("sql: reconcile sql's settings are fixed: %w", err)
	}
	return fmt.Errorf("sql: %w", err)
}
