package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestFitThreadsToData: after FitThreadsToData DuckDB has no more threads
// than the largest table has row groups (122,880 rows), at least one, and
// never more than it had: a small portfolio's checks and workbook run on one
// thread, a large one's keep their threads.
func TestFitThreadsToData(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	exec := func(q string) {
		t.Helper()
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	threads := func() int {
		t.Helper()
		var n int
		if err := s.Conn().QueryRowContext(ctx, `SELECT current_setting('threads')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	fit := func(from int) int {
		t.Helper()
		exec(fmt.Sprint("SET threads = ", from))
		if err := s.FitThreadsToData(ctx); err != nil {
			t.Fatal(err)
		}
		return threads()
	}
	if got := fit(4); got != 1 {
		t.Errorf("a database of no table rows: %d threads after FitThreadsToData; want 1", got)
	}
	exec("CREATE TABLE small AS SELECT range AS i FROM range(1000)")
	if got := fit(4); got != 1 {
		t.Errorf("largest table of 1,000 rows: %d threads; want 1", got)
	}
	exec("CREATE TABLE large AS SELECT range AS i FROM range(300000)")
	if got := fit(4); got != 3 {
		t.Errorf("largest table of 300,000 rows (3 row groups): %d threads; want 3", got)
	}
	if got := fit(2); got != 2 {
		t.Errorf("largest table of 3 row groups on 2 threads: %d threads; want 2 (never raised)", got)
	}
}
