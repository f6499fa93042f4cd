package clitest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
)

// MergeScale is the sandbox of the merge tests: enough members that each
// of four shards takes several, small enough to run ten times. (At 6
// subscriptions a member some members' journals are empty, and two empty
// files have one content hash: journal_files then keeps either name.)
const MergeScale = "members=24,subscriptions=10,groups=3"

// RunShard runs shard (i/n) of date against f as a pod of an Indexed Job
// would, with its own database (work/db/<name>.duckdb) and output folder
// (work/<name>), and returns its exit code and output.
func RunShard(t *testing.T, f *Fixture, work, name, date, shard string, extra ...string) (int, string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(work, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, out := filepath.Join(work, "db", name+".duckdb"), filepath.Join(work, name)
	args := append(f.RunArgs(db, out, "--date", date, "--shard", shard), extra...)
	code, so, se := RunCLI(t, SandboxEnv, args...)
	return code, so + se
}

// RunShards runs the shards 0/n..n-1/n of date, each into work/shard=<i>,
// each expected to exit want(i), and returns the glob of their folders.
func RunShards(t *testing.T, f *Fixture, work, date string, n int, want func(i int) int, extra ...string) string {
	t.Helper()
	for i := range n {
		if code, out := RunShard(t, f, work, fmt.Sprintf("shard=%d", i), date, fmt.Sprintf("%d/%d", i, n), extra...); code != want(i) {
			t.Fatalf("shard %d/%d of %s exited %d, want %d\n%s", i, n, date, code, want(i), out)
		}
	}
	return filepath.Join(work, "shard=*")
}

// AllOK is RunShards' want for shards that must all exit 0.
func AllOK(int) int { return cli.ExitOK }
