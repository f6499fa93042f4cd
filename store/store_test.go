package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/store/storetest"
)

// TestUpsertReplacesByKey: loading the same keys twice leaves one row each,
// with the newer values.
func TestUpsertReplacesByKey(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	load := func(name string) {
		rows := &store.Rows{Table: "plans", Columns: []string{"merchant_id", "plan_id", "name", "run_id", "loaded_at"}}
		rows.Add("m1", "p1", name, "r", time.Now())
		rows.Add("m1", "p2", name, "r", time.Now())
		rows.Add("m1", "p2", name, "r", time.Now()) // a page boundary repeated a record
		if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Upsert(ctx, rows, []string{"merchant_id", "plan_id"}, nil) }); err != nil {
			t.Fatal(err)
		}
	}
	load("old")
	load("new")
	var n, newer int
	if err := s.Conn().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'new') FROM plans`).Scan(&n, &newer); err != nil {
		t.Fatal(err)
	}
	if n != 2 || newer != 2 {
		t.Errorf("after two loads: %d rows, %d with the newer name; want 2 and 2", n, newer)
	}
}

// TestTransactRollsBack: a failing load leaves nothing behind.
func TestTransactRollsBack(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	rows := &store.Rows{Table: "plans", Columns: []string{"merchant_id", "plan_id", "run_id", "loaded_at"}}
	rows.Add("m1", "p1", "r", time.Now())
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := tx.Upsert(ctx, rows, []string{"merchant_id", "plan_id"}, nil); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO no_such_table VALUES (1)")
		return err
	})
	if err == nil {
		t.Fatal("want an error")
	}
	var n int
	s.Conn().QueryRowContext(ctx, `SELECT count(*) FROM plans`).Scan(&n)
	if n != 0 {
		t.Errorf("%d plans after a rolled-back load", n)
	}
}

// TestOpenRefusesForeignDatabase: a DuckDB file another program made is
// refused with a message naming its tables, and left byte for byte as it
// was (no reconcile table created in it); a new file, an empty DuckDB file
// and a reconcile database open.
func TestOpenRefusesForeignDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := filepath.Join(dir, "theirs.duckdb")
	db, err := sql.Open("duckdb", foreign)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE orders (id INTEGER, amount DECIMAL(18,2))`,
		`INSERT INTO orders VALUES (1, 9.99)`, `CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 5`,
		`CREATE TABLE runs (id INTEGER)`} { // a run log of their own does not make it ours
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}

	s, err := store.Open(ctx, foreign)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted another program's database")
	}
	if !errors.Is(err, store.ErrForeignDatabase) || !strings.Contains(err.Error(), "big_orders, orders, runs") ||
		!strings.Contains(err.Error(), "left untouched") {
		t.Errorf("error %q; want ErrForeignDatabase naming its tables", err)
	}
	after, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the refused file changed")
	}
	if _, err := os.Stat(foreign + ".wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a write-ahead log appeared beside the refused file: %v", err)
	}
	ro, err := sql.Open("duckdb", foreign+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var tables int
	if err := ro.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE NOT internal`).Scan(&tables); err != nil || tables != 2 {
		t.Errorf("the refused file holds %d tables (%v), want its own 2", tables, err)
	}

	// A DuckDB file with no table yet is a new working database.
	empty := filepath.Join(dir, "empty.duckdb")
	edb, err := sql.Open("duckdb", empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := edb.Exec(`CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	edb.Close()
	for _, path := range []string{empty, filepath.Join(dir, "new.duckdb")} {
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// Once reconcile made it, it opens again.
		s, err = store.Open(ctx, path)
		if err != nil {
			t.Fatalf("%s, opened again: %v", path, err)
		}
		s.Close()
	}
}

// TestOpenMigratesAnOlderFile: a working database an older version made
// (before the day-over-day columns and the journal facts) is ours, opens,
// and gets the current columns; its rows stay.
func TestOpenMigratesAnOlderFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	older, err := os.ReadFile(filepath.Join("..", "queries", "testdata", "older-schema-base.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{string(older), `INSERT INTO runs (run_id, business_date, window_start, window_end, started_at, status, attempts)
		VALUES ('2026-11-19', DATE '2026-11-19', now(), now(), now(), 'ok', 1)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatalf("open an older file: %v", err)
	}
	defer s.Close()
	var runs, cols int
	if err := s.Conn().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM runs WHERE previous_run IS NULL),
		(SELECT count(*) FROM duckdb_columns() WHERE table_name = 'journal' AND column_name IN ('inspect_version', 'terminal_id'))`).Scan(&runs, &cols); err != nil {
		t.Fatal(err)
	}
	if runs != 1 || cols != 2 {
		t.Errorf("after opening: %d runs with the new previous_run column, %d of the journal's new columns; want 1 and 2", runs, cols)
	}
}
