package reports

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// Publication is what the publish step needs to know of a run.
type Publication struct {
	RunID        string
	BusinessDate time.Time
	Window       store.Window
	StartedAt    time.Time
	FinishedAt   time.Time
	Status       string
	Members      map[string]int // ok, failed; already_done (of ok, an earlier attempt's)
	Version      string
	// Shard is the part of the members the run took ("i/n"; "0/1" for
	// all), and Settings the settings its shards must share to be merged
	// (see the manifest's); a merged publication has no Shard and lists its
	// Shards instead.
	Shard    string
	Settings map[string]string
	Shards   []outputs.ManifestShard
	// SplitBy "group" also writes one workbook per group; "" writes only
	// the whole run's. See SplitByValues.
	SplitBy string
	// Source is where the run's data came from: SourcePlatform, or
	// SourceSandbox for the embedded sandbox's simulated data, which every
	// output then says (the workbook's title and Summary, the manifest).
	Source string
	// Alarms are the alarm rules checked for the run (alarms.Check), raised
	// or not; the Summary sheet and the manifest show the raised ones.
	// None: no alarm was configured, and the Summary has no Alarms table.
	Alarms []Alarm
	// ResponseMLE is the response MLE key's id and expiry, for the
	// manifest; nil when none was configured.
	ResponseMLE *outputs.ManifestKey
	// Paper is the paper the workbook's sheets are set up to print on
	// (outputs.PaperA4, outputs.PaperLetter); "" is A4.
	Paper string
	// Requests is the run's request accounting, for the manifest; nil for
	// a merge, which sends none.
	Requests *outputs.ManifestRequests
}

// Sources of a run's data (Publication.Source).
const (
	SourcePlatform = "platform"
	SourceSandbox  = "sandbox"
)

// SourceLabel is how outputs name a run's source: the sandbox's data is
// marked as simulated wherever a reader might take it for real.
func SourceLabel(source string) string {
	if source == SourceSandbox {
		return "SIMULATED DATA (sandbox)"
	}
	return source
}

// SplitByValues are the accepted values of Publication.SplitBy (--split-by).
var SplitByValues = []string{"", "group"}

// ValidSplitBy tells whether s is one of SplitByValues.
func ValidSplitBy(s string) bool {
	for _, v := range SplitByValues {
		if s == v {
			return true
		}
	}
	return false
}

// Published lists what a publish wrote.
type Published struct {
	Dir      string
	Workbook string
	// GroupWorkbooks are the per-group workbooks (--split-by group), by
	// group ID.
	GroupWorkbooks map[string]string
	Snapshot       string
	// Current is out/current.duckdb, the link to the latest business
	// date's snapshot: this one, unless a later date is published already.
	Current  string
	Manifest string
	// Findings counts the run's findings per state ("new", "open",
	// "acknowledged", "resolved") and kind, every kind of the catalog
	// present.
	Findings    map[string]map[string]int64
	PreviousRun string
}

// FindingStates are the values of findings.state, in reading order.
var FindingStates = []string{string(store.FindingNew), string(store.FindingOpen), string(store.FindingAcknowledged),
	string(store.FindingResolved)}

