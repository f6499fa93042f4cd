package main

import "runtime/debug"

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

// defaultGoMemoryLimit is the soft limit on the Go runtime's memory (see
// above) of the commands that run the job.
const defaultGoMemoryLimit = 128 << 20

// goMemoryLimit is the soft limit the command of args should set: the
// default for run, schedule and merge, none for the other commands or when
// GOMEMLIMIT is set (the Go runtime applies that one itself, so an operator
// can give a run more room, or less, without a flag).
func goMemoryLimit(args []string, getenv func(string) string) (int64, bool) {
	if !runsTheJob(args) || getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	return defaultGoMemoryLimit, true
}

// runsTheJob says whether the command of args runs the job (run, schedule,
// merge): the commands whose memory is sized for it.
func runsTheJob(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "run", "schedule", "merge":
		return true
	}
	return false
}

// limitGoMemory sets the soft limit goMemoryLimit gives, if any.
func limitGoMemory(args []string, getenv func(string) string) {
	if limit, ok := goMemoryLimit(args, getenv); ok {
		debug.SetMemoryLimit(limit)
	}
}
