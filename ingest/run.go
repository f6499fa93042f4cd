// Package ingest owns a run: discovering the organization's members, pulling
// each member's recurring billing and transactions into the working DuckDB
// file, importing merchant journals, enriching BINs, computing findings, and
// keeping the run log (runs, run_members) committed with the data.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/subscriptions"
)

// Options configure a run.
type Options struct {
	Client         *platform.Client
	OrganizationID string
	BusinessDate   time.Time // a UTC date
	Lookback       int       // days re-read before BusinessDate
	JournalGlob    string
	Concurrency    int           // members at once
	MemberTimeout  time.Duration // 0: none
	PaymentLists   int           // payment lists in flight within one member; default 4
	GroupIDs       []string
	Shard          groups.Shard
	BINRefreshAge  time.Duration // default 30 days
	// InterchangeRates is the rate table of the interchange-at-risk
	// estimate; nil means DefaultInterchangeRates (LoadInterchangeRates
	// reads --interchange-rates).
	InterchangeRates *RateTable
	// BNPLSessionAge is how old a pending buy-now-pay-later session must be
	// at the run's cut-off to be reported stale; default 24 hours.
	BNPLSessionAge time.Duration
	// Force pulls members again that an earlier attempt of the same date
	// completed; without it a re-run resumes where the last one stopped.
	Force bool
	// AllowEmpty lets a run whose discovery finds no member at all succeed;
	// without it that run fails with ErrNoMembers, since an organization
	// whose groups lost their members (or a wrong organization) would
	// otherwise report "ok" having reconciled nothing.
	AllowEmpty bool
	// FullRefresh pulls every subscription's payment list, not only those
	// that may have changed (subscriptions.NeedsPayments).
	FullRefresh bool
	// PaymentsMaxAge bounds how long a payment list is trusted without a
	// pull; default 7 days.
	PaymentsMaxAge time.Duration
	Version        string
	Logger         *slog.Logger
	Now            func() time.Time
	// OnProgress, when set, is called at each stage and after each member
	// (from the run's writer goroutine; keep it quick).
	OnProgress func(Progress)
}

// Progress is a snapshot of a run in flight, for a progress display.
type Progress struct {
	Stage         string // discover, journals, members, bins, findings, done
	MembersTotal  int
	MembersDone   int // ok or failed so far
	MembersFailed int
	Requests      int64 // attempts sent so far, retries included
	Retries       int64
	Started       time.Time
}

// Window is the half-open time range a run reconciles.
type Window struct{ Start, End time.Time }

// WindowFor is [date - lookback days, date + 1 day) in UTC.
func WindowFor(date time.Time, lookback int) Window {
	d := time.Date(date.Year(), date.Month(), date.Day(), 0, 0, 0, 0, time.UTC)
	return Window{Start: d.AddDate(0, 0, -max(lookback, 0)), End: d.AddDate(0, 0, 1)}
}

// RunID names the run of a business date: re-running a date replaces that
// run rather than adding another. Shards of one date share the run ID (each
// shard writes its own database), so their findings merge by a plain union.
func RunID(date time.Time) string { return date.Format("2006-01-02") }

// Result is what a run did.
type Result struct {
	RunID        string
	BusinessDate time.Time
	Window       Window
	StartedAt    time.Time
	FinishedAt   time.Time
	Status       string // ok or partial
	Members      int
	MembersOK    int // pulled and loaded by this attempt
	Skipped      int // already complete for the date (a resumed run)
	Failed       []MemberFailure
	Requests     int64
	Retries      int64
	Findings     map[string]int64
	Journals     []JournalImport
	BINLookups   int
	Problems     []string // failures other than members': journal files, BIN lookups
	Stages       []Stage  // how long each stage took, in order
	Rows         int64    // records loaded from the platform (plans, subscriptions, payments, transactions)
}

// Stage is the duration of one stage of a run and the requests it made.
type Stage struct {
	Name     string
	Duration time.Duration
	Requests int64
}

// ErrNoMembers is wrapped when discovery finds no member in the
// organization's groups (and Options.AllowEmpty is not set).
var ErrNoMembers = errors.New("no members discovered")

// MemberFailure is a member that could not be reconciled.
type MemberFailure struct{ MerchantID, Error string }

