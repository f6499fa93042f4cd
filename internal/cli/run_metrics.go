package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/metrics"
	"github.com/reconcile/reconcile/internal/pipeline"
)

// outcomeMetrics are the metrics of any command's outcome: its shard
// label, status and exit code (from err), and when it ran.
func outcomeMetrics(ctx context.Context, err error, shard string, started, finished time.Time) metrics.Report {
	code := exitCodeOf(ctx, err)
	m := metrics.Report{
		Shard: shard, ExitCode: code, Started: started, Finished: finished, Version: buildVersion(),
		Status: map[int]string{ExitOK: "ok", ExitPartial: "partial", ExitInterrupted: "interrupted"}[code],
	}
	if m.Status == "" {
		m.Status = "failed"
	}
	return m
}

func newRunMetrics(ctx context.Context, o runOptions, h *runHooks, err error, started, finished time.Time) metrics.Report {
	m := outcomeMetrics(ctx, err, o.shard, started, finished)
	m.Source = runSource(o)
	if d, err := pipeline.BusinessDate(o.date, started.UTC()); err == nil {
		m.Date = d
	}
	m.AddRun(h.res)
	if p := h.pub; p != nil {
		// By state only once published: the publish step counts them so.
		m.Findings = p.Findings
	}
	m.Alarms, m.Deliveries, m.MLENotAfter = h.alarms, h.deliveries, h.mleNotAfter
	return m
}

// mergeShard is the shard label of a merge's metrics, and so its own
// group on the Pushgateway beside the shards' (i/n).
const mergeShard = "merged"

// newMergeMetrics are the metrics of a merge: its outcome, and once it
// published, the merged run's (metrics.Report.AddMerge). date is zero if
// --date did not parse.
func newMergeMetrics(ctx context.Context, w *mergeWatch, date time.Time, err error, started, finished time.Time) metrics.Report {
	m := outcomeMetrics(ctx, err, mergeShard, started, finished)
	m.Date, m.Deliveries = date, w.deliveries
	m.AddMerge(w.res)
	return m
}

// emitMetrics writes m to the metrics file and pushes it to the
// Pushgateway, each if asked (finish.WriteMetrics); neither failure changes
// the command's outcome.
func emitMetrics(ctx context.Context, e Env, log *slog.Logger, file, push string, m metrics.Report) {
	if err := finish.WriteMetrics(ctx, log, file, push, m); err != nil {
		fmt.Fprintf(e.Stderr, "reconcile: %s\n", errorText(err))
	}
}
