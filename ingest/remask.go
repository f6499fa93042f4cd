package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// Versions before the platform's answers were masked (mask.go) stored them
// as served: a database they wrote may hold card data in any table fed by
// an answer (the records, member and group IDs, error messages) and in the
// tables derived from those (findings, the billing reports). Most of it
// would never be loaded again: a payment list that does not change is not
// pulled again, a transaction outside the window is not searched again.
// So the first run of this version masks, once, the text columns of those
// tables and of the tables derived from them (TextColumnsToMask names
// them; not journal, whose calls ReinspectJournal masks as it inspects them
// again, nor a file's hash or path, whose hex digits can pass for a card
// number), and records that it did (upgrades). A new database has nothing
// to mask and is marked at its first run.
//
// Each column is masked on its own, as a record's fields are (maskColumn):
// an identifier column's value of the platform's id shape is kept, a JSON
// document is masked by field (cardmask.MaskRecord), other text by pattern
// (cardmask.MaskText). The pass reads every text value once: 54 s on a
// 2,000-member file (1 GB), once.
//
// Masking ids by field (2026-11-28) masks less, not more: no new upgrade
// is needed, and none could help, for an id a database was given masked
// (651262XXXXXXXXX3703211) cannot be recovered from it. Such a record is
// stored again under its real id when it is pulled again; the masked one
// stays as it was.
//
// The upgrade's name says which masking made it: when cardmask comes to
// mask more, the name changes and the next run masks the tables again.
// platform_answers_masked was the first; platform_answers_masked_2 masks
// card numbers that separators join onto other digits and the track data
// after them, and masks a line until nothing changes (2026-11-27).
const upgradePlatformAnswersMasked = "platform_answers_masked_2"

var (
	upgradeDone       = queries.Must("ingest.sql", "UpgradeDone")
	markUpgradeDone   = queries.Must("ingest.sql", "MarkUpgradeDone")
	textColumnsToMask = queries.Must("ingest.sql", "TextColumnsToMask")
)

// maskedRow is a row whose text held card data: the row (by rowid) and
// each changed column's masked value.
type maskedRow struct {
	table   string
	rowid   int64
	columns []string
	values  []any
}

// MaskOlderRecords masks card data in the text columns TextColumnsToMask
// names, unless this database was masked so before, and returns the number
// of rows it changed.
func MaskOlderRecords(ctx context.Context, s *store.Store, now time.Time) (int, error) {
	var done int
	if err := s.ReadPool().QueryRowContext(ctx, upgradeDone, upgradePlatformAnswersMasked).Scan(&done); err != nil {
		return 0, fmt.Errorf("mask older records: %w", err)
	}
	if done > 0 {
		return 0, nil
	}
	tables, err := textColumns(ctx, s)
	if err != nil {
		return 0, err
	}
	var changed []maskedRow
	for _, t := range tables {
		rows, err := maskTable(ctx, s, t.name, t.columns)
		if err != nil {
			return 0, err
		}
		changed = append(changed, rows...)
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		for _, r := range changed {
			set := make([]string, len(r.columns))
			for i, c := range r.columns {
				set[i] = fmt.Sprintf("%s = $%d", store.QuoteIdent(c), i+1)
			}
			stmt := fmt.Sprintf("UPDATE %s SET %s WHERE rowid = $%d", store.QuoteIdent(r.table), strings.Join(set, ", "), len(set)+1)
			if _, err := tx.Exec(ctx, stmt, append(r.values, r.rowid)...); err != nil {
				return fmt.Errorf("mask card data in %s: %w", r.table, err)
			}
		}
		if _, err := tx.Exec(ctx, markUpgradeDone, upgradePlatformAnswersMasked, now); err != nil {
			return fmt.Errorf("record %s: %w", upgradePlatformAnswersMasked, err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("mask older records: %w", err)
	}
	return len(changed), nil
}

type textTable struct {
	name    string
	columns []string
}

// textColumns lists the tables to mask with their text columns.
func textColumns(ctx context.Context, s *store.Store) ([]textTable, error) {
	rows, err := s.ReadPool().QueryContext(ctx, textColumnsToMask)
	if err != nil {
		return nil, fmt.Errorf("text columns to mask: %w", err)
	}
	defer rows.Close()
	var out []textTable
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			return nil, fmt.Errorf("text columns to mask: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].name != table {
			out = append(out, textTable{name: table})
		}
		out[len(out)-1].columns = append(out[len(out)-1].columns, column)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("text columns to mask: %w", err)
	}
	return out, nil
}

// maskTable reads every row's text columns of table and returns the rows
// whose text holds card data, masked.
func maskTable(ctx context.Context, s *store.Store, table string, columns []string) ([]maskedRow, error) {
	cols := make([]string, len(columns))
	for i, c := range columns {
		cols[i] = "CAST(" + store.QuoteIdent(c) + " AS VARCHAR)"
	}
	rows, err := s.ReadPool().QueryContext(ctx, fmt.Sprintf("SELECT rowid, %s FROM %s", strings.Join(cols, ", "), store.QuoteIdent(table)))
	if err != nil {
		return nil, fmt.Errorf("read %s to mask: %w", table, err)
	}
	defer rows.Close()
	var rowid int64
	values := make([]sql.NullString, len(columns))
	dest := []any{&rowid}
	for i := range values {
		dest = append(dest, &values[i])
	}
	var out []maskedRow
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read %s to mask: %w", table, err)
		}
		var r *maskedRow
		for i, v := range values {
			if !v.Valid {
				continue
			}
			m := maskColumn(columns[i], v.String)
			if m == v.String {
				continue
			}
			if r == nil {
				out = append(out, maskedRow{table: table, rowid: rowid})
				r = &out[len(out)-1]
			}
			r.columns, r.values = append(r.columns, columns[i]), append(r.values, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s to mask: %w", table, err)
	}
	return out, nil
}

// maskColumn is value of column masked as the records it was read from
// are: by field.
func maskColumn(column, value string) string {
	switch {
	case (column == "id" || strings.HasSuffix(column, "_id")) && cardmask.IsPlatformID(value):
		return value
	case strings.HasPrefix(value, "{") || strings.HasPrefix(value, "["):
		return cardmask.MaskRecordText(value)
	}
	return cardmask.MaskText(value)
}
