package outputs

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// openDB opens a real DuckDB file in a temp dir: the writers are tested
// against the engine that runs them, not a fake.
func openDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", filepath.Join(tb.TempDir(), "test.duckdb"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustExec(tb testing.TB, db *sql.DB, stmts ...string) {
	tb.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
}

func queryInt(tb testing.TB, db *sql.DB, q string, args ...any) int64 {
	tb.Helper()
	var n int64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return n
}
