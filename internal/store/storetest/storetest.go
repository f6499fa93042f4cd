// Package storetest opens working databases for tests: a real DuckDB file
// in the test's temporary folder, closed when the test ends.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/store"
)

// Open opens a new working database with the current schema.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "t.duckdb"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
