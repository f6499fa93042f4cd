package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/reconcile/reconcile/pipeline"
	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/reports"
	"github.com/reconcile/reconcile/store"
)

// runHooks connect a run to what an operator watches: the progress display
// and the metrics file. Its methods do nothing on a nil *runHooks, so runRun
// calls them unconditionally.
type runHooks struct {
	onProgress func(pipeline.Progress)
	onDone     func() // the run's data is published: stop drawing progress
	res        *pipeline.Result
	pub        *reports.Published
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

func (h *runHooks) published(p *reports.Published) {
	if h == nil {
		return
	}
	h.pub = p
	if h.onDone != nil {
		h.onDone()
	}
}

// runWithOutput runs one job (runRun) with what an operator sees around it:
// the logger (text on a terminal, JSON lines otherwise, at --log-level),
// the progress display on a terminal, and the metrics file, written
// whatever the outcome, so a failed run shows in monitoring too.
func runWithOutput(ctx context.Context, o runOptions, e env) error {
	started := time.Now()
	hooks := &runHooks{}
	o.hooks = hooks
	err := runDisplayed(ctx, o, e, hooks)
	if o.metricsFile != "" {
		m := newRunMetrics(ctx, o, hooks, err, started, time.Now())
		if werr := writeMetricsFile(o.metricsFile, m); werr != nil {
			// The run's outcome stays the exit code: the collector shows a
			// stale file by its age (node_textfile_mtime_seconds).
			fmt.Fprintf(e.stderr, "reconcile: %v\n", werr)
		}
	}
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
		d := newProgressDisplay(e.stderr, time.Now)
		d.start(progressRefresh)
		defer d.close()
		ctx = platform.WithStats(ctx, &d.live)
		logOut = d
		hooks.onProgress = d.update
		hooks.onDone = d.close
	}
	log, err := newLoggerTo(logOut, terminal, o.logLevel)
	if err != nil {
		return err
	}
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
			paths = append(paths, pub.GroupWorkbooks[id])
		}
		fmt.Fprintf(w, "group workbooks: %s\n", strings.Join(paths, ", "))
	}
}
