// Package outputs is the file writer of what a run publishes: the Excel
// workbook, the Parquet datasets, the read-only DuckDB snapshot and
// manifest.json, the output folder as a whole (Staging), and the
// out/current.duckdb link to the latest snapshot (PointCurrent).
//
// Every writer here follows one rule: a reader never sees half a file or half
// a folder. Files are written under a temporary name in the directory of their
// final path (so the rename is on one file system, hence atomic) and renamed
// into place only when complete; a run's folder is built beside its final
// place and swapped in by Staging. Cron runs and analysts overlap, and a
// half-written workbook that opens "repaired" in Excel is worse than none.
//
// The package knows nothing about reconciliation: which query feeds which
// sheet or dataset, and when a run publishes, is the business of package
// reports, which calls these writers. It talks to DuckDB only through
// Querier, so the caller chooses the connection.
package outputs

import (
	"context"
	"database/sql"
)

// Querier is what the writers need from a DuckDB connection (*sql.DB and
// *sql.Conn satisfy it). It is declared here, by its user, so callers can pass
// a pool, a pinned connection or a transaction-like wrapper alike.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

var (
	_ Querier = (*sql.DB)(nil)
	_ Querier = (*sql.Conn)(nil)
)

// conner is the part of *sql.DB that hands out one pinned connection. Work
// that depends on connection state (the current database, an ATTACH alias)
// pins a connection through it, because a pool may run each statement on a
// different connection.
type conner interface {
	Conn(ctx context.Context) (*sql.Conn, error)
}

// pin returns a Querier bound to one connection for the duration of a
// multi-statement operation, and a function releasing it.
func pin(ctx context.Context, q Querier) (Querier, func(), error) {
	db, ok := q.(conner)
	if !ok {
		return q, func() {}, nil
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { _ = c.Close() }, nil
}
