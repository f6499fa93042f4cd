package metrics

import (
	"time"

	"github.com/reconcile/reconcile/internal/merge"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/store"
)

// AddRun fills m with what run r did: its members by outcome (as the
// manifest counts them, pipeline.Result.MemberCounts), requests, rows,
// request accounting and stage times. A nil r (the run failed before it
// had a result) leaves m's counts unknown.
func (m *Report) AddRun(r *pipeline.Result) {
	if r == nil {
		return
	}
	m.Known = true
	counts := r.MemberCounts()
	m.MembersOK, m.Failed, m.Skipped = counts[string(store.MemberOK)], counts[string(store.MemberFailed)], counts[pipeline.AlreadyDone]
	m.Requests, m.Retries, m.Rows = r.Requests, r.Retries, r.Rows
	m.Traffic = r.RequestAccount()
	m.Stages = map[string]time.Duration{}
	for _, s := range r.Stages {
		m.Stages[s.Name] += s.Duration
	}
}

// AddMerge fills m with what a merge published: the merged run's source,
// members, findings and alarms. A merge sends no request and loads no
// record (requests, retries and rows stay 0; the shards' own metrics have
// theirs). A nil r (the merge published nothing) leaves m's counts
// unknown.
func (m *Report) AddMerge(r *merge.Result) {
	if r == nil {
		return
	}
	m.Known = true
	m.Source, m.Alarms, m.Findings = r.Publication.Source, r.Publication.Alarms, r.Published.Findings
	m.MembersOK, m.Failed = r.Publication.Members[string(store.MemberOK)], r.Publication.Members[string(store.MemberFailed)]
}
