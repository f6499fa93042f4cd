// Package store owns the working DuckDB file: opening it (and refusing a
// DuckDB file another program made), its schema and the migrations of an
// older file (queries/schema.sql, queries/migrations.sql), the one writer
// connection and the read pool beside it, transactions (Transact), bulk
// loads (Table, Batch, Tx.Load: Arrow record batches; batch.go, load.go), the
// memory limit, the run's time window (Window, SetWindow), the slices of
// members that the checks and billing reports run over (ForEachSlice), and
// the values of the run log's status columns and of findings.state
// (status.go).
//
// It knows tables and statements, not what a run does with them: every
// stage of a run (ingest, checks, pipeline) and the reports build on it,
// and it imports none of them. That is why the types the stages share live
// here rather than with the stage that writes them: the window (one type
// for the checks, which set it as DuckDB variables, and the reports, which
// print it) and the statuses (written by pipeline, ingest and checks, read
// by the reports and the command).
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/queries"
)

// Store is the working DuckDB file. It holds one connection for writing:
// DuckDB allows one writing process per file, and within the process one
// writer keeps every member's load a plain serial transaction.
type Store struct {
	path string
	db   *sql.DB   // a pool for reads that run beside the writer
	conn *sql.Conn // the writer
	// memoryLimit is the limit SetMemoryLimit set ("": DuckDB's default),
	// applied again by Reopen.
	memoryLimit string
	open        bool // db and conn are open (Close, Reopen)
	// checked are the tables whose declared columns a load has checked
	// against the database; held, per scoped table, the scope values it
	// holds (load.go).
	checked map[*Table]bool
	held    map[string]map[string]bool
	// sliceRows is how many records the checks and billing reports take
	// at a time (slices.go), sized by the memory limit.
	sliceRows int64
}

// ErrDatabaseLocked means another process has the database file open.
var ErrDatabaseLocked = errors.New("database is in use by another process")

// ErrForeignDatabase means the file is a DuckDB database that reconcile did
// not make.
var ErrForeignDatabase = errors.New("not a reconcile database")

// Open opens (creating if needed) the DuckDB file at path and applies the
// schema. A DuckDB file that another program made is refused before anything
// is written to it (checkOwnDatabase).
func Open(ctx context.Context, path string) (*Store, error) {
	if err := checkOwnDatabase(ctx, path); err != nil {
		return nil, err
	}
	s := &Store{path: path, checked: map[*Table]bool{}, held: map[string]map[string]bool{}}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}

	if err := s.applySchema(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("apply schema to %s: %w", path, err)
	}
	if err := s.sizeSlices(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// schemaDigest is the hex SHA-256 of queries.Schema(): what a file at
// this version's schema records in its schema_digest table.
var schemaDigest = func() string {
	sum := sha256.Sum256([]byte(queries.Schema()))
	return hex.EncodeToString(sum[:])
}()

// applySchema applies queries.Schema() and records its digest, unless the
// file records that digest already and still holds as many tables and
// views as it did then (one dropped by hand is made again). Applying it is
// idempotent but not free: its 600-odd COMMENT ON statements, the
// migrations' backfill scans and the catalog the next checkpoint writes
// again made opening and closing an existing file take 480-735 ms here,
// 64-94 ms without them (ten opens each), paid by every nightly run,
// re-run, acknowledgement and merge. A digest that cannot be read (a new
// file, an older version's file) means the schema is applied.
func (s *Store) applySchema(ctx context.Context) error {
	var digestTables, objects int
	if err := s.conn.QueryRowContext(ctx, schemaObjects).Scan(&digestTables, &objects); err == nil && digestTables == 1 {
		var have string
		var had int
		if err := s.conn.QueryRowContext(ctx, readSchemaDigest).Scan(&have, &had); err == nil && have == schemaDigest && had == objects {
			return nil
		}
	}
	// In one transaction: a process killed while creating a new file's
	// tables leaves none of them, never a part that checkOwnDatabase would
	// take for another program's.
	return s.Transact(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, queries.Schema()); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, schemaObjects).Scan(&digestTables, &objects); err != nil {
			return fmt.Errorf("count the schema's tables and views: %w", err)
		}
		if _, err := tx.Exec(ctx, clearSchemaDigest); err != nil {
			return fmt.Errorf("clear the schema's digest: %w", err)
		}
		if _, err := tx.Exec(ctx, recordSchemaDigest, schemaDigest, objects); err != nil {
			return fmt.Errorf("record the schema's digest: %w", err)
		}
		return nil
	})
}

