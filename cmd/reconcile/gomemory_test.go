package main

import "testing"

// TestGoMemoryLimit: the commands that run the job get the default soft
// limit on Go's memory, the others none, and GOMEMLIMIT (the runtime's own)
// wins over it. TestOneWriter sees a real process state the limit.
func TestGoMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		args   []string
		env    string
		limit  int64
		limits bool
	}{
		{[]string{"run", "--date", "2026-11-20"}, "", defaultGoMemoryLimit, true},
		{[]string{"schedule"}, "", defaultGoMemoryLimit, true},
		{[]string{"merge"}, "", defaultGoMemoryLimit, true},
		{[]string{"run"}, "512MiB", 0, false},
		{[]string{"sandbox"}, "", 0, false},
		{[]string{"sql"}, "", 0, false},
		{nil, "", 0, false},
	} {
		getenv := func(k string) string {
			if k == "GOMEMLIMIT" {
				return c.env
			}
			return ""
		}
		limit, ok := goMemoryLimit(c.args, getenv)
		if limit != c.limit || ok != c.limits {
			t.Errorf("%v with GOMEMLIMIT=%q: %d, %v; want %d, %v", c.args, c.env, limit, ok, c.limit, c.limits)
		}
	}
}
