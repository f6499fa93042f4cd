package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/alarms"
	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/progress"
	"github.com/reconcile/reconcile/reports"
)

// runHooks connect a run to what an operator watches: the progress display
// and the metrics file. runWithOutput makes them and reads them once the run
// is over; runRun fills them in as it goes.
type runHooks struct {
	onProgress func(pipeline.Progress)
	onDone     func(outputs string) // the run's data is published in outputs: stop drawing progress
	res        *pipeline.Result
	pub        *reports.Published
	log        *slog.Logger
	notice     *finish.Notice    // --alarms, --notify, once loaded: a run that fails later tells them
	alarms     []reports.Alarm   // checked before publishing
	deliveries []notify.Delivery // the digests sent
	// mleNotAfter is the response MLE key's expiry (keyed); zero: none.
	mleNotAfter time.Time
}

func (h *runHooks) published(p *reports.Published) {
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
func runWithOutput(ctx context.Context, o runOptions, e Env) error {
	started := time.Now()
	hooks := &runHooks{}
	o.hooks = hooks
	err := runDisplayed(ctx, o, e, hooks)
	log := hooks.log
	if log == nil { // the run failed before its logger was made (a bad --log-level)
		log, _ = newLogger(e.Stderr, "info")
	}
	if err != nil && hooks.pub == nil && exitCodeOf(ctx, err) != ExitInterrupted {
		date := o.date
		if d, derr := pipeline.BusinessDate(o.date, started.UTC()); derr == nil {
			date = d.Format(time.DateOnly)
		}
		hooks.deliveries = append(hooks.deliveries, hooks.notice.SendFailure(context.WithoutCancel(ctx), date, runSource(o), err, log)...)
	}
	emitMetrics(ctx, e, log, o.metricsFile, o.notice.metricsPush, newRunMetrics(ctx, o, hooks, err, started, time.Now()))
	return err
}

func runDisplayed(ctx context.Context, o runOptions, e Env, hooks *runHooks) error {
	if !reports.ValidSplitBy(o.splitBy) {
		return fmt.Errorf("--split-by %q: want group, or nothing for the whole run's workbook only", o.splitBy)
	}
	show, err := progress.Want(o.progress, isTerminal(e.Stderr))
	if err != nil {
		return err
	}
	terminal := isTerminal(e.Stderr)
	logOut := e.Stderr
	if show {
		d := progress.New(e.Stderr, time.Now)
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

// keyed records the response MLE key's expiry for the metrics and warns
// when it is near or past: an expired key is used all the same (the
// platform, not its date, decides whether it still encrypts for it), but
// loudly.
func (h *runHooks) keyed(k platform.ResponseMLEKey, now time.Time, log *slog.Logger) {
	if k.IsZero() {
		return
	}
	e, line, warn := alarms.ResponseMLEKeyStatus(k, now)
	if e.Known {
		h.mleNotAfter = e.NotAfter
	}
	if warn {
		log.Warn(line, "kid", e.KeyID, "not_after", e.NotAfter.UTC().Format(time.RFC3339), "days_left", e.DaysLeft)
	} else {
		log.Info(line, "kid", e.KeyID)
	}
}
