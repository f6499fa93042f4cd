package checks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
)

// computeFindings replaces the run's findings with the result of every check
// over the members the run loaded, and compares them with what earlier runs
// reported.
//
// Each finding keeps the run in which the same kind, member and entity was
// first seen (first_seen_run) and gets a state: open when the member's
// previous findings had it too, new otherwise (a finding that comes back
// after being resolved is new again, with its older first_seen_run). A
// previous finding that no check reports now is kept under this run as
// resolved, with its previous values, but only for members this run
// reconciled: a member that failed today proves nothing fixed.
//
// A member's previous findings are those of the latest earlier run (same
// shard, finished ok or partial) that reconciled that member. For most
// members that is simply the previous run; for one that failed in between,
// it is the last run that saw its data, so a failure does not turn its
// findings into "new" the day after. The latest earlier run is recorded in
// runs.previous_run for reports ("resolved since ..."), and the kinds'
// descriptions and actions to finding_kinds, before the checks run.
//
// The checks run a slice of members per transaction (store.ForEachSlice). A run
// that stops midway leaves its findings incomplete; its re-run computes
// them again from the start.
//
// It returns the run's findings per kind, new and open together.
func computeFindings(ctx context.Context, s *store.Store, runID string, businessDate time.Time, w store.Window) (map[string]int64, error) {
	counts := map[string]int64{}
	checks := queries.Checks()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := store.SetWindow(ctx, tx, w); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM findings WHERE run_id = ?`, runID); err != nil {
			return fmt.Errorf("clear findings of run %s: %w", runID, err)
		}
		prev, err := previousRun(ctx, tx, runID, businessDate)
		if err != nil {
			return err
		}
		var prevArg any // NULL for a shard's first run
		if prev != "" {
			prevArg = prev
		}
		if _, err := tx.Exec(ctx, `UPDATE runs SET previous_run = ? WHERE run_id = ?`, prevArg, runID); err != nil {
			return fmt.Errorf("record previous run of %s: %w", runID, err)
		}
		if _, err := tx.Exec(ctx, previousFindings, runID, businessDate); err != nil {
			return fmt.Errorf("previous findings of run %s: %w", runID, err)
		}
		if err := writeFindingKinds(ctx, tx, checks); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	kinds := make([]string, len(checks))
	for i, c := range checks {
		kinds[i] = c.Kind
		counts[c.Kind] = 0
	}
	err = s.ForEachSlice(ctx, runID, func(tx *store.Tx, sl store.Slice) error {
		for _, c := range checks {
			n, err := insertFindings(ctx, tx, runID, businessDate, c, sl)
			if err != nil {
				return err
			}
			counts[c.Kind] += n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		// Kinds no longer in the catalog are not "resolved": nobody looked.
		_, err := tx.Exec(ctx, `INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id,
		                            amount, currency, detail, first_seen_run, state)
			SELECT $1, $2, p.kind, p.merchant_id, p.entity_id, p.group_id, p.amount, p.currency, p.detail,
			       p.first_seen_run, 'resolved'
			FROM previous_findings p
			JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = p.merchant_id AND rm.status = 'ok'
			WHERE list_contains($3::VARCHAR[], p.kind)
			  AND NOT EXISTS (SELECT 1 FROM findings c
			                  WHERE c.run_id = $1 AND c.kind = p.kind
			                    AND c.merchant_id = p.merchant_id AND c.entity_id = p.entity_id)`,
			runID, businessDate, kinds)
		if err != nil {
			return fmt.Errorf("resolved findings of run %s: %w", runID, err)
		}
		return nil
	})
	return counts, err
}

// insertFindings adds what one check finds among a slice's members to the
// run's findings, each with the run it was first seen in and whether the
// member's previous findings had it. The history is read for the slice's
// members only ($4..$5), so that its cost too stays the size of a slice.
func insertFindings(ctx context.Context, tx *store.Tx, runID string, businessDate time.Time, c queries.Check, sl store.Slice) (int64, error) {
	q := `INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id,
	                            amount, currency, detail, first_seen_run, state)
	SELECT $1, $2, $3, f.merchant_id, f.entity_id, g.group_id, f.amount, f.currency, f.detail,
	       coalesce(seen.first_seen_run, $1),
	       CASE WHEN p.entity_id IS NULL THEN 'new' ELSE 'open' END
	FROM (` + c.SQL + `
	) f
	JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = f.merchant_id AND rm.status = 'ok'
	LEFT JOIN (SELECT merchant_id, min(group_id) AS group_id FROM group_members GROUP BY merchant_id) g
	       ON g.merchant_id = f.merchant_id
	LEFT JOIN (SELECT merchant_id, entity_id, min(first_seen_run) AS first_seen_run
	           FROM findings WHERE kind = $3 AND business_date < $2 AND merchant_id BETWEEN $4 AND $5
	           GROUP BY ALL) seen
	       ON seen.merchant_id = f.merchant_id AND seen.entity_id = f.entity_id
	LEFT JOIN (SELECT DISTINCT merchant_id, entity_id FROM previous_findings
	           WHERE kind = $3 AND merchant_id BETWEEN $4 AND $5) p
	       ON p.merchant_id = f.merchant_id AND p.entity_id = f.entity_id
	QUALIFY row_number() OVER (PARTITION BY f.merchant_id, f.entity_id ORDER BY f.entity_id) = 1`
	res, err := tx.Exec(ctx, q, runID, businessDate, c.Kind, sl.Lo, sl.Hi)
	if err != nil {
		return 0, fmt.Errorf("check %s (members %s..%s): %w", c.Kind, sl.Lo, sl.Hi, err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// previousFindings collects, into a temp table of the store's connection,
// each member's findings from the latest earlier run of the shard that
// reconciled it. $1 is the run, $2 its business date.
const previousFindings = `CREATE OR REPLACE TEMP TABLE previous_findings AS
WITH last_ok AS (
    SELECT pm.merchant_id, arg_max(pr.run_id, pr.business_date) AS run_id
    FROM run_members pm
    JOIN runs pr ON pr.run_id = pm.run_id
    WHERE pm.status = 'ok' AND pr.business_date < $2 AND pr.status IN ('ok', 'partial')
      AND coalesce(pr.shard, '0/1') = coalesce((SELECT shard FROM runs WHERE run_id = $1), '0/1')
    GROUP BY pm.merchant_id
)
SELECT p.* FROM findings p
JOIN last_ok l ON l.merchant_id = p.merchant_id AND l.run_id = p.run_id
WHERE p.state IN ('new', 'open')`

// previousRun is the run a run's findings are compared with, or "" for the
// first run of its shard.
func previousRun(ctx context.Context, tx *store.Tx, runID string, businessDate time.Time) (string, error) {
	var prev string
	err := tx.QueryRow(ctx, `SELECT run_id FROM runs
		WHERE business_date < ? AND status IN ('ok', 'partial')
		  AND coalesce(shard, '0/1') = coalesce((SELECT shard FROM runs WHERE run_id = ?), '0/1')
		ORDER BY business_date DESC, run_id DESC
		LIMIT 1`, businessDate, runID).Scan(&prev)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find the run before %s: %w", runID, err)
	}
	return prev, nil
}

// writeFindingKinds replaces finding_kinds with the catalog's kinds, so SQL
// users see the kinds of the code that wrote the findings.
func writeFindingKinds(ctx context.Context, tx *store.Tx, checks []queries.Check) error {
	if _, err := tx.Exec(ctx, `DELETE FROM finding_kinds`); err != nil {
		return fmt.Errorf("clear finding_kinds: %w", err)
	}
	for i, c := range checks {
		if _, err := tx.Exec(ctx, `INSERT INTO finding_kinds (kind, position, description, action) VALUES (?, ?, ?, ?)`,
			c.Kind, i+1, c.Description, c.Action); err != nil {
			return fmt.Errorf("record finding kind %s: %w", c.Kind, err)
		}
	}
	return nil
}
