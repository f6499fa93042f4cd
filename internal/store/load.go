package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/reconcile/reconcile/queries"
)

// How a load keeps keys unique without staging tables. A load used to
// append its rows to a new temporary table, then delete the keys it held
// from the target and insert it with DISTINCT ON: four statements per
// table per load, most of a run's time. Now:
//
//   - a key given twice within the load is dropped in Go (Batch.End);
//   - the batch is handed to DuckDB as a relation (relation_arrow.go:
//     an Arrow view; relation_appender.go without the build tag) and
//     inserted by one INSERT ... SELECT;
//   - the keys' old rows are deleted first only when there may be some:
//     the store knows which scope values (merchant IDs, journal files) each
//     table holds, read once per table and added to as it loads, so a
//     member's first load is a plain insert, and a re-run, a --force run
//     or the next night's run deletes what it replaces.
//
// The set of scope values may hold more than the table (a load rolled back,
// rows deleted), never less: it only ever spares a delete that had nothing
// to delete. That holds as long as the scoped tables are written only
// through Load, as they are.

// Replace names rows of a load's table to delete besides those whose keys are
// loaded: the rows whose columns On equal one of Tuples (e.g. every
// payment of the subscriptions whose list was pulled again), so that rows
// the platform no longer lists do not linger.
type Replace struct {
	On     []string   // columns of the table
	Tuples [][]string // values of the On columns, in their order
}

var columnTypes = queries.Must("store.sql", "ColumnTypes")

// Load writes batches of rows of t in the transaction: each row replaces
// the table's row of the same key, and with replace the rows it names are
// deleted first. The batches are sealed (see Batch).
func (tx *Tx) Load(ctx context.Context, t *Table, replace *Replace, batches ...*Batch) error {
	held, err := tx.prepare(ctx, t)
	if err != nil {
		return err
	}
	if replace != nil {
		if err := tx.replace(ctx, t, held, replace); err != nil {
			return err
		}
	}
	var recs []arrow.RecordBatch
	var scopes []string
	for _, b := range batches {
		if b.t != t {
			panic(fmt.Sprintf("store: a batch of %s loaded into %s", b.t.Name, t.Name))
		}
		scopes = append(scopes, b.Scopes()...)
		if rec := b.record(); rec.NumRows() > 0 {
			recs = append(recs, rec)
			defer rec.Release()
		} else {
			rec.Release()
		}
	}
	if len(recs) == 0 {
		return nil
	}
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	// The records go to DuckDB as they are, one per batch: joining them
	// first would copy every value once more for no measurable gain.
	rel, err := newRelation(ctx, tx.s.conn, "load_"+t.Name, t, recs...)
	if err != nil {
		return fmt.Errorf("load %d rows into %s: %w", rows, t.Name, err)
	}
	defer rel.close(ctx)

	if held == nil || slices.ContainsFunc(scopes, func(s string) bool { return held[s] }) {
		var match []string
		for _, k := range t.Key {
			match = append(match, fmt.Sprintf("t.%s = s.%s", k, k))
		}
		del := fmt.Sprintf("DELETE FROM %s t USING %s s WHERE %s", t.Name, rel.name(), strings.Join(match, " AND "))
		if err := rel.exec(ctx, del); err != nil {
			return fmt.Errorf("replace rows of %s: %w", t.Name, err)
		}
	}
	cols := strings.Join(t.ColumnNames(), ", ")
	if err := rel.exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", t.Name, cols, cols, rel.name())); err != nil {
		return fmt.Errorf("insert %d rows into %s: %w", rows, t.Name, err)
	}
	if held != nil {
		for _, s := range scopes {
			held[s] = true
		}
	}
	return nil
}

