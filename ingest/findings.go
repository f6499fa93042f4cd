package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/queries"
)

// computeFindings replaces the run's findings with the result of every check
// over the members the run loaded. A finding keeps the run in which the same
// kind, member and entity was first seen, so day-over-day reports can tell
// new from still open.
func (s *Store) computeFindings(ctx context.Context, runID string, businessDate time.Time, w Window) (map[string]int64, error) {
	counts := map[string]int64{}
	err := s.Transact(ctx, func(tx *Tx) error {
		if err := setWindow(ctx, tx, w); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM findings WHERE run_id = ?`, runID); err != nil {
			return fmt.Errorf("clear findings of run %s: %w", runID, err)
		}
		for _, c := range queries.Checks() {
			q := `INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id,
			                            amount, currency, detail, first_seen_run)
			SELECT ?, ?, ?, f.merchant_id, f.entity_id, g.group_id, f.amount, f.currency, f.detail,
			       coalesce(prev.first_seen_run, ?)
			FROM (` + c.SQL + `) f
			JOIN run_members rm ON rm.run_id = ? AND rm.merchant_id = f.merchant_id AND rm.status = 'ok'
			LEFT JOIN (SELECT merchant_id, min(group_id) AS group_id FROM group_members GROUP BY merchant_id) g
			       ON g.merchant_id = f.merchant_id
			LEFT JOIN (SELECT merchant_id, entity_id, min(first_seen_run) AS first_seen_run
			           FROM findings WHERE kind = ? AND run_id < ? GROUP BY ALL) prev
			       ON prev.merchant_id = f.merchant_id AND prev.entity_id = f.entity_id
			QUALIFY row_number() OVER (PARTITION BY f.merchant_id, f.entity_id ORDER BY f.entity_id) = 1`
			res, err := tx.Exec(ctx, q, runID, businessDate, c.Kind, runID, runID, c.Kind, runID)
			if err != nil {
				return fmt.Errorf("check %s: %w", c.Kind, err)
			}
			n, _ := res.RowsAffected()
			counts[c.Kind] = n
		}
		return nil
	})
	return counts, err
}

// setWindow sets the DuckDB variables the checks read, so that the same SQL
// runs unchanged in `reconcile sql` after `SET VARIABLE`.
func setWindow(ctx context.Context, tx *Tx, w Window) error {
	for name, t := range map[string]time.Time{"window_start": w.Start, "window_end": w.End} {
		stmt := fmt.Sprintf("SET VARIABLE %s = TIMESTAMPTZ '%s'", name, t.UTC().Format("2006-01-02 15:04:05+00"))
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	return nil
}
