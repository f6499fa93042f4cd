package store

import (
	"context"
	"fmt"
	"time"
)

// Window is the half-open time range a run reconciles: the business date
// and the lookback days before it, [Start, End). The checks read it from
// DuckDB variables (SetWindow), the reports from the runs table.
type Window struct{ Start, End time.Time }

// WindowFor is [date - lookback days, date + 1 day) in UTC.
func WindowFor(date time.Time, lookback int) Window {
	d := time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
	return Window{Start: d.AddDate(0, 0, -max(lookback, 0)), End: d.AddDate(0, 0, 1)}
}

// SetWindow sets the DuckDB variables window_start and window_end that the
// checks and billing reports read, so that the same SQL runs unchanged in
// `reconcile sql` after `SET VARIABLE`.
func SetWindow(ctx context.Context, tx *Tx, w Window) error {
	for name, t := range map[string]time.Time{"window_start": w.Start, "window_end": w.End} {
		stmt := fmt.Sprintf("SET VARIABLE %s = TIMESTAMPTZ '%s'", name, t.UTC().Format("2006-01-02 15:04:05+00"))
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	return nil
}
