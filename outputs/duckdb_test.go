package outputs

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func findingsDB(t *testing.T) *sql.DB {
	t.Helper()
	db := openDB(t)
	mustExec(t, db,
		`CREATE TABLE findings (run_id VARCHAR, kind VARCHAR, merchant_id VARCHAR, entity_id VARCHAR, amount DECIMAL(18,2), currency VARCHAR, seen TIMESTAMPTZ)`,
		`INSERT INTO findings SELECT 'run1',
			CASE range % 3 WHEN 0 THEN 'skipped_cycle' WHEN 1 THEN 'amount_mismatch' ELSE 'level3_not_transmitted' END,
			'mid' || (range % 4), 'e' || range, (range * 1.01)::DECIMAL(18,2), 'USD', TIMESTAMPTZ '2026-11-20 00:00:00+00'
			FROM range(30)`,
	)
	return db
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestExportParquet(t *testing.T) {
	db := findingsDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	dir = filepath.Join(dir, "parquet", "findings")     // created by the export
	path := filepath.Join(dir, "it's findings.parquet") // a quote in the path must not break the COPY
	if err := ExportParquet(ctx, db, "SELECT * FROM findings ORDER BY entity_id;\n", path); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?)`, path); n != 30 {
		t.Errorf("read back %d rows, want 30", n)
	}
	var colType string
	if err := db.QueryRow(`SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet(?)) WHERE column_name = 'amount'`, path).Scan(&colType); err != nil {
		t.Fatal(err)
	}
	if colType != "DECIMAL(18,2)" {
		t.Errorf("amount read back as %s, want DECIMAL(18,2)", colType)
	}
	var sum string
	if err := db.QueryRow(`SELECT sum(amount)::VARCHAR FROM read_parquet(?)`, path).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if want := "439.35"; sum != want { // 1.01 * (0+1+...+29)
		t.Errorf("sum(amount) = %s, want %s", sum, want)
	}
	// ZSTD, as docs/workbook.md tells the data teams' loaders.
	var codecs string
	if err := db.QueryRow(`SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata(?)`, path).Scan(&codecs); err != nil {
		t.Fatal(err)
	}
	if codecs != "ZSTD" {
		t.Errorf("column chunks compressed with %s, want ZSTD", codecs)
	}

	// Replacing the file: the new content, no temp file left.
	if err := ExportParquet(ctx, db, "SELECT * FROM findings WHERE kind = 'skipped_cycle'", path); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?)`, path); n != 10 {
		t.Errorf("after replace read back %d rows, want 10", n)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("dir holds %v, want only the Parquet file", names)
	}

	// A failing query leaves the published file alone and no temp file.
	if err := ExportParquet(ctx, db, "SELECT * FROM missing", path); err == nil {
		t.Error("no error for a failing query")
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?)`, path); n != 10 {
		t.Errorf("after a failed export read back %d rows, want the previous 10", n)
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("dir holds %v after a failure", names)
	}
}

// TestExportParquetWideRowsUnderMemoryLimit: a table whose rows carry ~2 KB
// of JSON (as subscription_payments.raw carries ~1 KB) exports under a
// memory limit that DuckDB's default row groups of 122,880 rows (~250 MB
// each, held uncompressed per writing thread) would exceed, both as one file and as a
// partitioned dataset. The run's store sets these two settings.
func TestExportParquetWideRowsUnderMemoryLimit(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	mustExec(t, db,
		`CREATE TABLE wide AS SELECT range AS id, range % 4 AS part,
			('{"id":"' || md5(range::VARCHAR) || '","body":"' || repeat(md5((range * 7)::VARCHAR), 60) || '"}')::JSON AS raw
			FROM range(150000)`,
		`CHECKPOINT`,
		`SET memory_limit = '128MB'`,
		`SET preserve_insertion_order = false`,
	)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "wide.parquet")
	if err := ExportParquet(ctx, db, "SELECT * FROM wide", path); err != nil {
		t.Fatalf("export of 150,000 rows of 2 KB under a 128 MB limit: %v", err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?)`, path); n != 150000 {
		t.Errorf("read back %d rows, want 150000", n)
	}
	dir := filepath.Join(t.TempDir(), "wide")
	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM wide", dir, []string{"part"}); err != nil {
		t.Fatalf("partitioned export under a 128 MB limit: %v", err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?, hive_partitioning = true)`, filepath.Join(dir, "*", "*.parquet")); n != 150000 {
		t.Errorf("read back %d rows from the dataset, want 150000", n)
	}
}

func TestExportParquetPartitioned(t *testing.T) {
	db := findingsDB(t)
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "parquet")
	dir := filepath.Join(root, "findings")
	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM findings", dir, []string{"kind"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"kind=amount_mismatch", "kind=level3_not_transmitted", "kind=skipped_cycle"}
	if got := listDir(t, dir); !slices.Equal(got, want) {
		t.Errorf("partitions = %v, want %v", got, want)
	}
	for _, p := range want {
		files, _ := filepath.Glob(filepath.Join(dir, p, "data_*.parquet"))
		if len(files) == 0 {
			t.Errorf("%s holds no Parquet file", p)
		}
	}
	glob := filepath.Join(dir, "**", "*.parquet")
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?, hive_partitioning = true) WHERE kind = 'skipped_cycle'`, glob); n != 10 {
		t.Errorf("skipped_cycle rows = %d, want 10", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM read_parquet(?, hive_partitioning = true)`, glob); n != 30 {
		t.Errorf("rows = %d, want 30", n)
	}
	if names := listDir(t, root); !slices.Equal(names, []string{"findings"}) {
		t.Errorf("parent holds %v, want only the dataset", names)
	}

	// A new export replaces the dataset whole: no partition of the old one
	// survives.
	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM findings WHERE kind = 'skipped_cycle'", dir, []string{"kind", "merchant_id"}); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"kind=skipped_cycle"}) {
		t.Errorf("after replace partitions = %v", got)
	}
	if got := listDir(t, filepath.Join(dir, "kind=skipped_cycle")); len(got) != 4 || !strings.HasPrefix(got[0], "merchant_id=") {
		t.Errorf("second-level partitions = %v", got)
	}

	// An empty result leaves the dataset's directory, empty.
	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM findings WHERE false", dir, []string{"kind"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("empty result: dataset dir missing: %v", err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("empty result: dir holds %v", got)
	}
	if names := listDir(t, root); !slices.Equal(names, []string{"findings"}) {
		t.Errorf("parent holds %v, want only the dataset", names)
	}

	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM findings", dir, nil); err == nil {
		t.Error("no error without partition columns")
	}
	if err := ExportParquetPartitioned(ctx, db, "SELECT * FROM findings", dir, []string{"nope"}); err == nil {
		t.Error("no error for an unknown partition column")
	}
	if names := listDir(t, root); !slices.Equal(names, []string{"findings"}) {
		t.Errorf("failed exports left %v", names)
	}
}

// TestSnapshotDuckDB snapshots a database in a file (copied byte for byte
// once checkpointed: the snapshot is the source file, TestSnapshotDuckDBFile)
// and one in memory (copied through DuckDB): either way the snapshot holds
// every schema, table, view and row, and replaces an older one.
func TestSnapshotDuckDB(t *testing.T) {
	t.Run("file", func(t *testing.T) { testSnapshot(t, findingsDB(t)) })
	t.Run("in memory", func(t *testing.T) {
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1) // one in-memory database, not one per connection
		mustExec(t, db, `CREATE TABLE findings AS SELECT 'run1' AS run_id, 'skipped_cycle' AS kind, range AS n FROM range(30)`)
		testSnapshot(t, db)
	})
}

// TestSnapshotDuckDBFile: the snapshot of a database in a file is its bytes,
// taken once a checkpoint has folded its log in: rows committed just before
// are in it.
func TestSnapshotDuckDBFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "work.duckdb")
	db, err := sql.Open("duckdb", src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, `CREATE TABLE t AS SELECT range AS n FROM range(100000)`, `INSERT INTO t VALUES (-1)`)
	path := filepath.Join(dir, "snap.duckdb")
	if err := SnapshotDuckDB(context.Background(), db, path); err != nil {
		t.Fatal(err)
	}
	assertSameBytes(t, path, src)
	snap, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if n := queryInt(t, snap, `SELECT count(*) FROM t WHERE n = -1`); n != 1 {
		t.Errorf("the row committed last is %d times in the snapshot, want once", n)
	}
}

func testSnapshot(t *testing.T, db *sql.DB) {
	ctx := context.Background()
	mustExec(t, db,
		`CREATE SCHEMA audit`,
		`CREATE TABLE audit.runs AS SELECT 'run' || range AS run_id FROM range(4)`,
		`CREATE VIEW skipped AS SELECT * FROM findings WHERE kind = 'skipped_cycle'`,
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "reconcile.duckdb")
	if err := SnapshotDuckDB(ctx, db, path); err != nil {
		t.Fatal(err)
	}
	// A second snapshot replaces the first (the nightly case); the source
	// changed in between.
	mustExec(t, db, `INSERT INTO audit.runs VALUES ('run4')`)
	if err := SnapshotDuckDB(ctx, db, path); err != nil {
		t.Fatal(err)
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"reconcile.duckdb"}) {
		t.Errorf("dir holds %v, want only the snapshot (no temp file, no WAL)", names)
	}
	// The source connection is still usable and has nothing attached.
	if n := queryInt(t, db, `SELECT count(*) FROM duckdb_databases() WHERE NOT internal`); n != 1 {
		t.Errorf("source has %d databases attached after the snapshot, want 1", n)
	}

	snap, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	tables := func(db *sql.DB) []string {
		rows, err := db.Query(`SELECT schema_name || '.' || table_name FROM duckdb_tables() ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		return names
	}
	if got, want := tables(snap), tables(db); !slices.Equal(got, want) {
		t.Errorf("snapshot tables = %v, want %v", got, want)
	}
	for _, tbl := range []string{"findings", "audit.runs", "skipped"} {
		if got, want := queryInt(t, snap, "SELECT count(*) FROM "+tbl), queryInt(t, db, "SELECT count(*) FROM "+tbl); got != want {
			t.Errorf("%s: snapshot has %d rows, source %d", tbl, got, want)
		}
	}
	if _, err := snap.Exec(`INSERT INTO audit.runs VALUES ('x')`); err == nil {
		t.Error("the read-only snapshot accepted a write")
	}
}