// connect opens a DuckDB instance of the store's file, its writer
// connection and read pool, and applies the settings of the store's
// instances: the checkpoint threshold and the memory settings.
func (s *Store) connect(ctx context.Context) error {
	connector, err := duckdb.NewConnector(s.path, nil)
	if err != nil {
		if isLockError(err) {
			return fmt.Errorf("open %s: %w (%v)", s.path, ErrDatabaseLocked, err)
		}
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	db := sql.OpenDB(connector)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return fmt.Errorf("connect to %s: %w", s.path, err)
	}
	// DuckDB checkpoints whenever its write-ahead log passes 16 MB, and
	// each checkpoint compresses and writes again the row groups a load
	// left partly filled: a run's bulk loads checkpointed every few
	// transactions. A larger log checkpoints a few times a run. Measured
	// on the journals of 1,000 members (2,000 files, 142 MB): import CPU
	// 17.7-19.5 s → 11.8-12.8 s, peak RSS 478-493 → 389-411 MiB. Data not
	// yet checkpointed is DuckDB buffer memory like any other, under the
	// memory limit (the run starts a fresh instance before its checks:
	// Reopen); a crash replays the log on the next open.
	// Times are read and written in UTC whatever the machine's zone; the
	// schema sets it too, but an open that skips the schema (applySchema)
	// and a reopened instance must not depend on that.
	settings := []string{"SET TimeZone = 'UTC'", "SET checkpoint_threshold = '256MB'"}
	// DuckDB's allocator (jemalloc) keeps memory the buffer manager has
	// freed, for reuse, and gives it back only after a task has allocated
	// 128 MiB: at 1,000 members the process held ~160 MiB neither DuckDB
	// nor Go accounted for. Giving it back sooner, from a background
	// thread, took the run's peak RSS from 736-757 to 665-693 MiB (1,000
	// members, same machine), no slower.
	settings = append(settings, "SET allocator_background_threads = true", "SET allocator_flush_threshold = '16MB'")
	if s.memoryLimit != "" {
		settings = append(settings, memorySettings(s.memoryLimit)...)
	}
	for _, set := range settings {
		if _, err := conn.ExecContext(ctx, set); err != nil {
			conn.Close()
			db.Close()
			return fmt.Errorf("settings of %s: %s: %w", s.path, set, err)
		}
	}
	if s.memoryLimit != "" {
		if err := fitThreads(ctx, conn); err != nil {
			conn.Close()
			db.Close()
			return fmt.Errorf("settings of %s: %w", s.path, err)
		}
	}
	s.db, s.conn, s.open = db, conn, true
	return nil
}

