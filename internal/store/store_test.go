package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// plansPart is a part of the plans table, for loads in tests.
var plansPart = store.NewTable("plans", []string{"merchant_id", "plan_id"}, "merchant_id",
	store.Columns("merchant_id text, plan_id text, name text, billing_amount amount, run_id text, loaded_at time")...)

// planCount is the number of rows of plans, and of those named name.
func planCount(t *testing.T, s *store.Store, name string) (n, named int) {
	t.Helper()
	if err := s.Conn().QueryRowContext(context.Background(),
		`SELECT count(*), count(*) FILTER (WHERE name = ?) FROM plans`, name).Scan(&n, &named); err != nil {
		t.Fatal(err)
	}
	return n, named
}

// TestLoadReplacesByKey: loading the same keys again leaves one row each,
// with the newer values, whether the second load comes in the same store
// (which knows the member has rows) or in a store opened afresh on the
// file (which reads it from the table); a key given twice in one batch is
// inserted once, the later row winning.
func TestLoadReplacesByKey(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.duckdb")
	load := func(s *store.Store, name string) {
		b := plansPart.NewBatch()
		b.Str("m1").Str("p1").Str(name).Amount(100, true).Str("r").Time(time.Now(), true).End()
		b.Str("m1").Str("p2").Str("repeated").Amount(200, true).Str("r").Time(time.Now(), true).End()
		b.Str("m1").Str("p2").Str(name).Amount(200, true).Str("r").Time(time.Now(), true).End() // a page boundary repeated a record
		if b.Len() != 2 {
			t.Errorf("a batch of 3 rows, 2 keys has Len %d", b.Len())
		}
		if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, b) }); err != nil {
			t.Fatal(err)
		}
	}
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	load(s, "old")
	if n, named := planCount(t, s, "old"); n != 2 || named != 2 {
		t.Errorf("after one load: %d rows, %d with its name; want 2 and 2", n, named)
	}
	load(s, "new")
	if n, named := planCount(t, s, "new"); n != 2 || named != 2 {
		t.Errorf("after a second load: %d rows, %d with the newer name; want 2 and 2", n, named)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	load(s, "newest")
	if n, named := planCount(t, s, "newest"); n != 2 || named != 2 {
		t.Errorf("after a load in a new store: %d rows, %d with the newest name; want 2 and 2", n, named)
	}
	assertNoLoadViews(t, s)
}

// TestLoadReplace: a load's Replace deletes the rows it names (of members
// the table holds) and no others, in the load's transaction.
func TestLoadReplace(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	b := plansPart.NewBatch()
	for _, k := range [][2]string{{"m1", "a"}, {"m1", "b"}, {"m2", "a"}, {"m2", "b"}} {
		b.Str(k[0]).Str(k[1]).Str("first").Null().Str("r").Time(time.Now(), true).End()
	}
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, b) }); err != nil {
		t.Fatal(err)
	}
	b = plansPart.NewBatch()
	b.Str("m3").Str("c").Str("new").Null().Str("r").Time(time.Now(), true).End()
	replace := &store.Replace{On: []string{"merchant_id", "plan_id"}, Tuples: [][]string{{"m1", "b"}, {"m2", "a"}, {"m9", "x"}}}
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, replace, b) }); err != nil {
		t.Fatal(err)
	}
	var left string
	if err := s.Conn().QueryRowContext(ctx, `SELECT string_agg(merchant_id || plan_id, ' ' ORDER BY merchant_id, plan_id) FROM plans`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != "m1a m2b m3c" {
		t.Errorf("after replacing m1b, m2a and m9x and loading m3c: %s", left)
	}
}

