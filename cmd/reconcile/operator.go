package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/progress"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/reports"
)

// runHooks connect a run to what an operator watches: the progress display
// and the metrics file. Its methods do nothing on a nil *runHooks, so runRun
// calls them unconditionally.
type runHooks struct {
	onProgress func(pipeline.Progress)
	onDone     func(outputs string) // the run's data is published in outputs: stop drawing progress
	res        *pipeline.Result
	pub        *reports.Published
	log        *slog.Logger
	notice     *finish.Notice    // --alarms, --notify, once loaded
	alarms     []reports.Alarm   // checked before publishing
	deliveries []notify.Delivery // the digests sent
	// mleNotAfter is the response MLE key's expiry (mle.go); zero: none.
	mleNotAfter time.Time
}

func (h *runHooks) progressFunc() func(pipeline.Progress) {
	if h == nil {
		return nil
	}
	return h.onProgress
}

func (h *runHooks) ingested(r *pipeline.Result) {
	if h != nil {
		h.res = r
	}
}

// noticed keeps what --alarms and --notify loaded, for a run that fails
// later (its digest says so).
func (h *runHooks) noticed(n *finish.Notice) {
	if h != nil {
		h.notice = n
	}
}

func (h *runHooks) checked(a []reports.Alarm) {
	if h != nil {
		h.alarms = a
	}
}

func (h *runHooks) delivered(d []notify.Delivery) {
	if h != nil {
		h.deliveries = append(h.deliveries, d...)
	}
}

func (h *runHooks) published(p *reports.Published) {
	if h == nil {
		return
	}
	h.pub = p
	if h.onDone != nil {
		h.onDone(p.Dir)
	}
}

// runWithOutput runs one job (runRun) with what an operator sees around it:
// the logger (text on a terminal, JSON lines otherwise, at --log-level),
// the progress display on a terminal, the digest of a run that failed
// before publishing (runRun sends a published run's), and the metrics,
// to the file and the Pushgateway, whatever the outcome, so a failed run
// shows in monitoring too.
func runWithOutput(ctx context.Context, o runOptions, e env) error {
	started := time.Now()
	hooks := &runHooks{}
	o.hooks = hooks
	err := runDisplayed(ctx, o, e, hooks)
	log := hooks.log
	if log == nil { // the run failed before its logger was made (a bad --log-level)
		log, _ = newLogger(e.stderr, "info")
	}
	if err != nil && hooks.pub == nil && exitCodeOf(ctx, err) != exitInterrupted {
		date := o.date
		if d, derr := businessDate(o.date, started.UTC()); derr == nil {
			date = d.Format(time.DateOnly)
		}
		hooks.delivered(hooks.notice.SendFailure(context.WithoutCancel(ctx), date, runSource(o), err, log))
	}
	emitMetrics(ctx, e, log, o.metricsFile, o.notice.metricsPush, newRunMetrics(ctx, o, hooks, err, started, time.Now()))
	return err
}

func runDisplayed(ctx context.Context, o runOptions, e env, hooks *runHooks) error {
	if !reports.ValidSplitBy(o.splitBy) {
		return fmt.Errorf("--split-by %q: want group, or nothing for the whole run's workbook only", o.splitBy)
	}
	show, err := wantProgress(o.progress, e.stderr)
	if err != nil {
		return err
	}
	terminal := isTerminal(e.stderr)
	logOut := e.stderr
	if show {
		d := progress.New(e.stderr, time.Now)
		d.Start(progress.Refresh)
		defer d.Close()
		ctx = platform.WithStats(ctx, &d.Live)
		logOut = d
		hooks.onProgress = d.Update
		hooks.onDone = d.Finish
	}
	log, err := newLoggerTo(logOut, terminal, o.logLevel)
	if err != nil {
		return err
	}
	if show && terminal {
		log = progress.QuietTerminal(log, o.logLevel)
	}
	hooks.log = log
	return runRun(ctx, o, e, log)
}

// wantProgress reads --progress: auto shows the display when stderr is a
// terminal (never in cron's mail or a log file).
func wantProgress(mode string, stderr io.Writer) (bool, error) {
	switch mode {
	case "auto", "":
		return isTerminal(stderr), nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("--progress %q: want auto, always or never", mode)
}

// printPublishedExtras adds to the run's summary what changed since the
// previous run and the per-group workbooks.
func printPublishedExtras(w io.Writer, pub *reports.Published) {
	if pub == nil {
		return
	}
	sum := func(state store.FindingState) (n int64) {
		for _, v := range pub.Findings[string(state)] {
			n += v
		}
		return n
	}
	if pub.PreviousRun != "" {
		fmt.Fprintf(w, "since %s: %d new, %d still open, %d resolved\n", pub.PreviousRun,
			sum(store.FindingNew), sum(store.FindingOpen), sum(store.FindingResolved))
	}
	if len(pub.GroupWorkbooks) > 0 {
		ids := make([]string, 0, len(pub.GroupWorkbooks))
		for id := range pub.GroupWorkbooks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		var paths []string
		for _, id := range ids {
			paths = append(paths, pathText(pub.GroupWorkbooks[id]))
		}
		fmt.Fprintf(w, "group workbooks: %s\n", strings.Join(paths, ", "))
	}
}
