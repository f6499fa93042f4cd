package clitest

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reconcile/reconcile/reports"
	"github.com/xuri/excelize/v2"
)

// WriteText writes text to a file name in a new temporary folder of the
// test, mode 600 (as a secret file must be), and returns its path.
func WriteText(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Tree is every entry under dir with its type, mode and content digest:
// "nothing written" means the Tree after equals the Tree before.
func Tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		v := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DiffTrees lists what changed between two Trees: "written: path" and
// "removed: path", sorted.
func DiffTrees(before, after map[string]string) []string {
	var diffs []string
	for p, v := range after {
		if before[p] != v {
			diffs = append(diffs, "written: "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed: "+p)
		}
	}
	slices.Sort(diffs)
	return diffs
}

// QueryDB runs one query on a closed working file and closes it again, so
// that the next command can open the file for writing.
func QueryDB(t *testing.T, path, q string, args ...any) [][]string {
	t.Helper()
	db := OpenReadOnly(t, path)
	defer db.Close()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out
}

// AssertSourceStamped reads a run's outputs back and checks that each says
// where the data came from: the stdout summary line, the workbook's title
// and Summary, the manifest and the metrics file.
func AssertSourceStamped(t *testing.T, source, stdout, dayDir, prom string) {
	t.Helper()
	label := reports.SourceLabel(source)
	if !strings.Contains(stdout, "members reconciled") || !strings.Contains(firstLine(stdout), "; source: "+label) {
		t.Errorf("summary line %q does not end with the source %q", firstLine(stdout), label)
	}
	books, _ := filepath.Glob(filepath.Join(dayDir, "reconcile-*.xlsx"))
	if len(books) == 0 {
		t.Fatalf("no workbook in %s", dayDir)
	}
	for _, path := range books {
		f, err := excelize.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		props, _ := f.GetDocProps()
		a1, _ := f.GetCellValue(reports.SummarySheet, "A1")
		cell, _ := f.GetCellValue(reports.SummarySheet, "B5")
		f.Close()
		simulated := strings.HasSuffix(a1, " — SIMULATED DATA (sandbox)") && props.Title == a1
		if simulated != (source == reports.SourceSandbox) || cell != label {
			t.Errorf("%s: title %q (properties %q), Data source %q; want the %s stamp", filepath.Base(path), a1, props.Title, cell, source)
		}
	}
	var m struct{ Source string }
	ReadJSON(t, filepath.Join(dayDir, "manifest.json"), &m)
	if m.Source != source {
		t.Errorf("manifest source %q, want %q", m.Source, source)
	}
	want := 0.0
	if source == reports.SourceSandbox {
		want = 1
	}
	if v, ok := PromValue(ParseProm(t, prom), "reconcile_run_simulated"); !ok || v != want {
		t.Errorf("reconcile_run_simulated = %v (%v), want %v", v, ok, want)
	}
}

// OpenReadWrite opens a DuckDB file for writing, as another program would.
func OpenReadWrite(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TextColumn is every value of one text column (table.column), one per
// line.
type TextColumn struct{ Name, Text string }

// TextColumns reads every text column of every table and view, one
// statement a table (a statement a column cost ~400 statements a scan).
func TextColumns(t *testing.T, db *sql.DB) []TextColumn {
	t.Helper()
	rows, err := db.Query(`SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = 'main' AND data_type IN ('VARCHAR', 'JSON') ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	columns := map[string][]string{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		if len(columns[table]) == 0 {
			tables = append(tables, table)
		}
		columns[table] = append(columns[table], column)
	}
	rows.Close()
	var out []TextColumn
	for _, table := range tables {
		cols := columns[table]
		aggs := make([]string, len(cols))
		for i, c := range cols {
			aggs[i] = fmt.Sprintf(`string_agg(CAST("%s" AS VARCHAR), chr(10))`, c)
		}
		all := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range all {
			dest[i] = &all[i]
		}
		q := fmt.Sprintf(`SELECT %s FROM "%s"`, strings.Join(aggs, ", "), table)
		if err := db.QueryRow(q).Scan(dest...); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for i, c := range cols {
			out = append(out, TextColumn{table + "." + c, all[i].String})
		}
	}
	return out
}

// ParquetTexts is every value of each Parquet file under dir, by file.
func ParquetTexts(t *testing.T, db *sql.DB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		rows, err := db.Query(fmt.Sprintf(`SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_parquet('%s')`, p))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var b strings.Builder
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			for _, v := range vals {
				b.WriteString(v.String + "\n")
			}
		}
		out[p] = b.String()
		return rows.Err()
	})
	if err != nil || len(out) < 10 {
		t.Fatalf("%d parquet files read under %s: %v", len(out), dir, err)
	}
	return out
}

// First joins the first n of list for a message, "..." after them if
// there are more.
func First(list []string, n int) string {
	if len(list) > n {
		return strings.Join(list[:n], " | ") + " | ..."
	}
	return strings.Join(list, " | ")
}

// SyncBuffer is a bytes.Buffer several goroutines write to (the scheduler
// and its runs log to one stderr).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
