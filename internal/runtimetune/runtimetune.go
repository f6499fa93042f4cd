// Package runtimetune sets, as a command that runs the job starts, the
// memory settings measured for it: a soft limit on the Go runtime's memory
// (GoMemoryLimit), the decay times of DuckDB's jemalloc (TunesAllocator)
// and, through internal/glibc, the C library's malloc. An operator's own
// GOMEMLIMIT, DUCKDB_JE_MALLOC_CONF or MALLOC_* settings win. Which
// commands run the job is internal/cli's to say: each function takes it
// as job.
package runtimetune

import (
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/reconcile/reconcile/internal/glibc"
	"github.com/reconcile/reconcile/internal/jemalloc"
)

// Start applies the settings for a command (job: it runs the job),
// before it does anything else: GoMemoryLimit's limit, then the
// allocators' (TuneAllocator).
func Start(job bool, getenv func(string) string, stderr io.Writer) {
	if limit, ok := GoMemoryLimit(job, getenv); ok {
		debug.SetMemoryLimit(limit)
	}
	TuneAllocator(job, getenv, stderr)
}

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
	DirtyDecay = 500 * time.Millisecond
	MuzzyDecay = 0
)

// AllocatorEnv is the environment variable DuckDB's jemalloc reads its
// options from when the process starts (jemalloc's MALLOC_CONF, under
// DuckDB's symbol prefix). An operator who sets it chooses for themselves,
// as GOMEMLIMIT does for Go's limit.
const AllocatorEnv = "DUCKDB_JE_MALLOC_CONF"

// TunesAllocator says whether a command sets the decay times: one that
// runs the job does, unless AllocatorEnv is set.
func TunesAllocator(job bool, getenv func(string) string) bool {
	return job && getenv(AllocatorEnv) == ""
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

// TuneAllocator sets the decay times of DuckDB's jemalloc if TunesAllocator
// says so. jemalloc reads its options before main; its arenas take new
// decay times at any moment. A failure, here or in internal/glibc's
// settings, is reported on stderr and the command goes on with the
// library's settings: more memory, nothing wrong.
func TuneAllocator(job bool, getenv func(string) string, stderr io.Writer) {
	if TunesAllocator(job, getenv) {
		if err := jemalloc.SetDecay(DirtyDecay, MuzzyDecay); err != nil {
			fmt.Fprintf(stderr, "reconcile: DuckDB's allocator keeps its own decay times: %v\n", err)
		}
	}
	if err := glibc.Refused(); err != nil && job {
		fmt.Fprintf(stderr, "reconcile: the C library's malloc keeps its own settings: %v\n", err)
	}
}

// A run's memory is Go's heap, DuckDB's buffers (--memory-limit) and what
// their allocators keep. Go's collector lets its heap grow to twice what is
// live before it collects, and at 1,000 members what is live in the members
// stage (the pulled records waiting for their load) is ~100-140 MiB: the
// heap's growth room alone was ~100 MiB of the run's peak. A soft limit on
// the Go runtime's memory makes the collector work harder only once the
// heap nears it. Measured on this project's 2-core machine, 1,000-member
// runs: peak RSS 688-710 MiB without a limit and 595-665 MiB with 128 MiB
// (three each), at ~10% more time in the members stage; once each member's
// rows were sized before they were built (store.Batch.Reserve), 636-677
// without and 630-643 with (two each), the members stage no slower. It is
// a soft limit: a heap that needs more gets it, the collector then using
// at most half the CPU.

// DefaultGoMemoryLimit is the soft limit on the Go runtime's memory (see
// above) of the commands that run the job.
const DefaultGoMemoryLimit = 128 << 20

// GoMemoryLimit is the soft limit a command should set: the default for
// one that runs the job (job), none for the other commands or when
// GOMEMLIMIT is set (the Go runtime applies that one itself, so an operator
// can give a run more room, or less, without a flag).
func GoMemoryLimit(job bool, getenv func(string) string) (int64, bool) {
	if !job || getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	return DefaultGoMemoryLimit, true
}
