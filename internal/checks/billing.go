package checks

import (
	"context"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// computeBilling replaces the run's rows of the recurring-billing tables
// (queries.BillingReports, in order) over the members the run reconciled,
// a slice of members per transaction (store.ForEachSlice). It runs after the
// checks. A run that stops midway leaves them incomplete; its re-run
// computes them again from the start.
func computeBilling(ctx context.Context, s *store.Store, runID string, businessDate time.Time, w store.Window) error {
	reports := queries.BillingReports()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := store.SetWindow(ctx, tx, w); err != nil {
			return err
		}
		for _, r := range reports {
			if _, err := tx.Exec(ctx, "DELETE FROM "+r.Table+" WHERE run_id = ?", runID); err != nil {
				return fmt.Errorf("clear %s of run %s: %w", r.Table, runID, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.ForEachSlice(ctx, runID, func(tx *store.Tx, sl store.Slice) error {
		for _, r := range reports {
			if _, err := tx.Exec(ctx, r.SQL, runID, businessDate); err != nil {
				return fmt.Errorf("fill %s of run %s (members %s..%s): %w", r.Table, runID, sl.Lo, sl.Hi, err)
			}
		}
		return nil
	})
}
