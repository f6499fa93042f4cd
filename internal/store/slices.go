package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/queries"
)

// The checks (queries/findings) and the recurring-billing reports
// (queries/billing) compare whole histories: every payment of every
// subscription with its schedule, every journaled call with the calls
// before it. DuckDB's hash joins and aggregates over those hold state that
// grows with the portfolio, and at 5,000 members (12 M records) they no
// longer fit the run's memory limit. So they run over slices of the run's
// members, up to about a million records at a time, and their memory
// stays the same whatever the portfolio.
//
// Every check and report relates a member's rows only to the same member's
// rows, so a slice's results are the whole run's results for its members.
// The SQL files stay as analysts read them: while a slice runs, temp views
// named like the member tables (slicedTables) shadow them, restricted to
// the slice's range of merchant IDs. DuckDB resolves an unqualified name to
// a temp object first, and the views defined on those tables (journal_cards,
// installment_events, ...) follow; the range is a constant, which DuckDB
// checks against each row group's min/max and skips what lies outside.
// The shadows live only on the writer's connection and only inside the
// stage's transaction.

// slicedTables are the tables a slice restricts: the member data the
// checks and reports read, and run_members, which drives the reports.
// Tables the stage writes (findings, the billing tables) are never shadowed.
var slicedTables = []string{
	"plans", "subscriptions", "subscription_payments", "transactions", "journal",
	"subscription_schedules", "expected_cycles", "run_members", "settlements", "fundings",
}

// rowsPerMiB sizes slices by the memory limit: at 256 MB, slices of about
// 1,000,000 records. Each slice costs its statements' planning and
// start-up beside its rows, about 1.3 s for the checks alone whatever its
// size: at 10,000 members the checks took 74 s in 27 slices of 1,000,000
// records against 108 s in 53 of 500,000, the whole findings stage 121 s
// against 158, with a peak RSS of 510 MiB against 494-503 (2026-11-25).
// The whole 12 M records of 5,000 members at once ran out of memory, and
// so did slices of 2,000,000 there (before the checks named their
// columns); a slice that runs out of memory is run again in two halves
// (ForEachSlice).
const rowsPerMiB = 4000

// Slice is a range of merchant IDs, both ends included.
type Slice struct{ Lo, Hi string }

var memberSizes = queries.Must("store.sql", "MemberSizes")

