package checks

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// day sets up one run of the store as ingest would leave it before the
// checks: the run row, its members' outcomes and the subscriptions' current
// statuses; then computes the findings and closes the run as ok.
type day struct {
	date    string
	members map[string]string // merchant -> ok or failed
	subs    map[string]string // "merchant/subscription" -> status
	amounts map[string]string // "merchant/subscription" -> billing amount, if not 10.50
}

func runDay(t *testing.T, s *store.Store, shard string, d day) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	date, err := time.Parse("2006-01-02", d.date)
	if err != nil {
		t.Fatal(err)
	}
	runID := d.date // RunID of a date
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.Conn().ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT OR REPLACE INTO runs (run_id, business_date, shard, window_start, window_end, started_at, status, attempts)
		VALUES (?, ?, ?, ?, ?, now(), 'running', 1)`, runID, date, shard, date.AddDate(0, 0, -3), date.AddDate(0, 0, 1))
	exec(`DELETE FROM run_members WHERE run_id = ?`, runID)
	for mid, status := range d.members {
		exec(`INSERT INTO run_members (run_id, merchant_id, status) VALUES (?, ?, ?)`, runID, mid, status)
	}
	for key, status := range d.subs {
		mid, sub, _ := strings.Cut(key, "/")
		// A failed member's rows are not reloaded: skip them, as ingest would.
		if d.members[mid] != "ok" {
			continue
		}
		// subscriptions has no declared key (the loader keeps it): replace by hand.
		exec(`DELETE FROM subscriptions WHERE merchant_id = ? AND subscription_id = ?`, mid, sub)
		amount := "10.50"
		if a, ok := d.amounts[key]; ok {
			amount = a
		}
		exec(`INSERT INTO subscriptions (merchant_id, subscription_id, status, billing_amount, currency, run_id, loaded_at)
			VALUES (?, ?, ?, CAST(? AS DECIMAL(18,3)), 'EUR', ?, now())`, mid, sub, status, amount, runID)
	}
	counts, err := computeFindings(ctx, s, runID, date, store.WindowFor(date, 3), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE runs SET status = 'ok' WHERE run_id = ?`, runID)
	return counts
}

// states lists a run's delinquency findings as "subscription:state:first_seen".
func states(t *testing.T, s *store.Store, runID string) []string {
	t.Helper()
	rows, err := s.Conn().QueryContext(context.Background(), `SELECT entity_id, state, first_seen_run, amount_text(amount, currency), currency
		FROM findings WHERE run_id = ? AND kind = 'subscription_delinquent'`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var e, st, first, amount, cur string
		if err := rows.Scan(&e, &st, &first, &amount, &cur); err != nil {
			t.Fatal(err)
		}
		if amount != "10.50" || cur != "EUR" {
			t.Errorf("run %s %s: amount %s %s, want the subscription's 10.50 EUR", runID, e, amount, cur)
		}
		out = append(out, fmt.Sprintf("%s:%s:%s", e, st, first))
	}
	sort.Strings(out)
	return out
}

