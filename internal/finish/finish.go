// Package finish is the end of a run, one sequence for `reconcile run` and
// `reconcile merge` (whose shards' publication is a run too): once the
// checks have written their findings into the run's database, Publish
//
//  1. checks the --alarms rules in that database (and the response MLE
//     key's expiry), so that the raised alarms are on the Summary sheet
//     and in the manifest;
//  2. reopens the database (store.Reopen says why: the checks' writes go
//     into the file and the publish step's queries start on a fresh
//     DuckDB instance);
//  3. publishes the outputs (reports.Publish);
//  4. sends the digests of --notify, which read the database still open;
//
// and a command that used it then writes its metrics (--metrics-file,
// --metrics-push), whatever its outcome. In full, a command does:
//
//	n, err := finish.Load(alarmsFile, notifyFile, getenv)  // at start: a bad file fails it before any work
//	...                                                    // the pipeline, or the merge of the shards
//	res, err := finish.Publish(ctx, db, run, finish.Options{Notice: n, ...})
//	// or, when it failed before publishing: n.SendFailure(...)
//	// then, whatever the outcome: the metrics, with res's alarms and deliveries
//
// Neither an alarm raised nor a digest that could not be delivered fails
// the run: they are reported, and the outputs are written either way.
package finish

import (
	"context"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/alarms"
	"github.com/reconcile/reconcile/internal/metrics"
	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/secretfile"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports"
)

// Notice is what an operator is told of a run: the --alarms rules and the
// --notify recipients, loaded. It is nil-safe: a nil *Notice (neither file
// given) checks no alarm and sends nothing.
type Notice struct {
	Rules  *alarms.Rules
	Notify *notify.Config
}

// Load reads the alarm rules (alarmsFile) and the notify file
// (notifyFile), either of which may be "", so that a mistake in them fails
// the command before any work. It returns nil when neither is given.
func Load(alarmsFile, notifyFile string, getenv func(string) string) (*Notice, error) {
	if alarmsFile == "" && notifyFile == "" {
		return nil, nil
	}
	n := &Notice{}
	var err error
	if alarmsFile != "" {
		if n.Rules, err = alarms.Load(alarmsFile); err != nil {
			return nil, err
		}
	}
	if notifyFile != "" {
		// Its secret files are held to the platform secret's rules: mode
		// 600, a regular file, a path never shown when it cannot be opened.
		readSecret := func(setting, path string) ([]byte, error) { return secretfile.Read(setting, path, true) }
		if n.Notify, err = notify.Load(notifyFile, readSecret, getenv); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// CheckAlarms checks the --alarms rules for the run in q's database, for
// the publish step. A failure to check them is itself a raised alarm
// (alarms.CheckOrRaise): the outputs are written either way.
func (n *Notice) CheckAlarms(ctx context.Context, q alarms.Querier, runID string) []reports.Alarm {
	if n == nil || n.Rules == nil {
		return nil
	}
	return alarms.CheckOrRaise(ctx, q, runID, n.Rules)
}

// Send delivers the digests of a published run and logs each outcome: a
// delivery that failed is a warning, never the run's failure.
func (n *Notice) Send(ctx context.Context, q notify.Querier, run reports.Publication, pub *reports.Published, log *slog.Logger) []notify.Delivery {
	if n == nil || n.Notify == nil {
		return nil
	}
	return logDeliveries(log, notify.Send(ctx, q, n.Notify, run, pub))
}

// SendFailure tells the run's recipients that it failed before it
// published (an interrupted run is not news: someone stopped it).
func (n *Notice) SendFailure(ctx context.Context, date, source string, runErr error, log *slog.Logger) []notify.Delivery {
	if n == nil || n.Notify == nil {
		return nil
	}
	return logDeliveries(log, notify.Deliver(ctx, n.Notify, notify.FailedRun(n.Notify, date, source, runErr)))
}

// logDeliveries logs each digest's outcome: a delivery that failed is a
// warning, never the run's failure.
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

// Options are what Publish needs besides the database and the run.
type Options struct {
	Out    string       // the output folder (reports.Publish)
	Notice *Notice      // nil: no alarm checked, no digest sent
	Log    *slog.Logger // nil: nothing logged
	// Key is the run's response MLE key, if any: the manifest states its
	// kid and expiry at Now, and with --alarms that expiry is an alarm of
	// the run (alarms.Rules.KeyExpiry).
	Key platform.ResponseMLEKey
	Now time.Time
	// Published, if set, is told of the publication before the digests are
	// sent: the command stops its progress display and prints its summary
	// there, so that the operator reads it while the digests go out.
	Published func(run reports.Publication, pub *reports.Published)
}

// Result is what the end of a run did.
type Result struct {
	Publication reports.Publication // as published: Alarms holds every alarm checked
	Published   *reports.Published  // nil if publishing failed
	Deliveries  []notify.Delivery   // the digests sent, delivered or not
}

// Publish is the end of a run whose checks are done in db: it checks the
// alarms (they become run.Alarms), reopens db, publishes run into o.Out
// and sends the digests, in that order (the package doc says why). The
// Result is returned even with an error, with the alarms checked, for the
// command's metrics. db stays open: the caller closes it.
func Publish(ctx context.Context, db *store.Store, run reports.Publication, o Options) (*Result, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := o.Notice
	run.Alarms = n.CheckAlarms(ctx, db.Conn(), run.RunID)
	if n != nil && n.Rules != nil && !o.Key.IsZero() {
		if e := o.Key.Expiry(o.Now); e.Known {
			run.Alarms = append(run.Alarms, n.Rules.KeyExpiry(e.KeyID, e.NotAfter, o.Now))
		}
	}
	if run.ResponseMLE == nil {
		run.ResponseMLE = manifestKey(o.Key, o.Now)
	}
	res := &Result{Publication: run}
	if err := db.Reopen(ctx); err != nil {
		return res, err
	}
	if err := db.FitThreadsToData(ctx); err != nil {
		return res, err
	}
	pub, err := reports.Publish(ctx, db.Conn(), o.Out, run)
	if err != nil {
		return res, err
	}
	res.Published = pub
	if o.Published != nil {
		o.Published(run, pub)
	}
	res.Deliveries = n.Send(ctx, db.Conn(), run, pub, log)
	return res, nil
}

// WriteMetrics is the last step of a command that ran (or merged) a run,
// whatever its outcome, so that a failed run shows in monitoring too: m
// goes to the metrics file (if file is set) and to the Pushgateway (if
// push is). Neither failure changes the command's outcome: a failed push
// is logged, like a digest not delivered, and the file's error is
// returned for the command to print (a stale file also shows by its age,
// node_textfile_mtime_seconds).
func WriteMetrics(ctx context.Context, log *slog.Logger, file, push string, m metrics.Report) error {
	var err error
	if file != "" {
		err = metrics.WriteFile(file, m)
	}
	if push != "" {
		if perr := metrics.Push(context.WithoutCancel(ctx), push, m); perr != nil {
			log.Warn("metrics not pushed", "error", perr.Error())
		}
	}
	return err
}

// manifestKey is the key's entry of the manifest: its kid and expiry,
// nothing of the key itself.
func manifestKey(k platform.ResponseMLEKey, now time.Time) *outputs.ManifestKey {
	if k.IsZero() {
		return nil
	}
	e := k.Expiry(now)
	mk := &outputs.ManifestKey{KeyID: e.KeyID}
	if e.Known {
		mk.NotAfter = e.NotAfter.UTC().Format(time.RFC3339)
		d := e.DaysLeft
		mk.DaysLeft = &d
	}
	return mk
}
