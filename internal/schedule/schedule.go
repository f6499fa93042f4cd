// Package schedule runs a job on a cron spec (robfig/cron) for
// `reconcile schedule`: never two at once, each run's outcome logged, and
// a stop in stages: the first signal lets the running job finish, a second
// interrupts it.
package schedule

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
)

// Run runs job on spec until ctx is done, then waits for the running
// job; a tick that finds it still running is skipped and logged. The jobs
// get a context that ctx's cancellation does not reach (the first signal
// means "stop after this run"); hard cancels them, and Run then returns
// context.Canceled. job returns its exit code and error, which are logged.
func Run(ctx context.Context, spec string, runNow bool, log *slog.Logger, hard <-chan struct{},
	job func(ctx context.Context) (code int, err error)) error {
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
	tick := func() {
		n := runs.Add(1)
		started := time.Now()
		log.Info("scheduled run started", "run", n)
		code, err := job(jobCtx)
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
	if id, err = c.AddFunc(spec, tick); err != nil {
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
