// Package pipeline is one reconciliation run: its stages in order, the run
// log (the runs table, and which members an earlier attempt of the date
// completed) and the progress reported while it runs.
//
// A run is, in the order of the folders:
//
//	discover  groups         the organization's groups and members, this shard's share
//	journals  ingest         the merchants' journal files (cardmask, calls)
//	members   ingest         each member pulled (subscriptions, platform) and loaded
//	bins      ingest         the BINs the run saw, looked up
//	findings  checks         the checks, day-over-day states, interchange at risk,
//	                         and the recurring-billing reports
//
// then the command publishes the database (reports, outputs). Publishing is
// not a stage here: it reads only the working database, so a run's outputs
// can be written again from the file, and the run does not depend on them.
//
// No package imports one that comes after it in the flow. From the top
// (each imports only what is listed, of reconcile's packages):
//
//	internal/cli    pipeline, merge, notify (--notify), alarms (--alarms), reports, checks
//	                (--interchange-rates, --retry-limits), groups (--shard), store, outputs,
//	                platform, sandbox
//	pipeline        checks, ingest, groups, store, queries, platform
//	merge           reports, groups, store, outputs, queries (reconcile merge: the shards of
//	                a date published as one run)
//	notify          reports, cardmask, queries
//	alarms          reports, queries
//	reports         outputs, store, queries
//	checks          store, queries
//	ingest          calls, cardmask, subscriptions, groups, store, queries, platform
//	calls           level3audit
//	groups          platform
//	subscriptions   platform
//	store           queries
//	outputs, platform, queries, cardmask, level3audit: none of them
//
// (calls and level3audit read decoded JSON bodies with internal/jsonbody;
// outside text shown to people goes through internal/safetext.)
// store is below every stage, so the stages share its types (Window,
// the statuses of the run log) without importing one another.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/memstat"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// DisputeScope is --dispute-scope's value (ingest.DisputeScope): the zero
// value reads the dispute reports once for the organization.
type DisputeScope = ingest.DisputeScope

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
	// Merchants, when not empty, are the members to reconcile, named
	// directly (--merchants): no group is listed, no group management
	// request is made, and the members belong to no group
	// (groups.Named). GroupIDs must then be empty.
	Merchants []string
	// GroupsPath is the group list's path template (--groups-path,
	// platform.GroupsAt); "" tries the platform's versioned forms.
	GroupsPath    string
	Shard         groups.Shard
	BINRefreshAge time.Duration // default 30 days
	// InterchangeRates is the rate table of the interchange-at-risk
	// estimate; nil means checks.DefaultInterchangeRates
	// (checks.LoadInterchangeRates reads --interchange-rates).
	InterchangeRates *checks.RateTable
	// RetryLimits is the card networks' retry-limit table; nil means
	// checks.DefaultRetryLimits (checks.LoadRetryLimits reads
	// --retry-limits).
	RetryLimits *checks.RetryLimitTable
	// BNPLSessionAge is how old a pending buy-now-pay-later session must be
	// at the run's cut-off to be reported stale; default 24 hours.
	BNPLSessionAge time.Duration
	// ChargebackShare is the share of a member's captures its chargebacks
	// must reach to be reported; 0 means checks.DefaultChargebackShare.
	ChargebackShare float64
	// SettlementDays is how many business days a capture may take to
	// settle before capture_not_settled reports it (--settlement-days);
	// 0 means checks.DefaultSettlementDays.
	SettlementDays int
	// DisputeScope is how the dispute reports are read (--dispute-scope):
	// once for the organization (the default) or once per member.
	DisputeScope DisputeScope
	// Force pulls members again that an earlier attempt of the same date
	// completed; without it a re-run resumes where the last one stopped.
	Force bool
	// AllowEmpty lets a run whose discovery finds no member at all succeed;
	// without it that run fails with ErrNoMembers, since an organization
	// whose groups lost their members (or a wrong organization) would
	// otherwise report "ok" having reconciled nothing.
	AllowEmpty bool
	// FullRefresh pulls every subscription's payment list, not only those
	// that may have changed (subscriptions.PullReason).
	FullRefresh bool
	// PaymentsMaxAge bounds how long a payment list is trusted without a
	// pull; default 7 days.
	PaymentsMaxAge time.Duration
	// PlansMaxAge is how long a member's stored plan list stands for the
	// platform's without a pull (subscriptions.PlansReason); default 7
	// days, negative: pull the plans every night.
	PlansMaxAge time.Duration
	// History, when above 0, leaves the never-pulled payment lists of
	// subscriptions that ended before the window's start less History to a
	// backfill of at most BackfillBudget lists a run (default 2,000;
	// ingest.PullOptions).
	History        time.Duration
	BackfillBudget int
	// SearchScope, when account or reseller, lists every member's
	// transactions in one Transaction Search of SearchScopeID, acting for
	// the organization, instead of one search a member (ingest.PullOptions).
	SearchScope   platform.SearchScope
	SearchScopeID string
	Version       string
	Logger        *slog.Logger
	Now           func() time.Time
	// OnProgress, when set, is called at each stage and after each member
	// (from the run's writer goroutine; keep it quick).
	OnProgress func(Progress)
	// Memory, when set, samples the process's memory for each stage's peak
	// (Stage.Peak).
	Memory *memstat.Watch
}

