package store

import (
	"context"
	"fmt"

	"github.com/reconcile/reconcile/queries"
)

var largestTableRows = queries.Must("store.sql", "LargestTableRows")

// rowGroupRows is the rows of one of DuckDB's row groups: the unit a table
// scan hands to a thread. A scan of a table of one row group is one task,
// and every operator above it (a join's build and probe, an aggregate, a
// sort, a Parquet export) runs on the tasks its scans give it.
const rowGroupRows = 122_880

// FitThreadsToData lowers DuckDB's threads to the row groups of the
// database's largest table, at least one; it never raises them. Called
// after Reopen, before the checks and the publication.
//
// A second thread gives a statement over tables of one row group nothing
// to do, and still costs its scheduling: DuckDB wakes its threads for
// every pipeline of every statement. A run of the small sandbox (8
// members, every table below one row group) took 2.61-2.79 CPU-s of user
// time on one thread against 3.25-3.55 on two, no slower by the clock, on
// this project's 2-core machine; its checks and its workbook run ~300
// statements, each a few milliseconds. A portfolio whose tables pass one
// row group keeps the threads its memory limit gives (fitThreads).
func (s *Store) FitThreadsToData(ctx context.Context) error {
	var rows, threads int64
	if err := s.conn.QueryRowContext(ctx, largestTableRows).Scan(&rows); err != nil {
		return fmt.Errorf("fit the threads to the data: the largest table: %w", err)
	}
	if err := s.conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&threads); err != nil {
		return fmt.Errorf("fit the threads to the data: the threads: %w", err)
	}
	n := max(1, (rows+rowGroupRows-1)/rowGroupRows)
	if n >= threads {
		return nil
	}
	if _, err := s.conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", n)); err != nil {
		return fmt.Errorf("fit the threads to the data: set %d threads for %d rows: %w", n, rows, err)
	}
	return nil
}
