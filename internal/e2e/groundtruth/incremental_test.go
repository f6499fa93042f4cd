package groundtruth

import (
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
)

// TestIncrementalRequests: at scale medium (100 subscriptions a member), a
// second run of the same day over unchanged data, forced to pull every
// member again, makes at most 10% of the first run's requests, because no
// payment list that cannot have changed is pulled again.
func TestIncrementalRequests(t *testing.T) {
	t.Parallel() // its own copy of the shared medium run's files and database
	if testing.Short() {
		t.Skip("scale medium: skipped with -short")
	}
	r := clitest.SharedMediumRun(t) // the first run
	f := r.F
	db, out := r.Copy(t)
	if code, so, se := r.Code, r.Stdout, r.Stderr; code != cli.ExitOK {
		t.Fatalf("first run exited %d\n%s\n%s", code, so, se)
	}
	first := clitest.RunRequests(t, db)
	before := clitest.TableCounts(t, db)
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, r.Args(db, out, "--force")...); code != cli.ExitOK {
		t.Fatalf("second run exited %d\n%s\n%s", code, so, se)
	}
	second := clitest.RunRequests(t, db)
	t.Logf("first run %d requests, second %d (%.1f%%)", first, second, 100*float64(second)/float64(first))
	if second*10 > first {
		t.Errorf("the second run made %d requests, more than 10%% of the first run's %d", second, first)
	}
	after := clitest.TableCounts(t, db)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("table %s: %d rows after the first run, %d after the second", table, n, after[table])
		}
	}
	clitest.CompareFindings(t, clitest.DBFindings(t, clitest.OpenReadOnly(t, db), "2026-11-20"), clitest.TruthSet(f.Truth, nil))
}