// Update sets the columns of b's table that are not its key, on the rows of
// the database table whose key a row of b holds. b's table declares the
// columns to set (a part of the database table's). The batch is sealed.
func (tx *Tx) Update(ctx context.Context, b *Batch) error {
	t := b.t
	if _, err := tx.prepare(ctx, t); err != nil {
		return err
	}
	rec := b.record()
	defer rec.Release()
	if rec.NumRows() == 0 {
		return nil
	}
	rel, err := newRelation(ctx, tx.s.conn, "update_"+t.Name, t, rec)
	if err != nil {
		return fmt.Errorf("update %d rows of %s: %w", rec.NumRows(), t.Name, err)
	}
	defer rel.close(ctx)
	var set, match []string
	for i, c := range t.Columns {
		if t.isKey[i] {
			match = append(match, fmt.Sprintf("t.%s = s.%s", c.Name, c.Name))
		} else {
			set = append(set, fmt.Sprintf("%s = s.%s", c.Name, c.Name))
		}
	}
	q := fmt.Sprintf("UPDATE %s t SET %s FROM %s s WHERE %s", t.Name, strings.Join(set, ", "), rel.name(), strings.Join(match, " AND "))
	if err := rel.exec(ctx, q); err != nil {
		return fmt.Errorf("update %d rows of %s: %w", rec.NumRows(), t.Name, err)
	}
	return nil
}

// replace deletes the rows r names. Tuples of a scope value the table has
// never held name nothing, and are passed over.
func (tx *Tx) replace(ctx context.Context, t *Table, held map[string]bool, r *Replace) error {
	scope := -1
	if held != nil {
		scope = slices.Index(r.On, t.Scope)
	}
	values := make([][]string, len(r.On))
	for _, tuple := range r.Tuples {
		if len(tuple) != len(r.On) {
			panic(fmt.Sprintf("store: a tuple of %d values replacing rows of %s on %d columns", len(tuple), t.Name, len(r.On)))
		}
		if scope >= 0 && !held[tuple[scope]] {
			continue
		}
		for i, v := range tuple {
			values[i] = append(values[i], v)
		}
	}
	if len(r.On) == 0 || len(values[0]) == 0 {
		return nil
	}
	var cols, match []string
	args := make([]any, len(r.On))
	for i, c := range r.On {
		cols = append(cols, fmt.Sprintf("unnest(?::VARCHAR[]) AS %s", c))
		match = append(match, fmt.Sprintf("t.%s = r.%s", c, c))
		args[i] = values[i]
	}
	del := fmt.Sprintf("DELETE FROM %s t USING (SELECT %s) r WHERE %s", t.Name, strings.Join(cols, ", "), strings.Join(match, " AND "))
	if _, err := tx.Exec(ctx, del, args...); err != nil {
		return fmt.Errorf("replace rows of %s: %w", t.Name, err)
	}
	return nil
}

// prepare checks t's columns against the database's at the store's first
// load of t, and returns the scope values the table holds (nil for a table
// without a scope), read at that first load.
func (tx *Tx) prepare(ctx context.Context, t *Table) (map[string]bool, error) {
	s := tx.s
	if !s.checked[t] {
		if err := tx.checkColumns(ctx, t); err != nil {
			return nil, err
		}
		s.checked[t] = true
	}
	if t.Scope == "" {
		return nil, nil
	}
	if held, ok := s.held[t.Name]; ok {
		return held, nil
	}
	rows, err := tx.Query(ctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s", t.Scope, t.Name))
	if err != nil {
		return nil, fmt.Errorf("read the %s values of %s: %w", t.Scope, t.Name, err)
	}
	defer rows.Close()
	held := map[string]bool{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read the %s values of %s: %w", t.Scope, t.Name, err)
		}
		held[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the %s values of %s: %w", t.Scope, t.Name, err)
	}
	s.held[t.Name] = held
	return held, nil
}

// checkColumns fails when a column t declares is missing from the database
// table or has another type.
func (tx *Tx) checkColumns(ctx context.Context, t *Table) error {
	rows, err := tx.Query(ctx, columnTypes, t.Name)
	if err != nil {
		return fmt.Errorf("columns of %s: %w", t.Name, err)
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return fmt.Errorf("columns of %s: %w", t.Name, err)
		}
		types[name] = typ
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("columns of %s: %w", t.Name, err)
	}
	for _, c := range t.Columns {
		got, ok := types[c.Name]
		switch {
		case !ok:
			return fmt.Errorf("load into %s: the table has no column %s", t.Name, c.Name)
		case got != c.Kind.String():
			return fmt.Errorf("load into %s: column %s is %s in the database, loaded as %s", t.Name, c.Name, got, c.Kind)
		}
	}
	return nil
}
