package runtimetune

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/glibc"
	"github.com/reconcile/reconcile/internal/jemalloc"
	"github.com/reconcile/reconcile/internal/store"
)

// TestAllocatorDecay: a command that runs the job runs DuckDB's jemalloc
// with reconcile's decay times, in the arenas it has made and those it
// makes later; the other commands with DuckDB's; and an operator's
// DUCKDB_JE_MALLOC_CONF wins. Each case is a process of its own (this test
// binary again, as TestAllocatorHelper), started as reconcile is: what is
// checked is what jemalloc runs with.
func TestAllocatorDecay(t *testing.T) {
	t.Parallel() // its own helper processes
	if !jemalloc.Linked {
		t.Skip("DuckDB's jemalloc is not linked on this platform; nothing to tune")
	}
	decay := func(command, env string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestAllocatorHelper$")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, AllocatorEnv+"=")
		}), "RECONCILE_ALLOCATOR_HELPER="+command)
		if env != "" {
			cmd.Env = append(cmd.Env, AllocatorEnv+"="+env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper for %s: %v\n%s", command, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "decay: "); ok {
				return v
			}
		}
		t.Fatalf("helper for %s printed no decay times:\n%s", command, out)
		return ""
	}
	ours := fmt.Sprintf("dirty %d muzzy %d", DirtyDecay.Milliseconds(), int64(MuzzyDecay))
	want := ours + ", arena 0: " + ours + ", the arena a new thread takes: " + ours
	if got := decay(jobCommand, ""); got != want {
		t.Errorf("a command that runs the job runs DuckDB's jemalloc with %s; want %s", got, want)
	}
	if got := decay(otherCommand, ""); strings.Contains(got, ours) {
		t.Errorf("a command that does not run the job runs DuckDB's jemalloc with %s; want DuckDB's own decay times", got)
	}
	if got := decay(jobCommand, "dirty_decay_ms:2000,muzzy_decay_ms:3000"); !strings.HasPrefix(got, "dirty 2000 muzzy 3000,") {
		t.Errorf("the job with %s=dirty_decay_ms:2000,muzzy_decay_ms:3000 runs jemalloc with %s; want the operator's", AllocatorEnv, got)
	}
}

