package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/pipeline"
)

func TestRenderProgress(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	p := pipeline.Progress{Stage: "members", MembersTotal: 10000, MembersDone: 2500, MembersFailed: 2, MembersActive: 8,
		Requests: 42100, Retries: 12, Started: t0}
	// 2,500 members in 10 minutes of the members stage: 7,500 left take 30.
	left := estimateLeft(p, t0.Add(2*time.Minute), t0.Add(12*time.Minute))
	got := renderProgress(p, "members", t0.Add(12*time.Minute), 17.6, left)
	want := "members 2,500/10,000 [###---------] 8 in flight · 2 errors · 42,100 requests · 12 retries · 18 req/s · 12m00s · ~30m00s left"
	if got != want {
		t.Errorf("members line\n got %q\nwant %q", got, want)
	}
	for stage, prefix := range map[string]string{
		"discover": "listing groups", "journals": "importing journals", "bins": "looking up BINs",
		"findings": "running the checks", "publish": "publishing outputs", "": "starting",
	} {
		if got := renderProgress(p, stage, t0.Add(time.Hour+90*time.Second), 0, -1); !strings.HasPrefix(got, prefix) {
			t.Errorf("stage %q: %q", stage, got)
		}
	}
	if got := renderProgress(p, "bins", t0.Add(time.Hour+90*time.Second), 0, -1); !strings.Contains(got, "1h01m") {
		t.Errorf("elapsed over an hour: %q", got)
	}
	p.MembersDone = 0
	if left := estimateLeft(p, t0, t0.Add(time.Minute)); left >= 0 {
		t.Errorf("an estimate before the first member: %v", left)
	}
}

// The time left falls at once but does not rise for minutes while the
// pace wobbles: 100 members, the first 10 slow (a minute each at once),
// the rest faster.
func TestTimeLeftDoesNotRiseForMinutes(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	var h etaHold
	shown := func(at time.Duration, done int) time.Duration {
		p := pipeline.Progress{MembersTotal: 100, MembersDone: done}
		return h.show(t0.Add(at), estimateLeft(p, t0, t0.Add(at)))
	}
	first := shown(time.Minute, 10) // 6s a member: 9m left
	if first != 9*time.Minute {
		t.Fatalf("first estimate %v, want 9m", first)
	}
	// A slow stretch: the raw estimate rises (2m for 12 members: 14m40s
	// left), the shown one keeps counting down.
	if got := shown(2*time.Minute, 12); got != 8*time.Minute {
		t.Errorf("a higher estimate showed at once: %v, want the held 8m", got)
	}
	if got := shown(3*time.Minute, 14); got != 7*time.Minute {
		t.Errorf("still held: %v, want 7m", got)
	}
	// Held for etaRiseAfter: the higher estimate is shown.
	raw := estimateLeft(pipeline.Progress{MembersTotal: 100, MembersDone: 16}, t0, t0.Add(4*time.Minute))
	if got := shown(4*time.Minute, 16); got != raw {
		t.Errorf("after %v of a higher estimate: %v, want %v", etaRiseAfter, got, raw)
	}
	// A lower estimate is shown at once.
	raw = estimateLeft(pipeline.Progress{MembersTotal: 100, MembersDone: 60}, t0, t0.Add(5*time.Minute))
	if got := shown(5*time.Minute, 60); got != raw {
		t.Errorf("a lower estimate: %v, want %v at once", got, raw)
	}
}

// The request rate is that of the last rateWindow, not the run's average.
func TestRequestRate(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	var r requestRate
	r.add(t0, 0)
	for i := 1; i <= 60; i++ { // a minute at 100/s
		r.add(t0.Add(time.Duration(i)*time.Second), int64(100*i))
	}
	for i := 61; i <= 80; i++ { // then 20 s at 10/s
		r.add(t0.Add(time.Duration(i)*time.Second), int64(6000+10*(i-60)))
	}
	if got := r.add(t0.Add(81*time.Second), 6210); got < 9.9 || got > 10.1 {
		t.Errorf("rate %.2f/s, want the last 10 s's 10/s", got)
	}
}

// Log records go above the status line: the line is cleared, the record
// written whole, the line drawn again; after close, nothing but the records.
func TestProgressDisplayInterleavesLogs(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	d := New(&buf, func() time.Time { return now })
	d.Update(pipeline.Progress{Stage: "members", MembersTotal: 2, Started: now})
	d.Write([]byte("level=INFO msg=\"member loaded\"\n"))
	d.Update(pipeline.Progress{Stage: "members", MembersTotal: 2, MembersDone: 1, Started: now})
	d.Close()
	d.Write([]byte("after\n"))
	out := buf.String()
	if !strings.Contains(out, "\r\033[Klevel=INFO msg=\"member loaded\"\n\r\033[Kmembers 0/2") {
		t.Errorf("the record is not written on a cleared line with the status redrawn after it:\n%q", out)
	}
	if !strings.HasSuffix(out, "members 1/2 [######------] 0 in flight · 0 errors · 0 requests · 0 retries · 0 req/s · 0s · ~0s left\r\033[Kafter\n") {
		t.Errorf("close must clear the line and later records pass through:\n%q", out)
	}
}