// TestLoadRoundTrip: every kind of column, and NULL in each, comes back from
// DuckDB as it was given (through Arrow with -tags duckdb_arrow, through the
// Appender without: go test runs both in CI).
func TestLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	schedules := store.NewTable("subscription_schedules", []string{"merchant_id", "subscription_id"}, "merchant_id",
		store.Columns("merchant_id text, subscription_id text, period_length int32, start_date time, cut_off time, projection_cut bool, "+
			"retry_limit int32, retry_interval interval, retry_tolerance interval, monthly_amount amount, problem text, run_id text, loaded_at time")...)
	runs := store.NewTable("run_members", []string{"run_id", "merchant_id"}, "",
		store.Columns("run_id text, merchant_id text, status text, requests int64, retries int64")...)
	groups := store.NewTable("groups", []string{"group_id"}, "",
		store.Columns("group_id text, organization_id text, raw json, run_id text, loaded_at time")...)
	at := time.Date(2026, 2, 28, 23, 59, 59, 123456000, time.UTC)
	sb := schedules.NewBatch()
	sb.Str("m1").Str("s1").Int32(-7, true).Time(at, true).Time(at, true).Bool(true, true).Int32(3, true).
		Interval(36*time.Hour+time.Microsecond).Interval(0).Amount(-1234567890120, true).Str("").Str("r").Time(at, true).End()
	sb.Str("m1").Str("s2").Int32(0, false).Time(at, false).Time(at, true).Bool(false, false).Int32(0, true).
		Interval(time.Hour).Interval(time.Hour).Amount(0, false).Text("").Str("r").Time(at, true).End()
	rb := runs.NewBatch()
	rb.Add("r", "m1", "ok", int64(1<<40), nil)
	gb := groups.NewBatch()
	gb.Str("g1").Str("o").JSONText([]byte(`{"name": "Ünïcode ✓", "n": [1, 2.50]}`)).Str("r").Time(at, true).End()
	gb.Str("g2").Str("o").JSONText(nil).Str("r").Time(at, true).End()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		return errors.Join(tx.Load(ctx, schedules, nil, sb), tx.Load(ctx, runs, nil, rb), tx.Load(ctx, groups, nil, gb))
	})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	q := `SELECT string_agg(concat_ws('|', subscription_id, period_length, start_date, projection_cut, retry_limit,
		retry_interval, retry_tolerance, monthly_amount, problem IS NULL, problem), ' ; ' ORDER BY subscription_id) FROM subscription_schedules`
	if err := s.Conn().QueryRowContext(ctx, q).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "s1|-7|2026-02-28 23:59:59.123456+00|true|3|36:00:00.000001|00:00:00|-1234567890.120|false| ; s2|0|01:00:00|01:00:00|true" {
		t.Errorf("schedules came back as %q", got)
	}
	var requests int64
	var retries sql.NullInt64
	if err := s.Conn().QueryRowContext(ctx, `SELECT requests, retries FROM run_members`).Scan(&requests, &retries); err != nil {
		t.Fatal(err)
	}
	if requests != 1<<40 || retries.Valid {
		t.Errorf("run_members came back as %d, %v", requests, retries)
	}
	if err := s.Conn().QueryRowContext(ctx, `SELECT string_agg(concat_ws('|', group_id, json_type(raw), raw->>'name', CAST(raw AS VARCHAR), raw IS NULL), ' ; ' ORDER BY group_id) FROM groups`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := `g1|OBJECT|Ünïcode ✓|{"name": "Ünïcode ✓", "n": [1, 2.50]}|false ; g2|true`; got != want {
		t.Errorf("groups came back as %q", got)
	}
}

// TestLoadChecksColumns: a load whose declared columns the table does not
// have, or has with another type, fails naming the column, and loads
// nothing.
func TestLoadChecksColumns(t *testing.T) {
	ctx := context.Background()
	for decl, want := range map[string]string{
		"merchant_id text, plan_id text, billing_amount text": "column billing_amount is DECIMAL(18,3) in the database, loaded as VARCHAR",
		"merchant_id text, plan_id text, no_such text":        "the table has no column no_such",
	} {
		s := storetest.Open(t)
		bad := store.NewTable("plans", []string{"merchant_id", "plan_id"}, "merchant_id", store.Columns(decl)...)
		b := bad.NewBatch()
		b.Str("m1").Str("p1").Str("x").End()
		err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, bad, nil, b) })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", decl, err, want)
		}
	}
}

