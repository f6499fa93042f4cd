package checks

import (
	"context"
	"testing"

	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestCurrentFindingsAreTheLatestState: after two nights the view a user
// queries first, current_findings, holds each finding once, the latest
// run's (the README's first query counted every night's rows); every
// night's rows are in findings_history. A member that failed on the latest
// night keeps the findings of the night that last reconciled it.
func TestCurrentFindingsAreTheLatestState(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := s.Conn().QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	both := map[string]string{"m1": "ok", "m2": "ok"}
	runDay(t, s, "0/1", day{date: "2026-11-19", members: both, subs: map[string]string{
		"m1/s1": "DELINQUENT", "m1/s2": "SUSPENDED", "m2/s3": "DELINQUENT"}})
	runDay(t, s, "0/1", day{date: "2026-11-20", members: both, subs: map[string]string{
		"m1/s1": "DELINQUENT", "m1/s2": "ACTIVE", "m2/s3": "DELINQUENT", "m2/s4": "SUSPENDED"}})

	latest := count(`SELECT count(*) FROM findings WHERE run_id = '2026-11-20' AND state IN ('new', 'open', 'acknowledged')`)
	if latest != 3 {
		t.Fatalf("the second night's findings: %d, want 3 (s1, s3, s4)", latest)
	}
	if got := count(`SELECT count(*) FROM current_findings`); got != latest {
		t.Errorf("current_findings after two nights: %d rows, want the latest run's %d", got, latest)
	}
	if got := count(`SELECT count(*) FROM (SELECT DISTINCT kind, merchant_id, entity_id FROM current_findings)`); got != latest {
		t.Errorf("current_findings holds %d distinct findings, want %d", got, latest)
	}
	if got := count(`SELECT count(*) FROM findings_history`); got != 3+latest {
		t.Errorf("findings_history: %d rows, want both nights' %d", got, 2+latest)
	}

	// Night 3: m2 fails; its findings stand as night 2 left them.
	runDay(t, s, "0/1", day{date: "2026-11-21", members: map[string]string{"m1": "ok", "m2": "failed"},
		subs: map[string]string{"m1/s1": "ACTIVE"}})
	got := count(`SELECT count(*) FROM current_findings`)
	m2 := count(`SELECT count(*) FROM current_findings WHERE merchant_id = 'm2' AND run_id = '2026-11-20'`)
	if got != 2 || m2 != 2 {
		t.Errorf("current_findings after m2 failed: %d rows, %d of m2 from night 2; want m2's two (m1's s1 is resolved)", got, m2)
	}
}
