package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/sandbox"
	"github.com/reconcile/reconcile/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/subscriptions"
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

type benchRun struct {
	res   *Result
	store *Store
	dir   string
}

// runAgainstSandbox runs one ingest against an in-process sandbox on
// loopback into a fresh DuckDB file. With opts.JournalGlob set to
// "sandbox", the run imports the sandbox's journals.
func runAgainstSandbox(b testing.TB, cfg sandbox.Config, opts Options, limit rate.Limit) benchRun {
	b.Helper()
	clientOpts := []platform.Option{platform.WithConnections(opts.Concurrency * max(opts.PaymentLists, 1))}
	if limit > 0 {
		clientOpts = append(clientOpts, platform.WithRateLimiter(rate.NewLimiter(limit, 1)))
	}
	env := sandboxtest.Start(b, cfg, sandboxtest.WithClientOptions(clientOpts...))
	srv, client, c := env.Server, env.Client, env.Server.Config()
	dir := b.TempDir()
	if opts.JournalGlob == "sandbox" {
		if _, err := srv.WriteJournals(filepath.Join(dir, "journals")); err != nil {
			b.Fatal(err)
		}
		opts.JournalGlob = filepath.Join(dir, "journals", "*.ndjson")
	}
	store, err := Open(context.Background(), filepath.Join(dir, "bench.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	opts.Client, opts.OrganizationID, opts.BusinessDate = client, c.OrganizationID, c.BusinessDate
	res, err := Run(context.Background(), store, opts)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Failed) > 0 {
		b.Fatalf("%d members failed: %v", len(res.Failed), res.Failed[0])
	}
	return benchRun{res: res, store: store, dir: dir}
}

func stage(res *Result, name string) Stage {
	for _, s := range res.Stages {
		if s.Name == name {
			return s
		}
	}
	return Stage{}
}

// BenchmarkIngest measures the end-to-end ingest rate (records pulled over
// loopback from a zero-latency sandbox and loaded into DuckDB, per second of
// the members stage) next to the ceiling of the same run: decoding the same
// records from their stored raw JSON and loading them the same way, with no
// network and no sandbox. It reports both and their ratio.
func BenchmarkIngest(b *testing.B) {
	scale := benchScale(b, "members=20,subscriptions=100,groups=2")
	for b.Loop() {
		run := runAgainstSandbox(b, sandbox.Config{Seed: 7, Scale: scale},
			Options{Concurrency: 8, PaymentLists: 4}, 0)
		e2e := float64(run.res.Rows) / stage(run.res, "members").Duration.Seconds()
		rows, elapsed := loadCeiling(b, run.store, run.dir)
		ceiling := float64(rows) / elapsed.Seconds()
		b.ReportMetric(float64(run.res.Rows), "records")
		b.ReportMetric(e2e, "records/s")
		b.ReportMetric(ceiling, "ceiling_records/s")
		b.ReportMetric(100*e2e/ceiling, "%_of_ceiling")
	}
}

// loadCeiling decodes every stored record of src again (2 goroutines, as
// MEASURED.md's ceiling) and loads it into a fresh database through the
// same batches and single writer as a run.
func loadCeiling(b *testing.B, src *Store, dir string) (int64, time.Duration) {
	b.Helper()
	ctx := context.Background()
	type memberRaw struct {
		mid               string
		plans, subs, txns []json.RawMessage
		payments          map[string][]json.RawMessage
	}
	raws := map[string]*memberRaw{}
	get := func(mid string) *memberRaw {
		if raws[mid] == nil {
			raws[mid] = &memberRaw{mid: mid, payments: map[string][]json.RawMessage{}}
		}
		return raws[mid]
	}
	read := func(q string, f func(mid, sub string, raw json.RawMessage)) {
		rows, err := src.db.QueryContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var mid string
			var sub sql.NullString
			var raw string
			if err := rows.Scan(&mid, &sub, &raw); err != nil {
				b.Fatal(err)
			}
			f(mid, sub.String, json.RawMessage(raw))
		}
	}
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM plans`, func(m, _ string, r json.RawMessage) { get(m).plans = append(get(m).plans, r) })
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM subscriptions`, func(m, _ string, r json.RawMessage) { get(m).subs = append(get(m).subs, r) })
	read(`SELECT merchant_id, subscription_id, CAST(raw AS VARCHAR) FROM subscription_payments`, func(m, s string, r json.RawMessage) {
		get(m).payments[s] = append(get(m).payments[s], r)
	})
	read(`SELECT merchant_id, NULL, CAST(raw AS VARCHAR) FROM transactions`, func(m, _ string, r json.RawMessage) { get(m).txns = append(get(m).txns, r) })

	dst, err := Open(ctx, filepath.Join(dir, "ceiling.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	start := time.Now()
	batches := make(chan *memberBatch, 16)
	var g errgroup.Group
	g.SetLimit(2)
	var total int64
	done := make(chan error, 1)
	go func() {
		var err error
		var group []loadJob
		rows := 0
		flush := func() {
			if e := dst.loadMembers(ctx, group); e != nil && err == nil {
				err = e
			}
			group, rows = nil, 0
		}
		for batch := range batches {
			j := loadJob{batch: batch, status: memberStatus{runID: "bench", merchantID: batch.merchantID, status: "ok"}}
			total += int64(j.rows())
			group, rows = append(group, j), rows+j.rows()
			if rows >= maxRowsPerLoad || len(batches) == 0 {
				flush()
			}
		}
		if len(group) > 0 {
			flush()
		}
		done <- err
	}()
	for _, m := range raws {
		g.Go(func() error {
			snap := &subscriptions.Snapshot{Payments: map[string]*platform.PaymentList{}}
			for _, r := range m.plans {
				p, err := platform.DecodePlan(r)
				if err != nil {
					return err
				}
				snap.Plans = append(snap.Plans, p)
			}
			for _, r := range m.subs {
				s, err := platform.DecodeSubscription(r)
				if err != nil {
					return err
				}
				snap.Subscriptions = append(snap.Subscriptions, s)
				list := &platform.PaymentList{}
				for _, pr := range m.payments[s.ID] {
					p, err := platform.DecodePayment(pr)
					if err != nil {
						return err
					}
					list.Payments = append(list.Payments, p)
				}
				snap.Payments[s.ID] = list
			}
			batch := newMemberBatch(m.mid)
			if err := batch.addRecurring(snap, nil, "bench", start); err != nil {
				return err
			}
			for _, r := range m.txns {
				t, err := platform.DecodeTransaction(r)
				if err != nil {
					return err
				}
				if err := batch.addTransaction(t, "bench", start); err != nil {
					return err
				}
			}
			batches <- batch
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	close(batches)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return total, time.Since(start)
}

// BenchmarkRateBudget runs against a sandbox answering after 50 ms, under
// one request budget of R/s for the whole run (RECONCILE_BENCH_RATE,
// default 200), and reports the achieved requests/s of the members stage
// next to R, and the speed-up over pulling one member, one request at a
// time (measured on a few members without a budget).
func BenchmarkRateBudget(b *testing.B) {
	limit := 200.0
	if v := os.Getenv("RECONCILE_BENCH_RATE"); v != "" {
		json.Unmarshal([]byte(v), &limit)
	}
	slow := sandbox.Faults{Latency: 50 * time.Millisecond}
	for b.Loop() {
		run := runAgainstSandbox(b, sandbox.Config{Seed: 7, Scale: benchScale(b, "members=24,subscriptions=40,groups=2"), Faults: slow},
			Options{Concurrency: 8, PaymentLists: 4}, rate.Limit(limit))
		members := stage(run.res, "members")
		achieved := float64(members.Requests) / members.Duration.Seconds()

		seqScale, _ := sandbox.ParseScale("members=2,subscriptions=20,groups=1")
		seq := runAgainstSandbox(b, sandbox.Config{Seed: 7, Scale: seqScale, Faults: slow},
			Options{Concurrency: 1, PaymentLists: 1}, 0)
		seqMembers := stage(seq.res, "members")
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
		s, err := Open(context.Background(), filepath.Join(b.TempDir(), "j.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		imports, err := ImportJournals(context.Background(), s, filepath.Join(dir, "j", "*.ndjson"), start)
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