// TestStartSnapshotWhileReading: the byte copy goes on while the database is
// read through the same connection (as a run writes its workbook and
// datasets meanwhile), and what Finish puts in place is the file's bytes.
func TestStartSnapshotWhileReading(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "work.duckdb")
	db := fileDB(t, src)
	ctx := context.Background()
	path := filepath.Join(dir, "snap.duckdb")
	snap, err := StartSnapshot(ctx, db, path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if n := queryInt(t, db, `SELECT count(DISTINCT n) FROM t`); n != 2000000 {
			t.Fatalf("read %d distinct rows while the snapshot was made, want 2000000", n)
		}
	}
	if err := snap.Finish(ctx, db); err != nil {
		t.Fatal(err)
	}
	assertSameBytes(t, path, src)
	if names := listDir(t, dir); !slices.Equal(names, []string{"snap.duckdb", "work.duckdb"}) {
		t.Errorf("dir holds %v, want the source and the snapshot only", names)
	}
}

// TestSnapshotAbortLeavesNothing: a publication that fails after starting
// its snapshot aborts it, and no copy is left, whole or in part.
func TestSnapshotAbortLeavesNothing(t *testing.T) {
	db := fileDB(t, filepath.Join(t.TempDir(), "work.duckdb"))
	dir := t.TempDir()
	snap, err := StartSnapshot(context.Background(), db, filepath.Join(dir, "snap.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(listDir(t, dir)) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the copy did not start within 10 s")
		}
	}
	snap.Abort()
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("an aborted snapshot left %v", names)
	}
}

