package merge

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
)

// TestShardsMergeToOneRun runs the four shards of a date as separate
// processes would (each its own database) and checks that together they
// equal one full run: every member reconciled by exactly one shard, and the
// union of their findings equal to the ground truth.
func TestShardsMergeToOneRun(t *testing.T) {
	t.Parallel() // its own copy of the shared shards' files and databases
	// The four shards of MergeScale (members=24,subscriptions=10,groups=3),
	// run once for this test and TestMergeEqualsFullRun (SharedMergeShards).
	s := clitest.SharedMergeShards(t)
	f := s.F
	work := t.TempDir()
	s.CopyTo(t, work)
	merged := map[clitest.FindingKey]bool{}
	owner := map[string]int{}
	for i := range 4 {
		db := filepath.Join(work, "db", fmt.Sprintf("shard=%d.duckdb", i))
		if code := s.Codes[i]; code != cli.ExitOK {
			t.Fatalf("shard %d/4 exited %d\n%s", i, code, s.Out[i])
		}
		conn := clitest.OpenReadOnly(t, db)
		rows, err := conn.Query(`SELECT merchant_id FROM run_members WHERE run_id = '2026-11-20' AND status = 'ok'`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var mid string
			rows.Scan(&mid)
			if prev, dup := owner[mid]; dup {
				t.Errorf("member %s reconciled by shards %d and %d", mid, prev, i)
			}
			owner[mid] = i
			n++
		}
		rows.Close()
		if n == 0 || n == len(f.Srv.Members()) {
			t.Errorf("shard %d/4 took %d of %d members: not a split", i, n, len(f.Srv.Members()))
		}
		for k := range clitest.DBFindings(t, conn, "2026-11-20") {
			merged[k] = true
		}
		conn.Close()
	}
	if len(owner) != len(f.Srv.Members()) {
		t.Errorf("the shards reconciled %d members, the organization has %d", len(owner), len(f.Srv.Members()))
	}
	clitest.CompareFindings(t, merged, clitest.TruthSet(f.Truth, nil))
}
