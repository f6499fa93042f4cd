// Package merge makes one publication from the shards of a business date
// (`reconcile merge`): the workbook, Parquet datasets, manifest and DuckDB
// snapshot that one run over every member would have published, built from
// the shards' published outputs (each shard's --out/<date>/).
//
// It reads the shards' snapshots only, attached read-only one at a time,
// and writes nothing into a shard's folder. Their rows stream into a new
// working database beside the output folder (INSERT ... SELECT in DuckDB,
// under the memory limit; nothing is loaded into the program but the
// members' IDs), and reports.Publish publishes that database as it does a
// run's: built aside, swapped in at once, out/current.duckdb pointed at
// it. What each table takes from the shards is written in
// queries/merge.sql.
//
// Before anything is written the shards must agree: one n, every shard
// 0..n-1 present once, and the same source, version and settings
// (outputs.Manifest.Settings, recorded by each run). A missing shard (its
// run failed, or has not finished) is refused unless Options.AllowPartial;
// then the publication is partial, its manifest lists the shard as
// missing with the reason, and the shard's members (those of the
// directory the other shards listed that hash to it) are failed members of
// the run, so the Summary counts and lists them.
//
// What "previous run" means across shards: a shard compares each of its
// members with that member's latest earlier run of the same shard (i/n)
// that reconciled it. The split is a stable hash, so a member is in the
// same shard every night, and that is the comparison a full run makes: the
// findings' states (new, open, resolved), the subscriptions' changes and
// the billing reports of a merge equal a full run's. The merge computes
// none of them; it copies the shards'. The merged run's previous run is
// the latest any shard compared with (the same one on a night every shard
// ran). Changing n starts every shard's history afresh: the first night
// after, every finding is new, in the shards and in their merge.
package merge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports"
)

// Options configure a merge.
type Options struct {
	Date time.Time // the business date, UTC
	// From is a glob of the shards' output folders (their --out), e.g.
	// "/shared/reconcile/shard=*": each holds <date>/ with its publication.
	From string
	// Out is where the merged publication goes (<Out>/<date>/ and
	// <Out>/current.duckdb); never a folder From matches, nor inside one.
	Out string
	// AllowPartial publishes without the shards that are missing, marked
	// partial; without it a missing shard refuses the merge.
	AllowPartial bool
	SplitBy      string // as reports.Publication.SplitBy
	MemoryLimit  string // DuckDB's buffer memory for the merge, e.g. "256MB"
	Version      string // this program's, for the manifest
	Logger       *slog.Logger
	// Finish, if set, is the end of the merged run, as of any run
	// (`reconcile merge` gives internal/finish.Publish): given the merged
	// database and the run, it checks the alarms, reopens the database,
	// publishes and sends the digests, and returns the run as published
	// (its Alarms set) and the publication. Unset, the merge reopens the
	// database and publishes the run (reports.Publish) itself.
	Finish func(ctx context.Context, db *store.Store, run reports.Publication) (reports.Publication, *reports.Published, error)
}

// Result is what a merge published: the run's facts as the publish step
// was given them (status, members, window, source, the shards), and what
// it wrote. A digest or a metrics file reads it as it reads a run's.
type Result struct {
	Publication reports.Publication
	Published   *reports.Published
}

// Missing lists the shards the merge left out (AllowPartial), as i/n.
func (r *Result) Missing() []string {
	var out []string
	for _, s := range r.Publication.Shards {
		if s.Status == StatusMissing {
			out = append(out, s.Shard)
		}
	}
	return out
}

// shardAlias is the catalog a shard's snapshot is attached as; the
// statements of queries/merge.sql read shard.<table>.
const shardAlias = "shard"

// tables are the tables copied from each shard, in the order
// queries/merge.sql needs (journal_files after the journal, whose lines
// it dedupes by file), each by the statement named after it. runs and
// bin_attributes are chosen from every shard's rows once all are read, and
// acknowledgement_audit numbered again.
var tables = []string{
	"groups", "group_members",
	"plans", "subscriptions", "subscription_payments", "transactions", "subscription_schedules", "expected_cycles",
	"interchange_clearing", "chargebacks", "retrievals",
	"journal", "journal_rejects", "journal_files", "bin_attributes", "finding_kinds", "interchange_rates", "retry_limits",
	"run_members", "kept_aside", "findings", "merchant_names", "acknowledgements", "acknowledgement_audit", "interchange_at_risk",
	"subscription_status_log", "subscription_recoveries", "delinquency_ageing", "subscription_metrics", "billing_match",
	"upgrades", "settlements", "fundings", "settlement_batches",
}