func previousOf(t *testing.T, s *store.Store, runID string) string {
	t.Helper()
	var prev sql.NullString
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT previous_run FROM runs WHERE run_id = ?`, runID).Scan(&prev); err != nil {
		t.Fatal(err)
	}
	return prev.String
}

func TestFindingsDayOverDay(t *testing.T) {
	s := storetest.Open(t)
	both := map[string]string{"m1": "ok", "m2": "ok"}

	// Day 1: everything is new.
	counts := runDay(t, s, "0/1", day{date: "2026-11-18", members: both, subs: map[string]string{
		"m1/s1": "DELINQUENT", "m1/s2": "DELINQUENT", "m2/s3": "DELINQUENT", "m2/s5": "DELINQUENT"}})
	if got := states(t, s, "2026-11-18"); strings.Join(got, " ") != "s1:new:2026-11-18 s2:new:2026-11-18 s3:new:2026-11-18 s5:new:2026-11-18" {
		t.Errorf("day 1: %v", got)
	}
	if counts["subscription_delinquent"] != 4 || previousOf(t, s, "2026-11-18") != "" {
		t.Errorf("day 1: counts %v, previous run %q", counts, previousOf(t, s, "2026-11-18"))
	}

	// Day 2: s1 still open, s2 fixed, s4 new; m2 failed, so its s3 and s5
	// are neither reported nor resolved.
	day2 := day{date: "2026-11-19", members: map[string]string{"m1": "ok", "m2": "failed"}, subs: map[string]string{
		"m1/s1": "DELINQUENT", "m1/s2": "ACTIVE", "m1/s4": "DELINQUENT", "m2/s3": "ACTIVE", "m2/s5": "ACTIVE"}}
	counts = runDay(t, s, "0/1", day2)
	want2 := "s1:open:2026-11-18 s2:resolved:2026-11-18 s4:new:2026-11-19"
	if got := states(t, s, "2026-11-19"); strings.Join(got, " ") != want2 {
		t.Errorf("day 2: %v, want %s", got, want2)
	}
	if counts["subscription_delinquent"] != 2 {
		t.Errorf("day 2 counts %v: resolved findings must not count as the run's findings", counts)
	}
	if p := previousOf(t, s, "2026-11-19"); p != "2026-11-18" {
		t.Errorf("day 2 previous run %q", p)
	}

	// Re-running day 2 gives the same rows, not resolved rows of itself.
	runDay(t, s, "0/1", day2)
	if got := states(t, s, "2026-11-19"); strings.Join(got, " ") != want2 {
		t.Errorf("day 2 re-run: %v, want %s", got, want2)
	}

	// Day 3: m2 is back. Its s5 is still delinquent and was last seen on
	// day 1 (the last run that reconciled m2): open, not new. Its s3 was
	// fixed meanwhile: resolved. s2 comes back: new, first seen on day 1.
	// s1 is fixed: resolved.
	runDay(t, s, "0/1", day{date: "2026-11-20", members: both, subs: map[string]string{
		"m1/s1": "ACTIVE", "m1/s2": "DELINQUENT", "m1/s4": "DELINQUENT", "m2/s3": "ACTIVE", "m2/s5": "DELINQUENT"}})
	want3 := "s1:resolved:2026-11-18 s2:new:2026-11-18 s3:resolved:2026-11-18 s4:open:2026-11-19 s5:open:2026-11-18"
	if got := states(t, s, "2026-11-20"); strings.Join(got, " ") != want3 {
		t.Errorf("day 3: %v, want %s", got, want3)
	}

	// The view and runs.findings-style counts see only current findings.
	var current int
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT count(*) FROM current_findings WHERE run_id = '2026-11-20'`).Scan(&current); err != nil || current != 3 {
		t.Errorf("current_findings of day 3: %d (%v), want 3", current, err)
	}

	// Another shard's runs in the same file are not this shard's past:
	// every finding is new (first seen still says when it was first seen).
	runDay(t, s, "1/2", day{date: "2026-11-21", members: both})
	if p := previousOf(t, s, "2026-11-21"); p != "" {
		t.Errorf("first run of shard 1/2 compared with %q", p)
	}
	if got := states(t, s, "2026-11-21"); strings.Join(got, " ") != "s2:new:2026-11-18 s4:new:2026-11-19 s5:new:2026-11-18" {
		t.Errorf("shard 1/2: %v", got)
	}
}

// finding_kinds mirrors the catalog after a run.
func TestFindingKindsTable(t *testing.T) {
	s := storetest.Open(t)
	runDay(t, s, "0/1", day{date: "2026-11-18", members: map[string]string{"m1": "ok"}})
	var n int
	var action string
	err := s.Conn().QueryRowContext(context.Background(), `SELECT count(*), any_value(action) FILTER (WHERE kind = 'skipped_cycle') FROM finding_kinds`).Scan(&n, &action)
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 || !strings.Contains(action, "intended") {
		t.Errorf("finding_kinds: %d kinds, skipped_cycle action %q", n, action)
	}
}
