package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestShardsMergeToOneRun runs the four shards of a date as separate
// processes would (each its own database) and checks that together they
// equal one full run: every member reconciled by exactly one shard, and the
// union of their findings equal to the ground truth.
func TestShardsMergeToOneRun(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	scale, _ := sandbox.ParseScale("members=24,subscriptions=10,groups=3")
	f := newFixture(t, sandbox.Config{Scale: scale})
	work := t.TempDir()
	merged := map[findingKey]bool{}
	owner := map[string]int{}
	for i := range 4 {
		db := filepath.Join(work, fmt.Sprintf("shard%d.duckdb", i))
		out := filepath.Join(work, fmt.Sprintf("out%d", i))
		code, so, se := runCLI(t, sandboxEnv, f.runArgs(db, out, "--shard", fmt.Sprintf("%d/4", i))...)
		if code != exitOK {
			t.Fatalf("shard %d/4 exited %d\n%s\n%s", i, code, so, se)
		}
		conn := openReadOnly(t, db)
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
		if n == 0 || n == len(f.srv.Members()) {
			t.Errorf("shard %d/4 took %d of %d members: not a split", i, n, len(f.srv.Members()))
		}
		for k := range dbFindings(t, conn, "2026-11-20") {
			merged[k] = true
		}
		conn.Close()
	}
	if len(owner) != len(f.srv.Members()) {
		t.Errorf("the shards reconciled %d members, the organization has %d", len(owner), len(f.srv.Members()))
	}
	compareFindings(t, merged, truthSet(f.truth, nil))
}
