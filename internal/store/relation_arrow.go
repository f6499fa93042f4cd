//go:build duckdb_arrow

package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// ArrowLoads says whether bulk loads go through DuckDB's Arrow scan (built
// with -tags duckdb_arrow) rather than the Appender.
const ArrowLoads = true

// relation is records made readable by SQL under a name: an Arrow view over
// them. DuckDB reads an Arrow stream once, so every statement gets a view
// of its own, made just before it runs and dropped after. The view DuckDB's
// C API makes is not a temporary one: it is created in the database's main
// schema, in the load's transaction, so dropping it in the same transaction
// leaves nothing in the file (a view left behind would point at freed
// memory in any later session).
type relation struct {
	conn *sql.Conn
	view string
	recs []arrow.RecordBatch
}

func newRelation(_ context.Context, conn *sql.Conn, name string, _ *Table, recs ...arrow.RecordBatch) (*relation, error) {
	return &relation{conn: conn, view: name, recs: recs}, nil
}

func (r *relation) name() string { return r.view }

// exec runs query, which reads the record as r.name().
func (r *relation) exec(ctx context.Context, query string) error {
	var release func()
	err := r.conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rdr, err := array.NewRecordReader(r.recs[0].Schema(), r.recs)
		if err != nil {
			return err
		}
		defer rdr.Release()
		release, err = a.RegisterView(rdr, r.view)
		return err
	})
	if err != nil {
		return fmt.Errorf("register the rows as %s: %w", r.view, err)
	}
	defer release()
	_, err = r.conn.ExecContext(ctx, query)
	if _, dErr := r.conn.ExecContext(context.WithoutCancel(ctx), "DROP VIEW "+r.view); dErr != nil && err == nil {
		err = fmt.Errorf("drop view %s: %w", r.view, dErr)
	}
	return err
}

func (r *relation) close(context.Context) {}
