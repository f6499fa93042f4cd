package outputs

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// Why a block's rows are read through a temporary table, a page at a time.
//
// DuckDB's Go driver (duckdb-go v2.5.6) executes a query to its end and
// holds the whole result in C memory, outside DuckDB's memory limit and its
// buffer manager, before it hands over the first row. A sheet of 1,000,000
// findings held ~290 MiB that way while it was written (duckdb_memory()
// read 3 MiB, the process's anonymous memory 288 MiB). So a block's query
// runs once into a temporary table, which lives in DuckDB's buffers (under
// its limit, spilled to disk past it), and the sheet reads it back in pages
// of pageRows rows, each page a small result of its own. The table also
// gives the block's row count for free: the count that decides whether a
// block overflows its sheet used to run the block's query a second time.
//
// A statement whose result DuckDB cannot store in a table (a CALL or a
// PRAGMA, say) is read the old way, whole.

// pageRows is how many rows of a staged block one read holds (a few MiB);
// a variable so that tests can page a few rows.
var pageRows int64 = 20_000

// stagedBlock is a block's rows in a temporary table, in the query's order
// (a CREATE TABLE AS keeps an ORDER BY's order, whatever
// preserve_insertion_order says), numbered by rowid from 0.
type stagedBlock struct {
	table string
	rows  int64
}

// stage runs block bi's query into a temporary table, once per sheet; ok is
// false if DuckDB cannot, and the block is then read the old way.
func (w *xlsxWriter) stage(ctx context.Context, bi int, b Block) (*stagedBlock, bool) {
	if s, tried := w.staged[bi]; tried {
		return s, s != nil
	}
	w.staged[bi] = nil
	s := &stagedBlock{table: "reconcile_block_" + strconv.Itoa(bi)}
	if _, err := w.q.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+s.table+" AS\n"+trimQuery(b.Query), b.Args...); err != nil {
		return nil, false
	}
	if err := w.count(ctx, s); err != nil {
		w.drop(ctx, s)
		return nil, false
	}
	w.staged[bi] = s
	return s, true
}

// count reads how many rows s holds.
func (w *xlsxWriter) count(ctx context.Context, s *stagedBlock) error {
	rows, err := w.q.QueryContext(ctx, "SELECT count(*) FROM temp.main."+s.table)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		return fmt.Errorf("count the rows of %s: no result", s.table)
	}
	return rows.Scan(&s.rows)
}

// drop drops s's table.
func (w *xlsxWriter) drop(ctx context.Context, s *stagedBlock) {
	w.q.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp.main."+s.table)
}

// unstage drops block bi's table, if it has one.
func (w *xlsxWriter) unstage(ctx context.Context, bi int) {
	if s := w.staged[bi]; s != nil {
		w.drop(ctx, s)
	}
	delete(w.staged, bi)
}

// unstageAll drops the tables of the sheet's blocks.
func (w *xlsxWriter) unstageAll(ctx context.Context) {
	for bi := range w.staged {
		w.unstage(ctx, bi)
	}
}

// blockRows is a block's result rows: a staged block's read page by page,
// or the whole result of its query.
type blockRows struct {
	ctx   context.Context
	q     Querier
	s     *stagedBlock // nil: cur is the query's whole result
	cur   *sql.Rows
	next  int64 // rowid of the first row of the page after cur
	err   error
	types []*sql.ColumnType
}

// openRows opens block bi's rows.
func (w *xlsxWriter) openRows(ctx context.Context, bi int, b Block) (*blockRows, error) {
	r := &blockRows{ctx: ctx, q: w.q}
	if s, ok := w.stage(ctx, bi, b); ok {
		r.s = s
		if err := r.nextPage(); err != nil {
			return nil, err
		}
	} else {
		rows, err := w.q.QueryContext(ctx, b.Query, b.Args...)
		if err != nil {
			return nil, err
		}
		r.cur = rows
	}
	types, err := r.cur.ColumnTypes()
	if err != nil {
		r.Close()
		return nil, err
	}
	r.types = types
	return r, nil
}

// nextPage closes the current page and reads the next one.
func (r *blockRows) nextPage() error {
	if r.cur != nil {
		if err := r.cur.Close(); err != nil {
			return err
		}
	}
	lo := r.next
	r.next += pageRows
	rows, err := r.q.QueryContext(r.ctx, "SELECT * FROM temp.main."+r.s.table+" WHERE rowid >= $1 AND rowid < $2 ORDER BY rowid", lo, r.next)
	if err != nil {
		return fmt.Errorf("read rows %d to %d: %w", lo, r.next-1, err)
	}
	r.cur = rows
	return nil
}

// ColumnTypes are the types of the block's result columns.
func (r *blockRows) ColumnTypes() []*sql.ColumnType { return r.types }

// Next moves to the next row, reading the next page when one ends.
func (r *blockRows) Next() bool {
	if r.err != nil {
		return false
	}
	if r.cur.Next() {
		return true
	}
	if r.s == nil || r.cur.Err() != nil || r.next >= r.s.rows {
		return false
	}
	if r.err = r.nextPage(); r.err != nil {
		return false
	}
	return r.cur.Next()
}

// Scan copies the current row's columns into dest.
func (r *blockRows) Scan(dest ...any) error { return r.cur.Scan(dest...) }

// Err is the error that ended the rows, if any.
func (r *blockRows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.cur.Err()
}

// Close closes the page being read.
func (r *blockRows) Close() error { return r.cur.Close() }
