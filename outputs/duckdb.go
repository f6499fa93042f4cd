package outputs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Parquet is written by DuckDB itself (COPY ... TO): measured at ~1 M rows in
// 0.7 s with ZSTD, about three times faster than going through arrow-go's
// pqarrow, and DuckDB keeps DECIMAL(18,3) and TIMESTAMPTZ as Parquet
// DECIMAL and timestamp-with-UTC, which warehouse loaders map exactly.

// ExportParquet writes the query's result to path as one ZSTD-compressed
// Parquet file. DuckDB writes a temp name in path's directory, which is then
// synced and renamed to path, so a reader sees the previous file or the
// complete new one. An empty result writes a file with the schema and no
// rows. path's directory is created if needed. query must be a single
// SELECT (or FROM-first) statement without parameters: COPY takes none.
func ExportParquet(ctx context.Context, q Querier, query, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o777); err != nil {
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	tmp := TempName(filepath.Dir(abs), filepath.Base(abs))
	opts, err := parquetOptions(ctx, q)
	if err != nil {
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	stmt := "COPY (\n" + trimQuery(query) + "\n) TO " + sqlString(tmp) + " (" + opts + ")"
	if _, err := q.ExecContext(ctx, stmt); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	if err := syncFile(tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("export parquet %s: %w", path, err)
	}
	_ = syncDir(filepath.Dir(abs))
	return nil
}

// ExportParquetPartitioned writes the query's result as a Hive-partitioned
// Parquet dataset under dir (dir/kind=skipped_cycle/data_0.parquet, ...), so
// Spark, Trino, pandas and DuckDB (hive_partitioning) prune by the partition
// columns; those columns live in the directory names, not in the files.
//
// The dataset is built in a temp directory beside dir and swapped in whole, so
// a reader never sees one run's partitions mixed with another's. An empty
// result still leaves dir in place, empty, so readers find the dataset and see
// zero rows instead of failing on a missing path.
func ExportParquetPartitioned(ctx context.Context, q Querier, query, dir string, partitionBy []string) error {
	if len(partitionBy) == 0 {
		return fmt.Errorf("export parquet dataset %s: no partition columns (use ExportParquet)", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("export parquet dataset %s: %w", dir, err)
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return fmt.Errorf("export parquet dataset %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".tmp-")
	if err != nil {
		return fmt.Errorf("export parquet dataset %s: %w", dir, err)
	}
	fail := func(err error) error {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("export parquet dataset %s: %w", dir, err)
	}
	if err := os.Chmod(tmp, publishedDirMode()); err != nil {
		return fail(err)
	}
	cols := make([]string, len(partitionBy))
	for i, c := range partitionBy {
		cols[i] = sqlIdent(c)
	}
	opts, err := parquetOptions(ctx, q)
	if err != nil {
		return fail(err)
	}
	stmt := "COPY (\n" + trimQuery(query) + "\n) TO " + sqlString(tmp) +
		" (" + opts + ", PARTITION_BY (" + strings.Join(cols, ", ") + "))"
	if _, err := q.ExecContext(ctx, stmt); err != nil {
		return fail(err)
	}
	if err := syncTree(tmp); err != nil {
		return fail(err)
	}
	if err := replaceDir(tmp, abs); err != nil {
		return fail(err)
	}
	return nil
}

// SnapshotDuckDB copies the whole database q is connected to into a new
// DuckDB file at path, so analysts can open a consistent read-only copy while
// the next run writes the working file (DuckDB lets one process write a file;
// a reader of the working file would block the next run or be blocked by it).
// It is StartSnapshot and then its Finish.
func SnapshotDuckDB(ctx context.Context, q Querier, path string) error {
	snap, err := StartSnapshot(ctx, q, path)
	if err != nil {
		return err
	}
	return snap.Finish(ctx, q)
}

// A Snapshot is a copy of a database under way (StartSnapshot): Finish
// completes it, Abort lets it go.
//
// A database in a file is checkpointed, and when that leaves no write-ahead
// log beside it, the file is the whole database: the snapshot is a copy of
// its bytes, made at the disk's speed and in no memory, in a goroutine of
// its own while the caller goes on reading the database through q (a run
// writes its workbook and Parquet datasets meanwhile: at 10,000 members the
// copy of the 5 GB file took 14.5 s of the publish step's 62 on its own).
// Only reads may go on meanwhile: the snapshot is the database as
// StartSnapshot found it. (A write committed during the copy, and the
// checkpoint it may set off, would change the file's headers, and the copy
// would not be used: Finish would copy the database as it then is.)
// COPY FROM DATABASE reads and writes every table through DuckDB: at 5,000
// members it took 33 s and made the run's peak memory (~800 MiB RSS, the
// byte copy's run peaked in its checks instead). An in-memory database, or
// one whose log the checkpoint could not fold in (another transaction
// open), or whose byte copy is not the database, is copied through DuckDB
// by Finish: ATTACH tmp; COPY FROM DATABASE current TO tmp; CHECKPOINT;
// DETACH, on one pinned connection. Either way tmp is then synced and
// renamed to path, a self-contained file; a stale path.wal from an older
// copy is removed, since DuckDB would replay it against the new file.
type Snapshot struct {
	path, abs, tmp string
	current        string // the database's name
	cancel         context.CancelFunc
	copied         chan copyResult // the byte copy's outcome; nil when there is none
}

// copyResult is how a byte copy ended (copyFile).
type copyResult struct {
	whole bool
	err   error
}

// StartSnapshot checkpoints the database q is connected to and, when its
// file is then the whole database, starts copying it to a temporary file
// beside path (see Snapshot). The caller must call Finish or Abort.
func StartSnapshot(ctx context.Context, q Querier, path string) (*Snapshot, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot to %s: %w", path, err)
	}
	conn, release, err := pin(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("snapshot to %s: %w", path, err)
	}
	defer release()

	// The current database and its file ("" in memory).
	var current, file string
	rows, err := conn.QueryContext(ctx, "SELECT database_name, coalesce(path, '') FROM duckdb_databases() WHERE database_name = current_database()")
	if err != nil {
		return nil, fmt.Errorf("snapshot to %s: current database: %w", path, err)
	}
	for rows.Next() {
		if err := rows.Scan(&current, &file); err != nil {
			rows.Close()
			return nil, fmt.Errorf("snapshot to %s: current database: %w", path, err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("snapshot to %s: current database: %w", path, err)
	}
	if current == "" {
		return nil, fmt.Errorf("snapshot to %s: no current database", path)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o777); err != nil {
		return nil, fmt.Errorf("snapshot to %s: %w", path, err)
	}
	whole, err := checkpointed(ctx, conn, current, file)
	if err != nil {
		return nil, fmt.Errorf("snapshot to %s: %w", path, err)
	}
	snap := &Snapshot{path: path, abs: abs, tmp: TempName(filepath.Dir(abs), filepath.Base(abs)), current: current, cancel: func() {}}
	if whole {
		copyCtx, cancel := context.WithCancel(ctx)
		snap.cancel, snap.copied = cancel, make(chan copyResult, 1)
		go func() {
			whole, err := copyFile(copyCtx, file, snap.tmp)
			snap.copied <- copyResult{whole, err}
		}()
	}
	return snap, nil
}

// Finish waits for the byte copy, copies the database through DuckDB on q
// if there was none or it is not the database, and puts the snapshot in
// place. q must be connected to the database StartSnapshot copied.
func (s *Snapshot) Finish(ctx context.Context, q Querier) (err error) {
	defer func() {
		if err != nil {
			_ = os.Remove(s.tmp)
			_ = os.Remove(s.tmp + ".wal")
		}
	}()
	copied := false
	if s.copied != nil {
		res := <-s.copied
		s.copied = nil
		s.cancel()
		copied, err = res.whole, res.err
	}
	if err == nil && !copied {
		_ = os.Remove(s.tmp)
		var conn Querier
		var release func()
		if conn, release, err = pin(ctx, q); err == nil {
			err = copyDatabase(ctx, conn, s.current, s.tmp)
			release()
		}
	}
	path, abs, tmp := s.path, s.abs, s.tmp
	if err != nil {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	if err = syncFile(tmp); err != nil {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	if err = os.Chmod(tmp, publishedFileMode()); err != nil {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	if rmErr := os.Remove(abs + ".wal"); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		err = rmErr
		return fmt.Errorf("snapshot to %s: remove stale WAL: %w", path, err)
	}
	if err = os.Rename(tmp, abs); err != nil {
		return fmt.Errorf("snapshot to %s: %w", path, err)
	}
	_ = os.Remove(tmp + ".wal") // none after a checkpoint; never publish one
	_ = syncDir(filepath.Dir(abs))
	return nil
}

// Abort stops the byte copy, if one is under way, and removes what it
// wrote. A Snapshot aborted may not be finished.
func (s *Snapshot) Abort() {
	s.cancel()
	if s.copied != nil {
		<-s.copied
		s.copied = nil
	}
	_ = os.Remove(s.tmp)
	_ = os.Remove(s.tmp + ".wal")
}

// checkpointed checkpoints database name, whose file is file, and reports
// whether the file is now the whole database: false in memory (no file) or
// when the checkpoint left a write-ahead log beside it (another transaction
// open), which the file alone would lack.
func checkpointed(ctx context.Context, conn Querier, name, file string) (bool, error) {
	if file == "" || file == ":memory:" {
		return false, nil
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT "+sqlIdent(name)); err != nil {
		return false, nil // another transaction holds it: copy through DuckDB
	}
	st, err := os.Stat(file + ".wal")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("write-ahead log of %s: %w", file, err)
	}
	return st.Size() == 0, nil
}

// duckdbHeaders is the size of a DuckDB file's headers: the main header and
// the two database headers a checkpoint alternates between, 4 KiB each.
const duckdbHeaders = 3 << 12

// copyChunk is how much of a database file copyFile copies between two
// looks at its context.
const copyChunk = 256 << 20

// copyFile copies the database file src to a new file dst, and reports
// whether the copy is the database: the file's headers are the same before
// and after it. A checkpoint (from a commit on another connection) rewrites
// them, and could have left a copy of both states; the blocks a copy may
// hold half-written besides are ones no header points to.
func copyFile(ctx context.Context, src, dst string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	in, err := os.Open(src)
	if err != nil {
		return false, fmt.Errorf("copy database file: %w", err)
	}
	defer in.Close()
	before := make([]byte, duckdbHeaders)
	if _, err := io.ReadFull(in, before); err != nil {
		return false, fmt.Errorf("copy database file %s: headers: %w", src, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, fmt.Errorf("copy database file: %w", err)
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		out.Close()
		return false, fmt.Errorf("copy database file %s: %w", src, err)
	}
	// In chunks, so that a cancelled ctx stops the copy within one; each
	// is one copy_file_range where the system has it.
	for {
		if err := ctx.Err(); err != nil {
			out.Close()
			return false, err
		}
		n, err := io.CopyN(out, in, copyChunk)
		if err != nil && err != io.EOF {
			out.Close()
			return false, fmt.Errorf("copy database file %s: %w", src, err)
		}
		if n < copyChunk {
			break
		}
	}
	if err := out.Close(); err != nil {
		return false, fmt.Errorf("copy database file %s: %w", src, err)
	}
	after := make([]byte, duckdbHeaders)
	if _, err := in.ReadAt(after, 0); err != nil {
		return false, fmt.Errorf("copy database file %s: headers: %w", src, err)
	}
	return bytes.Equal(before, after), nil
}

// copyDatabase copies database name into a new DuckDB file tmp through
// DuckDB, on conn (one pinned connection: an ATTACH holds on the connection
// that ran it).
func copyDatabase(ctx context.Context, conn Querier, name, tmp string) (err error) {
	alias := sqlIdent("snapshot_" + randomSuffix())
	if _, err := conn.ExecContext(ctx, "ATTACH "+sqlString(tmp)+" AS "+alias); err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	attached := true
	defer func() {
		if attached {
			// Detach even when ctx is cancelled: a left-over ATTACH would
			// keep the temp file open for the life of the database.
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "DETACH "+alias)
		}
	}()
	if _, err := conn.ExecContext(ctx, "COPY FROM DATABASE "+sqlIdent(name)+" TO "+alias); err != nil {
		return fmt.Errorf("copy database %s: %w", name, err)
	}
	if _, err := conn.ExecContext(ctx, "CHECKPOINT "+alias); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "DETACH "+alias); err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	attached = false
	return nil
}

// AttachReadOnly attaches the DuckDB file at path to q's connection as the
// catalog alias, read-only: its tables read as alias.table, and no
// statement can write to it (DuckDB refuses, and writes no WAL beside
// it). q must be one connection (a *sql.Conn), since an ATTACH holds only
// on the connection that ran it. The returned function detaches it.
func AttachReadOnly(ctx context.Context, q Querier, path, alias string) (detach func() error, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", path, err)
	}
	if _, err := q.ExecContext(ctx, "ATTACH "+sqlString(abs)+" AS "+sqlIdent(alias)+" (READ_ONLY)"); err != nil {
		return nil, fmt.Errorf("attach %s read-only: %w", path, err)
	}
	return func() error {
		// Even when ctx is cancelled: a left-over ATTACH keeps the file open.
		if _, err := q.ExecContext(context.WithoutCancel(ctx), "DETACH "+sqlIdent(alias)); err != nil {
			return fmt.Errorf("detach %s: %w", path, err)
		}
		return nil
	}, nil
}

// rowGroupBytes bounds a Parquet row group by its size rather than its row
// count. DuckDB's writer holds each thread's row group uncompressed, and
// with the default 122,880 rows a table with raw JSON bodies (a payment list
// entry is ~1 KB) made groups of ~45 MB: the export of 1.1 M payments
// needed over 192 MB and failed under the run's 256 MB memory limit.
// 16 MB groups export it within 96 MB, at the same speed, and stay in the
// range Parquet readers handle well.
const rowGroupBytes = "16MB"

// parquetCompression is the codec of every export: ZSTD at level 1 rather
// than DuckDB's default 3. Measured on the tables of a 10,000-member run
// (2026-11-25), level 1 wrote subscription_payments' 23 M rows in 14.4 s
// against 18.2-19.1, the journal in 3.6 s against 5.4, and its files were
// 2-5% smaller, not larger (Snappy: 13.1 s, but twice the size).
const parquetCompression = "COMPRESSION zstd, COMPRESSION_LEVEL 1"

// parquetOptions are the COPY options of every export. DuckDB bounds row
// groups by bytes only when insertion order need not be preserved (the
// run's store sets that); otherwise a row count of a quarter of the
// default stands in for it.
func parquetOptions(ctx context.Context, q Querier) (string, error) {
	rows, err := q.QueryContext(ctx, "SELECT current_setting('preserve_insertion_order')")
	if err != nil {
		return "", fmt.Errorf("read preserve_insertion_order: %w", err)
	}
	defer rows.Close()
	var preserve bool
	if rows.Next() {
		err = rows.Scan(&preserve)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return "", fmt.Errorf("read preserve_insertion_order: %w", err)
	}
	if preserve {
		return "FORMAT parquet, " + parquetCompression + ", ROW_GROUP_SIZE 30720", nil
	}
	return "FORMAT parquet, " + parquetCompression + ", ROW_GROUP_SIZE_BYTES " + sqlString(rowGroupBytes), nil
}

// trimQuery drops trailing semicolons and space so a caller's query can be
// wrapped as a subquery: "COPY (q;) TO ..." is a syntax error. The wrapping
// puts q on its own lines, so a trailing "-- comment" stays harmless.
func trimQuery(q string) string {
	return strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
}

// sqlString quotes s as an SQL string literal. Paths go into COPY and ATTACH
// as literals because neither takes a bound parameter for them.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlIdent quotes s as an SQL identifier.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
