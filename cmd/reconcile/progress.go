package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reconcile/reconcile/pipeline"
	"github.com/reconcile/reconcile/platform"
)

// progressRefresh is how often the display redraws between updates, so the
// elapsed time moves while a slow member holds the count still.
const progressRefresh = 500 * time.Millisecond

// progressDisplay draws one status line at the bottom of a terminal:
//
//	members 120/10,000 [##----------] 2 errors · 4,210 requests · 12 retries · 3m12s · ~1h02m left
//
// Errors are the members that failed (each is also logged with its reason);
// retries are shown apart, since a retried request that then succeeded is
// not an error. The time left extrapolates the members stage's pace so far.
//
// Log records go through Write, which clears the line, writes the record and
// draws the line again, so logs and the line never mix.
type progressDisplay struct {
	mu     sync.Mutex
	w      io.Writer
	now    func() time.Time
	p      pipeline.Progress
	live   platform.Stats // the run's requests as they happen (attach with platform.WithStats)
	stage  string         // the pipeline's stage, or "publish" after it
	pulled time.Time      // when the members stage started
	drawn  bool           // a line is on screen
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

func newProgressDisplay(w io.Writer, now func() time.Time) *progressDisplay {
	return &progressDisplay{w: w, now: now, stage: "start"}
}

// start redraws every interval until close.
func (d *progressDisplay) start(interval time.Duration) {
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(d.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				return
			case <-t.C:
				d.mu.Lock()
				d.draw()
				d.mu.Unlock()
			}
		}
	}()
}

// update takes a progress report of the run (pipeline.Options.OnProgress).
func (d *progressDisplay) update(p pipeline.Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.Stage == "members" && d.pulled.IsZero() {
		d.pulled = d.now()
	}
	d.p = p
	d.stage = p.Stage
	if p.Stage == "done" {
		d.stage = "publish" // what runs next
	}
	d.draw()
}

// Write passes a log record through, above the status line. slog's text
// handler already quotes control characters in values; terminalText makes
// that hold for anything else written here, since only the display's own
// line may move the cursor.
func (d *progressDisplay) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	_, err := io.WriteString(d.w, terminalText(string(b)))
	d.draw()
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// close stops redrawing and removes the line; later writes pass through.
// Safe to call more than once.
func (d *progressDisplay) close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.clear()
	d.mu.Unlock()
	if d.stop != nil {
		close(d.stop)
		<-d.done
	}
}

func (d *progressDisplay) clear() {
	if d.drawn {
		io.WriteString(d.w, "\r\033[K")
		d.drawn = false
	}
}

func (d *progressDisplay) draw() {
	if d.closed {
		return
	}
	// Progress reports come per member; the live counters move between.
	p := d.p
	p.Requests = max(p.Requests, d.live.Requests.Load())
	p.Retries = max(p.Retries, d.live.Retries.Load())
	io.WriteString(d.w, "\r\033[K"+renderProgress(p, d.stage, d.pulled, d.now()))
	d.drawn = true
}

// renderProgress is the status line for a run at now; pulled is when its
// members stage started (zero before).
func renderProgress(p pipeline.Progress, stage string, pulled, now time.Time) string {
	elapsed := "0s"
	if !p.Started.IsZero() {
		elapsed = shortDuration(now.Sub(p.Started))
	}
	counters := fmt.Sprintf("%s requests · %s retries · %s", thousands(p.Requests), thousands(p.Retries), elapsed)
	switch stage {
	case "members":
		line := fmt.Sprintf("members %s/%s %s %s · %s", thousands(int64(p.MembersDone)), thousands(int64(p.MembersTotal)),
			bar(p.MembersDone, p.MembersTotal, 12), plural(p.MembersFailed, "error"), counters)
		if p.MembersDone > 0 && p.MembersDone < p.MembersTotal && !pulled.IsZero() {
			per := now.Sub(pulled) / time.Duration(p.MembersDone)
			line += " · ~" + shortDuration(per*time.Duration(p.MembersTotal-p.MembersDone)) + " left"
		}
		return line
	case "start", "":
		return "starting · " + elapsed
	case "discover":
		return "listing groups and members · " + counters
	case "journals":
		return "importing journals · " + counters
	case "publish":
		return fmt.Sprintf("publishing outputs · members %d/%d, %s · %s", p.MembersDone, p.MembersTotal, plural(p.MembersFailed, "error"), counters)
	}
	what := map[string]string{"bins": "looking up BINs", "settlement": "reading settlement and funding reports", "findings": "running the checks"}[stage]
	if what == "" {
		what = stage
	}
	return fmt.Sprintf("%s · members %d/%d, %s · %s", what, p.MembersDone, p.MembersTotal, plural(p.MembersFailed, "error"), counters)
}

func bar(done, total, width int) string {
	filled := 0
	if total > 0 {
		filled = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// thousands writes n with comma separators: 4,210.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// shortDuration is 45s, 3m12s or 1h02m.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// finish ends the display with the run's last status as a line that
// stays, the run's final summary on the terminal, instead of clearing it:
//
//	done · members 6/6, 0 errors · 139 requests · 0 retries · 12s
//
// Later writes pass through, as after close.
func (d *progressDisplay) finish() {
	d.mu.Lock()
	if !d.closed {
		d.clear()
		p := d.p
		p.Requests = max(p.Requests, d.live.Requests.Load())
		p.Retries = max(p.Retries, d.live.Retries.Load())
		elapsed := "0s"
		if !p.Started.IsZero() {
			elapsed = shortDuration(d.now().Sub(p.Started))
		}
		fmt.Fprintf(d.w, "done · members %s/%s, %s · %s requests · %s retries · %s\n",
			thousands(int64(p.MembersDone)), thousands(int64(p.MembersTotal)), plural(p.MembersFailed, "error"),
			thousands(p.Requests), thousands(p.Retries), elapsed)
	}
	d.mu.Unlock()
	d.close()
}

// perItemKeys mark a log record about one member or one journal file.
var perItemKeys = []string{"merchant_id", "file"}

// quietHandler keeps a terminal readable under the status line: below
// WARN, a record about one member or one journal file (a perItemKeys
// attribute) is left out, since the status line counts them and ten
// thousand such lines would scroll everything else away. Warnings and
// errors (a member that failed, with its reason) and the run's own records
// still show. With --log-level debug every record shows; the JSON log
// (not a terminal) is never quieted.
type quietHandler struct {
	slog.Handler
	item bool // an attribute added with WithAttrs marks every record
}

// quietTerminal is log, quieted for a terminal at level (unless debug).
func quietTerminal(log *slog.Logger, level string) *slog.Logger {
	var lv slog.Level
	if lv.UnmarshalText([]byte(level)) != nil || lv <= slog.LevelDebug {
		return log
	}
	return slog.New(quietHandler{Handler: log.Handler()})
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn || !h.item && !recordPerItem(r) {
		return h.Handler.Handle(ctx, r)
	}
	return nil
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	item := h.item
	for _, a := range as {
		item = item || slices.Contains(perItemKeys, a.Key)
	}
	return quietHandler{Handler: h.Handler.WithAttrs(as), item: item}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{Handler: h.Handler.WithGroup(name), item: h.item}
}

func recordPerItem(r slog.Record) bool {
	item := false
	r.Attrs(func(a slog.Attr) bool {
		item = slices.Contains(perItemKeys, a.Key)
		return !item
	})
	return item
}
