package main

import (
	"fmt"
	"io"
	"time"

	"github.com/reconcile/reconcile/internal/jemalloc"
)

// DuckDB allocates through its own jemalloc, which keeps freed pages for
// reuse: "dirty" for dirty_decay_ms, then "muzzy" (given back with
// MADV_FREE, which the kernel reclaims only when it runs short, so they
// stay in the process's RSS) for muzzy_decay_ms; DuckDB's setting is a
// second each. Under the checks' churn of hash tables and sorts those
// pages were 100-150 MiB of the RSS beside what DuckDB's buffer manager
// counted (jemalloc's stats.resident against stats.active, 5,000
// members). The checks of a 5,000-member run alone, peak RSS and time, one
// run each: DuckDB's setting 540 MiB, 49 s; muzzy 0: 505 MiB, 47 s; and
// dirty 1 s: 493 MiB, 50 s; 500 ms: 480 MiB, 48 s; 250 ms: 470 MiB, 54 s;
// 0: 374 MiB, 91 s. So the commands that run the job keep pages dirty half
// a second and then give them back at once.
const (
	allocatorDirtyDecay = 500 * time.Millisecond
	allocatorMuzzyDecay = 0
)

// allocatorEnv is the environment variable DuckDB's jemalloc reads its
// options from when the process starts (jemalloc's MALLOC_CONF, under
// DuckDB's symbol prefix). An operator who sets it chooses for themselves,
// as GOMEMLIMIT does for Go's limit.
const allocatorEnv = "DUCKDB_JE_MALLOC_CONF"

// tunesAllocator says whether the command of args sets the decay times: run,
// schedule and merge do, unless allocatorEnv is set.
func tunesAllocator(args []string, getenv func(string) string) bool {
	return runsTheJob(args) && getenv(allocatorEnv) == ""
}

// tuneAllocator sets the decay times of DuckDB's jemalloc if tunesAllocator
// says so. jemalloc reads its options before main; its arenas take new
// decay times at any moment. A failure is reported on stderr and the
// command goes on with DuckDB's setting: more memory, nothing wrong.
func tuneAllocator(args []string, getenv func(string) string, stderr io.Writer) {
	if !tunesAllocator(args, getenv) {
		return
	}
	if err := jemalloc.SetDecay(allocatorDirtyDecay, allocatorMuzzyDecay); err != nil {
		fmt.Fprintf(stderr, "reconcile: DuckDB's allocator keeps its own decay times: %v\n", err)
	}
}
