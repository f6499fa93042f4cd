package outputs

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// resolveColumns gives each FromQuery block of a sheet the columns of its
// query (columnsOf); other blocks are returned as they are.
func (w *xlsxWriter) resolveColumns(ctx context.Context, blocks []Block) ([]Block, error) {
	out := make([]Block, len(blocks))
	for i, b := range blocks {
		if b.FromQuery {
			cols, err := w.columnsOf(ctx, i, b)
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", i+1, err)
			}
			b.Columns = cols
			if len(b.Lead) > 0 {
				b.Columns, b.perm = leadColumns(cols, b.Lead)
			}
		}
		out[i] = b
	}
	return out, nil
}

// maxFittedWidth caps the width a text column of a FromQuery block is
// given from its values: a long reason then shows its start and spills
// over empty cells to its right (the last column's, over the margin).
const maxFittedWidth = 60

// columnsOf describes FromQuery block bi: the names and types of its
// columns (describe), and it measures the longest
// value of each text column, which sets the column's width (a stream
// writer sets widths before the first row, so they cannot follow the rows
// as written): in the block's staged rows (stage), else by running the
// query again.
//
// Types follow the DuckDB type (columnType); a type with no cell type of
// its own (a DOUBLE, a JSON value, a list) is an error naming the column,
// since the statement should say what it is: an amount, a count, or text.
func (w *xlsxWriter) columnsOf(ctx context.Context, bi int, b Block) ([]Column, error) {
	types, err := w.describe(ctx, bi, b)
	if err != nil {
		return nil, fmt.Errorf("describe the query: %w", err)
	}
	cols := make([]Column, len(types))
	var texts []int // positions of the text columns
	for i, t := range types {
		ct, ok := columnType(t.DatabaseTypeName())
		if !ok {
			return nil, fmt.Errorf("column %q is a %s: cast it to VARCHAR, DECIMAL (an amount), an integer (a count), DATE or TIMESTAMPTZ",
				t.Name(), t.DatabaseTypeName())
		}
		cols[i] = Column{Header: t.Name(), Type: ct}
		if ct == Text {
			texts = append(texts, i)
		}
	}
	for i := range cols {
		if cols[i].Type == Amount {
			cols[i].CurrencyColumn = currencyAfter(cols, i)
		}
	}
	if len(cols) == 0 || len(cols) > excelize.MaxColumns {
		return nil, fmt.Errorf("the query returns %d columns", len(cols))
	}
	if len(texts) == 0 {
		return cols, nil
	}
	// The longest value of each text column, positions as names (q(c1, c2,
	// ...)) since the headers are free text.
	names := make([]string, len(cols))
	longest := make([]string, len(texts))
	for i := range cols {
		names[i] = "c" + strconv.Itoa(i+1)
	}
	for k, i := range texts {
		longest[k] = "max(length(" + names[i] + "))"
	}
	from, args := "(\n"+trimQuery(b.Query)+"\n)", b.Args
	if s, ok := w.stage(ctx, bi, b); ok {
		from, args = "temp.main."+s.table, nil
	}
	q := "SELECT " + strings.Join(longest, ", ") + " FROM " + from + " AS q(" + strings.Join(names, ", ") + ")"
	rows, err := w.q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("measure the text columns: %w", err)
	}
	defer rows.Close()
	lengths := make([]*int64, len(texts))
	ptrs := make([]any, len(texts))
	for k := range lengths {
		ptrs[k] = &lengths[k]
	}
	if rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("measure the text columns: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("measure the text columns: %w", err)
	}
	for k, i := range texts {
		wd := defaultWidth(Column{Header: cols[i].Header, Type: Text})
		if n := lengths[k]; n != nil {
			// At least the header's width or 8, at most maxFittedWidth.
			wd = min(max(float64(*n)*1.1+2, float64(len([]rune(cols[i].Header)))*1.15+2, 8), maxFittedWidth)
		}
		cols[i].Width = wd
	}
	return cols, nil
}

// columnType is the cell type of a DuckDB column type: DATE a Date,
// TIMESTAMP and TIMESTAMPTZ a Timestamp, DECIMAL an Amount, the integer
// types a Count, BOOLEAN a Bool, VARCHAR and UUID Text. Other types have
// none (ok false).
func columnType(dbType string) (ColumnType, bool) {
	base, _, _ := strings.Cut(dbType, "(")
	switch base {
	case "DATE":
		return Date, true
	case "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return Timestamp, true
	case "DECIMAL":
		return Amount, true
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT":
		return Count, true
	case "BOOLEAN":
		return Bool, true
	case "VARCHAR", "UUID":
		return Text, true
	}
	return Text, false
}

// currencyAfter is the 1-based position of the first column after column
// i whose header is "Currency" or ends in " currency" (any case), or 0.
func currencyAfter(cols []Column, i int) int {
	for j := i + 1; j < len(cols); j++ {
		h := strings.ToLower(cols[j].Header)
		if h == "currency" || strings.HasSuffix(h, " currency") {
			return j + 1
		}
	}
	return 0
}

// describe is the names and types of block bi's columns. The block is
// staged first (it is read from its temporary table in any case) and the
// table is described: its columns have the query's names and types, as
// DuckDB gives them to a query wrapped in SELECT * (a name repeated in
// another case renamed "x_1", a bare NULL an INTEGER), and planning a
// report's query a second time only to describe it was a tenth of a small
// run's workbook. A block that cannot be staged has its query described.
func (w *xlsxWriter) describe(ctx context.Context, bi int, b Block) ([]*sql.ColumnType, error) {
	if s, ok := w.stage(ctx, bi, b); ok {
		if types, err := columnTypes(ctx, w.q, "SELECT * FROM temp.main."+s.table+" LIMIT 0"); err == nil {
			return types, nil
		}
	}
	return columnTypes(ctx, w.q, "SELECT * FROM (\n"+trimQuery(b.Query)+"\n) LIMIT 0", b.Args...)
}

// columnTypes runs query and returns its result's column types.
func columnTypes(ctx context.Context, q Querier, query string, args ...any) ([]*sql.ColumnType, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.ColumnTypes()
}
