package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/reconcile/reconcile/alarms"
	"github.com/reconcile/reconcile/internal/secretfile"
	"github.com/reconcile/reconcile/notify"
	"github.com/reconcile/reconcile/reports"
)

// noticeOptions are the flags of what an operator is told of a
// publication, by `reconcile run` (and `schedule`) and by any command that
// publishes (a merge): --alarms, --notify and --metrics-push.
//
// A command that publishes uses them in this order (runRun does):
//
//	n, err := loadNotice(o.notice, e.getenv)        // at start: a bad file is exit 1
//	run.Alarms = n.checkAlarms(ctx, db, run.RunID)  // before reports.Publish
//	pub, err := reports.Publish(ctx, db, out, run)
//	n.send(ctx, db, run, pub, log)                  // the digests, after it
//
// and, when it fails before publishing, n.sendFailure; then the metrics
// (with the alarms and deliveries) go to --metrics-file and --metrics-push.
type noticeOptions struct {
	alarms      string
	notify      string
	metricsPush string
}

func (n *noticeOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&n.alarms, "alarms", "", "YAML file of alarm thresholds; raised alarms are marked on the Summary sheet, in the manifest, the metrics and the digest's subject (docs/operations.md)")
	fs.StringVar(&n.notify, "notify", "", "YAML file saying who gets the digest of each run: e-mail (SMTP with STARTTLS) and webhooks, per group (docs/operations.md)")
	fs.StringVar(&n.metricsPush, "metrics-push", "", "Prometheus Pushgateway URL: push the run's metrics there too (job reconcile, grouped by shard)")
}

// notice is what noticeOptions name, loaded; nil-safe: a nil *notice (no
// such flag given) checks no alarm and sends nothing.
type notice struct {
	rules  *alarms.Rules
	notify *notify.Config
}

// loadNotice reads the --alarms and --notify files and checks
// --metrics-push, so that a mistake fails the command before any work.
func loadNotice(o noticeOptions, getenv func(string) string) (*notice, error) {
	if o.metricsPush != "" {
		if _, err := pushURL(o.metricsPush, "0/1"); err != nil {
			return nil, err
		}
	}
	if o.alarms == "" && o.notify == "" {
		return nil, nil
	}
	n := &notice{}
	var err error
	if o.alarms != "" {
		if n.rules, err = alarms.Load(o.alarms); err != nil {
			return nil, err
		}
	}
	if o.notify != "" {
		// Its secret files are held to the platform secret's rules: mode
		// 600, a regular file, a path never shown when it cannot be opened.
		readSecret := func(setting, path string) ([]byte, error) { return secretfile.Read(setting, path, true) }
		if n.notify, err = notify.Load(o.notify, readSecret, getenv); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// checkAlarms checks the --alarms rules for the run in q's database, for
// the publish step. A failure to check them is itself a raised alarm
// (alarms.CheckOrRaise): the outputs are written either way.
func (n *notice) checkAlarms(ctx context.Context, q alarms.Querier, runID string) []reports.Alarm {
	if n == nil || n.rules == nil {
		return nil
	}
	return alarms.CheckOrRaise(ctx, q, runID, n.rules)
}

// send delivers the digests of a published run and logs each outcome: a
// delivery that failed is a warning, never the run's failure.
func (n *notice) send(ctx context.Context, q notify.Querier, run reports.Run, pub *reports.Published, log *slog.Logger) []notify.Delivery {
	if n == nil || n.notify == nil {
		return nil
	}
	return logDeliveries(log, notify.Send(ctx, q, n.notify, run, pub))
}

// sendFailure tells the run's recipients that it failed before it
// published (an interrupted run is not news: someone stopped it).
func (n *notice) sendFailure(ctx context.Context, date, source string, runErr error, log *slog.Logger) []notify.Delivery {
	if n == nil || n.notify == nil {
		return nil
	}
	return logDeliveries(log, notify.Deliver(ctx, n.notify, notify.FailedRun(n.notify, date, source, runErr)))
}

func logDeliveries(log *slog.Logger, ds []notify.Delivery) []notify.Delivery {
	for _, d := range ds {
		attrs := []any{"channel", d.Channel, "to", d.To, "subject", d.Subject}
		if d.Group != "" {
			attrs = append(attrs, "group_id", d.Group)
		}
		if d.Err != nil {
			log.Warn("digest not delivered", append(attrs, "error", d.Err.Error())...)
		} else {
			log.Info("digest delivered", attrs...)
		}
	}
	return ds
}

// printAlarms adds the raised alarms to the run's summary on stdout.
func printAlarms(w io.Writer, list []reports.Alarm) {
	raised := reports.RaisedAlarms(list)
	if len(list) == 0 {
		return
	}
	if len(raised) == 0 {
		fmt.Fprintf(w, "alarms: none raised (%d checked)\n", len(list))
		return
	}
	labels := make([]string, len(raised))
	for i, a := range raised {
		labels[i] = a.Label()
	}
	fmt.Fprintf(w, "ALARMS: %d raised: %s\n", len(raised), terminalLine(strings.Join(labels, ", ")))
	for _, a := range raised {
		fmt.Fprintf(w, "  %s\n", terminalLine(a.Message))
	}
}