// TestUpdate sets the non-key columns of the rows whose key a batch holds,
// and no other row.
func TestUpdate(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	b := plansPart.NewBatch()
	b.Str("m1").Str("p1").Str("one").Amount(1000, true).Str("r").Time(time.Now(), true).End()
	b.Str("m1").Str("p2").Str("two").Amount(2000, true).Str("r").Time(time.Now(), true).End()
	names := store.NewTable("plans", []string{"merchant_id", "plan_id"}, "", store.Columns("merchant_id text, plan_id text, name text")...)
	u := names.NewBatch()
	u.Str("m1").Str("p2").Str("renamed").End()
	u.Str("m1").Str("p9").Str("absent").End()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		return errors.Join(tx.Load(ctx, plansPart, nil, b), tx.Update(ctx, u))
	})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := s.Conn().QueryRowContext(ctx, `SELECT string_agg(plan_id || ' ' || name || ' ' || billing_amount, ', ' ORDER BY plan_id) FROM plans`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "p1 one 1.000, p2 renamed 2.000" {
		t.Errorf("after the update: %s", got)
	}
	assertNoLoadViews(t, s)
}

// assertNoLoadViews fails if a load left a view behind (DuckDB's Arrow
// scan makes its views in the database, not as temporary ones).
func assertNoLoadViews(t *testing.T, s *store.Store) {
	t.Helper()
	var views string
	if err := s.Conn().QueryRowContext(context.Background(),
		`SELECT coalesce(string_agg(view_name, ', '), '') FROM duckdb_views() WHERE view_name LIKE 'load%' OR view_name LIKE 'update%'`).Scan(&views); err != nil {
		t.Fatal(err)
	}
	if views != "" {
		t.Errorf("loads left views behind: %s", views)
	}
}

// TestTransactRollsBack: a failing load leaves nothing behind.
func TestTransactRollsBack(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	rows := plansPart.NewBatch()
	rows.Str("m1").Str("p1").Null().Null().Str("r").Time(time.Now(), true).End()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := tx.Load(ctx, plansPart, nil, rows); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO no_such_table VALUES (1)")
		return err
	})
	if err == nil {
		t.Fatal("want an error")
	}
	if n, _ := planCount(t, s, ""); n != 0 {
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
	older, err := os.ReadFile(filepath.Join("..", "..", "queries", "testdata", "older-schema-base.sql"))
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

// TestLoadAgainAfterRollback: a batch whose load was rolled back loads
// again, whole, in the next transaction (ingest retries the members of a
// failed load one by one with their batches), replacing the member's old
// rows as the first attempt would have; and a sealed batch takes no row.
func TestLoadAgainAfterRollback(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	old := plansPart.NewBatch()
	old.Str("m1").Str("p1").Str("old").Amount(100, true).Str("r").Time(time.Now(), true).End()
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, old) }); err != nil {
		t.Fatal(err)
	}
	b := plansPart.NewBatch()
	b.Str("m1").Str("p1").Str("new").Amount(150, true).Str("r").Time(time.Now(), true).End()
	b.Str("m1").Str("p2").Str("new").Amount(250, true).Str("r").Time(time.Now(), true).End()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := tx.Load(ctx, plansPart, nil, b); err != nil {
			return err
		}
		return errors.New("the database refused a later table")
	})
	if err == nil {
		t.Fatal("want the transaction's error")
	}
	if n, named := planCount(t, s, "old"); n != 1 || named != 1 {
		t.Fatalf("after the rolled-back load: %d rows, %d old; want 1 and 1", n, named)
	}
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, b) }); err != nil {
		t.Fatal(err)
	}
	if n, named := planCount(t, s, "new"); n != 2 || named != 2 {
		t.Errorf("after loading the batch again: %d rows, %d new; want 2 and 2", n, named)
	}
	defer func() {
		if recover() == nil {
			t.Error("a row added to a loaded batch did not panic")
		}
	}()
	b.Str("m1")
}

