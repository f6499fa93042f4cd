package queries

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

func openSchema(t testing.TB) *sql.DB {
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

// An older working database, opened by this version, ends up with the same
// tables, columns (names, types, order, comments), keys and views as a new
// file: every table's CREATE in schema.sql and the ALTERs of migrations.sql
// agree. The older files are the schema before the day-over-day columns
// and the journal facts existed (older-schema-base.sql) and the schema as
// it was split across files before (older-schema-split.sql), whose shape
// schema.sql created until the acknowledgements, the merchants' names and
// the card-network retry facts of the journal were added. Their findings
// get a state from their first_seen_run; opening again changes nothing.
func TestMigrationsOnAnOlderFile(t *testing.T) {
	want := schemaShape(t, openSchema(t))
	for _, file := range []string{"older-schema-base.sql", "older-schema-split.sql"} {
		t.Run(file, func(t *testing.T) {
			old, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "old.duckdb"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(string(old)); err != nil {
				t.Fatal(err)
			}
			if slices.Equal(schemaShape(t, db), want) {
				t.Fatal("the older schema already has the current shape: this would not test the migrations")
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
			if got := schemaShape(t, db); !slices.Equal(got, want) {
				t.Errorf("an older file, migrated, differs from a new one:\n%s", shapeDiff(got, want))
			}
			var states string
			if err := db.QueryRow(`SELECT string_agg(run_id || ':' || state, ' ' ORDER BY run_id) FROM findings`).Scan(&states); err != nil {
				t.Fatal(err)
			}
			if states != "2026-11-19:new 2026-11-20:open" {
				t.Errorf("states after migration: %s", states)
			}
			var current int
			if err := db.QueryRow(`SELECT count(*) FROM findings_history`).Scan(&current); err != nil || current != 2 {
				t.Errorf("findings_history: %d rows (%v), want 2", current, err)
			}
		})
	}
}

// schemaShape lists the database's tables and views with their columns
// (position, name, type, nullability, comment) and its constraints, one
// line each, in order.
func schemaShape(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`
		SELECT 'column ' || table_name || ' ' || column_index || ' ' || column_name || ' ' || data_type || ' ' ||
		       is_nullable || ' ' || coalesce(comment, '')
		FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
		UNION ALL
		SELECT 'constraint ' || table_name || ' ' || constraint_type || ' ' || array_to_string(constraint_column_names, ',')
		FROM duckdb_constraints() WHERE database_name = current_database()
		UNION ALL
		SELECT 'view ' || view_name || ' ' || coalesce(comment, '') FROM duckdb_views()
		WHERE database_name = current_database() AND NOT internal AND NOT temporary
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shapeDiff lists the first lines only one of two shapes has.
func shapeDiff(got, want []string) string {
	count := map[string]int{}
	for _, l := range got {
		count[l]++
	}
	for _, l := range want {
		count[l]--
	}
	var out []string
	for _, l := range slices.Concat(got, want) {
		switch n := count[l]; {
		case n > 0 && len(out) < 10:
			out = append(out, "  only the older file: "+l)
		case n < 0 && len(out) < 10:
			out = append(out, "  only a new file:     "+l)
		}
		count[l] = 0
	}
	return strings.Join(out, "\n")
}
