package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// Window is a run's half-open time range.
type Window struct{ Start, End time.Time }

// Run is what the publish step needs to know of a run.
type Run struct {
	RunID        string
	BusinessDate time.Time
	Window       Window
	StartedAt    time.Time
	FinishedAt   time.Time
	Status       string
	Members      map[string]int // ok, failed, skipped
	Version      string
}

// Published lists what a publish wrote.
type Published struct {
	Dir      string
	Workbook string
	Snapshot string
	Manifest string
}

// Publish writes the run's workbook, Parquet datasets, DuckDB snapshot and
// manifest into a staging folder beside outRoot/<business date>, then swaps
// it in at once: a reader sees the previous complete output or the new one,
// never a half-written folder.
func Publish(ctx context.Context, q outputs.Querier, outRoot string, run Run) (*Published, error) {
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

	workbook := "reconcile-" + date + ".xlsx"
	if _, err := outputs.WriteWorkbook(ctx, q, filepath.Join(st.Dir, workbook), Workbook(run.RunID)); err != nil {
		return nil, fmt.Errorf("write workbook: %w", err)
	}
	rowCounts := map[string]int64{}
	for _, d := range Datasets(run.RunID, run.Window) {
		n, err := queryInt(ctx, q, "SELECT count(*) FROM ("+d.Query+")")
		if err != nil {
			return nil, fmt.Errorf("count dataset %s: %w", d.Name, err)
		}
		rowCounts[d.Name] = n
		dir := filepath.Join(st.Dir, "parquet", d.Name)
		if len(d.PartitionBy) > 0 {
			err = outputs.ExportParquetPartitioned(ctx, q, d.Query, dir, d.PartitionBy)
		} else {
			err = outputs.ExportParquet(ctx, q, d.Query, filepath.Join(dir, d.Name+".parquet"))
		}
		if err != nil {
			return nil, fmt.Errorf("write dataset %s: %w", d.Name, err)
		}
	}
	snapshot := "reconcile-" + date + ".duckdb"
	if err := outputs.SnapshotDuckDB(ctx, q, filepath.Join(st.Dir, snapshot)); err != nil {
		return nil, fmt.Errorf("snapshot database: %w", err)
	}
	findings, err := findingsByKind(ctx, q, run.RunID)
	if err != nil {
		return nil, err
	}
	m := outputs.Manifest{
		RunID:          run.RunID,
		BusinessDate:   date,
		WindowStart:    run.Window.Start.UTC().Format(time.RFC3339),
		WindowEnd:      run.Window.End.UTC().Format(time.RFC3339),
		StartedAt:      run.StartedAt.UTC().Format(time.RFC3339),
		FinishedAt:     run.FinishedAt.UTC().Format(time.RFC3339),
		Status:         run.Status,
		Members:        run.Members,
		RowCounts:      rowCounts,
		FindingsByKind: findings,
		Versions:       map[string]string{"reconcile": run.Version, "go": runtime.Version(), "duckdb": duckdbVersion(ctx, q)},
	}
	if err := outputs.WriteManifest(st.Dir, m); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := st.Publish(); err != nil {
		return nil, fmt.Errorf("publish %s: %w", st.Final(), err)
	}
	ok = true
	final := st.Final()
	return &Published{
		Dir:      final,
		Workbook: filepath.Join(final, workbook),
		Snapshot: filepath.Join(final, snapshot),
		Manifest: filepath.Join(final, outputs.ManifestName),
	}, nil
}

func findingsByKind(ctx context.Context, q outputs.Querier, runID string) (map[string]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT kind, count(*) FROM findings WHERE run_id = ? GROUP BY kind`, runID)
	if err != nil {
		return nil, fmt.Errorf("count findings: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for _, k := range queries.Kinds() {
		out[k] = 0
	}
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, fmt.Errorf("count findings: %w", err)
		}
		out[kind] = n
	}
	return out, rows.Err()
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