// TestReopenLetsGoOfTemporaryStorage: loads larger than the memory limit
// spill to DuckDB's temporary storage, which the instance keeps after a
// checkpoint has written the rows into the file (at 5,000 members, 6 GB of
// it, and the workbook's queries ran out of memory). Reopen gives a fresh
// instance: no temporary storage, every row still there, the memory
// settings and the store's knowledge of what it holds kept.
func TestReopenLetsGoOfTemporaryStorage(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "t.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetMemoryLimit(ctx, "32MB"); err != nil {
		t.Fatal(err)
	}
	c := s.Conn()
	temporary := func() (n int64) {
		t.Helper()
		if err := c.QueryRowContext(ctx, `SELECT coalesce(sum(temporary_storage_bytes), 0) FROM duckdb_memory()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// One transaction per insert, as a run loads one member at a time.
	for i := range 10 {
		q := `INSERT INTO plans (merchant_id, plan_id, name, run_id, loaded_at) SELECT 'bulk' || ?, 'p' || range, repeat('x', 40) || range, 'r', now() FROM range(100000)`
		if _, err := c.ExecContext(ctx, q, i); err != nil {
			t.Fatal(err)
		}
	}
	if temporary() == 0 {
		t.Fatal("1,000,000 rows under a 32 MB limit spilled nothing: the test no longer loads beyond the limit")
	}
	load := func(name string) {
		b := plansPart.NewBatch()
		b.Str("m1").Str("p1").Str(name).Amount(100, true).Str("r").Time(time.Now(), true).End()
		if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, b) }); err != nil {
			t.Fatal(err)
		}
	}
	load("before")
	if err := s.Reopen(ctx); err != nil {
		t.Fatal(err)
	}
	c = s.Conn()
	if n := temporary(); n != 0 {
		t.Errorf("after Reopen DuckDB holds %d bytes of temporary storage; want 0", n)
	}
	var rows int64
	var limit, order string
	if err := c.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM plans), current_setting('memory_limit'), current_setting('preserve_insertion_order')::VARCHAR`).Scan(&rows, &limit, &order); err != nil {
		t.Fatal(err)
	}
	if rows != 1_000_001 {
		t.Errorf("after Reopen plans holds %d rows; want 1000001", rows)
	}
	if !strings.HasPrefix(limit, "30.") || order != "false" {
		t.Errorf("after Reopen memory_limit = %s, preserve_insertion_order = %s; want the 32 MB limit and false", limit, order)
	}
	// The store still knows m1 has a row: a load of the same key replaces it.
	load("after")
	if n, named := planCount(t, s, "after"); n != 1_000_001 || named != 1 {
		t.Errorf("a load after Reopen: %d rows, %d with the new name; want 1000001 and 1", n, named)
	}
}

