package memstat

import (
	"database/sql"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/internal/glibc"
	"github.com/reconcile/reconcile/internal/jemalloc"
)

// TestReadSeesAnAllocation: a 64 MiB buffer, touched, shows in Go's heap
// and (on Linux) in the resident, anonymous and peak memory; and the
// numbers hold together (what is resident is at most the peak).
func TestReadSeesAnAllocation(t *testing.T) {
	before := Read()
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after := Read()
	const grown = 60 << 20
	if after.GoHeap < before.GoHeap+grown || after.GoTotal < after.GoHeap {
		t.Errorf("Go heap %d → %d (total %d) after a 64 MiB allocation", before.GoHeap, after.GoHeap, after.GoTotal)
	}
	if runtime.GOOS == "linux" {
		if after.RSS < before.RSS+grown || after.Anon < before.Anon+grown || after.PeakRSS < after.RSS {
			t.Errorf("RSS %d → %d, anonymous %d → %d, peak %d after a 64 MiB allocation",
				before.RSS, after.RSS, before.Anon, after.Anon, after.PeakRSS)
		}
	}
	runtime.KeepAlive(buf)
}

// TestResetPeak: after ResetPeak, the peak is what is resident, not what
// was once.
func TestResetPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak is reset through /proc")
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	runtime.KeepAlive(buf)
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	high := Read().PeakRSS
	if err := ResetPeak(); err != nil {
		t.Fatal(err)
	}
	if p := Read(); p.PeakRSS >= high || p.PeakRSS > p.RSS+(8<<20) {
		t.Errorf("after ResetPeak: peak %d, resident %d; the peak was %d", p.PeakRSS, p.RSS, high)
	}
}

// TestWatchKeepsThePeak: a 96 MiB buffer held for a moment and let go
// shows in the Watch's peak, and not in the next one's.
func TestWatchKeepsThePeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the resident memory is read from /proc")
	}
	debug.FreeOSMemory()
	w := StartWatch(2 * time.Millisecond)
	defer w.Stop()
	before := w.Peak()
	buf := make([]byte, 96<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	time.Sleep(50 * time.Millisecond)
	runtime.KeepAlive(buf)
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	time.Sleep(50 * time.Millisecond)
	peak := w.Peak()
	const grown = 80 << 20
	if peak.RSS < before.RSS+grown || peak.Anon < before.Anon+grown {
		t.Errorf("peak with a 96 MiB buffer held: RSS %d (%d before), anonymous %d (%d before)", peak.RSS, before.RSS, peak.Anon, before.Anon)
	}
	if next := w.Peak(); next.RSS+grown > peak.RSS {
		t.Errorf("the next peak, with the buffer let go: RSS %d, against %d", next.RSS, peak.RSS)
	}
}

// TestReadSeesDuckDBsAllocators: a DuckDB table of 2,000,000 rows shows in
// what jemalloc has allocated, and DuckDB's C++ objects in malloc's.
func TestReadSeesDuckDBsAllocators(t *testing.T) {
	if !jemalloc.Linked || !glibc.Linked {
		t.Skip("DuckDB's jemalloc or glibc's malloc is not linked here")
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	before := Read()
	if _, err := db.Exec(`CREATE TABLE t AS SELECT range AS n, range::VARCHAR AS s FROM range(2000000)`); err != nil {
		t.Fatal(err)
	}
	after := Read()
	if after.Jemalloc < before.Jemalloc+(16<<20) {
		t.Errorf("jemalloc allocated %d → %d bytes for a table of 2,000,000 rows", before.Jemalloc, after.Jemalloc)
	}
	if after.Malloc == 0 {
		t.Error("malloc has nothing in use with DuckDB open")
	}
}
