package operator

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/jemalloc"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestRunLogsEachStagesMemory: at --log-level debug the run's last records
// say, for every stage, the memory at its end and at its highest resident
// memory sampled, whose the memory is included (Go's, DuckDB's jemalloc's,
// malloc's): what the benchmark prints, and what an operator reads when a
// night ran short.
func TestRunLogsEachStagesMemory(t *testing.T) {
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, append(f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")), "--log-level", "debug")...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var finished struct {
		Stages map[string]string `json:"stages"`
		Memory map[string]string `json:"memory"`
		Peak   map[string]string `json:"memory_at_peak"`
	}
	sc := bufio.NewScanner(strings.NewReader(stderr))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"msg":"run finished"`) || strings.Contains(sc.Text(), `"msg":"run memory"`) {
			if err := json.Unmarshal(sc.Bytes(), &finished); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(finished.Stages) == 0 {
		t.Fatalf("no run finished record with stages:\n%s", stderr)
	}
	mib := func(text, key string) int {
		t.Helper()
		for _, w := range strings.Fields(text) {
			if v, ok := strings.CutPrefix(w, key+"="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("%s in %q: %v", key, text, err)
				}
				return n
			}
		}
		t.Fatalf("no %s in %q", key, text)
		return 0
	}
	for stage := range finished.Stages {
		end, peak := finished.Memory[stage], finished.Peak[stage]
		for _, key := range []string{"rss", "anon", "go_heap", "go_total", "jemalloc", "malloc"} {
			mib(end, key)
			mib(peak, key)
		}
		if runtime.GOOS != "linux" {
			continue
		}
		// The peak is sampled, the end read a moment later: a few MiB apart.
		if p, e := mib(peak, "rss"), mib(end, "rss"); p == 0 || p+8 < e {
			t.Errorf("%s: resident %d MiB at its highest, %d at its end", stage, p, e)
		}
	}
	if jemalloc.Linked && mib(finished.Peak["members"], "jemalloc") == 0 {
		t.Errorf("the members stage's peak shows nothing allocated by DuckDB's jemalloc: %q", finished.Peak["members"])
	}
}