// Statements of queries/merge.sql.
var (
	copyTable = func() map[string]string {
		m := map[string]string{}
		for _, t := range tables {
			m[t] = queries.Must("merge.sql", t)
		}
		return m
	}()
	createMergeTables    = queries.Must("merge.sql", "CreateMergeTables")
	acknowledgementAudit = queries.Must("merge.sql", "AcknowledgementAudit")
	shardTables          = queries.Must("merge.sql", "ShardTables")
	shardRun             = queries.Must("merge.sql", "ShardRun")
	shardMembers         = queries.Must("merge.sql", "ShardMembers")
	collectLoads         = queries.Must("merge.sql", "CollectLoads")
	collectRuns          = queries.Must("merge.sql", "CollectRuns")
	collectBINTokens     = queries.Must("merge.sql", "CollectBINTokens")
	binAttributes        = queries.Must("merge.sql", "BINAttributes")
	owners               = queries.Must("merge.sql", "Owners")
	mergeRuns            = queries.Must("merge.sql", "runs")
	directoryMembers     = queries.Must("merge.sql", "DirectoryMembers")
	missingMembers       = queries.Must("merge.sql", "MissingMembers")
	markMissingShards    = queries.Must("merge.sql", "MarkMissingShards")
	mergedRun            = queries.Must("merge.sql", "MergedRun")
	memberCounts         = queries.Must("merge.sql", "MemberCounts")
)

// Merge publishes the shards of o.Date found under o.From as one run into
// o.Out. It refuses (an error, nothing published) shards that do not
// agree, or are missing without o.AllowPartial.
func Merge(ctx context.Context, o Options) (*Result, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !reports.ValidSplitBy(o.SplitBy) {
		return nil, fmt.Errorf("merge: split by %q: want %q or nothing", o.SplitBy, "group")
	}
	date := o.Date.Format("2006-01-02")
	pubs, err := findPublications(o.From, date)
	if err != nil {
		return nil, err
	}
	if err := outsideShards(o.Out, pubs); err != nil {
		return nil, err
	}
	use, shards, err := plan(pubs, o.AllowPartial, date)
	if err != nil {
		return nil, err
	}
	log := o.Logger.With("run_id", use[0].manifest.RunID)
	for _, p := range pubs {
		if p.problem != "" {
			log.Warn("shard left out", "folder", p.root, "reason", p.problem)
		}
	}
	m := &merger{o: o, log: log, runID: use[0].manifest.RunID, use: use, shards: shards}
	return m.run(ctx)
}

// merger is one merge under way.
type merger struct {
	o      Options
	log    *slog.Logger
	runID  string
	use    []*publication
	shards []outputs.ManifestShard
	db     *store.Store
}

func (m *merger) run(ctx context.Context) (*Result, error) {
	if err := os.MkdirAll(m.o.Out, 0o777); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	// The working database lives beside the outputs under a temp name, so
	// that a crash's leftover is removed by a later publish there
	// (outputs.NewStaging), and is removed when the merge ends.
	work := outputs.TempName(m.o.Out, "merge-"+m.runID+".duckdb")
	defer removeWork(work)
	var err error
	if m.db, err = store.Open(ctx, work); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer m.db.Close()
	if err := m.db.SetMemoryLimit(ctx, m.o.MemoryLimit); err != nil {
		return nil, err
	}
	started := time.Now()
	if err := m.build(ctx); err != nil {
		return nil, err
	}
	for _, p := range m.use {
		if err := p.unchanged(); err != nil {
			return nil, err
		}
	}
	run, err := m.publishedRun(ctx)
	if err != nil {
		return nil, err
	}
	m.log.Info("shards merged", "shards", len(m.use), "status", run.Status, "took", time.Since(started).Round(time.Millisecond).String())
	finish := m.o.Finish
	if finish == nil {
		finish = publish(m.o.Out)
	}
	run, pub, err := finish(ctx, m.db, run)
	if err != nil {
		return nil, err
	}
	res := &Result{Publication: run, Published: pub}
	return res, nil
}

