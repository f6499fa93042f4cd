package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/reconcile/reconcile/internal/finish"
	"github.com/reconcile/reconcile/internal/metrics"
	"github.com/reconcile/reconcile/internal/store"
)

// outcomeMetrics are the metrics of any command's outcome: its shard
// label, status and exit code (from err), and when it ran.
func outcomeMetrics(ctx context.Context, err error, shard string, started, finished time.Time) metrics.Report {
	code := exitCodeOf(ctx, err)
	m := metrics.Report{
		Shard: shard, ExitCode: code, Started: started, Finished: finished, Version: buildVersion(),
		Status: map[int]string{exitOK: "ok", exitPartial: "partial", exitInterrupted: "interrupted"}[code],
	}
	if m.Status == "" {
		m.Status = "failed"
	}
	return m
}

func newRunMetrics(ctx context.Context, o runOptions, h *runHooks, err error, started, finished time.Time) metrics.Report {
	m := outcomeMetrics(ctx, err, o.shard, started, finished)
	m.Source = runSource(o)
	if d, err := businessDate(o.date, started.UTC()); err == nil {
		m.Date = d
	}
	if r := h.res; r != nil {
		m.Known = true
		counts := memberCounts(r)
		m.MembersOK, m.Failed, m.Skipped = counts[string(store.MemberOK)], counts[string(store.MemberFailed)], counts[alreadyDone]
		m.Requests, m.Retries, m.Rows = r.Requests, r.Retries, r.Rows
		m.Traffic = requestAccount(r)
		m.Stages = map[string]time.Duration{}
		for _, s := range r.Stages {
			m.Stages[s.Name] += s.Duration
		}
	}
	if p := h.pub; p != nil {
		// By state only once published: the publish step counts them so.
		m.Findings = p.Findings
	}
	m.Alarms, m.Deliveries = h.alarms, h.deliveries
	if h != nil {
		m.MLENotAfter = h.mleNotAfter
	}
	return m
}

// mergeShard is the shard label of a merge's metrics, and so its own
// group on the Pushgateway beside the shards' (i/n).
const mergeShard = "merged"

// newMergeMetrics are the metrics of a merge: its outcome, and once it
// published, the merged run's members, findings and alarms. It sends no
// request and loads no record (requests, retries and rows are 0; the
// shards' own metrics have theirs). date is zero if --date did not parse.
func newMergeMetrics(ctx context.Context, w *mergeWatch, date time.Time, err error, started, finished time.Time) metrics.Report {
	m := outcomeMetrics(ctx, err, mergeShard, started, finished)
	m.Date, m.Deliveries = date, w.deliveries
	if r := w.res; r != nil {
		m.Known = true
		m.Source, m.Alarms, m.Findings = r.Run.Source, r.Run.Alarms, r.Published.Findings
		m.MembersOK, m.Failed = r.Run.Members[string(store.MemberOK)], r.Run.Members[string(store.MemberFailed)]
	}
	return m
}

// emitMetrics writes m to the metrics file and pushes it to the
// Pushgateway, each if asked (finish.WriteMetrics); neither failure changes
// the command's outcome.
func emitMetrics(ctx context.Context, e env, log *slog.Logger, file, push string, m metrics.Report) {
	if err := finish.WriteMetrics(ctx, log, file, push, m); err != nil {
		fmt.Fprintf(e.stderr, "reconcile: %s\n", errorText(err))
	}
}
