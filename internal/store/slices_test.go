package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/pipeline/pipelinetest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/queries"
)

// TestSlicedChecksEqualOneSlice: the checks and the billing reports run a
// slice of members at a time so that their memory does not grow with the
// portfolio. Computed one member per slice, a run's findings and billing
// tables are exactly those computed with all members in one slice (the
// checks and reports relate a member's rows only to its own; ForEachSlice
// shadows the member tables for each slice, and removes the shadows).
func TestSlicedChecksEqualOneSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("a sandbox run")
	}
	run := pipelinetest.Sandbox(t, sandbox.Config{Seed: 11, Scale: sandbox.Scale{Members: 6, Subscriptions: 30, Groups: 2}},
		pipeline.Options{Concurrency: 4, PaymentLists: 2, JournalGlob: pipelinetest.JournalsOfSandbox}, 0)
	s, ctx := run.Store, context.Background()
	runID := run.Result.RunID
	tables := []string{"findings"}
	for _, r := range queries.BillingReports() {
		tables = append(tables, r.Table)
	}
	dump := func() map[string][]string {
		out := map[string][]string{}
		for _, table := range tables {
			rows, err := s.Conn().QueryContext(ctx, `SELECT * EXCLUDE (run_id) FROM `+table+` WHERE run_id = ?`, runID)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				out[table] = append(out[table], fmt.Sprint(vals...))
			}
			rows.Close()
			slices.Sort(out[table])
		}
		return out
	}
	// An earlier run, so that the day-over-day parts have something to
	// compare with: half of today's findings seen before (open), one
	// finding per member gone since (resolved), and two ACTIVE
	// subscriptions per member DELINQUENT then (recovered).
	for _, q := range []string{
		`INSERT INTO runs (run_id, business_date, shard, window_start, window_end, started_at, status, attempts)
		 SELECT 'earlier', business_date - 1, shard, window_start - INTERVAL 1 DAY, window_end - INTERVAL 1 DAY,
		        started_at - INTERVAL 1 DAY, 'ok', 1 FROM runs WHERE run_id = $1`,
		`INSERT INTO run_members (run_id, merchant_id, status) SELECT 'earlier', merchant_id, status FROM run_members WHERE run_id = $1`,
		`INSERT INTO findings SELECT * REPLACE ('earlier' AS run_id, business_date - 1 AS business_date, 'earlier' AS first_seen_run)
		 FROM findings WHERE run_id = $1 AND hash(entity_id) % 2 = 0`,
		`INSERT INTO findings SELECT * REPLACE ('earlier' AS run_id, business_date - 1 AS business_date, 'earlier' AS first_seen_run,
		        'gone:' || entity_id AS entity_id)
		 FROM findings WHERE run_id = $1 QUALIFY row_number() OVER (PARTITION BY merchant_id ORDER BY kind, entity_id) = 1`,
		`INSERT INTO subscription_status_log (merchant_id, subscription_id, run_id, business_date, status, customer_id)
		 SELECT merchant_id, subscription_id, 'earlier', (SELECT business_date - 1 FROM runs WHERE run_id = $1), 'DELINQUENT', customer_id
		 FROM subscriptions WHERE status = 'ACTIVE'
		 QUALIFY row_number() OVER (PARTITION BY merchant_id ORDER BY subscription_id) <= 2`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q, runID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := checks.Params{ID: runID, BusinessDate: run.Result.BusinessDate, Window: run.Result.Window, Started: run.Result.StartedAt}
	if _, err := checks.Findings(ctx, s, check); err != nil {
		t.Fatal(err)
	}
	if err := checks.Billing(ctx, s, check); err != nil {
		t.Fatal(err)
	}
	var states, recovered int
	if err := s.Conn().QueryRowContext(ctx, `SELECT (SELECT count(DISTINCT state) FROM findings WHERE run_id = $1),
		(SELECT count(*) FROM subscription_recoveries WHERE run_id = $1)`, runID).Scan(&states, &recovered); err != nil {
		t.Fatal(err)
	}
	// Two per member with subscriptions: the sandbox's last member lacks
	// Recurring Billing.
	if states != 3 || recovered != 10 {
		t.Fatalf("the earlier run gives %d finding states (want new, open, resolved) and %d recoveries (want 10)", states, recovered)
	}
	whole := dump()
	if len(whole["findings"]) == 0 || len(whole["billing_match"]) == 0 || len(whole["subscription_metrics"]) == 0 {
		t.Fatalf("the run found too little to compare: %d findings, %d billing_match, %d metrics rows",
			len(whole["findings"]), len(whole["billing_match"]), len(whole["subscription_metrics"]))
	}

	s.SetSliceRows(1) // every member a slice of its own
	var n int
	if err := s.ForEachSlice(ctx, runID, func(*store.Tx, store.Slice) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Fatalf("%d slices of 6 members at one record a slice", n)
	}
	if _, err := checks.Findings(ctx, s, check); err != nil {
		t.Fatal(err)
	}
	if err := checks.Billing(ctx, s, check); err != nil {
		t.Fatal(err)
	}
	sliced := dump()
	for _, table := range tables {
		if !slices.Equal(whole[table], sliced[table]) {
			t.Errorf("%s: %d rows in one slice, %d in six; first differences:\n%s", table,
				len(whole[table]), len(sliced[table]), firstDiff(whole[table], sliced[table]))
		}
	}
	// The shadows are gone: the tables read whole again.
	var views int
	if err := s.Conn().QueryRowContext(ctx, `SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal`).Scan(&views); err != nil || views != 0 {
		t.Errorf("%d temp views left after the checks (%v)", views, err)
	}
}