// publish is the end of a merged run without alarms or digests: what the
// merge wrote, into the working file and out of DuckDB's memory and
// temporary storage before the publish step's queries run (as a run does;
// store.Reopen says why), then the publication.
func publish(out string) func(ctx context.Context, db *store.Store, run reports.Publication) (reports.Publication, *reports.Published, error) {
	return func(ctx context.Context, db *store.Store, run reports.Publication) (reports.Publication, *reports.Published, error) {
		if err := db.Reopen(ctx); err != nil {
			return run, nil, fmt.Errorf("merge: %w", err)
		}
		if err := db.FitThreadsToData(ctx); err != nil {
			return run, nil, fmt.Errorf("merge: %w", err)
		}
		pub, err := reports.Publish(ctx, db.Conn(), out, run)
		return run, pub, err
	}
}

// removeWork removes the merge's working database and what DuckDB made
// beside it (its WAL, its folder for data beyond the memory limit).
func removeWork(path string) {
	_ = os.Remove(path)
	_ = os.Remove(path + ".wal")
	_ = os.RemoveAll(path + ".tmp")
}

// build fills the working database from the shards: a first pass checks
// each shard's snapshot and collects which members it loaded and its
// runs; a second copies every table (each member's rows from the shard
// that loaded it last, merge_owners); then runs and the BIN attributes
// are chosen from all the shards' rows, the acknowledgement audit
// numbered, and the missing shards' members recorded.
func (m *merger) build(ctx context.Context) error {
	conn := m.db.Conn()
	if _, err := conn.ExecContext(ctx, createMergeTables); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "SET VARIABLE merge_run_id = ?", m.runID); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	for _, p := range m.use {
		if err := m.withShard(ctx, p, m.collect); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, owners); err != nil {
		return fmt.Errorf("merge: which shard holds each member: %w", err)
	}
	for _, p := range m.use {
		if err := m.withShard(ctx, p, m.copyShard); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, mergeRuns); err != nil {
		return fmt.Errorf("merge: runs: %w", err)
	}
	if _, err := conn.ExecContext(ctx, binAttributes); err != nil {
		return fmt.Errorf("merge: BIN attributes: %w", err)
	}
	if _, err := conn.ExecContext(ctx, acknowledgementAudit); err != nil {
		return fmt.Errorf("merge: acknowledgement audit: %w", err)
	}
	return m.recordMissing(ctx)
}

// withShard attaches p's snapshot read-only, runs fn, then detaches it.
func (m *merger) withShard(ctx context.Context, p *publication, fn func(context.Context, *publication) error) error {
	detach, err := outputs.AttachReadOnly(ctx, m.db.Conn(), p.snapshot, shardAlias)
	if err != nil {
		return fmt.Errorf("merge shard %s: %w", p.shard, err)
	}
	err = fn(ctx, p)
	if derr := detach(); err == nil {
		err = derr
	}
	if err != nil {
		return fmt.Errorf("merge shard %s (%s): %w", p.shard, p.snapshot, err)
	}
	return nil
}

// collect checks that p's snapshot is a reconcile snapshot of the shard
// its manifest says, whose run of the date took only members that hash to
// the shard, and notes which members it loaded and its runs.
func (m *merger) collect(ctx context.Context, p *publication) error {
	return m.db.Transact(ctx, func(tx *store.Tx) error { return m.collectTx(ctx, tx, p) })
}

func (m *merger) collectTx(ctx context.Context, tx *store.Tx, p *publication) error {
	have, err := queryStrings(ctx, tx, shardTables)
	if err != nil {
		return fmt.Errorf("list its tables: %w", err)
	}
	for _, t := range append(tables, "runs") {
		if !slices.Contains(have, t) {
			return fmt.Errorf("its snapshot has no table %s: not a snapshot of this version of reconcile", t)
		}
	}
	var shard, status string
	if err := tx.QueryRow(ctx, shardRun, m.runID).Scan(&shard, &status); errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("its snapshot holds no run %s", m.runID)
	} else if err != nil {
		return fmt.Errorf("read its run %s: %w", m.runID, err)
	}
	if shard != p.shard.String() || status != p.manifest.Status {
		return fmt.Errorf("its snapshot's run %s is shard %s, %s; its manifest says shard %s, %s", m.runID, shard, status, p.shard, p.manifest.Status)
	}
	members, err := queryStrings(ctx, tx, shardMembers, m.runID)
	if err != nil {
		return fmt.Errorf("read its members: %w", err)
	}
	for _, mid := range members {
		if !p.shard.Owns(mid) {
			return fmt.Errorf("its run %s took member %s, which is not in shard %s: its database holds members of another split; run the shard again with --force on a new --db",
				m.runID, mid, p.shard)
		}
	}
	if _, err := tx.Exec(ctx, collectLoads, p.shard.Index); err != nil {
		return fmt.Errorf("collect its members: %w", err)
	}
	if _, err := tx.Exec(ctx, collectRuns, p.shard.Index); err != nil {
		return fmt.Errorf("collect its runs: %w", err)
	}
	if _, err := tx.Exec(ctx, collectBINTokens, p.shard.Index); err != nil {
		return fmt.Errorf("collect its BINs' tokens: %w", err)
	}
	m.log.Info("shard checked", "shard", p.shard.String(), "members", len(members), "snapshot", p.snapshot)
	return nil
}

