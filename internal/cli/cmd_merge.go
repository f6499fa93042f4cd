package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/merge"
	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/reports"
)

// mergeOptions are the flags of `reconcile merge`; those it shares with
// run (--date, --out, --split-by, --memory-limit, --log-level) mean the
// same there.
type mergeOptions struct {
	date         string
	from         string
	out          string
	allowPartial bool
	splitBy      string
	memoryLimit  string
	logLevel     string
	metricsFile  string
	notice       noticeOptions // --alarms, --notify, --metrics-push, as run's
}

const mergeExamples = `  reconcile merge --date 2026-11-20 --from '/shared/reconcile/shard=*' --out /shared/reconcile/merged
  reconcile merge --from 'out/shard=*' --out out/merged          # yesterday's shards
  reconcile merge --from 'out/shard=*' --out out/merged --allow-partial   # without a shard that failed
  reconcile merge --from 'out/shard=*' --out out/merged --alarms alarms.yaml --notify notify.yaml \
      --metrics-push http://pushgateway:9091   # the portfolio's alarms, its one digest, the merge's metrics
`

const mergeExitCodes = `Exit codes: 0 every shard present and ok, published; 1 refused or failed, nothing published
(a shard missing, shards of different n, run with different settings or versions, a snapshot that
does not match its manifest, --out inside a shard's folder); 3 partial: published, but a shard was
partial, or missing under --allow-partial; 130 interrupted. A raised alarm (--alarms), a digest
not delivered (--notify) or a failed push (--metrics-push) never changes them.`

// cmdMerge is `reconcile merge`: one publication from the shards of a
// business date (package merge), with what a run tells an operator around
// it: the alarms checked before the publish step, the digest after it,
// and the metrics, whatever the outcome.
func cmdMerge(ctx context.Context, args []string, e Env) error {
	o, err := parseMergeFlags(args, e)
	if err != nil {
		return err
	}
	started := time.Now()
	w := &mergeWatch{}
	err = mergeAndTell(ctx, o, e, w)
	log := w.log
	if log == nil { // it failed before its logger was made (a bad --log-level)
		log, _ = newLogger(e.Stderr, "info")
	}
	date, derr := pipeline.BusinessDate(o.date, started.UTC())
	if err != nil && w.res == nil && exitCodeOf(ctx, err) != ExitInterrupted {
		day := o.date
		if derr == nil {
			day = date.Format(time.DateOnly)
		}
		// The shards' source is unknown until they are read: not marked simulated.
		w.deliveries = append(w.deliveries, w.notice.SendFailure(context.WithoutCancel(ctx), day, "", err, log)...)
	}
	emitMetrics(ctx, e, log, o.metricsFile, o.notice.metricsPush, newMergeMetrics(ctx, w, date, err, started, time.Now()))
	return err
}

func parseMergeFlags(args []string, e Env) (mergeOptions, error) {
	var o mergeOptions
	fs := newFlagSetCodes("merge --from GLOB [flags]",
		`Publish the shards of a business date (runs with --shard i/n, each with its own --out) as one run:
one workbook, one manifest listing every shard and its status, the Parquet datasets and one DuckDB
snapshot, into --out/<date>/, as a run over every member would have. The shards' snapshots are read,
read-only; nothing is written into a shard's folder. Refused unless every shard 0..n-1 of the date is
published, once, by runs of one n with the same settings and version; --allow-partial publishes
without the missing shards (marked partial; their members count as failed). --alarms, --notify and
--metrics-push do for the merged run what they do for a run (docs/operations.md).`,
		mergeExamples, mergeExitCodes, e)
	fs.StringVar(&o.date, "date", "", "business day, UTC (YYYY-MM-DD), as the shards ran it (default yesterday)")
	fs.StringVar(&o.from, "from", "", `glob of the shards' output folders (their --out), e.g. 'out/shard=*' (required)`)
	fs.StringVar(&o.out, "out", "out", "output folder of the merged publication (not a shard's)")
	fs.BoolVar(&o.allowPartial, "allow-partial", false, "publish without the shards that are missing (their run failed or has not finished), marked partial")
	fs.StringVar(&o.splitBy, "split-by", "", `"group": also write one workbook per group`)
	fs.StringVar(&o.memoryLimit, "memory-limit", "256MB", "DuckDB's buffer memory for the merge; data beyond it goes to disk")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.metricsFile, "metrics-file", "", `write Prometheus metrics of the merge to this file (node_exporter textfile collector; shard="merged")`)
	o.notice.register(fs)
	if err := cliflags.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("merge: unexpected argument %q", fs.Arg(0))
	}
	if o.from == "" {
		return o, fmt.Errorf("merge: --from is required: the shards' output folders, e.g. --from 'out/shard=*'")
	}
	return o, nil
}

