package outputs

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recordingQuerier records the queries it runs.
type recordingQuerier struct {
	Querier
	queries []string
}

func (q *recordingQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	q.queries = append(q.queries, query)
	return q.Querier.QueryContext(ctx, query, args...)
}

// count is how many of the queries start with prefix.
func (q *recordingQuerier) count(prefix string) int {
	n := 0
	for _, s := range q.queries {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

// A block is read a page at a time from the table its query ran into
// (blockRows): every row arrives once, in the query's order, across pages
// and across a sheet's end, with the query's parameters; a query DuckDB
// cannot store in a table is read whole; and no table is left behind.
func TestBlockRowsPaged(t *testing.T) {
	defer func(n int64, m int) { pageRows, maxSheetRows = n, m }(pageRows, maxSheetRows)
	pageRows, maxSheetRows = 3, 9 // pages of 3 rows, sheets of 8 data rows
	db := openDB(t)
	db.SetMaxOpenConns(1) // one connection, as the publish step writes with
	mustExec(t, db, `SET preserve_insertion_order = false`, `SET threads = 4`,
		`CREATE TABLE t AS SELECT range AS x, 'v' || range AS v FROM range(20)`)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	q := &recordingQuerier{Querier: db}
	stats, err := WriteWorkbook(context.Background(), q, path, Workbook{Sheets: []Sheet{
		{Name: "Paged", Blocks: []Block{{
			Query:   `SELECT x, v FROM t WHERE x >= $1 ORDER BY x DESC`,
			Args:    []any{3},
			Columns: []Column{{Header: "X", Type: Integer}, {Header: "V"}},
		}}},
		{Name: "Typed", Blocks: []Block{{
			Query:     `SELECT x AS "X", v AS "Value" FROM t WHERE x < $1 ORDER BY x`,
			Args:      []any{2},
			FromQuery: true,
		}}},
		{Name: "Whole", Blocks: []Block{{
			// A statement CREATE TABLE AS cannot take.
			Query:   `CALL pragma_version()`,
			Columns: []Column{{Header: "Version"}, {Header: "Source"}, {Header: "Codename"}},
		}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := stats.Rows["Paged"] + stats.Rows["Paged (2)"] + stats.Rows["Paged (3)"]; got != 17 {
		t.Errorf("paged block wrote %d rows (%v), want 17", got, stats.Rows)
	}
	// The paged block ran its query once, into its table, and was read in
	// ceil(17/3) pages (the typed block's 2 rows in one more); only the
	// unstageable one was counted by its query.
	if n := q.count("SELECT * FROM temp.main.reconcile_block_0 WHERE rowid"); n != 7 {
		t.Errorf("%d page reads, want 7", n)
	}
	if n := q.count("SELECT count(*) FROM (SELECT 1 FROM ("); n != 1 {
		t.Errorf("%d counts by running a block's query again, want 1 (the unstageable block's)", n)
	}
	// A FromQuery block's query runs only into its table: its columns are
	// described and its text columns measured there.
	typed := 0
	for _, s := range q.queries {
		if strings.Contains(s, "FROM t WHERE x < $1") {
			typed++
		}
	}
	if typed != 0 {
		t.Errorf("the FromQuery block's query ran %d times besides its table, want 0", typed)
	}
	f := openXLSX(t, path)
	want := 19 // x from 19 down to 3, eight to a sheet after the note and header
	for _, sheet := range []string{"Paged", "Paged (2)", "Paged (3)"} {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if len(r) < 2 || r[0] == "X" || r[1] == "" {
				continue // the note and the header
			}
			if r[0] != strconv.Itoa(want) || r[1] != "v"+strconv.Itoa(want) {
				t.Fatalf("sheet %s: row %v, want x=%d next", sheet, r, want)
			}
			want--
		}
	}
	if want != 2 {
		t.Errorf("rows ended before x=%d", want+1)
	}
	if got := cell(t, f, "Typed", "B3", false); got != "v1" {
		t.Errorf("FromQuery block: B3 = %q, want v1", got)
	}
	if got := cell(t, f, "Whole", "A2", false); !strings.HasPrefix(got, "v1.") {
		t.Errorf("unstageable block: A2 = %q, want DuckDB's version", got)
	}
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM duckdb_tables() WHERE temporary`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d temporary tables left after the workbook", left)
	}
}

// A staged block keeps its query's order over many row groups and threads,
// though the run sets preserve_insertion_order = false: CREATE TABLE AS
// keeps the order an ORDER BY gives.
func TestStagedBlockKeepsOrder(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	mustExec(t, db, `SET preserve_insertion_order = false`, `SET threads = 4`,
		`CREATE TABLE t AS SELECT range AS x FROM range(500000)`)
	w := &xlsxWriter{q: db, staged: map[int]*stagedBlock{}}
	ctx := context.Background()
	b := Block{Query: `SELECT x, hash(x) AS h FROM t ORDER BY h, x`}
	rows, err := w.openRows(ctx, 0, b)
	if err != nil {
		t.Fatal(err)
	}
	if w.staged[0] == nil {
		t.Fatal("the block was not staged")
	}
	defer w.unstageAll(ctx)
	defer rows.Close()
	var n int64
	var prev uint64
	for rows.Next() {
		var x int64
		var h uint64
		if err := rows.Scan(&x, &h); err != nil {
			t.Fatal(err)
		}
		if n > 0 && h < prev {
			t.Fatalf("row %d: hash %d after %d: out of the query's order", n, h, prev)
		}
		prev = h
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 500000 {
		t.Errorf("read %d rows, want 500000", n)
	}
}