// fileDB is a database in the file path, of one connection, holding a table
// of 2,000,000 rows (about 30 MB): its byte copy takes a while.
func fileDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	mustExec(t, db, `CREATE TABLE t AS SELECT range AS n, repeat('x', 200) AS pad FROM range(2000000)`)
	return db
}

func TestSnapshotDuckDBFailureLeavesNothing(t *testing.T) {
	db := findingsDB(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SnapshotDuckDB(ctx, db, filepath.Join(dir, "snap.duckdb")); err == nil {
		t.Error("no error with a cancelled context")
	}
	// Fails at the last step: the final path is a non-empty directory, so
	// the rename fails after the copy was made and detached.
	blocker := filepath.Join(dir, "snap.duckdb")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := SnapshotDuckDB(context.Background(), db, blocker); err == nil {
		t.Error("no error when the final path is a directory")
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"snap.duckdb"}) {
		t.Errorf("failed snapshots left %v", names)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM duckdb_databases() WHERE NOT internal`); n != 1 {
		t.Errorf("source has %d databases attached after a failed snapshot, want 1", n)
	}
}

// AttachReadOnly reads another DuckDB file on one connection and cannot
// write it: the file's bytes stay as they were, and no WAL appears beside
// it; detach lets it go.
func TestAttachReadOnly(t *testing.T) {
	ctx := context.Background()
	other := filepath.Join(t.TempDir(), "it's a shard.duckdb") // a quote in the path
	src, err := sql.Open("duckdb", other)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, src, `CREATE TABLE plans AS SELECT range AS id FROM range(5)`, `CHECKPOINT`)
	src.Close()
	before, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	detach, err := AttachReadOnly(ctx, conn, other, "shard")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM shard.plans`).Scan(&n); err != nil || n != 5 {
		t.Errorf("read %d rows (%v), want 5", n, err)
	}
	for _, stmt := range []string{`INSERT INTO shard.plans VALUES (9)`, `CREATE TABLE shard.x (a INTEGER)`, `DELETE FROM shard.plans`} {
		if _, err := conn.ExecContext(ctx, stmt); err == nil {
			t.Errorf("%s: accepted on a read-only attachment", stmt)
		}
	}
	if err := detach(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT count(*) FROM shard.plans`); err == nil {
		t.Error("still attached after detach")
	}
	after, _ := os.ReadFile(other)
	if !bytes.Equal(before, after) {
		t.Error("the attached file changed")
	}
	if names := listDir(t, filepath.Dir(other)); !slices.Equal(names, []string{filepath.Base(other)}) {
		t.Errorf("beside the attached file: %v", names)
	}
}

// assertSameBytes fails the test unless the snapshot at path holds the
// bytes of the (checkpointed) database file src.
func assertSameBytes(t *testing.T, path, src string) {
	t.Helper()
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the snapshot (%d bytes) is not the checkpointed source file (%d bytes)", len(got), len(want))
	}
}
