package cli

import (
	"context"
	"errors"
	"flag"

	"github.com/reconcile/reconcile/internal/schedule"
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
func cmdSchedule(ctx context.Context, args []string, e Env) error {
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
	log, err := newLogger(e.Stderr, o.logLevel)
	if err != nil {
		return err
	}
	// A second SIGTERM or SIGINT, after the first stopped the schedule,
	// interrupts the running job (a third exits at once: main.go).
	hard := make(chan struct{})
	e.stops.then(func() { close(hard) })
	return schedule.Run(ctx, spec, runNow, log, hard, func(jobCtx context.Context) (int, error) {
		err := runWithOutput(jobCtx, o, e)
		return exitCodeOf(jobCtx, err), err
	})
}
