//go:build !duckdb_arrow

package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// ArrowLoads says whether bulk loads go through DuckDB's Arrow scan (built
// with -tags duckdb_arrow) rather than the Appender.
const ArrowLoads = false

// relation is a record made readable by SQL under a name. Built without
// the duckdb_arrow tag, duckdb-go has no Arrow scan: the record's rows are
// appended (DuckDB Appender) to a temporary table of that name, dropped
// when the load ends. It loads the same batches as the Arrow view, several
// times slower; the README's commands and CI build with the tag.
type relation struct {
	conn  *sql.Conn
	table string
}

func newRelation(ctx context.Context, conn *sql.Conn, name string, t *Table, recs ...arrow.RecordBatch) (*relation, error) {
	var cols []string
	for _, c := range t.Columns {
		typ := c.Kind.String()
		if c.Kind == JSON { // the Appender would marshal a string again as a JSON string
			typ = Text.String()
		}
		cols = append(cols, c.Name+" "+typ)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s (%s)", name, strings.Join(cols, ", "))); err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	r := &relation{conn: conn, table: name}
	err := conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), "temp", "main", name)
		if err != nil {
			return err
		}
		row := make([]driver.Value, len(t.Columns))
		for _, rec := range recs {
			for i := range int(rec.NumRows()) {
				for j, col := range rec.Columns() {
					row[j] = driverValue(col, i)
				}
				if err := a.AppendRow(row...); err != nil {
					a.Close()
					return fmt.Errorf("row %d: %w", i+1, err)
				}
			}
		}
		return a.Close()
	})
	if err != nil {
		r.close(ctx)
		return nil, fmt.Errorf("append to %s: %w", name, err)
	}
	return r, nil
}

// driverValue is row i of col as the Appender takes it: an amount as
// int64 thousandths (the Appender reads an int64 as a DECIMAL's unscaled
// value; docs/dev/ceilings.md, pitfalls), an interval as duckdb.Interval.
func driverValue(col arrow.Array, i int) driver.Value {
	v := goValue(col, i)
	if d, ok := v.(time.Duration); ok {
		return duckdb.Interval{Micros: d.Microseconds()}
	}
	return v
}

func (r *relation) name() string { return r.table }

// exec runs query, which reads the rows as r.name().
func (r *relation) exec(ctx context.Context, query string) error {
	_, err := r.conn.ExecContext(ctx, query)
	return err
}

func (r *relation) close(ctx context.Context) {
	r.conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp.main."+r.table)
}
