package operator

import (
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
)

// A run that fails before it starts (here: a bad --split-by) still writes
// the file, saying it failed: monitoring must see a broken cron job.
func TestMetricsFileOfAFailedRun(t *testing.T) {
	path := t.TempDir() + "/reconcile.prom"
	code, _, _ := clitest.RunCLI(t, nil, "run", "--split-by", "merchant", "--metrics-file", path)
	if code != cli.ExitFailed {
		t.Fatalf("exit %d", code)
	}
	samples := clitest.ParseProm(t, path)
	for name, want := range map[string]float64{"reconcile_run_success": 0, "reconcile_run_exit_code": 1} {
		if v, ok := clitest.PromValue(samples, name); !ok || v != want {
			t.Errorf("%s = %v (%v), want %v", name, v, ok, want)
		}
	}
	if v, _ := clitest.PromValue(samples, "reconcile_run_status", "status", "failed"); v != 1 {
		t.Errorf(`reconcile_run_status{status="failed"} = %v`, v)
	}
	if _, ok := clitest.PromValue(samples, "reconcile_members"); ok {
		t.Error("member counts of a run that never started")
	}
}