// Reopen checkpoints and closes the database, and opens it again with the
// same settings: a fresh DuckDB instance of the same file.
//
// DuckDB writes what a run's loads append beyond its memory limit to its
// temporary storage, and the instance keeps that storage after a
// checkpoint has written the data into the file: 6 GB of temporary files
// after a 5,000-member run's loads (duckdb_memory(), tag IN_MEMORY_TABLE),
// which stayed on disk until the run ended. A fresh instance starts with
// none, and with none of the memory the loads left with DuckDB's
// allocator. The run reopens its database between the loads and the
// checks, and before publishing.
//
// Another process may take the file in the moment it is closed (a
// `reconcile acknowledge` refused while the run held it, given again);
// Reopen tries again for up to a minute before it reports
// ErrDatabaseLocked. A store of an in-memory database only checkpoints:
// closing would lose it.
func (s *Store) Reopen(ctx context.Context) error {
	if s.path == "" || s.path == ":memory:" {
		if err := s.Checkpoint(ctx); err != nil {
			return err
		}
		// Undo LimitLoads, as a fresh instance would.
		if _, err := s.conn.ExecContext(ctx, "RESET threads"); err != nil {
			return fmt.Errorf("reset the number of threads: %w", err)
		}
		return s.applyMemoryLimit(ctx)
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("reopen %s: %w", s.path, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err := s.connect(ctx)
		if err == nil || !errors.Is(err, ErrDatabaseLocked) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("reopen %s: %w", s.path, context.Cause(ctx))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Statements of queries/store.sql.
var (
	tablesAndViews     = queries.Must("store.sql", "TablesAndViews")
	schemaObjects      = queries.Must("store.sql", "SchemaObjects")
	readSchemaDigest   = queries.Must("store.sql", "SchemaDigest")
	clearSchemaDigest  = queries.Must("store.sql", "ClearSchemaDigest")
	recordSchemaDigest = queries.Must("store.sql", "RecordSchemaDigest")
	duckdbMemory       = queries.Must("store.sql", "DuckDBMemory")
)

// runLogTables are tables every reconcile database has held since its first
// schema: a file holding them is one of ours, whichever version made it.
var runLogTables = []string{"findings", "run_members", "runs"}

// checkOwnDatabase refuses a DuckDB file that another program made: applying
// the schema would create reconcile's tables beside that program's (and a
// run would then write into them). A file that does not exist yet, or holds
// no table or view, is a new working database; one holding the run log
// tables is ours. The file is opened read-only to look, so a refused file
// is left byte for byte as it was.
func checkOwnDatabase(ctx context.Context, path string) error {
	if path == "" || path == ":memory:" {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	connector, err := duckdb.NewConnector(path+"?access_mode=read_only", nil)
	if err != nil {
		if isLockError(err) {
			return fmt.Errorf("open %s: %w (%v)", path, ErrDatabaseLocked, err)
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	rows, err := db.QueryContext(ctx, tablesAndViews)
	if err != nil {
		return fmt.Errorf("open %s: list its tables: %w", path, err)
	}
	defer rows.Close()
	var found []string
	ours := map[string]bool{}
	for rows.Next() {
		var schema, name string
		if err := rows.Scan(&schema, &name); err != nil {
			return fmt.Errorf("open %s: list its tables: %w", path, err)
		}
		if schema == "main" && slices.Contains(runLogTables, name) {
			ours[name] = true
		}
		if schema != "main" {
			name = schema + "." + name
		}
		found = append(found, name)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("open %s: list its tables: %w", path, err)
	}
	if len(found) == 0 || len(ours) == len(runLogTables) {
		return nil
	}
	shown := found[:min(len(found), 5)]
	more := ""
	if len(found) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(found)-len(shown))
	}
	return fmt.Errorf("open %s: %w: it holds %s%s but not reconcile's run log (%s); it was left untouched: give --db a new file or one a reconcile run made",
		path, ErrForeignDatabase, strings.Join(shown, ", "), more, strings.Join(runLogTables, ", "))
}

func isLockError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not set lock") || strings.Contains(msg, "Conflicting lock")
}

// SetMemoryLimit bounds DuckDB's buffer memory (e.g. "256MB"). DuckDB's
// default is 80% of the machine's memory: it keeps table data it has
// written in memory until that fills, so a run's memory would grow with the
// data it loads. With a limit, what does not fit is written out and read
// back when needed.
func (s *Store) SetMemoryLimit(ctx context.Context, limit string) error {
	if limit == "" {
		return nil
	}
	if err := CheckMemoryLimit(limit); err != nil {
		return err
	}
	s.memoryLimit = limit
	if err := s.applyMemoryLimit(ctx); err != nil {
		return err
	}
	return s.sizeSlices(ctx)
}

// applyMemoryLimit sets SetMemoryLimit's limit, if any, on the instance.
func (s *Store) applyMemoryLimit(ctx context.Context) error {
	if s.memoryLimit == "" {
		return nil
	}
	for _, set := range memorySettings(s.memoryLimit) {
		if _, err := s.conn.ExecContext(ctx, set); err != nil {
			return fmt.Errorf("memory limit %q: %s: %w", s.memoryLimit, set, err)
		}
	}
	return fitThreads(ctx, s.conn)
}

// memoryPerThread is the memory limit each of DuckDB's threads takes:
// under a limit, DuckDB runs on one thread per memoryPerThread of it (at
// least one, at most the machine's cores).
//
// DuckDB runs a statement on as many threads as the machine has cores,
// and what a statement holds grows with them: each thread of a Parquet
// export fills a row group of its own. On 16 threads, a 1,000-member run
// under the default 256MB ran out of memory exporting
// subscription_payments ("failed to pin block of size 256.0 KiB (244.2
// MiB/244.1 MiB used)"); on 2, 4 and 8 it did not, nor on 16 under 2GB
// (2026-11-28, this project's 2-core machine told to use more threads).
// One thread per 128MB gives the default limit the 2 threads with which
// every measurement of this project was made; a larger limit on a larger
// machine gets more (DuckDB's own guidance is 1-4 GB a thread for heavy
// queries).
const memoryPerThread = 128_000_000

// fitThreads sets DuckDB's threads for the memory limit in force
// (memoryPerThread).
func fitThreads(ctx context.Context, conn *sql.Conn) error {
	limit, err := memoryLimitOf(ctx, conn)
	if err != nil {
		return err
	}
	n := threadsFor(limit, runtime.NumCPU())
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", n)); err != nil {
		return fmt.Errorf("set %d threads for a memory limit of %d bytes: %w", n, limit, err)
	}
	return nil
}

// threadsFor is the number of DuckDB threads for a memory limit of the
// given bytes on a machine of the given cores: one per memoryPerThread,
// rounded (DuckDB reads back "256MB" as 244.1 MiB), from 1 to cores.
func threadsFor(limit int64, cores int) int {
	n := (limit + memoryPerThread/2) / memoryPerThread
	return int(max(1, min(n, int64(cores))))
}

// LimitLoads readies DuckDB for a run's loads until the next Reopen: one
// thread, and half of SetMemoryLimit's limit.
//
// One thread, because a load is many INSERTs of up to 50,000 records each
// (ingest's loads), and DuckDB inserts such a statement faster alone. With
// two threads or more, each thread appends its share of the rows to a
// collection of its own, and one that ends below a row group (122,880 rows)
// is scanned again and appended a second time into the transaction's
// storage; with one thread the rows are appended once. At 2,000 members the
// members stage's INSERTs took 31 s instead of 44-47 (the stage 56 s
// instead of 67-71), with the same tables; the Arrow scan before them is
// cheap next to the append.
//
// Half the memory, because a load needs little of DuckDB's memory (its
// rows arrive as Arrow records, are appended, and are committed to the
// write-ahead log); what fills the limit while a run loads is what an open
// transaction has appended (the members stage commits several loads at
// once, sized by this limit: ingest's spans) and the appended data not
// yet checkpointed, which DuckDB keeps while it may, with the allocator's
// memory around them. With the whole limit the loads' peak grew
// with the portfolio: at 2,000 members the journals peaked at 566-592 MiB
// and the members stage at 675-696; with half, 468-485 and 564-565, the
// stages 3-8% slower (what does not fit is written to the file at the
// next checkpoint or to the temporary folder). Without a limit
// (SetMemoryLimit not called) the memory is left as it is.
//
// Not less than loadsMemoryFloor, though, unless the whole limit is less:
// the checkpoints a load's commit sets off need it. Under a 128MB limit
// whose half the loads got, a 5,000-member run lost a transaction of 4,483
// journal files and a span of 61 members to "Failed to create checkpoint
// ... failed to pin block of size 256.0 KiB (60.9 MiB/61.0 MiB used)".
//
// The checks, which do need the memory and the threads, run after a
// Reopen, with the whole limit and the threads it allows (fitThreads).
func (s *Store) LimitLoads(ctx context.Context) error {
	if _, err := s.conn.ExecContext(ctx, "SET threads = 1"); err != nil {
		return fmt.Errorf("limit the loads to one thread: %w", err)
	}
	if s.memoryLimit == "" {
		return nil
	}
	bytes, err := s.MemoryLimit(ctx)
	if err != nil {
		return fmt.Errorf("limit the loads' memory: %w", err)
	}
	loads := fmt.Sprintf("%dKiB", loadsMemory(bytes)>>10)
	if _, err := s.conn.ExecContext(ctx, "SET memory_limit = "+sqlQuote(loads)); err != nil {
		return fmt.Errorf("limit the loads' memory to %s: %w", loads, err)
	}
	return nil
}

// loadsMemoryFloor is the least memory LimitLoads gives the loads: the
// half of the default limit, 256MB, with which 10,000-member runs load.
const loadsMemoryFloor = 128_000_000

// loadsMemory is the loads' share of a limit of the given bytes (LimitLoads
// says why).
func loadsMemory(limit int64) int64 {
	return max(limit/2, min(limit, loadsMemoryFloor))
}

// MemoryLimit is how many bytes of memory DuckDB may use now: its
// memory_limit in force (after LimitLoads, the loads' half).
func (s *Store) MemoryLimit(ctx context.Context) (int64, error) {
	return memoryLimitOf(ctx, s.conn)
}

// memoryLimitOf is the memory_limit in force on conn, in bytes.
func memoryLimitOf(ctx context.Context, conn *sql.Conn) (int64, error) {
	var limit string
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&limit); err != nil {
		return 0, fmt.Errorf("read the memory limit: %w", err)
	}
	bytes, ok := duckDBSize(limit)
	if !ok {
		return 0, fmt.Errorf("DuckDB reports its memory limit as %q", limit)
	}
	return int64(bytes), nil
}

// memorySettings are the statements of a memory limit. Every query and
// export of reconcile that needs an order says so; not keeping insertion
// order lets DuckDB stream large inserts and copies in less memory.
// memoryLimitForm is what DuckDB's memory_limit takes: a number and a unit
// of bytes, decimal (KB, MB, GB, TB) or binary (KiB, MiB, GiB, TiB).
var memoryLimitForm = regexp.MustCompile(`(?i)^\s*[0-9]+(\.[0-9]+)?\s*(b|bytes|kb|mb|gb|tb|kib|mib|gib|tib)\s*$`)

// CheckMemoryLimit refuses a memory limit DuckDB would refuse (or read
// otherwise than meant), with a message that says the form wanted rather
// than DuckDB's own, which quotes its SQL: "256" has no unit.
func CheckMemoryLimit(limit string) error {
	if !memoryLimitForm.MatchString(limit) {
		return fmt.Errorf("memory limit %q: want a size with its unit, e.g. 256MB or 2GB (KB, MB, GB, TB or KiB, MiB, GiB, TiB)", limit)
	}
	return nil
}

func memorySettings(limit string) []string {
	return []string{"SET memory_limit = " + sqlQuote(limit), "SET preserve_insertion_order = false"}
}

// sizeSlices sizes the slices of the checks by the memory limit in force.
func (s *Store) sizeSlices(ctx context.Context) error {
	limit, err := s.MemoryLimit(ctx)
	if err != nil {
		return err
	}
	s.sliceRows = sliceRowsFor(limit)
	return nil
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Checkpoint writes what the write-ahead log holds into the database file
// (DuckDB's CHECKPOINT): the loaded tables compressed in the file, their
// buffer memory free for the queries that follow. Updated rows too: DuckDB
// holds an update in its memory until a checkpoint writes it.
func (s *Store) Checkpoint(ctx context.Context) error {
	if _, err := s.conn.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// DuckDBMemory is the memory DuckDB's buffer manager holds now, in bytes
// (duckdb_memory()): table data, hash tables and sorts of running queries,
// the write-ahead log. What DuckDB's allocator keeps after use is not in it.
func (s *Store) DuckDBMemory(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, duckdbMemory).Scan(&n); err != nil {
		return 0, fmt.Errorf("read DuckDB's memory: %w", err)
	}
	return n, nil
}

// Conn is the store's single connection; reads that must see the store's
// uncommitted temp tables or settings go through it.
func (s *Store) Conn() *sql.Conn { return s.conn }

// ReadPool is a pool of connections for reads that run beside the writer
// (a member's pull reads what an earlier run stored while the writer loads
// other members). It sees only committed data.
func (s *Store) ReadPool() *sql.DB { return s.db }

// Close checkpoints and closes the database, once. The closed handles
// stay: a use after Close fails with database/sql's error rather than a
// nil pointer.
func (s *Store) Close() error {
	if !s.open {
		return nil
	}
	s.open = false
	return errors.Join(s.Checkpoint(context.Background()), s.conn.Close(), s.db.Close())
}

// Transact runs fn inside one transaction on the store's connection,
// committing if fn returns nil and rolling back otherwise: a crash leaves
// either all of what fn wrote or none of it.
func (s *Store) Transact(ctx context.Context, fn func(tx *Tx) error) (err error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			tx.Rollback(ctx)
			panic(p)
		}
		if err != nil {
			if rbErr := tx.Rollback(ctx); rbErr != nil {
				err = errors.Join(err, rbErr)
			}
			return
		}
		err = tx.Commit(ctx)
	}()
	return fn(tx)
}