// Publish writes the run's workbook(s), Parquet datasets, DuckDB snapshot
// and manifest into a staging folder beside outRoot/<business date>, then
// swaps it in at once: a reader sees the previous complete output or the new
// one, never a half-written folder. Last it points outRoot/current.duckdb
// at the new snapshot (outputs.PointCurrent), unless a later business date
// is published already.
//
// Layout of the folder:
//
//	reconcile-<date>.xlsx                 the whole run
//	reconcile-<date>-group-<id>.xlsx      one per group, with --split-by group
//	parquet/<table>/date=<date>/data_0.parquet
//	parquet/findings/date=<date>/kind=<kind>/data_0.parquet
//	reconcile-<date>.duckdb               read-only snapshot
//	manifest.json                         last, with every file's SHA-256
//
// and beside the date folders, outRoot/current.duckdb, the link to the
// latest snapshot.
//
// The date=<date> level makes out/*/parquet/<table> one Hive-partitioned
// dataset across days (a later shard=<i> level would go under it).
func Publish(ctx context.Context, q outputs.Querier, outRoot string, run Publication) (*Published, error) {
	if !ValidSplitBy(run.SplitBy) {
		return nil, fmt.Errorf("publish: split by %q: want %q or nothing", run.SplitBy, "group")
	}
	if run.Source != SourcePlatform && run.Source != SourceSandbox {
		// Unstamped outputs could pass simulated data off as real.
		return nil, fmt.Errorf("publish: source %q: want %q or %q", run.Source, SourcePlatform, SourceSandbox)
	}
	date := run.BusinessDate.Format("2006-01-02")
	st, err := outputs.NewStaging(outRoot, date)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", date, err)
	}
	ok := false
	defer func() {
		if !ok {
			st.Abort()
		}
	}()

	// The snapshot, a copy of the database file, is made while the workbook
	// and the Parquet datasets are written from the same database: those
	// only read it, and the copy is the disk's and the kernel's work more
	// than the CPU's (outputs.Snapshot).
	snapshot := "reconcile-" + date + ".duckdb"
	snap, err := outputs.StartSnapshot(ctx, q, filepath.Join(st.Dir, snapshot))
	if err != nil {
		return nil, fmt.Errorf("snapshot database: %w", err)
	}
	defer func() {
		if snap != nil {
			snap.Abort()
		}
	}()

	workbook := "reconcile-" + date + ".xlsx"
	if err := writeRankedWorkbook(ctx, q, filepath.Join(st.Dir, workbook), run, Scope{}); err != nil {
		return nil, fmt.Errorf("write workbook: %w", err)
	}
	groupBooks := map[string]string{}
	if run.SplitBy == "group" {
		ids, err := runGroups(ctx, q, run.RunID)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			name := GroupWorkbookName(date, id)
			if err := writeRankedWorkbook(ctx, q, filepath.Join(st.Dir, name), run, Scope{GroupID: id}); err != nil {
				return nil, fmt.Errorf("write workbook of group %s: %w", id, err)
			}
			groupBooks[id] = name
		}
	}
	// Go returns freed memory to the system only slowly: what the
	// workbooks' rows took would stay resident while DuckDB's exports
	// below take their own. Give it back now.
	debug.FreeOSMemory()
	rowCounts := map[string]int64{}
	for _, d := range Datasets(run.RunID, run.Window) {
		n, err := queryInt(ctx, q, "SELECT count(*) FROM ("+d.Query+")")
		if err != nil {
			return nil, fmt.Errorf("count dataset %s: %w", d.Name, err)
		}
		rowCounts[d.Name] = n
		dir := filepath.Join(st.Dir, DatasetDir(d.Name, date))
		if len(d.PartitionBy) > 0 {
			err = outputs.ExportParquetPartitioned(ctx, q, d.Query, dir, d.PartitionBy)
		} else {
			err = outputs.ExportParquet(ctx, q, d.Query, filepath.Join(dir, "data_0.parquet"))
		}
		if err != nil {
			return nil, fmt.Errorf("write dataset %s: %w", d.Name, err)
		}
	}
	err = snap.Finish(ctx, q)
	snap = nil
	if err != nil {
		return nil, fmt.Errorf("snapshot database: %w", err)
	}
	findings, err := findingsByState(ctx, q, run.RunID)
	if err != nil {
		return nil, err
	}
	// Every finding the run reports, whatever its state but resolved: an
	// acknowledgement changes a finding's state, never whether it is one.
	current := map[string]int64{}
	for kind, n := range findings[string(store.FindingNew)] {
		current[kind] = n + findings[string(store.FindingOpen)][kind] + findings[string(store.FindingAcknowledged)][kind]
	}
	prev, err := previousRun(ctx, q, run.RunID)
	if err != nil {
		return nil, err
	}
	m := outputs.Manifest{
		RunID:           run.RunID,
		BusinessDate:    date,
		WindowStart:     run.Window.Start.UTC().Format(time.RFC3339),
		WindowEnd:       run.Window.End.UTC().Format(time.RFC3339),
		StartedAt:       run.StartedAt.UTC().Format(time.RFC3339),
		FinishedAt:      run.FinishedAt.UTC().Format(time.RFC3339),
		Status:          run.Status,
		Source:          run.Source,
		Members:         run.Members,
		Shard:           run.Shard,
		Settings:        run.Settings,
		Shards:          run.Shards,
		RowCounts:       rowCounts,
		FindingsByKind:  current,
		FindingsByState: findings,
		PreviousRun:     prev,
		Alarms:          manifestAlarms(run.Alarms),
		ResponseMLEKey:  run.ResponseMLE,
		Requests:        run.Requests,
		Versions:        map[string]string{"reconcile": run.Version, "go": runtime.Version(), "duckdb": duckdbVersion(ctx, q)},
	}
	if err := outputs.WriteManifest(st.Dir, m); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := st.Publish(); err != nil {
		return nil, fmt.Errorf("publish %s: %w", st.Final(), err)
	}
	ok = true
	final := st.Final()
	link, err := outputs.PointCurrent(outRoot, filepath.Join(final, snapshot))
	if err != nil {
		return nil, fmt.Errorf("published %s, but %w", final, err)
	}
	for id, name := range groupBooks {
		groupBooks[id] = filepath.Join(final, name)
	}
	return &Published{
		Dir:            final,
		Workbook:       filepath.Join(final, workbook),
		GroupWorkbooks: groupBooks,
		Snapshot:       filepath.Join(final, snapshot),
		Current:        link,
		Manifest:       filepath.Join(final, outputs.ManifestName),
		Findings:       findings,
		PreviousRun:    prev,
	}, nil
}

