// Package memstat reads what the process holds in memory, as Go sees it
// (runtime/metrics) and as the kernel does (/proc/self/smaps_rollup and
// /proc/self/status): the run's memory at the end of each stage
// (pipeline.Stage.Memory, logged with "run finished", printed by the
// benchmark). Set beside DuckDB's own count (store.DuckDBMemory), it says
// whose memory a run's RSS is: Go's heap, DuckDB's buffers, or what their
// allocators keep after use. Outside Linux the kernel's numbers are zero.
package memstat

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
)

// Process is the process's memory at one moment, in bytes.
type Process struct {
	GoHeap     uint64 // Go heap objects, live or not yet swept (/memory/classes/heap/objects:bytes)
	GoTotal    uint64 // all memory the Go runtime has mapped (/memory/classes/total:bytes)
	GoReleased uint64 // of GoTotal, what Go has given back to the kernel (/memory/classes/heap/released:bytes)
	RSS        uint64 // resident now (smaps_rollup Rss)
	Anon       uint64 // resident anonymous memory, i.e. heaps: Go's and C's (smaps_rollup Anonymous)
	PeakRSS    uint64 // the most ever resident since the process started (status VmHWM)
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
	kB := kilobytes("/proc/self/smaps_rollup", "Rss", "Anonymous")
	p.RSS, p.Anon = kB["Rss"]<<10, kB["Anonymous"]<<10
	p.PeakRSS = kilobytes("/proc/self/status", "VmHWM")["VmHWM"] << 10
	return p
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