// Progress is a snapshot of a run in flight, for a progress display.
type Progress struct {
	Stage         string // discover, journals, members, bins, settlement, findings, done
	MembersTotal  int
	MembersDone   int // ok or failed so far
	MembersFailed int
	MembersActive int   // being pulled or loaded now
	Requests      int64 // attempts sent so far, retries included
	Retries       int64
	Started       time.Time
}

// RunID names the run of a business date: re-running a date replaces that
// run rather than adding another. Shards of one date share the run ID (each
// shard writes its own database), so their findings merge by a plain union.
func RunID(date time.Time) string { return date.Format("2006-01-02") }

// Result is what a run did.
type Result struct {
	RunID        string
	BusinessDate time.Time
	Window       store.Window
	StartedAt    time.Time
	FinishedAt   time.Time
	Status       store.RunStatus // ok or partial
	Members      int
	MembersOK    int // pulled and loaded by this attempt
	Skipped      int // already complete for the date (a resumed run)
	Failed       []MemberFailure
	Requests     int64
	Retries      int64
	Findings     map[string]int64
	Journals     []ingest.JournalImport
	BINLookups   int
	Problems     []string // failures other than members': journal files, BIN lookups
	Stages       []Stage  // how long each stage took, in order
	Rows         int64    // records loaded from the platform (plans, subscriptions, payments, transactions)
	// Traffic is every request of the run: by endpoint family, the 429s,
	// the listing pages that added no record, the attempts' latencies
	// (the run's request accounting, docs/operations.md). Requests and
	// Retries above are its counts.
	Traffic *platform.Stats
	// Rate is what the client's rate adaptation did by the run's end
	// (platform.RateReport): its ceiling, lowest and final rate.
	Rate platform.RateReport
	// SettlementRequests is what the settlement stage asked the Reporting
	// API: a few per group per night (ingest.PullSettlement).
	SettlementRequests int64
}

// Interrupted is the error of a run stopped (a signal) while it pulled its
// members: the members it completed, and those an earlier attempt of the
// date completed, stay committed, and a run of the same date resumes after
// them. Its text is the one line an operator reads after Ctrl-C.
type Interrupted struct {
	Kept    int // members complete for the date: this attempt's and earlier ones'
	Members int
	Cause   error // the context's cause: context.Canceled, or what stopped it
}

func (e *Interrupted) Error() string {
	return fmt.Sprintf("interrupted: %d of %d members kept; run again to resume", e.Kept, e.Members)
}

func (e *Interrupted) Unwrap() error { return e.Cause }