// copyShard copies p's rows of every table into the working database,
// each table in a transaction of its own, so that DuckDB holds no more
// than one table's insert uncommitted. (A failure leaves the working
// database half filled; it is thrown away.)
func (m *merger) copyShard(ctx context.Context, p *publication) error {
	conn := m.db.Conn()
	if _, err := conn.ExecContext(ctx, "SET VARIABLE merge_shard_index = ?", p.shard.Index); err != nil {
		return err
	}
	for _, t := range tables {
		start := time.Now()
		res, err := conn.ExecContext(ctx, copyTable[t])
		if err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
		n, _ := res.RowsAffected()
		m.log.Debug("table merged", "shard", p.shard.String(), "table", t, "rows", n, "took", time.Since(start).Round(time.Millisecond).String())
	}
	m.log.Info("shard merged", "shard", p.shard.String())
	return nil
}

// recordMissing makes the members of the missing shards failed members of
// the run, with the reason, and marks the run partial, its error naming
// the shards: the Summary then counts and lists them as a full run would
// members that failed. A shard's members are those of the directory the
// other shards listed that hash to it.
func (m *merger) recordMissing(ctx context.Context) error {
	var missing []outputs.ManifestShard
	for _, s := range m.shards {
		if s.Status == StatusMissing {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return m.db.Transact(ctx, func(tx *store.Tx) error {
		directory, err := queryStrings(ctx, tx, directoryMembers, m.runID)
		if err != nil {
			return fmt.Errorf("merge: the directory's members: %w", err)
		}
		var names []string
		total := 0
		for _, s := range missing {
			shard, err := groups.ParseShard(s.Shard)
			if err != nil {
				return err
			}
			var mids []string
			for _, mid := range directory {
				if shard.Owns(mid) {
					mids = append(mids, mid)
				}
			}
			reason := "not reconciled: shard " + s.Shard + " is missing from the merge (" + s.Reason + ")"
			if len(mids) > 0 {
				if _, err := tx.Exec(ctx, missingMembers, m.runID, mids, reason); err != nil {
					return fmt.Errorf("merge: record shard %s's members: %w", s.Shard, err)
				}
			}
			total += len(mids)
			names = append(names, fmt.Sprintf("%s (%d members)", s.Shard, len(mids)))
		}
		note := "shards missing from the merge: " + strings.Join(names, ", ")
		if _, err := tx.Exec(ctx, markMissingShards, m.runID, total, note); err != nil {
			return fmt.Errorf("merge: mark the run partial: %w", err)
		}
		m.log.Warn("published without shards", "missing", strings.Join(names, ", "))
		return nil
	})
}

// publishedRun is what the publish step is told of the merged run: its
// facts from the merged runs row, its members by status (the missing
// shards' among the failed), and the shards.
func (m *merger) publishedRun(ctx context.Context) (reports.Publication, error) {
	first := m.use[0].manifest
	run := reports.Publication{
		RunID:        m.runID,
		BusinessDate: m.o.Date,
		Version:      m.o.Version,
		SplitBy:      m.o.SplitBy,
		Source:       first.Source,
		Settings:     first.Settings,
		Shards:       m.shards,
		Members:      map[string]int{string(store.MemberOK): 0, string(store.MemberFailed): 0},
	}
	conn := m.db.Conn()
	if err := conn.QueryRowContext(ctx, mergedRun, m.runID).Scan(&run.Status, &run.StartedAt, &run.FinishedAt,
		&run.Window.Start, &run.Window.End); err != nil {
		return run, fmt.Errorf("merge: read the merged run: %w", err)
	}
	rows, err := conn.QueryContext(ctx, memberCounts, m.runID)
	if err != nil {
		return run, fmt.Errorf("merge: count the run's members: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return run, fmt.Errorf("merge: count the run's members: %w", err)
		}
		run.Members[status] = n
	}
	return run, rows.Err()
}

func queryStrings(ctx context.Context, tx *store.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
