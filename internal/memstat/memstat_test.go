package memstat

import (
	"runtime"
	"runtime/debug"
	"testing"
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
