package cli

import "testing"

// TestRunsTheJob: run, schedule and merge are the commands whose memory is
// sized for the job (internal/runtimetune's settings); no other is.
func TestRunsTheJob(t *testing.T) {
	for _, c := range []struct {
		args []string
		job  bool
	}{
		{[]string{"run", "--date", "2026-11-20"}, true},
		{[]string{"schedule"}, true},
		{[]string{"merge"}, true},
		{[]string{"sandbox"}, false},
		{[]string{"sql"}, false},
		{[]string{"doctor"}, false},
		{nil, false},
	} {
		if got := runsTheJob(c.args); got != c.job {
			t.Errorf("runsTheJob(%q) = %v; want %v", c.args, got, c.job)
		}
	}
}
