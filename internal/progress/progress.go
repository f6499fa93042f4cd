// Package progress is the status line a run draws on a terminal (Display)
// and the quieter log it shows beside it (QuietTerminal).
package progress

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/safetext"
)

// Refresh is how often the display redraws between updates, so the
// elapsed time moves while a slow member holds the count still.
const Refresh = 500 * time.Millisecond

// Display draws one status line at the bottom of a terminal:
//
//	members 120/10,000 [##----------] 8 in flight · 2 errors · 4,210 requests · 12 retries · 18 req/s · 3m12s · ~1h02m left
//
// Errors are the members that failed (each is also logged with its reason);
// retries are shown apart, since a retried request that then succeeded is
// not an error. The request rate is that of the last rateWindow. The time
// left extrapolates the members stage's pace so far; it falls as soon as
// the pace says so but rises only once a higher estimate has held for
// etaRiseAfter (or the shown one has run out), so it does not climb for
// minutes while the first, slow members finish.
//
// Log records go through Write, which clears the line, writes the record and
// draws the line again, so logs and the line never mix.
type Display struct {
	mu     sync.Mutex
	w      io.Writer
	now    func() time.Time
	p      pipeline.Progress
	Live   platform.Stats // the run's requests as they happen (attach with platform.WithStats)
	stage  string         // the pipeline's stage, or "publish" after it
	pulled time.Time      // when the members stage started
	eta    etaHold        // the time left shown
	rate   requestRate    // requests per second, lately
	drawn  bool           // a line is on screen
	closed bool
	stop   chan struct{}
	done   chan struct{}
}

func New(w io.Writer, now func() time.Time) *Display {
	return &Display{w: w, now: now, stage: "start"}
}