// memberSlices cuts the run's reconciled members, in merchant ID order, into
// ranges of at most maxRows records (payments, transactions and journal
// lines); a member larger than that is a slice of its own. No members: no
// slices.
func memberSlices(ctx context.Context, tx *Tx, runID string, maxRows int64) ([]Slice, error) {
	rows, err := tx.Query(ctx, memberSizes, runID)
	if err != nil {
		return nil, fmt.Errorf("size the members of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []Slice
	var size int64
	for rows.Next() {
		var mid string
		var n int64
		if err := rows.Scan(&mid, &n); err != nil {
			return nil, fmt.Errorf("size the members of run %s: %w", runID, err)
		}
		if len(out) == 0 || size+n > maxRows && size > 0 {
			out = append(out, Slice{Lo: mid})
			size = 0
		}
		out[len(out)-1].Hi = mid
		size += n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("size the members of run %s: %w", runID, err)
	}
	return out, nil
}

// ForEachSlice calls fn once per slice of the run's members, each in a
// transaction of its own with the member tables shadowed to the slice; the
// shadows are removed before the commit. A slice per transaction, because
// DuckDB holds what a transaction inserts in memory until it commits, about
// 0.75 MB for every INSERT statement however few its rows: 28 checks over
// 26 slices in one transaction filled a 256 MB limit by themselves.
//
// A slice that runs out of DuckDB's memory (its members' data larger than
// their records let the sizing foresee) is rolled back and run again as
// two slices of half its members, down to a single member, so the run
// slows down there instead of failing. fn may therefore be called more
// than once for the same members: what it does must be in the transaction
// (a count kept in Go would count the rolled-back slice too).
//
// fn must not write the sliced tables (see rowRanges).
func (s *Store) ForEachSlice(ctx context.Context, runID string, fn func(tx *Tx, sl Slice) error) error {
	var cut []Slice
	var db string
	var ranges map[string][]rowRange
	err := s.Transact(ctx, func(tx *Tx) error {
		var err error
		if cut, err = memberSlices(ctx, tx, runID, s.sliceRows); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
			return fmt.Errorf("name of the database: %w", err)
		}
		ranges, err = rowRanges(ctx, tx, db, cut)
		return err
	})
	if err != nil {
		return err
	}
	for i := 0; i < len(cut); i++ {
		sl := cut[i]
		err := s.Transact(ctx, func(tx *Tx) error {
			for _, t := range slicedTables {
				filter, err := sliceFilter(ctx, tx, db, t, sl, ranges[t][i])
				if err != nil {
					return err
				}
				view := fmt.Sprintf(`CREATE TEMP VIEW %s AS SELECT * FROM %s.main.%s WHERE %s`, t, QuoteIdent(db), t, filter)
				if _, err := tx.Exec(ctx, view); err != nil {
					return fmt.Errorf("restrict %s to members %s..%s: %w", t, sl.Lo, sl.Hi, err)
				}
			}
			if err := fn(tx, sl); err != nil {
				return err
			}
			for _, t := range slicedTables {
				if _, err := tx.Exec(ctx, `DROP VIEW temp.main.`+t); err != nil {
					return fmt.Errorf("remove the restriction of %s: %w", t, err)
				}
			}
			return nil
		})
		if err == nil {
			continue
		}
		if !outOfMemory(err) {
			return err
		}
		halves, halfRanges, splitErr := s.splitSlice(ctx, runID, db, sl)
		if splitErr != nil {
			return errors.Join(err, splitErr)
		}
		if halves == nil {
			return err // a single member: nothing left to split
		}
		cut = slices.Replace(cut, i, i+1, halves...)
		for _, t := range slicedTables {
			ranges[t] = slices.Replace(ranges[t], i, i+1, halfRanges[t]...)
		}
		i-- // the first half next
	}
	return nil
}

// outOfMemory tells whether err is DuckDB running out of its memory limit.
func outOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}