// writeRankedWorkbook writes the workbook of run for scope at path, the
// kinds in the order of the money they put at stake in that scope.
func writeRankedWorkbook(ctx context.Context, q outputs.Querier, path string, run Publication, scope Scope) error {
	rank, err := KindRank(ctx, q, run.RunID, scope)
	if err != nil {
		return err
	}
	_, err = outputs.WriteWorkbook(ctx, q, path, WorkbookRanked(run, scope, rank))
	return err
}

// DatasetDir is the folder of a dataset's files for a business date,
// relative to the output folder: parquet/<name>/date=<date>.
func DatasetDir(name, date string) string {
	return filepath.Join("parquet", name, "date="+date)
}

// GroupWorkbookName is the file name of a group's workbook. A group ID is
// the platform's text: anything but letters, digits, '-' and '_' becomes
// '_' (so no path separator, no "..", no dot), and an ID that needed that
// (or is empty or long) gets a short hash of the original, so that two IDs
// never share a file.
func GroupWorkbookName(date, groupID string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, groupID)
	if safe != groupID || safe == "" || len(safe) > 64 {
		sum := sha256.Sum256([]byte(groupID))
		safe = safe[:min(len(safe), 40)] + "-" + hex.EncodeToString(sum[:4])
	}
	return "reconcile-" + date + "-group-" + safe + ".xlsx"
}

// The statements the publish step runs besides the sheets' and datasets'
// (queries/reports/publish.sql), each taking $1 = run ID.
var (
	runGroupsSQL       = queries.Must("reports/publish.sql", "RunGroups")
	findingsByStateSQL = queries.Must("reports/publish.sql", "FindingsByState")
	previousRunSQL     = queries.Must("reports/publish.sql", "PreviousRun")
)

// runGroups lists the groups the run listed that hold at least one of its
// members.
func runGroups(ctx context.Context, q outputs.Querier, runID string) ([]string, error) {
	rows, err := q.QueryContext(ctx, runGroupsSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("list the run's groups: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list the run's groups: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// findingsByState counts the run's findings per state and kind, with every
// kind of the catalog present in every state.
func findingsByState(ctx context.Context, q outputs.Querier, runID string) (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	for _, s := range FindingStates {
		out[s] = map[string]int64{}
		for _, k := range queries.Kinds() {
			out[s][k] = 0
		}
	}
	rows, err := q.QueryContext(ctx, findingsByStateSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("count findings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state sql.NullString
		var kind string
		var n int64
		if err := rows.Scan(&state, &kind, &n); err != nil {
			return nil, fmt.Errorf("count findings: %w", err)
		}
		if out[state.String] == nil {
			return nil, fmt.Errorf("count findings: %d finding(s) of run %s in state %q", n, runID, state.String)
		}
		out[state.String][kind] = n
	}
	return out, rows.Err()
}

func previousRun(ctx context.Context, q outputs.Querier, runID string) (string, error) {
	rows, err := q.QueryContext(ctx, previousRunSQL, runID)
	if err != nil {
		return "", fmt.Errorf("previous run of %s: %w", runID, err)
	}
	defer rows.Close()
	var prev string
	if rows.Next() {
		if err := rows.Scan(&prev); err != nil {
			return "", fmt.Errorf("previous run of %s: %w", runID, err)
		}
	}
	return prev, rows.Err()
}

func queryInt(ctx context.Context, q outputs.Querier, query string, args ...any) (int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}

func duckdbVersion(ctx context.Context, q outputs.Querier) string {
	rows, err := q.QueryContext(ctx, "SELECT version()")
	if err != nil {
		return ""
	}
	defer rows.Close()
	var v string
	if rows.Next() {
		rows.Scan(&v)
	}
	return v
}