// Start redraws every interval until Close.
func (d *Display) Start(interval time.Duration) {
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

// Update takes a progress report of the run (pipeline.Options.OnProgress).
func (d *Display) Update(p pipeline.Progress) {
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
// handler already quotes control characters in values; safetext.Text makes
// that hold for anything else written here, since only the display's own
// line may move the cursor.
func (d *Display) Write(b []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.clear()
	_, err := io.WriteString(d.w, safetext.Text(string(b)))
	d.draw()
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// Close stops redrawing and removes the line; later writes pass through.
// Safe to call more than once.
func (d *Display) Close() {
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

func (d *Display) clear() {
	if d.drawn {
		io.WriteString(d.w, "\r\033[K")
		d.drawn = false
	}
}

func (d *Display) draw() {
	if d.closed {
		return
	}
	// Progress reports come per member; the live counters move between.
	p := d.p
	p.Requests = max(p.Requests, d.Live.Requests.Load())
	p.Retries = max(p.Retries, d.Live.Retries.Load())
	now := d.now()
	perSecond := d.rate.add(now, p.Requests)
	left := time.Duration(-1)
	if d.stage == "members" {
		left = d.eta.show(now, estimateLeft(p, d.pulled, now))
	}
	io.WriteString(d.w, "\r\033[K"+renderProgress(p, d.stage, now, perSecond, left))
	d.drawn = true
}

// estimateLeft extrapolates the members stage's pace so far to the
// members not done; -1 before the first member is done or after the last.
func estimateLeft(p pipeline.Progress, pulled, now time.Time) time.Duration {
	if p.MembersDone == 0 || p.MembersDone >= p.MembersTotal || pulled.IsZero() {
		return -1
	}
	per := now.Sub(pulled) / time.Duration(p.MembersDone)
	return per * time.Duration(p.MembersTotal-p.MembersDone)
}

// etaRiseAfter is how long a higher estimate of the time left must hold
// before the display shows it.
const etaRiseAfter = 2 * time.Minute

// etaHold is the time left as shown: the finish time it implies falls at
// once, and rises only as etaRiseAfter says.
type etaHold struct {
	finish      time.Time // the shown estimate's finish time
	higherSince time.Time // since when the estimate has been later than finish
}

// show takes the estimate at now (-1: none) and returns the time left to
// show (-1: none).
func (h *etaHold) show(now time.Time, estimate time.Duration) time.Duration {
	if estimate < 0 {
		*h = etaHold{}
		return -1
	}
	f := now.Add(estimate)
	switch {
	case h.finish.IsZero() || !f.After(h.finish):
		h.finish, h.higherSince = f, time.Time{}
	case h.higherSince.IsZero():
		h.higherSince = now
	}
	if !h.higherSince.IsZero() && (now.Sub(h.higherSince) >= etaRiseAfter || !h.finish.After(now)) {
		h.finish, h.higherSince = f, time.Time{}
	}
	return h.finish.Sub(now)
}

// rateWindow is the span the request rate is measured over.
const rateWindow = 10 * time.Second

// requestRate measures requests per second over the last rateWindow from
// the run's running count.
type requestRate struct {
	at    []time.Time
	count []int64
}

// add records the count at now and returns the rate over the window.
func (r *requestRate) add(now time.Time, count int64) float64 {
	r.at, r.count = append(r.at, now), append(r.count, count)
	for len(r.at) > 2 && now.Sub(r.at[1]) >= rateWindow {
		r.at, r.count = r.at[1:], r.count[1:]
	}
	span := now.Sub(r.at[0]).Seconds()
	if span <= 0 {
		return 0
	}
	return float64(count-r.count[0]) / span
}

// renderProgress is the status line for a run at now: perSecond is the
// recent request rate, left the time left to show (-1: none).
func renderProgress(p pipeline.Progress, stage string, now time.Time, perSecond float64, left time.Duration) string {
	elapsed := "0s"
	if !p.Started.IsZero() {
		elapsed = shortDuration(now.Sub(p.Started))
	}
	counters := fmt.Sprintf("%s requests · %s retries · %.0f req/s · %s", thousands(p.Requests), thousands(p.Retries), perSecond, elapsed)
	switch stage {
	case "members":
		line := fmt.Sprintf("members %s/%s %s %d in flight · %s · %s", thousands(int64(p.MembersDone)), thousands(int64(p.MembersTotal)),
			bar(p.MembersDone, p.MembersTotal, 12), p.MembersActive, plural(p.MembersFailed, "error"), counters)
		if left >= 0 {
			line += " · ~" + shortDuration(left) + " left"
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
	what := map[string]string{"bins": "looking up BINs", "reports": "reading chargebacks and clearing levels",
		"settlement": "reading settlement and funding reports", "findings": "running the checks"}[stage]
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

// Finish ends the display with the run's last status as a line that
// stays, the run's final summary on the terminal, instead of clearing it:
//
//	done · members 6/6, 0 errors · 139 requests · 0 retries · 12s · outputs in out/2026-11-27
//
// Later writes pass through, as after Close.
func (d *Display) Finish(outputs string) {
	d.mu.Lock()
	if !d.closed {
		d.clear()
		p := d.p
		p.Requests = max(p.Requests, d.Live.Requests.Load())
		p.Retries = max(p.Retries, d.Live.Retries.Load())
		elapsed := "0s"
		if !p.Started.IsZero() {
			elapsed = shortDuration(d.now().Sub(p.Started))
		}
		where := ""
		if outputs != "" {
			where = " · outputs in " + safetext.Line(outputs)
		}
		fmt.Fprintf(d.w, "done · members %s/%s, %s · %s requests · %s retries · %s%s\n",
			thousands(int64(p.MembersDone)), thousands(int64(p.MembersTotal)), plural(p.MembersFailed, "error"),
			thousands(p.Requests), thousands(p.Retries), elapsed, where)
	}
	d.mu.Unlock()
	d.Close()
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

// QuietTerminal is log, quieted for a terminal at level (unless debug).
func QuietTerminal(log *slog.Logger, level string) *slog.Logger {
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

// Want reads --progress: auto shows the display when the command's
// stderr is a terminal (never in cron's mail or a log file).
func Want(mode string, terminal bool) (bool, error) {
	switch mode {
	case "auto", "":
		return terminal, nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("--progress %q: want auto, always or never", mode)
}
