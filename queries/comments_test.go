package queries

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

func openSchema(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "c.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(Schema()); err != nil {
		t.Fatalf("apply schema: %v", err)
	}
	return db
}

// Every table, view and column of the working database carries a comment
// (reconcile sql --tables shows them): a column added to schema.sql or
// migrations.sql without a line in comments.sql fails here.
func TestEveryTableAndColumnHasAComment(t *testing.T) {
	db := openSchema(t)
	rows, err := db.Query(`
		SELECT 'table ' || table_name, comment FROM duckdb_tables() WHERE database_name = current_database() AND NOT internal AND NOT temporary
		UNION ALL
		SELECT 'view ' || view_name, comment FROM duckdb_views() WHERE database_name = current_database() AND NOT internal AND NOT temporary
		UNION ALL
		SELECT 'column ' || table_name || '.' || column_name, comment FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var what string
		var comment sql.NullString
		if err := rows.Scan(&what, &comment); err != nil {
			t.Fatal(err)
		}
		n++
		if len(strings.TrimSpace(comment.String)) < 5 {
			t.Errorf("%s has no comment: add COMMENT ON ... IS '...' to queries/comments.sql", what)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 150 {
		t.Errorf("only %d tables, views and columns seen: the query above misses some", n)
	}
}

// Opening a file made before the day-over-day columns existed adds them
// and gives the old findings a state from their first_seen_run; opening it
// again changes nothing.
func TestMigrationsOnAnOlderFile(t *testing.T) {
	db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "old.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	old := mustRead("schema.sql")
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	var cols int
	if err := db.QueryRow(`SELECT count(*) FROM duckdb_columns() WHERE table_name = 'findings' AND column_name = 'state'`).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("schema.sql alone already has findings.state (%d, %v): this test no longer tests the migration", cols, err)
	}
	if _, err := db.Exec(`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, first_seen_run) VALUES
		('2026-11-19', DATE '2026-11-19', 'skipped_cycle', 'm1', 'p1', '2026-11-19'),
		('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm1', 'p1', '2026-11-19')`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := db.Exec(Schema()); err != nil {
			t.Fatalf("apply schema to an older file (pass %d): %v", i+1, err)
		}
	}
	var states string
	if err := db.QueryRow(`SELECT string_agg(run_id || ':' || state, ' ' ORDER BY run_id) FROM findings`).Scan(&states); err != nil {
		t.Fatal(err)
	}
	if states != "2026-11-19:new 2026-11-20:open" {
		t.Errorf("states after migration: %s", states)
	}
	var current int
	if err := db.QueryRow(`SELECT count(*) FROM current_findings`).Scan(&current); err != nil || current != 2 {
		t.Errorf("current_findings: %d rows (%v), want 2", current, err)
	}
}
