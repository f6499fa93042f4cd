package sqlguard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// defaultBNPLSessionAge is the age checks.Findings gives bnpl_session_age
// when --bnpl-session-age is not set. A run does not record the age it
// used, so --check sets this default; --var bnpl_session_age='48 hours'
// sets another.
const defaultBNPLSessionAge = "24 hours"

// PrepareCheck readies the connection to run finding kind's check
// (queries/findings/<kind>.sql) as the run of business date date ("" for
// the latest run in the file) ran it, and returns the statement to run:
//
//   - the member tables a check reads (store.SlicedTables) are shadowed by
//     temp views of the same names holding the rows of the members the
//     run reconciled (run_members.status = 'ok'), as the run's slices do;
//   - the session variables the checks read are set: window_start and
//     window_end from the run's row of runs, and bnpl_session_age to the
//     run's default (--var, applied afterwards, can change any of them).
//
// The statement is the check's query, its rows ordered by merchant and
// entity; about says which run, window and age it reads. Only the views and variables are made here; the check itself
// goes through the read-only guard like any other query.
func (r *DB) PrepareCheck(ctx context.Context, kind, date string) (query, about string, err error) {
	var check *queries.Check
	checks := queries.Checks()
	for i := range checks {
		if checks[i].Kind == kind {
			check = &checks[i]
		}
	}
	if check == nil {
		return "", "", fmt.Errorf("--check %q: no such finding kind; the kinds are %s", kind, strings.Join(queries.Kinds(), ", "))
	}
	var day any // NULL: the latest business date in the file
	if date != "" {
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return "", "", fmt.Errorf("--date %q: want YYYY-MM-DD", date)
		}
		day = d.Format(time.DateOnly)
	}
	rows, err := r.conn.QueryContext(ctx, checkRunsSQL, day)
	if err != nil {
		return "", "", fmt.Errorf("--check: read the runs: %w", err)
	}
	var runIDs []string
	var businessDate, start, end string
	for rows.Next() {
		var id, bd, s, e string
		if err := rows.Scan(&id, &bd, &s, &e); err != nil {
			rows.Close()
			return "", "", fmt.Errorf("--check: read the runs: %w", err)
		}
		if len(runIDs) > 0 && (s != start || e != end) {
			rows.Close()
			return "", "", fmt.Errorf("--check: the runs of %s (%s, %s) have different windows", bd, runIDs[0], id)
		}
		runIDs, businessDate, start, end = append(runIDs, id), bd, s, e
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return "", "", fmt.Errorf("--check: read the runs: %w", err)
	}
	if len(runIDs) == 0 {
		if date == "" {
			return "", "", errors.New("--check: the file holds no run")
		}
		return "", "", fmt.Errorf("--check: the file holds no run of %s", date)
	}
	var db string
	if err := r.conn.QueryRowContext(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		return "", "", fmt.Errorf("--check: name of the database: %w", err)
	}
	quoted := make([]string, len(runIDs))
	for i, id := range runIDs {
		quoted[i] = quoteLiteral(id)
	}
	members := fmt.Sprintf(`SELECT merchant_id FROM %s.main.run_members WHERE run_id IN (%s) AND status = 'ok'`,
		store.QuoteIdent(db), strings.Join(quoted, ", "))
	for _, t := range store.SlicedTables() {
		view := fmt.Sprintf(`CREATE TEMP VIEW %s AS SELECT * FROM %s.main.%s WHERE merchant_id IN (%s)`,
			store.QuoteIdent(t), store.QuoteIdent(db), store.QuoteIdent(t), members)
		if _, err := r.conn.ExecContext(ctx, view); err != nil {
			return "", "", fmt.Errorf("--check: restrict %s to the members of run %s: %w", t, strings.Join(runIDs, ", "), err)
		}
	}
	for _, set := range []string{
		"SET VARIABLE window_start = TIMESTAMPTZ " + quoteLiteral(start),
		"SET VARIABLE window_end = TIMESTAMPTZ " + quoteLiteral(end),
		"SET VARIABLE bnpl_session_age = INTERVAL " + quoteLiteral(defaultBNPLSessionAge),
	} {
		if _, err := r.conn.ExecContext(ctx, set); err != nil {
			return "", "", fmt.Errorf("--check: %s: %w", set, err)
		}
	}
	about = fmt.Sprintf("check %s over the members of run %s (business date %s), window_start %s, window_end %s, bnpl_session_age %s",
		kind, strings.Join(runIDs, ", "), businessDate, start, end, defaultBNPLSessionAge)
	return "SELECT * FROM (\n" + check.SQL + "\n) ORDER BY merchant_id, entity_id", about, nil
}

// checkRunsSQL finds the runs of a business date (queries/cli/sql.sql).
var checkRunsSQL = queries.Must("cli/sql.sql", "CheckRuns")

// quoteLiteral writes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