// TestAllocatorHelper is TestAllocatorDecay's process: it does what main
// does for the kind of command in RECONCILE_ALLOCATOR_HELPER, has DuckDB allocate
// on threads of its own, and prints the decay times jemalloc runs with.
func TestAllocatorHelper(t *testing.T) {
	startAsMain(t, "RECONCILE_ALLOCATOR_HELPER", "TestAllocatorDecay")
	ctx := context.Background()
	s, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Conn().ExecContext(ctx, `CREATE TABLE big AS SELECT range AS n, repeat('x', 100) AS s FROM range(1000000) ORDER BY random()`); err != nil {
		t.Fatal(err)
	}
	read := func(name string) int64 {
		v, err := jemalloc.Option(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	narenas, err := jemalloc.Arenas()
	if err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("arena.%d.", narenas-1) // made, if at all, after tuneAllocator
	if _, err := jemalloc.Option(last + "dirty_decay_ms"); err != nil {
		last = "arenas." // not made: the defaults it would take
	}
	fmt.Printf("decay: dirty %d muzzy %d, arena 0: dirty %d muzzy %d, the arena a new thread takes: dirty %d muzzy %d\n",
		read("arenas.dirty_decay_ms"), read("arenas.muzzy_decay_ms"),
		read("arena.0.dirty_decay_ms"), read("arena.0.muzzy_decay_ms"),
		read(last+"dirty_decay_ms"), read(last+"muzzy_decay_ms"))
}

// TestTunesAllocator: the commands that run the job tune the allocator,
// and an operator's own options are kept.
func TestTunesAllocator(t *testing.T) {
	for _, c := range []struct {
		job   bool
		env   string
		tunes bool
	}{
		{true, "", true},
		{true, "dirty_decay_ms:2000", false},
		{false, "", false},
	} {
		getenv := func(k string) string {
			if k == AllocatorEnv {
				return c.env
			}
			return ""
		}
		if got := TunesAllocator(c.job, getenv); got != c.tunes {
			t.Errorf("job %v with %s=%q: tunes %v; want %v", c.job, AllocatorEnv, c.env, got, c.tunes)
		}
	}
}

// TestMallocArenas: a reconcile process's malloc makes at most
// glibc.ArenaMax arenas, however many threads allocate at once, whatever
// the command; an operator's MALLOC_ARENA_MAX or GLIBC_TUNABLES rules
// instead (glibc alone made 5 arenas for the same threads here). Each case
// is a process of its own, as in TestAllocatorDecay: the settings hold
// from when the process starts, and arenas once made stay.
func TestMallocArenas(t *testing.T) {
	if !glibc.Linked {
		t.Skip("the C library's malloc is not glibc's; nothing to tune")
	}
	arenas := func(command string, env ...string) int {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestMallocHelper$")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
			return strings.HasPrefix(kv, "MALLOC_") || strings.HasPrefix(kv, "GLIBC_TUNABLES=")
		}), "RECONCILE_MALLOC_HELPER="+command)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper for %s: %v\n%s", command, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			var n int
			if _, err := fmt.Sscanf(line, "malloc arenas: %d", &n); err == nil {
				return n
			}
		}
		t.Fatalf("helper for %s printed no arena count:\n%s", command, out)
		return 0
	}
	for _, command := range []string{jobCommand, otherCommand} {
		if n := arenas(command); n > glibc.ArenaMax {
			t.Errorf("%s, a dozen threads allocating: %d arenas; want at most %d", command, n, glibc.ArenaMax)
		}
	}
	if n := arenas(jobCommand, "MALLOC_ARENA_MAX=3"); n != 3 {
		t.Errorf("the job with MALLOC_ARENA_MAX=3, a dozen threads allocating: %d arenas; want the operator's 3", n)
	}
	if n := arenas(jobCommand, "GLIBC_TUNABLES=glibc.malloc.check=0"); n <= glibc.ArenaMax {
		t.Errorf("the job with GLIBC_TUNABLES set, a dozen threads allocating: %d arenas; want glibc's own limit (more than %d)", n, glibc.ArenaMax)
	}
}

// TestMallocHelper is TestMallocArenas' process: it does what main does
// for the command in RECONCILE_MALLOC_HELPER, has a dozen threads allocate
// at once, and prints the arenas malloc made.
func TestMallocHelper(t *testing.T) {
	startAsMain(t, "RECONCILE_MALLOC_HELPER", "TestMallocArenas")
	if err := glibc.AllocateOnThreads(12); err != nil {
		t.Fatal(err)
	}
	n, err := glibc.Arenas()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("malloc arenas: %d\n", n)
}

// What a helper process acts as: a command that runs the job, or one
// that does not.
const (
	jobCommand   = "job"
	otherCommand = "other"
)

// startAsMain is the start of a helper process: it skips the helper unless
// the variable helper names the command to act as (by, the test that runs
// it, sets it: jobCommand or otherCommand), and then tunes the allocators
// as internal/cli's Main does for such a command.
func startAsMain(t *testing.T, helper, by string) {
	command := os.Getenv(helper)
	if command == "" {
		t.Skip("run by " + by)
	}
	var stderr bytes.Buffer
	TuneAllocator(command == jobCommand, os.Getenv, &stderr)
	if stderr.Len() > 0 {
		t.Fatalf("TuneAllocator: %s", stderr.String())
	}
}

// TestGoMemoryLimit: the commands that run the job get the default soft
// limit on Go's memory, the others none, and GOMEMLIMIT (the runtime's own)
// wins over it. internal/cli's TestOneWriter sees a real process state
// the limit.
func TestGoMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		job    bool
		env    string
		limit  int64
		limits bool
	}{
		{true, "", DefaultGoMemoryLimit, true},
		{true, "512MiB", 0, false},
		{false, "", 0, false},
	} {
		getenv := func(k string) string {
			if k == "GOMEMLIMIT" {
				return c.env
			}
			return ""
		}
		limit, ok := GoMemoryLimit(c.job, getenv)
		if limit != c.limit || ok != c.limits {
			t.Errorf("job %v with GOMEMLIMIT=%q: %d, %v; want %d, %v", c.job, c.env, limit, ok, c.limit, c.limits)
		}
	}
}
