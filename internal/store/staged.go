package store

import (
	"context"
	"fmt"
	"strings"
)

// Staged is a load of a table made in parts inside one open transaction,
// for a stage that reads a unit of data (a scope of a report) a page at a
// time and must load the unit whole or not at all, without holding the
// whole unit in Go: each page's Batch is handed to DuckDB as it is read
// (Add) into a temporary table, and the unit is then moved into the table
// (Keep) or dropped (Discard). DuckDB holds the staged rows in its own
// columnar storage, within its memory limit and spilling past it, where the
// same rows as Go values took several times the space and stayed until the
// transaction's end (the settlement stage at 5,000 members peaked at 4 GB).
//
// Keep replaces the table's rows of the same keys, as Load does, and a key
// given again by a later Add replaces the staged row, as a Batch keeps the
// later of two rows of a key: a unit loaded in parts writes what one Load of
// all its rows would.
type Staged struct {
	tx     *Tx
	t      *Table
	name   string
	rows   int64
	scopes map[string]bool // the scope values of the staged rows
}

// Stage starts a staged load of t in the transaction; Close drops its
// temporary table.
func (tx *Tx) Stage(ctx context.Context, t *Table) (*Staged, error) {
	if _, err := tx.prepare(ctx, t); err != nil {
		return nil, err
	}
	st := &Staged{tx: tx, t: t, name: "staged_" + t.Name, scopes: map[string]bool{}}
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name + " " + c.Kind.String()
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s (%s)", st.name, strings.Join(cols, ", "))); err != nil {
		return nil, fmt.Errorf("stage rows of %s: %w", t.Name, err)
	}
	return st, nil
}

// Rows is the number of rows staged and neither kept nor discarded.
func (st *Staged) Rows() int64 { return st.rows }

// Add stages b's rows (and seals b): a staged row of the same key is
// replaced.
func (st *Staged) Add(ctx context.Context, b *Batch) error {
	t := st.t
	if b.t != t {
		panic(fmt.Sprintf("store: a batch of %s staged for %s", b.t.Name, t.Name))
	}
	rec := b.record()
	defer rec.Release()
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	rel, err := newRelation(ctx, st.tx.s.conn, "stage_"+t.Name, t, rec)
	if err != nil {
		return fmt.Errorf("stage %d rows of %s: %w", n, t.Name, err)
	}
	defer rel.close(ctx)
	if st.rows > 0 && len(t.Key) > 0 {
		// Only the rows' count is kept up to date below, not which keys
		// were replaced: Rows may overcount a key staged twice, which
		// only ever makes Keep run a statement it could have spared.
		if err := rel.exec(ctx, fmt.Sprintf("DELETE FROM %s t USING %s s WHERE %s", st.name, rel.name(), keyMatch(t))); err != nil {
			return fmt.Errorf("replace staged rows of %s: %w", t.Name, err)
		}
	}
	cols := strings.Join(t.ColumnNames(), ", ")
	if err := rel.exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", st.name, cols, cols, rel.name())); err != nil {
		return fmt.Errorf("stage %d rows of %s: %w", n, t.Name, err)
	}
	st.rows += n
	for _, s := range b.Scopes() {
		st.scopes[s] = true
	}
	return nil
}

// Keep moves the staged rows into the table, replacing its rows of the same
// keys, and empties the stage.
func (st *Staged) Keep(ctx context.Context) error {
	if st.rows == 0 {
		return nil
	}
	t := st.t
	held, err := st.tx.prepare(ctx, t)
	if err != nil {
		return err
	}
	overlap := held == nil
	for s := range st.scopes {
		overlap = overlap || held[s]
	}
	if overlap {
		if _, err := st.tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s t USING %s s WHERE %s", t.Name, st.name, keyMatch(t))); err != nil {
			return fmt.Errorf("replace rows of %s: %w", t.Name, err)
		}
	}
	cols := strings.Join(t.ColumnNames(), ", ")
	if _, err := st.tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", t.Name, cols, cols, st.name)); err != nil {
		return fmt.Errorf("insert %d staged rows into %s: %w", st.rows, t.Name, err)
	}
	if held != nil {
		for s := range st.scopes {
			held[s] = true
		}
	}
	return st.Discard(ctx)
}

// Discard drops the staged rows.
func (st *Staged) Discard(ctx context.Context) error {
	if st.rows == 0 {
		return nil
	}
	if _, err := st.tx.Exec(ctx, "DELETE FROM "+st.name); err != nil {
		return fmt.Errorf("empty the staged rows of %s: %w", st.t.Name, err)
	}
	st.rows = 0
	clear(st.scopes)
	return nil
}

// Close drops the stage's temporary table; rows still staged are lost.
func (st *Staged) Close(ctx context.Context) error {
	if _, err := st.tx.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+st.name); err != nil {
		return fmt.Errorf("drop the staged rows of %s: %w", st.t.Name, err)
	}
	return nil
}

// keyMatch is the condition that rows t and s of table t have the same key.
func keyMatch(t *Table) string {
	match := make([]string, len(t.Key))
	for i, k := range t.Key {
		match[i] = fmt.Sprintf("t.%s = s.%s", k, k)
	}
	return strings.Join(match, " AND ")
}
