package main

import (
	"fmt"
	"io"
	"time"

	"github.com/reconcile/reconcile/internal/glibc"
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

// The rest of DuckDB's memory (its C++ objects: hash table directories,
// strings, query state) comes from the C library's malloc. Where that is
// glibc's, internal/glibc gives it, as the process starts, at most two
// arenas (glibc's default is eight per core, one per allocating thread,
// each keeping what its thread freed) and a fixed 1 MiB size from which
// blocks are mapped on their own and unmapped when freed (glibc's starts at
// 128 KiB and rises up to 32 MiB as mapped blocks are freed, and what is
// served from an arena's heap goes back only from its top). Measured on
// 2,000-member runs of this project's 2-core machine, one sandbox, one run
// per line: glibc's defaults peaked at 533, 545 and 562 MiB; these settings
// at 469 (through glibc's variables), 491 and 518 (internal/glibc), the
// stages no slower (members 1m20-1m27 against 1m22-1m26, checks 24.6-26.0
// s against 22.6-26.3 s). The RSS the checks end with: 443-483 MiB against
// 496-549; after publishing: 311-313 against 384-386. One arena: 492 MiB,
// checks 28.8 s (threads wait for it); two arenas and a 256 KiB threshold:
// 477 MiB, members 1m32 and checks 31 s (a map and unmap per block).
// Every command runs so (the options must be set before the Go runtime's
// threads allocate, so before main reads the command); an operator's
// MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ or GLIBC_TUNABLES rules
// instead.

// tuneAllocator sets the decay times of DuckDB's jemalloc if tunesAllocator
// says so. jemalloc reads its options before main; its arenas take new
// decay times at any moment. A failure, here or in internal/glibc's
// settings, is reported on stderr and the command goes on with the
// library's settings: more memory, nothing wrong.
func tuneAllocator(args []string, getenv func(string) string, stderr io.Writer) {
	if tunesAllocator(args, getenv) {
		if err := jemalloc.SetDecay(allocatorDirtyDecay, allocatorMuzzyDecay); err != nil {
			fmt.Fprintf(stderr, "reconcile: DuckDB's allocator keeps its own decay times: %v\n", err)
		}
	}
	if err := glibc.Refused(); err != nil && runsTheJob(args) {
		fmt.Fprintf(stderr, "reconcile: the C library's malloc keeps its own settings: %v\n", err)
	}
}
