// Package memstat reads what the process holds in memory, as Go sees it
// (runtime/metrics), as the kernel does (/proc/self/status) and as the C
// allocators do (DuckDB's jemalloc, the C library's malloc): the run's
// memory at the end of each stage (pipeline.Stage.Memory) and at its
// highest (Watch, pipeline.Stage.Peak), logged with "run finished" and
// printed by the benchmark. Set beside
// DuckDB's own count (store.DuckDBMemory), it says whose memory a run's RSS
// is: Go's heap, DuckDB's buffers, what DuckDB allocates beside them, or
// what the allocators keep after use. Outside Linux the kernel's numbers
// are zero, and so are the allocators' where they are not linked.
package memstat

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/reconcile/reconcile/internal/glibc"
	"github.com/reconcile/reconcile/internal/jemalloc"
)

// Process is the process's memory at one moment, in bytes.
type Process struct {
	GoHeap     uint64 // Go heap objects, live or not yet swept (/memory/classes/heap/objects:bytes)
	GoTotal    uint64 // all memory the Go runtime has mapped (/memory/classes/total:bytes)
	GoReleased uint64 // of GoTotal, what Go has given back to the kernel (/memory/classes/heap/released:bytes)
	RSS        uint64 // resident now (status VmRSS)
	Anon       uint64 // resident anonymous memory, i.e. heaps: Go's and C's (status RssAnon)
	PeakRSS    uint64 // the most ever resident since the process started (status VmHWM)
	// What the C allocators have handed out: DuckDB's jemalloc (its buffer
	// pool and what it allocates beside it: jemalloc.Allocated) and the C
	// library's malloc (DuckDB's C++ objects: glibc.InUse).
	Jemalloc, Malloc uint64
}

var goMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/released:bytes",
}

// GoLimit describes the Go runtime's soft memory limit (debug.SetMemoryLimit,
// GOMEMLIMIT): "128 MiB", or "none".
func GoLimit() string {
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return "none"
	}
	return strconv.FormatInt(limit>>20, 10) + " MiB"
}

// Read reads the process's memory now.
func Read() Process {
	samples := make([]metrics.Sample, len(goMetrics))
	for i, name := range goMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	var p Process
	for i, dst := range []*uint64{&p.GoHeap, &p.GoTotal, &p.GoReleased} {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			*dst = samples[i].Value.Uint64()
		}
	}
	// status, not smaps_rollup: its counters are kept by the kernel as
	// pages come and go, where smaps_rollup walks every mapping's page
	// tables (DuckDB reserves large ones): reading it at each new peak
	// cost a small run 2.5 % of its CPU.
	kB := kilobytes("/proc/self/status", "VmRSS", "RssAnon", "VmHWM")
	p.RSS, p.Anon, p.PeakRSS = kB["VmRSS"]<<10, kB["RssAnon"]<<10, kB["VmHWM"]<<10
	p.Jemalloc, _ = jemalloc.Allocated()
	p.Malloc = glibc.InUse()
	return p
}

// A Watch samples the resident memory every interval and keeps the
// process's memory (Read) at the highest sample since the last Peak: a
// stage's peak is a moment, and what held the memory then (a checkpoint's
// buffers, a load waiting) is often gone by the stage's end. A sample
// reads /proc/self/statm, one line; the whole of Read only when the
// resident memory is higher than any sample before it in the stage.
type Watch struct {
	mu      sync.Mutex
	peak    Process
	stop    chan struct{}
	stopped chan struct{}
}

// StartWatch starts a Watch. Stop it when done.
func StartWatch(interval time.Duration) *Watch {
	w := &Watch{stop: make(chan struct{}), stopped: make(chan struct{})}
	w.sample()
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

// sample reads the resident memory, and the rest when it is the highest yet.
func (w *Watch) sample() {
	rss := residentBytes()
	w.mu.Lock()
	defer w.mu.Unlock()
	if rss > 0 && rss <= w.peak.RSS {
		return
	}
	p := Read()
	if p.RSS >= w.peak.RSS {
		w.peak = p
	}
}

// Peak is the process's memory at the highest resident memory sampled
// since the last Peak (or since the Watch started), now included; the
// next Peak starts from what is resident then. A nil Watch has no peak.
func (w *Watch) Peak() Process {
	if w == nil {
		return Process{}
	}
	w.sample()
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.peak
	w.peak = Process{}
	return p
}

// Stop ends the sampling; Peak still reads what was sampled. Nil-safe.
func (w *Watch) Stop() {
	if w == nil {
		return
	}
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.stopped
}

// residentBytes is the resident memory from /proc/self/statm (its second
// field, in pages): 0 where it cannot be read.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}

// kilobytes reads the "Name:   123 kB" lines of a /proc file that fields
// names; a file or line that cannot be read counts zero.
func kilobytes(path string, fields ...string) map[string]uint64 {
	out := map[string]uint64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	want := map[string]bool{}
	for _, f := range fields {
		want[f] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok || !want[string(name)] {
			continue
		}
		num, _, _ := bytes.Cut(bytes.TrimSpace(rest), []byte(" "))
		if v, err := strconv.ParseUint(string(num), 10, 64); err == nil {
			out[string(name)] = v
		}
	}
	return out
}

// ResetPeak starts PeakRSS afresh from what is resident now (Linux:
// /proc/self/clear_refs), so that a benchmark can read the peak of one
// step. It fails where the kernel does not allow it.
func ResetPeak() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