// TestLimitLoadsHalvesUntilReopen: a run's loads get one thread and half of
// the memory limit (not less than 128MB, unless the limit is), and its
// checks, after Reopen, all of the memory and the threads it allows; in a file or in memory (where Reopen only checkpoints), and
// with no limit none is made up.
func TestLimitLoadsHalvesUntilReopen(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{filepath.Join(t.TempDir(), "t.duckdb"), ":memory:"} {
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		setting := func(name string) string {
			t.Helper()
			var v string
			if err := s.Conn().QueryRowContext(ctx, `SELECT current_setting(?)::VARCHAR`, name).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		limit := func() string { return setting("memory_limit") }
		threads := func() string { return setting("threads") }
		unlimited := limit()
		if err := s.LimitLoads(ctx); err != nil {
			t.Fatal(err)
		}
		if got := threads(); got != "1" {
			t.Errorf("%s: LimitLoads left DuckDB %s threads; want 1", path, got)
		}
		if got := limit(); got != unlimited {
			t.Errorf("%s: LimitLoads without a memory limit set DuckDB's to %s; want its own %s", path, got, unlimited)
		}
		if err := s.SetMemoryLimit(ctx, "256MB"); err != nil {
			t.Fatal(err)
		}
		full := limit() // 244.1 MiB
		if err := s.LimitLoads(ctx); err != nil {
			t.Fatal(err)
		}
		if got := limit(); got != "122.0 MiB" {
			t.Errorf("%s: LimitLoads under 256MB (%s): DuckDB's limit is %s; want half, 122.0 MiB", path, full, got)
		}
		// Not less than the default's half, unless the whole limit is
		// less: the checkpoints of the loads' commits need it. (The limit
		// is read back as DuckDB shows it, to a tenth of a MiB: 512MB is
		// 488.2 MiB, whose half shows as 244.0.)
		for _, c := range []struct{ limit, loads string }{
			{"512MB", "244.0 MiB"}, {"200MB", "122.0 MiB"}, {"128MB", "122.0 MiB"}, {"100MB", "95.2 MiB"},
		} {
			if err := s.Reopen(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.SetMemoryLimit(ctx, c.limit); err != nil {
				t.Fatal(err)
			}
			if err := s.LimitLoads(ctx); err != nil {
				t.Fatal(err)
			}
			if got := limit(); got != c.loads {
				t.Errorf("%s: LimitLoads under %s: DuckDB's limit is %s; want %s", path, c.limit, got, c.loads)
			}
		}
		if err := s.SetMemoryLimit(ctx, "256MB"); err != nil {
			t.Fatal(err)
		}
		if err := s.Reopen(ctx); err != nil {
			t.Fatal(err)
		}
		if got := limit(); got != full {
			t.Errorf("%s: after Reopen DuckDB's limit is %s; want the whole limit again, %s", path, got, full)
		}
		if got, want := threads(), fmt.Sprint(min(2, runtime.NumCPU())); got != want {
			t.Errorf("%s: after Reopen under 256MB DuckDB has %s threads; want %s again, one per 128MB", path, got, want)
		}
	}
}

// TestThreadsFollowTheMemoryLimit: under a memory limit DuckDB gets one
// thread per 128MB of it, at least one and at most the machine's cores
// (on 16 threads, a 1,000-member run under 256MB ran out of memory in its
// Parquet export), as set and after Reopen; without a limit it keeps its
// own.
func TestThreadsFollowTheMemoryLimit(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	threads := func() int {
		t.Helper()
		var n int
		if err := s.Conn().QueryRowContext(ctx, `SELECT current_setting('threads')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// On a machine of 16 cores, as DuckDB reads its limits back.
	for limit, want := range map[int64]int{
		127_926_272: 1, 255_957_606: 2, 511_915_212: 4, 999_922_073: 8, 1_999_844_147: 16, 8_000_000_000: 16, 1 << 20: 1,
	} {
		if got := store.ThreadsFor(limit, 16); got != want {
			t.Errorf("ThreadsFor(%d bytes, 16 cores) = %d; want %d", limit, got, want)
		}
	}
	cores := runtime.NumCPU()
	if got := threads(); got != cores {
		t.Errorf("without a memory limit DuckDB has %d threads; want its own, one per core: %d", got, cores)
	}
	for _, c := range []struct {
		limit string
		want  int
	}{{"100MB", 1}, {"128MB", 1}, {"256MB", 2}, {"512MB", 4}, {"1GB", 8}, {"2GB", 16}} {
		want := min(c.want, cores)
		if err := s.SetMemoryLimit(ctx, c.limit); err != nil {
			t.Fatal(err)
		}
		if got := threads(); got != want {
			t.Errorf("under %s DuckDB has %d threads; want %d", c.limit, got, want)
		}
		if err := s.Reopen(ctx); err != nil {
			t.Fatal(err)
		}
		if got := threads(); got != want {
			t.Errorf("under %s, after Reopen, DuckDB has %d threads; want %d", c.limit, got, want)
		}
	}
}