// splitSlice cuts sl into two slices of half its members each, with their
// row ranges; nil when sl holds a single member.
func (s *Store) splitSlice(ctx context.Context, runID, db string, sl Slice) ([]Slice, map[string][]rowRange, error) {
	var halves []Slice
	var ranges map[string][]rowRange
	err := s.Transact(ctx, func(tx *Tx) error {
		rows, err := tx.Query(ctx, memberSizes, runID)
		if err != nil {
			return err
		}
		var in []string
		for rows.Next() {
			var mid string
			var n int64
			if err := rows.Scan(&mid, &n); err != nil {
				rows.Close()
				return err
			}
			if mid >= sl.Lo && mid <= sl.Hi {
				in = append(in, mid)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if len(in) < 2 {
			return nil
		}
		half := len(in) / 2
		halves = []Slice{{Lo: in[0], Hi: in[half-1]}, {Lo: in[half], Hi: in[len(in)-1]}}
		ranges, err = rowRanges(ctx, tx, db, halves)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("split members %s..%s in two: %w", sl.Lo, sl.Hi, err)
	}
	return halves, ranges, nil
}

// Where a slice's rows lie. DuckDB skips a row group by its min/max only
// for the first 8 bytes of a string: merchant IDs sharing a prefix
// ("sbxmid00...") give every row group the same bounds, so a slice's view
// filtered on merchant_id alone compared every row of the table, once per
// check and slice. That made the checks quadratic in the portfolio (5
// minutes at 10,000 members). Rows are appended in member order, so a
// slice's rows lie close together; a range of rowids, which DuckDB does
// skip by row group, takes the view to them: a 2.3 M-row table read for
// one slice in 11 ms instead of 77 (1,000 members, warm).

// rowRange is where one slice's rows lie in a table: the least and greatest
// rowid of the rows its range of merchant IDs holds, and how many they are.
// A slice without rows in the table has the empty range 0..-1.
type rowRange struct{ lo, hi, rows int64 }

// rowRanges reads, for every sliced table, the row range of each slice:
// one aggregate of the table by merchant ID, the members then placed in
// their slices (slices are ordered and do not overlap; Go compares strings
// byte by byte, as DuckDB does).
func rowRanges(ctx context.Context, tx *Tx, db string, slices []Slice) (map[string][]rowRange, error) {
	out := map[string][]rowRange{}
	for _, t := range slicedTables {
		ranges := make([]rowRange, len(slices))
		for i := range ranges {
			ranges[i] = rowRange{0, -1, 0}
		}
		rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT merchant_id, min(rowid), max(rowid), count(*) FROM %s.main.%s WHERE merchant_id IS NOT NULL GROUP BY merchant_id`,
			QuoteIdent(db), t))
		if err != nil {
			return nil, fmt.Errorf("where the members' rows of %s lie: %w", t, err)
		}
		for rows.Next() {
			var mid string
			var r rowRange
			if err := rows.Scan(&mid, &r.lo, &r.hi, &r.rows); err != nil {
				rows.Close()
				return nil, fmt.Errorf("where the members' rows of %s lie: %w", t, err)
			}
			i := sort.Search(len(slices), func(i int) bool { return slices[i].Hi >= mid })
			if i == len(slices) || mid < slices[i].Lo {
				continue // a member of no slice
			}
			g := &ranges[i]
			if g.rows == 0 {
				*g = r
				continue
			}
			g.lo, g.hi, g.rows = min(g.lo, r.lo), max(g.hi, r.hi), g.rows+r.rows
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("where the members' rows of %s lie: %w", t, err)
		}
		out[t] = ranges
	}
	return out, nil
}

// sliceFilter is the condition of table t's view for slice sl: its range of
// merchant IDs, and the row range r when r still holds all the slice's rows.
// Rowids change only when a checkpoint rewrites a table with deleted rows;
// the sliced tables are not written while the slices run, so their slices'
// row counts cannot change, and a range that still holds as many of the
// slice's rows as it did holds all of them. One that does not (a checkpoint
// between two slices moved rows) is not used: the slice is then read by
// merchant ID alone, as slowly as before, never wrongly.
func sliceFilter(ctx context.Context, tx *Tx, db, t string, sl Slice, r rowRange) (string, error) {
	members := fmt.Sprintf("merchant_id BETWEEN %s AND %s", sqlQuote(sl.Lo), sqlQuote(sl.Hi))
	ranged := fmt.Sprintf("rowid BETWEEN %d AND %d AND %s", r.lo, r.hi, members)
	var n int64
	if err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s.main.%s WHERE %s`, QuoteIdent(db), t, ranged)).Scan(&n); err != nil {
		return "", fmt.Errorf("rows of %s for members %s..%s: %w", t, sl.Lo, sl.Hi, err)
	}
	if n != r.rows {
		return members, nil
	}
	return ranged, nil
}

// QuoteIdent quotes a table or column name for SQL.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// sliceRowsFor sizes slices by DuckDB's memory limit, in bytes.
func sliceRowsFor(limit int64) int64 {
	return max(limit>>20*rowsPerMiB, 10_000)
}

// duckDBSize is the number of bytes of a size as DuckDB reports it
// ("244.1 MiB", "1.8 GiB"); false if it is not one, or not positive.
func duckDBSize(size string) (float64, bool) {
	num, unit, ok := strings.Cut(strings.TrimSpace(size), " ")
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || v <= 0 {
		return 0, false
	}
	scale := map[string]float64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
	if scale == 0 {
		return 0, false
	}
	return v * scale, true
}