// Stage is the duration of one stage of a run, the requests it made and
// the memory the process held at its end and at its highest.
type Stage struct {
	Name     string
	Duration time.Duration
	Requests int64
	Memory   Memory
	Peak     memstat.Process // at the stage's highest resident memory sampled (Options.Memory); zero without
}

// Memory is what the process held at the end of a stage: the Go runtime's
// and the kernel's view (memstat.Process; PeakRSS is the peak since the
// process started, so the stage that raised it is the first to show it)
// and DuckDB's buffer manager's.
type Memory struct {
	memstat.Process
	DuckDB int64 // bytes, duckdb_memory()
}

// ReadMemory reads the process's memory and s's DuckDB memory now (the
// latter 0 if it cannot be read).
func ReadMemory(ctx context.Context, s *store.Store) Memory {
	m := Memory{Process: memstat.Read()}
	m.DuckDB, _ = s.DuckDBMemory(ctx)
	return m
}

// Limiter is the run's one token bucket for every request, perSecond
// requests a second: its burst lets the members in flight (concurrency)
// start together without exceeding the rate over any second. A burst of
// one would spread even the first requests out, and lose every token that
// falls due while no request waits.
func Limiter(perSecond float64, concurrency int) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(perSecond), max(1, min(int(perSecond), concurrency)))
}

// ErrNoMembers is wrapped when discovery finds no member in the
// organization's groups (and Options.AllowEmpty is not set).
var ErrNoMembers = errors.New("no members discovered")

// MemberFailure is a member that could not be reconciled.
type MemberFailure struct{ MerchantID, Error string }

type runner struct {
	store    *store.Store
	opts     Options
	runID    string
	window   store.Window
	now      time.Time
	log      *slog.Logger
	runStats platform.Stats // every request of the run; members' own Stats nest under it
	// progress is reported from the run's goroutine and, in the members
	// stage, from the fan-out's (started) and the writer's (loaded).
	progressMu    sync.Mutex
	progress      Progress
	active        map[string]bool // members being pulled or loaded
	res           *Result
	stageStart    time.Time
	stageRequests int64
}

// report notes the start of a stage (stage != "") and sends the progress,
// if anyone listens.
func (r *runner) report(stage string) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	if stage != "" {
		now, requests := time.Now(), r.runStats.Requests.Load()
		peak := r.opts.Memory.Peak() // the stage ending, or before the first
		if r.progress.Stage != "" && r.res != nil {
			r.res.Stages = append(r.res.Stages, Stage{Name: r.progress.Stage,
				Duration: now.Sub(r.stageStart), Requests: requests - r.stageRequests,
				Memory: ReadMemory(context.Background(), r.store), Peak: peak})
		}
		r.stageStart, r.stageRequests = now, requests
		r.progress.Stage = stage
	}
	r.send()
}

// send gives the progress to its listener, if any; progressMu is held.
func (r *runner) send() {
	if r.opts.OnProgress == nil {
		return
	}
	r.progress.Requests = r.runStats.Requests.Load()
	r.progress.Retries = r.runStats.Retries.Load()
	r.opts.OnProgress(r.progress)
}

