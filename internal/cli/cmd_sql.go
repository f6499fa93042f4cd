package cli

import (
	"context"
	"fmt"

	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/sqlguard"
	"github.com/reconcile/reconcile/internal/sqlout"
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

func cmdSQL(ctx context.Context, args []string, e Env) error {
	var db, format, file, check, date string
	var tables, raw bool
	var vars sqlguard.Vars
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
	if err := cliflags.Parse(fs, args); err != nil {
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
		b, err := sqlguard.ReadQueryFile(file, e.Stdin)
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
		fmt.Fprintln(e.Stderr, about)
	}
	if err := conn.SetVariables(ctx, vars); err != nil {
		return err
	}
	out := sqlout.New(format, raw, e.Stdout)
	switch {
	case tables && fs.NArg() == 1:
		return conn.Describe(ctx, db, fs.Arg(0), out)
	case tables:
		return conn.Tables(ctx, out)
	}
	return conn.Run(ctx, query, out)
}