func firstDiff(a, b []string) string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && len(out) < 3 {
			out = append(out, "  only whole:  "+x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) && len(out) < 6 {
			out = append(out, "  only sliced: "+x)
		}
	}
	return strings.Join(out, "\n")
}

// TestSliceFilterKeepsEveryRow: a slice's view reads a range of rowids only
// when that range still holds all the slice's rows; given a stale range
// (as a checkpoint that moved rows would leave) it reads by merchant ID
// alone, and either way it reads exactly the slice's rows.
func TestSliceFilterKeepsEveryRow(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	b := plansPart.NewBatch()
	for _, m := range []string{"m1", "m2", "m3"} {
		for _, p := range []string{"a", "b"} {
			b.Str(m).Str(p).Null().Null().Str("r").Time(time.Now(), true).End()
		}
	}
	if err := s.Transact(ctx, func(tx *store.Tx) error { return tx.Load(ctx, plansPart, nil, b) }); err != nil {
		t.Fatal(err)
	}
	var lo, hi int64
	if err := s.Conn().QueryRowContext(ctx, `SELECT min(rowid), max(rowid) FROM plans WHERE merchant_id = 'm2'`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	m2 := store.Slice{Lo: "m2", Hi: "m2"}
	for _, tc := range []struct {
		name           string
		lo, hi, rows   int64
		wantRowidRange bool
	}{
		{"the range of m2's rows", lo, hi, 2, true},
		{"a stale range holding one of them", lo - 1, lo, 2, false},
		{"a range past the table", hi + 10, hi + 20, 2, false},
	} {
		filter, err := store.SliceFilter(ctx, s, "plans", m2, tc.lo, tc.hi, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(filter, "rowid"); got != tc.wantRowidRange {
			t.Errorf("%s: filter %q, want a rowid range: %v", tc.name, filter, tc.wantRowidRange)
		}
		var n int
		var mids string
		if err := s.Conn().QueryRowContext(ctx, `SELECT count(*), string_agg(DISTINCT merchant_id, ',') FROM plans WHERE `+filter).Scan(&n, &mids); err != nil {
			t.Fatal(err)
		}
		if n != 2 || mids != "m2" {
			t.Errorf("%s: the view reads %d rows of %s, want m2's 2", tc.name, n, mids)
		}
	}
}

// TestSliceOutOfMemoryRunsAgainInHalves: a slice whose work does not fit
// DuckDB's memory limit is rolled back and run again in two halves, down to
// single members, so every member is still computed exactly once (what the
// rolled-back attempts wrote is gone). A single member that still does not
// fit fails the run with DuckDB's error.
func TestSliceOutOfMemoryRunsAgainInHalves(t *testing.T) {
	s, ctx := storetest.Open(t), context.Background()
	for _, q := range []string{
		`INSERT INTO run_members (run_id, merchant_id, status) SELECT 'r1', printf('mid%02d', i), 'ok' FROM range(6) t(i)`,
		`CREATE TABLE slices_run (lo VARCHAR, hi VARCHAR, members BIGINT)`,
		`SET memory_limit = '24MB'`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.SetSliceRows(1 << 40) // all six members in one slice
	// Each member of the slice takes perMember KiB of one string that
	// DuckDB cannot spill: six members' 2 MiB each (grown by doubling)
	// do not fit 24 MB, one member's does.
	run := func(perMember int) (attempts []int64, err error) {
		err = s.ForEachSlice(ctx, "r1", func(tx *store.Tx, sl store.Slice) error {
			var n int64
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM run_members`).Scan(&n); err != nil {
				return err
			}
			attempts = append(attempts, n)
			if _, err := tx.Exec(ctx, `INSERT INTO slices_run VALUES (?, ?, ?)`, sl.Lo, sl.Hi, n); err != nil {
				return err
			}
			var length int64
			return tx.QueryRow(ctx, `SELECT length(string_agg(repeat('x', 1024), '')) FROM range(? * ?)`, n, perMember).Scan(&length)
		})
		return attempts, err
	}
	attempts, err := run(2048)
	if err != nil {
		t.Fatalf("the slices did not recover from running out of memory: %v", err)
	}
	if len(attempts) < 3 || attempts[0] != 6 || attempts[1] != 3 {
		t.Errorf("slices tried with %v members, want 6, then halves of 3 (and less)", attempts)
	}
	var rows, members, distinctLo int64
	if err := s.Conn().QueryRowContext(ctx, `SELECT count(*), sum(members), count(DISTINCT lo) FROM slices_run`).Scan(&rows, &members, &distinctLo); err != nil {
		t.Fatal(err)
	}
	if members != 6 || distinctLo != rows {
		t.Errorf("the committed slices hold %d members in %d slices (%d distinct), want the 6 members once each", members, rows, distinctLo)
	}

	// One member's string alone does not fit: nothing to split, DuckDB's error.
	if _, err := run(32 << 10); err == nil || !strings.Contains(err.Error(), "Out of Memory") {
		t.Errorf("a member too large for the memory limit gave %v, want DuckDB's out-of-memory error", err)
	}
}