// Run performs one reconciliation run into s. It returns an error only
// when the run as a whole failed (no members could be listed, the database
// failed, or ctx was cancelled); members that fail are reported in Result.
func Run(ctx context.Context, s *store.Store, opts Options) (*Result, error) {
	if opts.Client == nil {
		return nil, errors.New("pipeline: no platform client")
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
	if opts.PlansMaxAge == 0 {
		opts.PlansMaxAge = 7 * 24 * time.Hour
	}
	if opts.BackfillBudget == 0 {
		opts.BackfillBudget = 2000
	}
	if opts.Shard.Count == 0 {
		opts.Shard = groups.Shard{Index: 0, Count: 1}
	}
	r := &runner{
		store:  s,
		opts:   opts,
		runID:  RunID(opts.BusinessDate),
		window: store.WindowFor(opts.BusinessDate, opts.Lookback),
		now:    opts.Now().UTC(),
	}
	r.log = opts.Logger.With("run_id", r.runID)
	return r.run(ctx)
}

// directory is the run's members: those named (Options.Merchants), with
// no request at all, or those of the organization's groups.
func (r *runner) directory(ctx context.Context) (*groups.Directory, error) {
	if len(r.opts.Merchants) > 0 {
		if len(r.opts.GroupIDs) > 0 {
			return nil, errors.New("members named directly and groups asked for: give one or the other")
		}
		return groups.Named(r.opts.OrganizationID, r.opts.Merchants), nil
	}
	l := groupLister{m: r.opts.Client.Merchant(r.opts.OrganizationID), path: r.opts.GroupsPath}
	return groups.Discover(ctx, l, r.opts.OrganizationID, r.opts.GroupIDs)
}

// groupLister lists groups at Options.GroupsPath.
type groupLister struct {
	m    *platform.Merchant
	path string
}

func (l groupLister) Groups(ctx context.Context, organizationID string) iter.Seq2[platform.Group, error] {
	return l.m.GroupsAt(ctx, organizationID, l.path)
}

func (r *runner) run(ctx context.Context) (*Result, error) {
	res := &Result{RunID: r.runID, BusinessDate: r.opts.BusinessDate, Window: r.window, StartedAt: r.now}
	r.res = res
	if err := r.startRun(ctx); err != nil {
		return nil, err
	}
	r.log.Info("run started", "business_date", r.opts.BusinessDate.Format("2006-01-02"),
		"window_start", r.window.Start, "window_end", r.window.End, "shard", r.opts.Shard.String(),
		"go_memory_limit", memstat.GoLimit())

	fail := func(err error) (*Result, error) {
		res.Requests, res.Retries = r.runStats.Requests.Load(), r.runStats.Retries.Load()
		r.finishRun(context.WithoutCancel(ctx), res, store.RunFailed, err.Error())
		return nil, err
	}

	r.runStats.Latencies = new(platform.Latencies)
	res.Traffic = &r.runStats
	ctx = platform.WithStats(ctx, &r.runStats)
	// Before anything is loaded, so that what this run stores (masked)
	// meets what an older version stored, masked too.
	if n, err := ingest.MaskOlderRecords(ctx, r.store, r.now); err != nil {
		return fail(err)
	} else if n > 0 {
		r.log.Info("card data masked in rows an older version stored", "rows", n)
	}
	r.progress.Started = r.now
	r.report("discover")
	dir, err := r.directory(ctx)
	if err != nil {
		return fail(err)
	}
	if err := ingest.LoadDirectory(ctx, r.store, dir, r.runID, r.now); err != nil {
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
	// The loads run with half of DuckDB's memory, the checks with all of
	// it (store.LimitLoads says why).
	if err := r.store.LimitLoads(ctx); err != nil {
		return fail(err)
	}
	if r.opts.JournalGlob != "" {
		r.report("journals")
		imports, err := ingest.ImportJournals(ctx, r.store, r.opts.JournalGlob, r.now)
		res.Journals = imports
		if err != nil {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			// Masked as the file names in it are (ingest.JournalImport.File),
			// and in case an error from below quotes a path of its own.
			res.Problems = append(res.Problems, cardmask.MaskText(err.Error()))
			r.log.Error("journal import failed", "error", err)
		}
		for _, imp := range imports {
			r.log.Info("journal file", "file", imp.File, "skipped", imp.Skipped, "lines", imp.Lines,
				"loaded", imp.Loaded, "rejected", imp.Rejected)
		}
	}

	r.report("members")
	statuses, err := ingest.PullMembers(ctx, r.store, ingest.PullOptions{
		Client:         r.opts.Client,
		RunID:          r.runID,
		Window:         r.window,
		Now:            r.now,
		Concurrency:    r.opts.Concurrency,
		MemberTimeout:  r.opts.MemberTimeout,
		PaymentLists:   r.opts.PaymentLists,
		FullRefresh:    r.opts.FullRefresh,
		PaymentsMaxAge: r.opts.PaymentsMaxAge,
		PlansMaxAge:    max(r.opts.PlansMaxAge, 0),
		History:        r.opts.History,
		BackfillBudget: r.opts.BackfillBudget,
		SearchScope:    r.opts.SearchScope,
		SearchScopeID:  r.opts.SearchScopeID,
		SearchActor:    r.opts.OrganizationID,
		Logger:         r.log,
		Loaded:         r.loaded,
		Started:        r.started,
	}, todo)
	if err != nil {
		return fail(err)
	}
	for _, st := range statuses {
		res.Rows += int64(st.Plans + st.Subscriptions + st.Payments + st.Transactions)
		switch st.Status {
		case store.MemberOK:
			res.MembersOK++
		default:
			res.Failed = append(res.Failed, MemberFailure{MerchantID: st.MerchantID, Error: st.Error})
		}
	}
	if ctx.Err() != nil {
		return fail(&Interrupted{Kept: res.MembersOK + res.Skipped, Members: res.Members, Cause: context.Cause(ctx)})
	}

	r.report("bins")
	looked, binFailures, err := ingest.EnrichBINs(ctx, r.store, ingest.BINOptions{
		Client:      r.opts.Client,
		RunID:       r.runID,
		Window:      r.window,
		Now:         r.now,
		RefreshAge:  r.opts.BINRefreshAge,
		Concurrency: r.opts.Concurrency,
		// Each BIN's lookups are bounded as a member's pulls are, and so
		// is the stage as a whole: every stage has a deadline.
		Timeout:      r.opts.MemberTimeout,
		StageTimeout: r.opts.MemberTimeout,
	})
	if err != nil {
		return fail(err)
	}
	res.BINLookups = looked
	for _, f := range binFailures {
		res.Problems = append(res.Problems, cardmask.MaskText(f.Error())) // it may quote a response
		r.log.Error("BIN lookup failed", "error", f)
	}

	// The Reporting API's interchange clearing levels, chargebacks and
	// retrievals of every member this attempt pulled and did not fail,
	// and of the members an earlier attempt of the date completed whose
	// reports no attempt loaded (it stopped before this stage): three
	// requests for the organization, or each (ingest/disputes.go).
	r.report("reports")
	failed := map[string]bool{}
	for _, f := range res.Failed {
		failed[f.MerchantID] = true
	}
	withReports, err := ingest.DisputesLoaded(ctx, r.store, r.runID)
	if err != nil {
		return fail(err)
	}
	thisAttempt := map[string]bool{}
	for _, m := range todo {
		thisAttempt[m.MerchantID] = true
	}
	var reportMembers []string
	for _, m := range members {
		if !failed[m.MerchantID] && (thisAttempt[m.MerchantID] || !withReports[m.MerchantID]) {
			reportMembers = append(reportMembers, m.MerchantID)
		}
	}
	reports, err := ingest.PullDisputes(ctx, r.store, ingest.DisputeOptions{
		Client: r.opts.Client, OrganizationID: r.opts.OrganizationID, Scope: r.opts.DisputeScope, RunID: r.runID, Window: r.window, Now: r.now,
		Concurrency: r.opts.Concurrency, Timeout: r.opts.MemberTimeout, Logger: r.log,
	}, reportMembers)
	if err != nil {
		return fail(err)
	}
	for _, f := range reports.Failures {
		res.Problems = append(res.Problems, cardmask.MaskText(f.Error())) // it may quote a response
		r.log.Error("reports failed", "error", f)
	}
	r.log.Info("reports", "interchange_clearing", reports.Clearing, "chargebacks", reports.Chargebacks,
		"retrievals", reports.Retrievals, "kept_aside", reports.KeptAside, "not_enabled", len(reports.NotEnabled))
	r.report("settlement")
	// The members pulled by this attempt, and those an earlier attempt of
	// the date pulled but whose reports it did not load: a resumed run of
	// a complete date asks nothing.
	loaded, err := ingest.SettlementLoaded(ctx, r.store, r.runID)
	if err != nil {
		return fail(err)
	}
	// A member that failed this attempt has no settlement read either, as
	// it has no other data of the date.
	pulled, failed := map[string]bool{}, map[string]bool{}
	for _, m := range todo {
		pulled[m.MerchantID] = true
	}
	for _, st := range statuses {
		if st.Status != store.MemberOK {
			failed[st.MerchantID] = true
		}
	}
	var settle []groups.Member
	for _, m := range members {
		if !failed[m.MerchantID] && (pulled[m.MerchantID] || !loaded[m.MerchantID]) {
			settle = append(settle, m)
		}
	}
	settled, err := ingest.PullSettlement(ctx, r.store, ingest.SettlementOptions{
		Client: r.opts.Client, OrganizationID: r.opts.OrganizationID, RunID: r.runID, Window: r.window, Now: r.now,
		Directory: dir, Members: settle, Logger: r.log,
	})
	if err != nil {
		return fail(err)
	}
	res.SettlementRequests = settled.Requests
	for _, p := range settled.Problems {
		res.Problems = append(res.Problems, cardmask.MaskText(p.Error()))
	}
	if len(settled.NotReadable) > 0 {
		r.log.Warn("reports the key may not read", "members", strings.Join(settled.NotReadable, ", "))
	}

	r.report("findings")
	// What the members stage pulled is loaded: Go's heap is garbage now,
	// and the runtime would give its ~100 MiB back to the system only
	// gradually, while the checks use DuckDB's memory beside it (at 2,000
	// members the checks' peak was 693-716 MiB with it, 592 without).
	debug.FreeOSMemory()
	// The loads' data written into the file, and a fresh DuckDB instance
	// for the checks (store.Reopen says why): the checks then run with
	// DuckDB's whole memory limit to themselves.
	if err := r.store.Reopen(ctx); err != nil {
		return fail(err)
	}
	if err := r.store.FitThreadsToData(ctx); err != nil {
		return fail(err)
	}
	run := checks.Params{ID: r.runID, BusinessDate: r.opts.BusinessDate, Window: r.window, Started: r.now,
		InterchangeRates: r.opts.InterchangeRates, RetryLimits: r.opts.RetryLimits, BNPLSessionAge: r.opts.BNPLSessionAge,
		ChargebackShare: r.opts.ChargebackShare, SettlementDays: r.opts.SettlementDays}
	res.Findings, err = r.check(ctx, run)
	if err != nil {
		return fail(fmt.Errorf("compute findings: %w", err))
	}
	if err := checks.Billing(ctx, r.store, run); err != nil {
		return fail(fmt.Errorf("recurring billing reports: %w", err))
	}
	res.Requests = r.runStats.Requests.Load()
	res.Retries = r.runStats.Retries.Load()
	res.Rate = r.opts.Client.Rate()
	res.Status = store.RunOK
	why := ""
	switch {
	case len(res.Failed) > 0 && len(res.Failed) == res.Members:
		// Nothing was reconciled: failed, not partial, in runs, the
		// manifest, the metrics and the exit code alike.
		res.Status = store.RunFailed
		why = fmt.Sprintf("every member failed (%d of %d)", len(res.Failed), res.Members)
	case len(res.Failed) > 0 || len(res.Problems) > 0:
		res.Status = store.RunPartial
	}
	if err := r.finishRun(ctx, res, res.Status, why); err != nil {
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

// Statements of queries/pipeline.sql.
var (
	runAttempts            = queries.Must("pipeline.sql", "RunAttempts")
	insertRun              = queries.Must("pipeline.sql", "InsertRun")
	resetUnfinishedMembers = queries.Must("pipeline.sql", "ResetUnfinishedMembers")
	resetMembers           = queries.Must("pipeline.sql", "ResetMembers")
	completedMembers       = queries.Must("pipeline.sql", "CompletedMembers")
	updateRunEnd           = queries.Must("pipeline.sql", "UpdateRunEnd")
)

// startRun records the run as running; a re-run of the date counts another
// attempt and starts the date's member log afresh.
func (r *runner) startRun(ctx context.Context) error {
	return r.store.Transact(ctx, func(tx *store.Tx) error {
		var attempts int
		if err := tx.QueryRow(ctx, runAttempts, r.runID).Scan(&attempts); err != nil {
			return fmt.Errorf("read run %s: %w", r.runID, err)
		}
		if _, err := tx.Exec(ctx, insertRun,
			r.runID, r.opts.BusinessDate, r.opts.Shard.String(), r.window.Start, r.window.End, r.now,
			string(store.RunRunning), attempts+1, r.opts.Version); err != nil {
			return fmt.Errorf("record run %s: %w", r.runID, err)
		}
		// A resumed run keeps the members an earlier attempt completed;
		// --force starts the date's member log afresh.
		reset := resetUnfinishedMembers
		if r.opts.Force {
			reset = resetMembers
		}
		if _, err := tx.Exec(ctx, reset, r.runID); err != nil {
			return fmt.Errorf("reset members of run %s: %w", r.runID, err)
		}
		return nil
	})
}

// check inspects again the journal rows an older version imported (so the
// checks see every call the same way), then runs the checks.
func (r *runner) check(ctx context.Context, run checks.Params) (map[string]int64, error) {
	if n, err := ingest.ReinspectJournal(ctx, r.store); err != nil {
		return nil, err
	} else if n > 0 {
		r.log.Info("journal rows inspected again", "rows", n, "version", ingest.JournalInspectVersion)
	}
	return checks.Findings(ctx, r.store, run)
}

// started counts a member whose pull began (from the fan-out's goroutines).
func (r *runner) started(merchantID string) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	if r.active == nil {
		r.active = map[string]bool{}
	}
	r.active[merchantID] = true
	r.progress.MembersActive = len(r.active)
	r.send()
}

// loaded counts a member's outcome in the progress.
func (r *runner) loaded(st ingest.MemberResult) {
	r.progressMu.Lock()
	defer r.progressMu.Unlock()
	r.progress.MembersDone++
	if st.Status != store.MemberOK {
		r.progress.MembersFailed++
	}
	delete(r.active, st.MerchantID)
	r.progress.MembersActive = len(r.active)
	r.send()
}

// finishRun records how the run ended: its status, counts and error.
func (r *runner) finishRun(ctx context.Context, res *Result, status store.RunStatus, errText string) error {
	res.FinishedAt = r.opts.Now().UTC()
	var total int64
	for _, n := range res.Findings {
		total += n
	}
	var errAny any
	if errText != "" {
		errAny = cardmask.MaskText(store.WithoutStackTrace(errText)) // an error may quote a response
	} else if len(res.Problems) > 0 {
		errAny = fmt.Sprintf("%d problem(s); first: %s", len(res.Problems), res.Problems[0])
	}
	err := r.store.Transact(ctx, func(tx *store.Tx) error {
		_, err := tx.Exec(ctx, updateRunEnd,
			res.FinishedAt, string(status), res.Members, res.MembersOK+res.Skipped, len(res.Failed), res.Skipped,
			res.Requests, res.Retries, total, errAny, r.runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("record end of run %s: %w", r.runID, err)
	}
	return nil
}

// membersToPull drops the members an earlier attempt of this date completed
// (unless Force): their rows are committed with their done-marker, so a
// re-run after a crash resumes instead of starting over.
func (r *runner) membersToPull(ctx context.Context, members []groups.Member) ([]groups.Member, error) {
	if r.opts.Force {
		return members, nil
	}
	done := map[string]bool{}
	rows, err := r.store.Conn().QueryContext(ctx, completedMembers, r.runID)
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
		if !done[m.StoredID()] { // run_members holds the ID as stored
			todo = append(todo, m)
		}
	}
	return todo, nil
}