type runner struct {
	store         *Store
	opts          Options
	runID         string
	window        Window
	now           time.Time
	log           *slog.Logger
	runStats      platform.Stats // every request of the run; members' own Stats nest under it
	progress      Progress
	res           *Result
	stageStart    time.Time
	stageRequests int64
}

// report notes the start of a stage (stage != "") and sends the progress,
// if anyone listens.
func (r *runner) report(stage string) {
	if stage != "" {
		now, requests := time.Now(), r.runStats.Requests.Load()
		if r.progress.Stage != "" && r.res != nil {
			r.res.Stages = append(r.res.Stages, Stage{Name: r.progress.Stage,
				Duration: now.Sub(r.stageStart), Requests: requests - r.stageRequests})
		}
		r.stageStart, r.stageRequests = now, requests
		r.progress.Stage = stage
	}
	if r.opts.OnProgress == nil {
		return
	}
	r.progress.Requests = r.runStats.Requests.Load()
	r.progress.Retries = r.runStats.Retries.Load()
	r.opts.OnProgress(r.progress)
}

// Run performs one reconciliation run into store. It returns an error only
// when the run as a whole failed (no members could be listed, the database
// failed, or ctx was cancelled); members that fail are reported in Result.
func Run(ctx context.Context, store *Store, opts Options) (*Result, error) {
	if opts.Client == nil {
		return nil, errors.New("ingest: no platform client")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	if opts.PaymentLists < 1 {
		opts.PaymentLists = 4
	}
	if opts.BINRefreshAge == 0 {
		opts.BINRefreshAge = 30 * 24 * time.Hour
	}
	if opts.PaymentsMaxAge == 0 {
		opts.PaymentsMaxAge = 7 * 24 * time.Hour
	}
	if opts.Shard.Count == 0 {
		opts.Shard = groups.Shard{Index: 0, Count: 1}
	}
	r := &runner{
		store:  store,
		opts:   opts,
		runID:  RunID(opts.BusinessDate),
		window: WindowFor(opts.BusinessDate, opts.Lookback),
		now:    opts.Now().UTC(),
	}
	r.log = opts.Logger.With("run_id", r.runID)
	return r.run(ctx)
}

func (r *runner) run(ctx context.Context) (*Result, error) {
	res := &Result{RunID: r.runID, BusinessDate: r.opts.BusinessDate, Window: r.window, StartedAt: r.now}
	r.res = res
	if err := r.startRun(ctx); err != nil {
		return nil, err
	}
	r.log.Info("run started", "business_date", r.opts.BusinessDate.Format("2006-01-02"),
		"window_start", r.window.Start, "window_end", r.window.End, "shard", r.opts.Shard.String())

	fail := func(err error) (*Result, error) {
		res.Requests, res.Retries = r.runStats.Requests.Load(), r.runStats.Retries.Load()
		r.finishRun(context.WithoutCancel(ctx), res, "failed", err.Error())
		return nil, err
	}

	ctx = platform.WithStats(ctx, &r.runStats)
	r.progress.Started = r.now
	r.report("discover")
	dir, err := groups.Discover(ctx, r.opts.Client.Merchant(r.opts.OrganizationID), r.opts.OrganizationID, r.opts.GroupIDs)
	if err != nil {
		return fail(err)
	}
	if err := r.storeDirectory(ctx, dir); err != nil {
		return fail(err)
	}
	if len(dir.Members) == 0 && !r.opts.AllowEmpty {
		return fail(fmt.Errorf("%w in organization %s's groups (%d group(s) listed%s, none with a member)",
			ErrNoMembers, r.opts.OrganizationID, len(dir.Groups), onlyGroups(r.opts.GroupIDs)))
	}
	members := r.opts.Shard.Select(dir.Members)
	res.Members = len(members)
	todo, err := r.membersToPull(ctx, members)
	if err != nil {
		return fail(err)
	}
	res.Skipped = len(members) - len(todo)
	r.log.Info("members discovered", "groups", len(dir.Groups), "members", len(dir.Members),
		"in_shard", len(members), "already_complete", res.Skipped)

	r.progress.MembersTotal = len(todo)
	if r.opts.JournalGlob != "" {
		r.report("journals")
		imports, err := ImportJournals(ctx, r.store, r.opts.JournalGlob, r.now)
		res.Journals = imports
		if err != nil {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			res.Problems = append(res.Problems, err.Error())
			r.log.Error("journal import failed", "error", err)
		}
		for _, imp := range imports {
			r.log.Info("journal file", "file", imp.File, "skipped", imp.Skipped, "lines", imp.Lines,
				"loaded", imp.Loaded, "rejected", imp.Rejected)
		}
	}

	r.report("members")
	statuses, err := r.pullMembers(ctx, todo)
	if err != nil {
		return fail(err)
	}
	for _, st := range statuses {
		res.Rows += int64(st.plans + st.subs + st.payments + st.txns)
		switch st.status {
		case "ok":
			res.MembersOK++
		default:
			res.Failed = append(res.Failed, MemberFailure{MerchantID: st.merchantID, Error: st.err})
		}
	}
	if ctx.Err() != nil {
		return fail(context.Cause(ctx))
	}

	r.report("bins")
	looked, binFailures, err := r.enrichBINs(ctx)
	if err != nil {
		return fail(err)
	}
	res.BINLookups = looked
	for _, f := range binFailures {
		res.Problems = append(res.Problems, f.Error())
		r.log.Error("BIN lookup failed", "error", f)
	}

	r.report("findings")
	res.Findings, err = r.auditAndComputeFindings(ctx)
	if err != nil {
		return fail(fmt.Errorf("compute findings: %w", err))
	}
	if err := r.store.computeBilling(ctx, r.runID, r.opts.BusinessDate, r.window); err != nil {
		return fail(fmt.Errorf("recurring billing reports: %w", err))
	}
	res.Requests = r.runStats.Requests.Load()
	res.Retries = r.runStats.Retries.Load()
	res.Status = "ok"
	if len(res.Failed) > 0 || len(res.Problems) > 0 {
		res.Status = "partial"
	}
	if err := r.finishRun(ctx, res, res.Status, ""); err != nil {
		return nil, err
	}
	r.report("done")
	return res, nil
}

// onlyGroups describes a --groups filter for a message: "" when none.
func onlyGroups(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " of those asked for: " + strings.Join(ids, ", ")
}

// startRun records the run as running; a re-run of the date counts another
// attempt and starts the date's member log afresh.
func (r *runner) startRun(ctx context.Context) error {
	return r.store.Transact(ctx, func(tx *Tx) error {
		var attempts int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(attempts), 0) FROM runs WHERE run_id = ?`, r.runID).Scan(&attempts); err != nil {
			return fmt.Errorf("read run %s: %w", r.runID, err)
		}
		if _, err := tx.Exec(ctx, `INSERT OR REPLACE INTO runs
			(run_id, business_date, shard, window_start, window_end, started_at, status, attempts, version)
			VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)`,
			r.runID, r.opts.BusinessDate, r.opts.Shard.String(), r.window.Start, r.window.End, r.now,
			attempts+1, r.opts.Version); err != nil {
			return fmt.Errorf("record run %s: %w", r.runID, err)
		}
		// A resumed run keeps the members an earlier attempt completed;
		// --force starts the date's member log afresh.
		reset := `DELETE FROM run_members WHERE run_id = ? AND status <> 'ok'`
		if r.opts.Force {
			reset = `DELETE FROM run_members WHERE run_id = ?`
		}
		if _, err := tx.Exec(ctx, reset, r.runID); err != nil {
			return fmt.Errorf("reset members of run %s: %w", r.runID, err)
		}
		return nil
	})
}

func (r *runner) finishRun(ctx context.Context, res *Result, status, errText string) error {
	res.FinishedAt = r.opts.Now().UTC()
	var total int64
	for _, n := range res.Findings {
		total += n
	}
	var errAny any
	if errText != "" {
		errAny = errText
	} else if len(res.Problems) > 0 {
		errAny = fmt.Sprintf("%d problem(s); first: %s", len(res.Problems), res.Problems[0])
	}
	err := r.store.Transact(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `UPDATE runs SET finished_at = ?, status = ?, members_total = ?, members_ok = ?,
			members_failed = ?, members_skipped = ?, requests = ?, retries = ?, findings = ?, error = ?
			WHERE run_id = ?`,
			res.FinishedAt, status, res.Members, res.MembersOK+res.Skipped, len(res.Failed), res.Skipped,
			res.Requests, res.Retries, total, errAny, r.runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("record end of run %s: %w", r.runID, err)
	}
	return nil
}

func (r *runner) storeDirectory(ctx context.Context, dir *groups.Directory) error {
	gr, mr, err := directoryRows(dir, r.runID, r.now)
	if err != nil {
		return err
	}
	return r.store.Transact(ctx, func(tx *Tx) error {
		if err := tx.Upsert(ctx, gr, []string{"group_id"}, nil); err != nil {
			return err
		}
		// Membership of the listed groups is replaced as a whole, so a MID
		// removed from a group leaves it.
		return tx.Upsert(ctx, mr, []string{"group_id", "merchant_id"},
			&Replace{Relation: "SELECT group_id FROM stage_groups", On: []string{"group_id"}})
	})
}

// membersToPull drops the members an earlier attempt of this date completed
// (unless Force): their rows are committed with their done-marker, so a
// re-run after a crash resumes instead of starting over.
func (r *runner) membersToPull(ctx context.Context, members []groups.Member) ([]groups.Member, error) {
	if r.opts.Force {
		return members, nil
	}
	done := map[string]bool{}
	rows, err := r.store.conn.QueryContext(ctx, `SELECT merchant_id FROM run_members WHERE run_id = ? AND status = 'ok'`, r.runID)
	if err != nil {
		return nil, fmt.Errorf("read completed members of run %s: %w", r.runID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var mid string
		if err := rows.Scan(&mid); err != nil {
			return nil, fmt.Errorf("read completed members of run %s: %w", r.runID, err)
		}
		done[mid] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var todo []groups.Member
	for _, m := range members {
		if !done[m.MerchantID] {
			todo = append(todo, m)
		}
	}
	return todo, nil
}

// loadJob is one member's outcome on its way to the single writer.
type loadJob struct {
	batch  *memberBatch // nil when the pull failed
	status memberStatus
}

// maxRowsPerLoad bounds the rows the writer puts in one transaction.
const maxRowsPerLoad = 25_000

func (j loadJob) rows() int {
	if j.batch == nil {
		return 1
	}
	return len(j.batch.plans.Values) + len(j.batch.subscriptions.Values) +
		len(j.batch.payments.Values) + len(j.batch.transactions.Values)
}

// loadAlone loads one member in its own transaction; if the database
// refuses its data, the member is recorded as failed with the reason.
func (r *runner) loadAlone(ctx context.Context, j *loadJob, writeErr *error) {
	err := r.store.loadMembers(ctx, []loadJob{*j})
	if err == nil {
		return
	}
	j.status.status, j.status.err = "failed", "load into database: "+err.Error()
	j.batch = nil
	if err := r.store.loadMembers(ctx, []loadJob{*j}); err != nil && *writeErr == nil {
		*writeErr = err
	}
}

// loaded logs a member's outcome and counts it in the progress.
func (r *runner) loaded(st memberStatus) memberStatus {
	if st.status == "ok" {
		r.log.Info("member loaded", "merchant_id", st.merchantID, "plans", st.plans,
			"subscriptions", st.subs, "payments", st.payments, "transactions", st.txns,
			"requests", st.requests, "retries", st.retries)
	} else {
		r.log.Warn("member failed", "merchant_id", st.merchantID, "error", st.err)
	}
	r.progress.MembersDone++
	if st.status != "ok" {
		r.progress.MembersFailed++
	}
	r.report("")
	return st
}

// pullMembers fans the pulls out over the members and feeds one writer
// goroutine, which commits each member with its status row. Every member
// reaches the writer, whatever its pull did (groups.FanOut delivers a result
// per member: a panic or a member never started is a failure with its
// reason), so the run log accounts for each one. It returns each member's
// final status.
func (r *runner) pullMembers(ctx context.Context, members []groups.Member) ([]memberStatus, error) {
	jobs := make(chan loadJob, r.opts.Concurrency)
	var statuses []memberStatus
	var writeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Completed members are committed even while the run is being
		// interrupted: what was pulled is not thrown away.
		wctx := context.WithoutCancel(ctx)
		for job := range jobs {
			group, rows := []loadJob{job}, job.rows()
			// Take whatever else is ready, up to a bound, into the same
			// transaction (see loadMembers).
		gather:
			for rows < maxRowsPerLoad {
				select {
				case j, ok := <-jobs:
					if !ok {
						break gather
					}
					group, rows = append(group, j), rows+j.rows()
				default:
					break gather
				}
			}
			if err := r.store.loadMembers(wctx, group); err != nil && len(group) > 1 {
				// Load one by one, so that a member whose data the
				// database refuses fails alone.
				for _, j := range group {
					r.loadAlone(wctx, &j, &writeErr)
					statuses = append(statuses, r.loaded(j.status))
				}
				continue
			} else if err != nil {
				r.loadAlone(wctx, &group[0], &writeErr) // records the failure
			}
			for _, j := range group {
				statuses = append(statuses, r.loaded(j.status))
			}
		}
	}()

	// Each member counts its own requests, nested under the run's; the map
	// is filled before the fan-out and only read during it.
	stats := make(map[string]*platform.Stats, len(members))
	for _, m := range members {
		stats[m.MerchantID] = &platform.Stats{}
	}
	groups.FanOut(ctx, members, r.opts.Concurrency, r.opts.MemberTimeout,
		func(ctx context.Context, m groups.Member) (*memberBatch, error) {
			return r.pullMember(platform.WithStats(ctx, stats[m.MerchantID]), m.MerchantID)
		},
		func(res groups.Result[*memberBatch]) { jobs <- r.loadJobOf(res, stats[res.Member.MerchantID]) })
	close(jobs)
	<-done
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].merchantID < statuses[j].merchantID })
	if writeErr != nil {
		return statuses, fmt.Errorf("record member status: %w", writeErr)
	}
	return statuses, nil
}

// loadJobOf turns a member's fan-out result into the writer's job: its
// batch and an ok status, or a failed status with the reason and no data.
func (r *runner) loadJobOf(res groups.Result[*memberBatch], stats *platform.Stats) loadJob {
	st := memberStatus{runID: r.runID, merchantID: res.Member.MerchantID, status: "ok",
		started: res.Started.UTC(), finished: res.Finished.UTC(),
		requests: stats.Requests.Load(), retries: stats.Retries.Load()}
	if st.started.IsZero() { // never started: the run was interrupted first
		st.started, st.finished = time.Now().UTC(), time.Now().UTC()
	}
	if res.Err != nil {
		st.status, st.err = "failed", res.Err.Error()
		return loadJob{status: st}
	}
	b := res.Value
	st.plans, st.subs = len(b.plans.Values), len(b.subscriptions.Values)
	st.payments, st.txns = len(b.payments.Values), len(b.transactions.Values)
	return loadJob{batch: b, status: st}
}

// pullMember reads everything of one member and converts it into rows.
func (r *runner) pullMember(ctx context.Context, mid string) (*memberBatch, error) {
	api := r.opts.Client.Merchant(mid)
	prev, err := r.store.previousLists(ctx, mid)
	if err != nil {
		return nil, err
	}
	terms := subscriptions.Terms{WindowEnd: r.window.End, Now: r.now, MaxAge: r.opts.PaymentsMaxAge}
	reasons := map[string]int{}
	need := func(s platform.Subscription) bool {
		reason := "full refresh"
		if !r.opts.FullRefresh {
			var p *subscriptions.Previous
			if stored, ok := prev[s.ID]; ok {
				p = &stored.prev
			}
			reason = subscriptions.PullReason(p, s, terms)
		}
		if reason == "" {
			reason = "unchanged"
		}
		reasons[reason]++ // Pull calls need from its own goroutine only
		return reason != "unchanged"
	}
	snap, err := subscriptions.Pull(ctx, api, r.opts.PaymentLists, need)
	if err != nil {
		return nil, err
	}
	r.log.Debug("payment lists", "merchant_id", mid, "reasons", reasons)
	b := newMemberBatch(mid)
	if err := b.addRecurring(snap, prev, r.runID, r.now); err != nil {
		return nil, err
	}
	if err := b.addSchedules(snap, r.window.End, r.runID, r.now); err != nil {
		return nil, err
	}
	for t, err := range api.SearchTransactions(ctx, r.window.Start, r.window.End) {
		if err != nil {
			return nil, fmt.Errorf("search transactions: %w", err)
		}
		if err := b.addTransaction(t, r.runID, r.now); err != nil {
			return nil, err
		}
	}
	return b, nil
}
