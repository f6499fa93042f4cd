package checks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
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
// Last, in the transaction that records the resolved ones, the findings
// get their acknowledgements (applyAcknowledgements): an acknowledged
// finding is reported in state acknowledged; at is when the run made the
// acknowledgements' changes (expired, reopened).
//
// The checks run a slice of members per transaction (store.ForEachSlice). A run
// that stops midway leaves its findings incomplete; its re-run computes
// them again from the start.
//
// It returns the run's findings per kind, whatever their state (new, open
// or acknowledged): acknowledgements change states, not findings.
func computeFindings(ctx context.Context, s *store.Store, runID string, businessDate time.Time, w store.Window, at time.Time) (map[string]int64, error) {
	counts := map[string]int64{}
	checks := queries.Checks()
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if err := store.SetWindow(ctx, tx, w); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, clearFindings, runID); err != nil {
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
		if _, err := tx.Exec(ctx, recordPreviousRun, prevArg, runID); err != nil {
			return fmt.Errorf("record previous run of %s: %w", runID, err)
		}
		if _, err := tx.Exec(ctx, previousFindings, runID, businessDate); err != nil {
			return fmt.Errorf("previous findings of run %s: %w", runID, err)
		}
		if _, err := tx.Exec(ctx, firstSeen, runID, businessDate); err != nil {
			return fmt.Errorf("when the findings before %s were first seen: %w", businessDate.Format(time.DateOnly), err)
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
		return insertFindings(ctx, tx, runID, businessDate, checks, sl)
	})
	if err != nil {
		return nil, err
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		// Counted once every slice is committed: a slice that ran out of
		// memory ran again (ForEachSlice), so its first inserts were undone.
		if err := countFindings(ctx, tx, runID, counts); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, dropFirstSeen); err != nil {
			return fmt.Errorf("drop the findings' first sightings: %w", err)
		}
		// Kinds no longer in the catalog are not "resolved": nobody looked.
		_, err := tx.Exec(ctx, insertResolvedFindings, runID, businessDate, kinds)
		if err != nil {
			return fmt.Errorf("resolved findings of run %s: %w", runID, err)
		}
		return applyAcknowledgements(ctx, tx, runID, businessDate, at)
	})
	return counts, err
}

// insertFindings adds what the checks find among a slice's members to the
// run's findings, each with the run it was first seen in and whether the
// member's previous findings had it. Each check's rows go to the temp
// table found (InsertFound); the history, read for the slice's members
// only ($3..$4, so that its cost too stays the size of a slice), is joined
// once for them all (InsertFindings).
func insertFindings(ctx context.Context, tx *store.Tx, runID string, businessDate time.Time, checks []queries.Check, sl store.Slice) error {
	if _, err := tx.Exec(ctx, createFound); err != nil {
		return fmt.Errorf("checks (members %s..%s): %w", sl.Lo, sl.Hi, err)
	}
	for _, c := range checks {
		if _, err := tx.Exec(ctx, insertFoundHead+c.SQL+insertFoundTail, c.Kind); err != nil {
			return fmt.Errorf("check %s (members %s..%s): %w", c.Kind, sl.Lo, sl.Hi, err)
		}
	}
	if _, err := tx.Exec(ctx, insertFindingsOfFound, runID, businessDate, sl.Lo, sl.Hi); err != nil {
		return fmt.Errorf("findings of members %s..%s: %w", sl.Lo, sl.Hi, err)
	}
	if _, err := tx.Exec(ctx, dropFound); err != nil {
		return fmt.Errorf("checks (members %s..%s): %w", sl.Lo, sl.Hi, err)
	}
	return nil
}

// countFindings adds the run's findings per kind to counts.
func countFindings(ctx context.Context, tx *store.Tx, runID string, counts map[string]int64) error {
	rows, err := tx.Query(ctx, countFindingsOf, runID)
	if err != nil {
		return fmt.Errorf("count the findings of run %s: %w", runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var n int64
		if err := rows.Scan(&kind, &n); err != nil {
			return fmt.Errorf("count the findings of run %s: %w", runID, err)
		}
		counts[kind] += n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count the findings of run %s: %w", runID, err)
	}
	return nil
}

// Statements of queries/checks.sql.
var (
	clearFindings          = queries.Must("checks.sql", "ClearFindings")
	previousRunOf          = queries.Must("checks.sql", "PreviousRun")
	recordPreviousRun      = queries.Must("checks.sql", "RecordPreviousRun")
	previousFindings       = queries.Must("checks.sql", "PreviousFindings")
	firstSeen              = queries.Must("checks.sql", "FirstSeen")
	dropFirstSeen          = queries.Must("checks.sql", "DropFirstSeen")
	countFindingsOf        = queries.Must("checks.sql", "CountFindings")
	clearFindingKinds      = queries.Must("checks.sql", "ClearFindingKinds")
	insertFindingKind      = queries.Must("checks.sql", "InsertFindingKind")
	insertResolvedFindings = queries.Must("checks.sql", "InsertResolvedFindings")

	createFound           = queries.Must("checks.sql", "CreateFound")
	insertFindingsOfFound = queries.Must("checks.sql", "InsertFindings")
	dropFound             = queries.Must("checks.sql", "DropFound")

	// insertFoundHead and insertFoundTail are InsertFound before and after
	// the line where a check's query goes.
	insertFoundHead, insertFoundTail = aroundCheck(queries.Must("checks.sql", "InsertFound"))
)

// checkPlace is the line of InsertFound that a check's query replaces.
const checkPlace = "    -- the check's query"

func aroundCheck(stmt string) (head, tail string) {
	head, tail, ok := strings.Cut(stmt, checkPlace)
	if !ok {
		panic(fmt.Sprintf("queries/checks.sql: InsertFound has no line %q for the check", checkPlace))
	}
	return head, tail
}

// previousRun is the run a run's findings are compared with, or "" for the
// first run of its shard.
func previousRun(ctx context.Context, tx *store.Tx, runID string, businessDate time.Time) (string, error) {
	var prev string
	err := tx.QueryRow(ctx, previousRunOf, businessDate, runID).Scan(&prev)
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
	if _, err := tx.Exec(ctx, clearFindingKinds); err != nil {
		return fmt.Errorf("clear finding_kinds: %w", err)
	}
	for i, c := range checks {
		if _, err := tx.Exec(ctx, insertFindingKind, c.Kind, i+1, c.Description, c.Action); err != nil {
			return fmt.Errorf("record finding kind %s: %w", c.Kind, err)
		}
	}
	return nil
}
