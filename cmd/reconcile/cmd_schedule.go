package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

const scheduleExamples = `  reconcile schedule --cron "0 2 * * *" --config /etc/reconcile/reconcile.yaml
  reconcile schedule --cron "CRON_TZ=UTC 30 1 * * *" --metrics-file /var/lib/node_exporter/textfile/reconcile.prom
  reconcile schedule --cron "@every 6h" --run-now          # the embedded sandbox, every 6 hours
`

const scheduleExitCodes = `Exit codes: 0 stopped by SIGTERM or SIGINT after the running job finished;
1 bad flags, config or cron spec; 130 stopped by a second signal, which
interrupted the running job (or by a third, which exits at once). Each run's
own outcome (0, 1, 3, 130) is logged and written to --metrics-file; the
schedule goes on after a failed run.`

// cmdSchedule is `reconcile schedule`: it stays up and runs the job (the
// same code as `reconcile run`, in this process) on a cron spec.
func cmdSchedule(ctx context.Context, args []string, e env) error {
	var spec string
	var runNow bool
	o, err := parseRunFlags("schedule --cron SPEC [run flags]",
		`Stay up and run "reconcile run" on a cron spec (5 fields, or @daily, @every 1h; local time unless the
spec starts CRON_TZ=Zone). A run never overlaps the previous one: a tick that finds it still running is
skipped and logged. On SIGTERM or SIGINT no new run starts and the running one finishes before the process
exits; a second signal interrupts it, and a third exits at once. Without --date each run takes the day
before it starts (UTC). Every run flag applies to each run.`,
		scheduleExamples, scheduleExitCodes, args, e, func(fs *flag.FlagSet) {
			fs.StringVar(&spec, "cron", "", `when to run, e.g. "0 2 * * *" (required)`)
			fs.BoolVar(&runNow, "run-now", false, "also run once at start")
		})
	if err != nil {
		return err
	}
	if spec == "" {
		return errors.New("schedule: --cron is required, e.g. --cron \"0 2 * * *\"")
	}
	log, err := newLogger(e.stderr, o.logLevel)
	if err != nil {
		return err
	}
	// A second SIGTERM or SIGINT, after the first stopped the schedule,
	// interrupts the running job (a third exits at once: main.go).
	hard := make(chan struct{})
	e.stops.then(func() { close(hard) })
	return runSchedule(ctx, o, spec, runNow, e, log, hard)
}

// runSchedule runs the job on spec until ctx is done, then waits for the
// running job. The jobs get a context that ctx's cancellation does not
// reach (the first signal means "stop after this run"); hard cancels them.
func runSchedule(ctx context.Context, o runOptions, spec string, runNow bool, e env, log *slog.Logger, hard <-chan struct{}) error {
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	interrupted := atomic.Bool{}
	go func() {
		select {
		case <-hard:
			interrupted.Store(true)
			log.Warn("second signal: interrupting the running job")
			cancelJobs()
		case <-jobCtx.Done():
		}
	}()

	logger := cronLogger{log}
	c := cron.New(cron.WithLogger(logger), cron.WithChain(cron.Recover(logger), cron.SkipIfStillRunning(logger)))
	var id cron.EntryID
	var runs atomic.Int64
	job := func() {
		n := runs.Add(1)
		started := time.Now()
		log.Info("scheduled run started", "run", n)
		err := runWithOutput(jobCtx, o, e)
		code := exitCodeOf(jobCtx, err)
		attrs := []any{"run", n, "exit_code", code, "duration", time.Since(started).Round(time.Millisecond).String()}
		if next := c.Entry(id).Next; !next.IsZero() && ctx.Err() == nil {
			attrs = append(attrs, "next", next)
		}
		if err != nil {
			log.Error("scheduled run finished", append(attrs, "error", err.Error())...)
		} else {
			log.Info("scheduled run finished", attrs...)
		}
	}
	var err error
	if id, err = c.AddFunc(spec, job); err != nil {
		return fmt.Errorf("schedule: --cron %q: %w", spec, err)
	}
	c.Start()
	log.Info("schedule started", "cron", spec, "next", c.Entry(id).Next)
	var extra sync.WaitGroup // the --run-now run, which cron does not track
	if runNow {
		wrapped := c.Entry(id).WrappedJob // through SkipIfStillRunning
		extra.Add(1)
		go func() {
			defer extra.Done()
			wrapped.Run()
		}()
	}

	<-ctx.Done()
	log.Info("stopping: no new runs; waiting for the running one to finish")
	<-c.Stop().Done()
	extra.Wait()
	if interrupted.Load() {
		log.Warn("schedule stopped; the running job was interrupted")
		return context.Canceled
	}
	log.Info("schedule stopped", "runs", runs.Load())
	return nil
}

// cronLogger sends robfig/cron's messages to slog.
type cronLogger struct{ log *slog.Logger }

func (l cronLogger) Info(msg string, kv ...any) {
	switch msg {
	case "skip":
		l.log.Warn("scheduled run skipped: the previous run is still running")
	case "start", "stop", "schedule", "wake", "run":
		l.log.Debug("cron "+msg, kv...)
	default:
		l.log.Info("cron "+msg, kv...)
	}
}

func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("cron "+msg, append(kv, "error", err.Error())...)
}
