package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/pipeline"
)

func TestRenderProgress(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	p := pipeline.Progress{Stage: "members", MembersTotal: 10000, MembersDone: 2500, MembersFailed: 2,
		Requests: 42100, Retries: 12, Started: t0}
	// 2,500 members in 10 minutes of the members stage: 7,500 left take 30.
	got := renderProgress(p, "members", t0.Add(2*time.Minute), t0.Add(12*time.Minute))
	want := "members 2,500/10,000 [###---------] 2 errors · 42,100 requests · 12 retries · 12m00s · ~30m00s left"
	if got != want {
		t.Errorf("members line\n got %q\nwant %q", got, want)
	}
	for stage, prefix := range map[string]string{
		"discover": "listing groups", "journals": "importing journals", "bins": "looking up BINs",
		"findings": "running the checks", "publish": "publishing outputs", "": "starting",
	} {
		if got := renderProgress(p, stage, time.Time{}, t0.Add(time.Hour+90*time.Second)); !strings.HasPrefix(got, prefix) {
			t.Errorf("stage %q: %q", stage, got)
		}
	}
	if got := renderProgress(p, "bins", time.Time{}, t0.Add(time.Hour+90*time.Second)); !strings.Contains(got, "1h01m") {
		t.Errorf("elapsed over an hour: %q", got)
	}
	p.MembersDone = 0
	if got := renderProgress(p, "members", t0, t0.Add(time.Minute)); strings.Contains(got, "left") {
		t.Errorf("no estimate before the first member: %q", got)
	}
}

// Log records go above the status line: the line is cleared, the record
// written whole, the line drawn again; after close, nothing but the records.
func TestProgressDisplayInterleavesLogs(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	d := newProgressDisplay(&buf, func() time.Time { return now })
	d.update(pipeline.Progress{Stage: "members", MembersTotal: 2, Started: now})
	d.Write([]byte("level=INFO msg=\"member loaded\"\n"))
	d.update(pipeline.Progress{Stage: "members", MembersTotal: 2, MembersDone: 1, Started: now})
	d.close()
	d.Write([]byte("after\n"))
	out := buf.String()
	if !strings.Contains(out, "\r\033[Klevel=INFO msg=\"member loaded\"\n\r\033[Kmembers 0/2") {
		t.Errorf("the record is not written on a cleared line with the status redrawn after it:\n%q", out)
	}
	if !strings.HasSuffix(out, "members 1/2 [######------] 0 errors · 0 requests · 0 retries · 0s · ~0s left\r\033[Kafter\n") {
		t.Errorf("close must clear the line and later records pass through:\n%q", out)
	}
}