// Begin opens a transaction on the store's connection, for a caller that
// keeps it open across several steps (the members stage's writer); it ends
// with Commit or Rollback. Everything else uses Transact.
func (s *Store) Begin(ctx context.Context) (*Tx, error) {
	if _, err := s.conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &Tx{conn: s.conn, s: s}, nil
}

// Commit commits the transaction. If it fails, the transaction is rolled
// back (DuckDB has already ended it when its commit fails; the ROLLBACK
// makes sure the connection is not left inside it).
func (tx *Tx) Commit(ctx context.Context) error {
	if _, err := tx.conn.ExecContext(ctx, "COMMIT"); err != nil {
		tx.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Rollback undoes the transaction, even when ctx is done.
func (tx *Tx) Rollback(ctx context.Context) error {
	if _, err := tx.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}

// Tx is an open transaction of the store.
type Tx struct {
	conn *sql.Conn
	s    *Store
}

// Exec runs a statement in the transaction.
func (tx *Tx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.conn.ExecContext(ctx, query, args...)
}

// Query runs a query in the transaction.
func (tx *Tx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return tx.conn.QueryContext(ctx, query, args...)
}

// QueryRow runs a query returning one row in the transaction.
func (tx *Tx) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.conn.QueryRowContext(ctx, query, args...)
}
