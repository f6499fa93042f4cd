// Package pipelinetest runs whole reconciliations for tests and
// benchmarks: an in-process sandbox served on loopback, a real client and
// a fresh working database in the test's temporary folder.
package pipelinetest

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"golang.org/x/time/rate"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
)

// Finished is a finished run and where it ran.
type Finished struct {
	Result *pipeline.Result
	Store  *store.Store // open until the test ends
	Dir    string       // the test's folder holding the database (and the journals)
	opts   pipeline.Options
}

// JournalsOfSandbox, as Options.JournalGlob, imports the journals the
// sandbox writes for its members.
const JournalsOfSandbox = "sandbox"

// Sandbox runs one reconciliation against a sandbox of cfg on loopback
// into a fresh DuckDB file, with opts (its client, organization and date
// are the sandbox's) and, when limit > 0, a request budget of limit per
// second (the run's token bucket, pipeline.Limiter). Every member must
// reconcile.
func Sandbox(tb testing.TB, cfg sandbox.Config, opts pipeline.Options, limit rate.Limit) Finished {
	tb.Helper()
	return SandboxServed(tb, cfg, opts, limit, nil)
}

// SandboxServed is Sandbox with the sandbox's handler wrapped by wrap (when
// not nil), e.g. to record the responses of the run.
func SandboxServed(tb testing.TB, cfg sandbox.Config, opts pipeline.Options, limit rate.Limit, wrap func(http.Handler) http.Handler) Finished {
	tb.Helper()
	clientOpts := []platform.Option{platform.WithConnections(opts.Concurrency * max(opts.PaymentLists, 1))}
	if limit > 0 {
		clientOpts = append(clientOpts, platform.WithRateLimiter(pipeline.Limiter(float64(limit), opts.Concurrency)))
	}
	envOpts := []sandboxtest.Option{sandboxtest.WithClientOptions(clientOpts...)}
	if wrap != nil {
		envOpts = append(envOpts, sandboxtest.WithHandler(wrap))
	}
	env := sandboxtest.Start(tb, cfg, envOpts...)
	srv, client, c := env.Server, env.Client, env.Server.Config()
	dir := tb.TempDir()
	if opts.JournalGlob == JournalsOfSandbox {
		if _, err := srv.WriteJournals(filepath.Join(dir, "journals")); err != nil {
			tb.Fatal(err)
		}
		opts.JournalGlob = filepath.Join(dir, "journals", "*.ndjson")
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "bench.duckdb"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	opts.Client, opts.OrganizationID, opts.BusinessDate = client, c.OrganizationID, c.BusinessDate
	run := Finished{Store: s, Dir: dir, opts: opts}
	run.Result = run.Again(tb, func(*pipeline.Options) {})
	return run
}

// Again runs the reconciliation once more into the run's database, against
// the same sandbox, with the run's options as change leaves them (e.g. Force
// set). Every member must reconcile.
func (r Finished) Again(tb testing.TB, change func(*pipeline.Options)) *pipeline.Result {
	tb.Helper()
	opts := r.opts
	change(&opts)
	res, err := pipeline.Run(context.Background(), r.Store, opts)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Failed) > 0 {
		tb.Fatalf("%d members failed: %v", len(res.Failed), res.Failed[0])
	}
	return res
}