// mergeWatch is what a merge tells an operator besides its exit code, as
// runHooks are for a run: its logger, what --alarms and --notify loaded,
// what it published (the alarms checked are its Run's) and the digests
// sent.
type mergeWatch struct {
	log        *slog.Logger
	notice     *finish.Notice
	res        *merge.Result
	deliveries []notify.Delivery
}

// mergeAndTell merges, checking the alarms before the publish step and
// sending the digests after it, and prints the summary.
func mergeAndTell(ctx context.Context, o mergeOptions, e Env, w *mergeWatch) error {
	if !reports.ValidSplitBy(o.splitBy) {
		return fmt.Errorf("--split-by %q: want group, or nothing for the whole run's workbook only", o.splitBy)
	}
	date, err := pipeline.BusinessDate(o.date, time.Now().UTC())
	if err != nil {
		return err
	}
	log, err := newLogger(e.Stderr, o.logLevel)
	if err != nil {
		return err
	}
	w.log = log
	n, err := loadNotice(o.notice, e.Getenv)
	if err != nil {
		return err
	}
	w.notice = n
	res, err := merge.Merge(ctx, merge.Options{
		Date:         date,
		From:         o.from,
		Out:          o.out,
		AllowPartial: o.allowPartial,
		SplitBy:      o.splitBy,
		MemoryLimit:  o.memoryLimit,
		Version:      buildVersion(),
		Logger:       log,
		Finish: func(ctx context.Context, db *store.Store, run reports.Publication) (reports.Publication, *reports.Published, error) {
			fin, err := finish.Publish(ctx, db, run, finish.Options{Out: o.out, Notice: n, Log: log})
			w.deliveries = append(w.deliveries, fin.Deliveries...)
			return fin.Publication, fin.Published, err
		},
	})
	if err != nil {
		return err
	}
	w.res = res
	log.Info("merge finished", "run_id", res.Publication.RunID, "status", res.Publication.Status, "shards", len(res.Publication.Shards),
		"missing", strings.Join(res.Missing(), ","), "output", res.Published.Dir)
	printMergeSummary(e, res)
	reports.WriteAlarms(e.Stdout, res.Publication.Alarms)
	if res.Publication.Status != string(store.RunOK) {
		return partialError{res.Problems()}
	}
	return nil
}

func printMergeSummary(e Env, res *merge.Result) {
	run, pub := res.Publication, res.Published
	reconciled, members := run.Members[string(store.MemberOK)], run.Members[string(store.MemberOK)]+run.Members[string(store.MemberFailed)]
	fmt.Fprintf(e.Stdout, "merge %s (%s): %d of %d shards, %d of %d members reconciled; source: %s\n",
		run.RunID, run.Status, len(run.Shards)-len(res.Missing()), len(run.Shards), reconciled, members, reports.SourceLabel(run.Source))
	for _, s := range run.Shards {
		where := pathText(s.Folder)
		if s.Status == merge.StatusMissing {
			where = pathText(s.Reason) // it names the shard's folder
		}
		fmt.Fprintf(e.Stdout, "  shard %-9s %-8s %s\n", s.Shard, s.Status, where)
	}
	current := map[string]int64{}
	var total int64
	for _, state := range []store.FindingState{store.FindingNew, store.FindingOpen} {
		for kind, n := range pub.Findings[string(state)] {
			current[kind] += n
			total += n
		}
	}
	fmt.Fprintf(e.Stdout, "findings: %d\n", total)
	for _, k := range sortedKeys(current) {
		fmt.Fprintf(e.Stdout, "  %-32s %d\n", k, current[k])
	}
	fmt.Fprintf(e.Stdout, "workbook: %s\nmanifest: %s\nsnapshot: %s (also %s)\n",
		pathText(pub.Workbook), pathText(pub.Manifest), pathText(pub.Snapshot), pathText(pub.Current))
	pub.WriteChanges(e.Stdout)
}
