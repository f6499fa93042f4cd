package ingest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/pipeline/pipelinetest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/store"
)

// benchScale is the sandbox scale of the ingest benchmarks;
// RECONCILE_BENCH_SCALE overrides it.
func benchScale(b *testing.B, def string) sandbox.Scale {
	s := def
	if v := os.Getenv("RECONCILE_BENCH_SCALE"); v != "" {
		s = v
	}
	scale, err := sandbox.ParseScale(s)
	if err != nil {
		b.Fatal(err)
	}
	return scale
}

// stage is the named stage of a run (zero if it did not run).
func stage(res *pipeline.Result, name string) pipeline.Stage {
	for _, s := range res.Stages {
		if s.Name == name {
			return s
		}
	}
	return pipeline.Stage{}
}

// BenchmarkRateBudget runs against a sandbox answering after 50 ms, under
// one request budget of R/s for the whole run (RECONCILE_BENCH_RATE,
// default 400; the run's token bucket, pipeline.Limiter) with reconcile
// run's defaults (8 members at once, 4 payment lists each), and reports the
// achieved requests/s of the members stage next to R, and the speed-up
// over pulling one member, one request at a time (measured on a few
// members without a budget). 64 members of 40 subscriptions make some
// 2,800 requests: the stage's start and its last members, when fewer than
// 8 are left, weigh in it as little as in a nightly run.
func BenchmarkRateBudget(b *testing.B) {
	limit := 400.0
	if v := os.Getenv("RECONCILE_BENCH_RATE"); v != "" {
		json.Unmarshal([]byte(v), &limit)
	}
	slow := sandbox.Faults{Latency: 50 * time.Millisecond}
	for b.Loop() {
		run := pipelinetest.Sandbox(b, sandbox.Config{Seed: 7, Scale: benchScale(b, "members=64,subscriptions=40,groups=2"), Faults: slow},
			pipeline.Options{Concurrency: 8, PaymentLists: 4}, rate.Limit(limit))
		members := stage(run.Result, "members")
		achieved := float64(members.Requests) / members.Duration.Seconds()

		// The peer: one member, one payment list, and a sandbox that
		// answers one request at a time (a member lists its plans and its
		// transactions beside its subscriptions).
		seqScale, _ := sandbox.ParseScale("members=2,subscriptions=20,groups=1")
		var one sync.Mutex
		oneAtATime := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				one.Lock()
				defer one.Unlock()
				next.ServeHTTP(w, r)
			})
		}
		seq := pipelinetest.SandboxServed(b, sandbox.Config{Seed: 7, Scale: seqScale, Faults: slow},
			pipeline.Options{Concurrency: 1, PaymentLists: 1}, 0, oneAtATime)
		seqMembers := stage(seq.Result, "members")
		sequential := float64(seqMembers.Requests) / seqMembers.Duration.Seconds()

		b.ReportMetric(limit, "budget_req/s")
		b.ReportMetric(achieved, "achieved_req/s")
		b.ReportMetric(100*achieved/limit, "%_of_budget")
		b.ReportMetric(sequential, "sequential_req/s")
		b.ReportMetric(achieved/sequential, "speedup")
	}
}

// BenchmarkImportJournals imports the journals of a sandbox of 20 members
// (about a week of calls each) into a fresh database and reports lines/s.
func BenchmarkImportJournals(b *testing.B) {
	scale := benchScale(b, "members=20,subscriptions=20,groups=1")
	srv, err := sandbox.New(sandbox.Config{Seed: 7, Scale: scale})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := srv.WriteJournals(filepath.Join(dir, "j")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "j.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		imports, err := ingest.ImportJournals(context.Background(), s, filepath.Join(dir, "j", "*.ndjson"), start)
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		lines := 0
		for _, imp := range imports {
			lines += imp.Lines
		}
		s.Close()
		b.ReportMetric(float64(lines), "lines")
		b.ReportMetric(float64(lines)/elapsed.Seconds(), "lines/s")
	}
}
