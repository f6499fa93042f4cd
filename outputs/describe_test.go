package outputs

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// A FromQuery block's headers and cell types are the ones DuckDB gives its
// query wrapped in SELECT *, whether the block's rows were staged in a
// temporary table or not: a name repeated in another case is renamed as
// DuckDB renames it ("kind_1"), and a bare NULL is a count column.
func TestWriteWorkbookColumnsFromQueryNamesAsQueried(t *testing.T) {
	const q = `SELECT 'a' AS "Kind", 'b' AS "kind", 'c' AS "Kind_1", NULL AS "Note", 1 AS "N"`
	db := openDB(t)
	var want []string
	rows, err := db.Query("SELECT * FROM (" + q + ") LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	want, err = rows.Columns()
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    Querier
	}{{"staged", db}, {"read whole", noTempTables{db}}} {
		path := filepath.Join(t.TempDir(), "n.xlsx")
		if _, err := WriteWorkbook(context.Background(), c.q, path, Workbook{Sheets: []Sheet{{
			Name: "N", Blocks: []Block{{FromQuery: true, Query: q}}}}}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, err := excelize.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.GetRows("N")
		f.Close()
		if err != nil || len(got) < 2 {
			t.Fatalf("%s: rows %v, %v", c.name, got, err)
		}
		if !slices.Equal(got[0], want) || !slices.Equal(got[1], []string{"a", "b", "c", "", "1"}) {
			t.Errorf("%s: rows %q, want headers %q and the row a, b, c, (empty), 1", c.name, got, want)
		}
	}
}

// noTempTables is a Querier on which no block can be staged: its CREATE
// TEMP TABLE statements fail, as they do for a statement DuckDB cannot
// store in a table.
type noTempTables struct{ *sql.DB }

func (q noTempTables) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if strings.HasPrefix(query, "CREATE OR REPLACE TEMP TABLE") {
		return nil, errors.New("temporary tables refused")
	}
	return q.DB.ExecContext(ctx, query, args...)
}
