package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/subscriptions"
)

// The members stage of a run: each member's plans, subscriptions, payment
// lists and transactions are pulled (several members at once) and
// converted into rows, and one writer loads them, each member with its
// run_members row in the same transaction.

// PullOptions configure the members stage of a run.
type PullOptions struct {
	Client         *platform.Client
	RunID          string
	Window         store.Window
	Now            time.Time     // the run's start: loaded_at of every row
	Concurrency    int           // members at once (at least 1)
	MemberTimeout  time.Duration // 0: none
	PaymentLists   int           // payment lists in flight within one member (at least 1)
	FullRefresh    bool          // pull every payment list, not only those that may have changed (subscriptions.PullReason)
	PaymentsMaxAge time.Duration // how long a payment list is trusted without a pull
	Logger         *slog.Logger
	// SearchScope, when account or reseller, lists the transactions of
	// every member in one search of SearchScopeID, acting for SearchActor
	// (the key's owner), instead of one search a member (search_scope.go).
	SearchScope   platform.SearchScope
	SearchScopeID string
	SearchActor   string
	// Loaded, when set, is told each member's outcome once it is committed
	// (from the writer goroutine; keep it quick).
	Loaded func(MemberResult)
	// Started, when set, is told when a member's pull begins (from the
	// fan-out's goroutines, concurrently; keep it quick): with Loaded it
	// tells which members are in flight.
	Started func(merchantID string)
	// PlansMaxAge is how long a member's stored plan list stands for the
	// platform's without a pull (subscriptions.PlansReason); 0: the plans
	// are pulled every night.
	PlansMaxAge time.Duration
	// History, when above 0, leaves the never-pulled payment list of a
	// subscription that ended before the window's start less History
	// (subscriptions.EndedBefore) to the backfill: at most BackfillBudget
	// such lists are pulled a run, the oldest subscriptions of a member
	// first (history.go).
	History        time.Duration
	BackfillBudget int
}

// MemberResult is a member's row in run_members: how its pull and load
// ended, what it loaded and the requests it took.
type MemberResult struct {
	RunID, MerchantID                            string
	Status                                       store.MemberStatus
	Error                                        string // why it failed; "" when ok
	Started, Finished                            time.Time
	Plans, Subscriptions, Payments, Transactions int
	Requests, Retries                            int64
	// NotEnabled lists the products that answered "not enabled" for the
	// member, in the order of notEnabledProducts; the member is reconciled
	// on what its other products gave (notenabled.go).
	NotEnabled []NotEnabled
}

// PullMembers pulls and loads members (pullMembers). It returns each
// member's final outcome, in merchant ID order, and an error only when a
// member's outcome could not be recorded.
func PullMembers(ctx context.Context, s *store.Store, opts PullOptions, members []groups.Member) ([]MemberResult, error) {
	r, err := newPuller(ctx, s, opts, members)
	if err != nil {
		return nil, err
	}
	return r.pullMembers(ctx, members)
}

// newPuller readies the members stage for members.
func newPuller(ctx context.Context, s *store.Store, opts PullOptions, members []groups.Member) (*puller, error) {
	opts.Concurrency, opts.PaymentLists = max(opts.Concurrency, 1), max(opts.PaymentLists, 1)
	if err := validSearchScope(opts); err != nil {
		return nil, err
	}
	r := &puller{store: s, opts: opts, runID: opts.RunID, window: opts.Window, now: opts.Now, log: opts.Logger,
		loadRows: maxRowsPerLoad, spanWait: maxSpanWait, interrupted: func() bool { return ctx.Err() != nil }}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if err := r.readStored(ctx, members); err != nil {
		return nil, err
	}
	return r, nil
}

// readStored readies the stored payment lists of members, which each of
// them takes once when it is pulled (storedLists).
func (r *puller) readStored(ctx context.Context, members []groups.Member) error {
	stored, err := storedMembers(ctx, r.store)
	if err != nil {
		return err
	}
	order := make([]string, len(members))
	for i, m := range members {
		order[i] = m.StoredID()
	}
	r.stored = newStoredLists(r.store, order, stored)
	return nil
}

var storedMembersSQL = queries.Must("ingest.sql", "StoredMembers")

// storedMembers is the set of members whose subscriptions the database
// holds, read once: stored payment lists are read only for members that
// have some (storedLists).
func storedMembers(ctx context.Context, s *store.Store) (map[string]bool, error) {
	rows, err := s.ReadPool().QueryContext(ctx, storedMembersSQL)
	if err != nil {
		return nil, fmt.Errorf("read the members stored: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var mid string
		if err := rows.Scan(&mid); err != nil {
			return nil, fmt.Errorf("read the members stored: %w", err)
		}
		out[mid] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the members stored: %w", err)
	}
	return out, nil
}

// puller is one members stage in flight.
type puller struct {
	store  *store.Store
	stored *storedLists // the members' stored payment lists
	opts   PullOptions
	runID  string
	window store.Window
	now    time.Time
	log    *slog.Logger
	// How many records a load gathers, and how long a span stays open
	// (maxRowsPerLoad, maxSpanWait; tests take less).
	loadRows int
	spanWait time.Duration
	// interrupted tells whether the run's context is done: a member that
	// did not finish then was stopped, not failed.
	interrupted func() bool
	// shared holds each member's transactions of the run's one search
	// across members (sharedSearch); nil: each member searches. Members
	// take theirs under sharedMu. sharedLimit overrides
	// maxSharedTransactions (tests).
	sharedMu    sync.Mutex
	shared      map[string][]platform.TransactionSummary
	sharedLimit int
	// The run's payment-list backfill (history.go): lists taken from
	// PullOptions.BackfillBudget, and lists left for a later run.
	backfilled, deferred atomic.Int64
}

// LoadDirectory stores the organization's groups and their members as
// discovered by the run.
func LoadDirectory(ctx context.Context, s *store.Store, dir *groups.Directory, runID string, now time.Time) error {
	gr, mr, err := directoryRows(dir, runID, now)
	if err != nil {
		return err
	}
	listed := make([][]string, len(dir.Groups))
	for i, g := range dir.Groups {
		listed[i] = []string{maskedID(g.ID)} // as directoryRows stores it
	}
	return s.Transact(ctx, func(tx *store.Tx) error {
		if err := tx.Load(ctx, groupsTable, nil, gr); err != nil {
			return err
		}
		// Membership of the listed groups is replaced as a whole, so a MID
		// removed from a group leaves it.
		return tx.Load(ctx, groupMembersTable, &store.Replace{On: []string{"group_id"}, Tuples: listed}, mr)
	})
}

// loadJob is one member's outcome on its way to the single writer.
type loadJob struct {
	batch  *memberBatch // nil when the pull failed
	status MemberResult
}

// The writer loads members in groups, and commits several groups at once.
//
// A load takes members as they come until it holds maxRowsPerLoad records
// or maxLoadWait has passed since its first member: one INSERT per table
// for all of them, since every statement has a fixed cost. The bound keeps
// the pulled records waiting in memory (as Arrow buffers, about 0.6 KB
// each) small: at 1,000 members, loads of 100,000 records peaked at
// 818-890 MiB RSS (Go's share 220-295 MiB), of 50,000 at 685 MiB (172
// MiB), for ~10% more of the stage's CPU. The wait keeps a slow platform's
// members from waiting long for their load.
//
// A span is one transaction over several loads: it is committed once it
// holds spanBytesPerRecord-sized records to fill the loads' DuckDB memory
// (spanRecords), maxSpanWait after it began, or after a load that was not
// full (members come slower than they are loaded: see writer.load). A
// load's records leave Go's memory as soon as they are inserted; DuckDB keeps what the transaction
// inserted until the commit (it writes what does not fit to its temporary
// folder). Commits are what a span saves: at 2,000 members, one every 50,000
// records took half of the writer's time (the write-ahead log, and the
// checkpoints it sets off); in spans of 400,000 records the members stage
// took 64-68 s instead of 74-75, with ~9% less CPU. A span of 1,000,000
// records ran out of DuckDB's 122 MiB for the loads. The wait bounds what
// a crash loses on a slow platform, and how long a member waits before it
// counts as loaded.
const (
	maxRowsPerLoad     = 50_000
	maxLoadWait        = time.Second
	spanBytesPerRecord = 320 // 400,000 records in 122 MiB
	maxSpanRecords     = 1_000_000
	maxSpanWait        = 10 * time.Second
)

// spanRecords is how many records a span may hold under a DuckDB memory
// limit of limit bytes: at least one load's.
func spanRecords(limit int64) int {
	return int(min(max(limit/spanBytesPerRecord, maxRowsPerLoad), maxSpanRecords))
}

// gather takes first and the members that follow on jobs into one load of
// up to maxRows records (see maxRowsPerLoad), stopping early when jobs is
// closed. It says whether the load is full: whether it stopped at maxRows
// rather than at the wait or the end.
func gather(first loadJob, jobs <-chan loadJob, maxRows int) (group []loadJob, full bool) {
	group, rows := []loadJob{first}, first.rows()
	timer := time.NewTimer(maxLoadWait)
	defer timer.Stop()
	for rows < maxRows {
		select {
		case j, ok := <-jobs:
			if !ok {
				return group, false
			}
			group, rows = append(group, j), rows+j.rows()
		case <-timer.C:
			return group, false
		}
	}
	return group, true
}

func (j loadJob) rows() int {
	if j.batch == nil {
		return 1
	}
	return j.batch.plans.Len() + j.batch.subscriptions.Len() + j.batch.payments.Len() + j.batch.transactions.Len()
}

// loadAlone loads one member in its own transaction; if the database
// refuses its data, the member is recorded as failed with the reason.
func (r *puller) loadAlone(ctx context.Context, j *loadJob, writeErr *error) {
	load := func(tx *store.Tx) error { return loadMembers(ctx, tx, []loadJob{*j}) }
	err := r.store.Transact(ctx, load)
	if err == nil {
		return
	}
	j.status.Status, j.status.Error = store.MemberFailed, "load into database: "+cardmask.MaskText(err.Error())
	j.batch = nil
	if err := r.store.Transact(ctx, load); err != nil && *writeErr == nil {
		*writeErr = err
	}
}

// loaded logs a member's outcome and tells the caller (PullOptions.Loaded).
func (r *puller) loaded(st MemberResult) MemberResult {
	if st.Status == store.MemberOK {
		r.log.Info("member loaded", "merchant_id", st.MerchantID, "plans", st.Plans,
			"subscriptions", st.Subscriptions, "payments", st.Payments, "transactions", st.Transactions,
			"requests", st.Requests, "retries", st.Retries)
	} else if r.interrupted() {
		// Stopped by a signal, not failed: the run says so in one line
		// (pipeline.Interrupted), not a warning per member not finished.
		r.log.Debug("member not finished: the run was interrupted", "merchant_id", st.MerchantID, "error", st.Error)
	} else {
		r.log.Warn("member failed", "merchant_id", st.MerchantID, "error", st.Error)
	}
	if r.opts.Loaded != nil {
		r.opts.Loaded(st)
	}
	return st
}

// pullMembers fans the pulls out over the members and feeds one writer
// goroutine, which commits each member with its status row. Every member
// reaches the writer, whatever its pull did (groups.FanOut delivers a result
// per member: a panic or a member never started is a failure with its
// reason), so the run log accounts for each one. Members whose span was
// rolled back (the database refused a load after theirs, or the commit)
// are pulled again, each load then committed on its own. It returns each
// member's final status.
func (r *puller) pullMembers(ctx context.Context, members []groups.Member) ([]MemberResult, error) {
	limit, err := r.store.MemoryLimit(ctx)
	if err != nil {
		return nil, err
	}
	w := &writer{r: r, ctx: context.WithoutCancel(ctx), span: spanRecords(limit)}
	r.sharedSearch(ctx, members)
	// Each member counts its own requests, nested under the run's; the map
	// is filled before the fan-out and only read during it.
	stats := make(map[string]*platform.Stats, len(members))
	byID := make(map[string]groups.Member, len(members))
	for _, m := range members {
		stats[m.MerchantID] = &platform.Stats{}
		byID[m.MerchantID] = m
	}
	r.fanOut(ctx, members, stats, w)
	r.logBackfill()
	if len(w.again) > 0 {
		again := make([]groups.Member, len(w.again))
		for i, mid := range w.again {
			again[i] = byID[mid]
		}
		// Their rows were rolled back, so the database holds what it held
		// before the run: they take their stored lists again, and pull
		// only the payment lists that may have changed. (If the run is
		// being interrupted, they fail as not started, and its re-run
		// pulls them.)
		if err := r.readStored(context.WithoutCancel(ctx), again); err != nil {
			return nil, fmt.Errorf("pull again the members of a rolled-back span: %w", err)
		}
		// Without spans nothing is rolled back for another member's sake:
		// a load that fails is loaded again member by member.
		w.again, w.span = nil, 0
		r.fanOut(ctx, again, stats, w)
		if len(w.again) > 0 {
			panic(fmt.Sprintf("ingest: %d members rolled back without spans", len(w.again)))
		}
	}
	statuses := w.statuses
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].MerchantID < statuses[j].MerchantID })
	if w.err != nil {
		return statuses, fmt.Errorf("record member status: %w", w.err)
	}
	return statuses, nil
}

// fanOut pulls the members, several at once, into the writer w.
func (r *puller) fanOut(ctx context.Context, members []groups.Member, stats map[string]*platform.Stats, w *writer) {
	jobs := make(chan loadJob, r.opts.Concurrency)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.run(jobs)
	}()
	groups.FanOut(ctx, members, r.opts.Concurrency, r.opts.MemberTimeout,
		func(ctx context.Context, m groups.Member) (*memberBatch, error) {
			if r.opts.Started != nil {
				r.opts.Started(m.MerchantID)
			}
			return r.pullMember(platform.WithStats(ctx, stats[m.MerchantID]), m.MerchantID)
		},
		func(res groups.Result[*memberBatch]) { jobs <- r.loadJobOf(res, stats[res.Member.MerchantID]) })
	close(jobs)
	<-done
}

// writer is the members stage's one writer: it loads the members' groups
// into spans (see maxSpanWait) and reports each member once its span is
// committed.
type writer struct {
	r *puller
	// Completed members are committed even while the run is being
	// interrupted: what was pulled is not thrown away.
	ctx  context.Context
	span int // records a span may hold; 0: each load is committed alone

	tx      *store.Tx // the open span; nil between spans
	began   time.Time
	records int
	pending []MemberResult // loaded in the open span; their rows are let go

	again    []string // merchant IDs of members rolled back, to pull again
	statuses []MemberResult
	err      error // the first status that could not be recorded
}

// run loads what jobs delivers until it is closed, then commits the open
// span. A span is also committed maxSpanWait after it began, whether or
// not another member has come: a slow member does not hold back the
// members pulled before it.
func (w *writer) run(jobs <-chan loadJob) {
	for {
		var deadline *time.Timer
		var due <-chan time.Time
		if w.tx != nil {
			deadline = time.NewTimer(time.Until(w.began.Add(w.r.spanWait)))
			due = deadline.C
		}
		select {
		case job, ok := <-jobs:
			if deadline != nil {
				deadline.Stop()
			}
			if !ok {
				w.commit(nil)
				return
			}
			w.load(gather(job, jobs, w.r.loadRows))
		case <-due:
			w.commit(nil)
		}
	}
}

// load loads a group of members into the open span (opening one if needed)
// and commits the span once it is full or old enough, or when the group
// was not a full load: members then come slower than the writer loads
// them, so a commit per load costs the stage nothing, and keeps what a
// crash loses and how long a member waits to count as loaded small. If
// the database refuses the group, the span is rolled back: the group's
// members, whose rows are still at hand, are loaded one by one, so that a
// member whose data is refused fails alone, and the members loaded before
// them in the span are to be pulled again.
func (w *writer) load(group []loadJob, full bool) {
	if w.tx == nil {
		tx, err := w.r.store.Begin(w.ctx)
		if err != nil {
			w.loadOneByOne(group)
			return
		}
		w.tx, w.began, w.records = tx, time.Now(), 0
	}
	if err := loadMembers(w.ctx, w.tx, group); err != nil {
		w.rollback(err)
		w.loadOneByOne(group)
		return
	}
	for _, j := range group {
		w.pending = append(w.pending, j.status)
		w.records += j.rows()
	}
	if !full || w.records >= w.span || time.Since(w.began) >= w.r.spanWait {
		w.commit(group)
	}
}

// commit commits the open span and reports its members. If the commit
// fails, the members of group (the last load, whose rows are at hand) are
// loaded one by one, and the span's other members are to be pulled again.
func (w *writer) commit(group []loadJob) {
	if w.tx == nil {
		return
	}
	err := w.tx.Commit(w.ctx)
	if err == nil {
		for _, st := range w.pending {
			w.statuses = append(w.statuses, w.r.loaded(st))
		}
		w.tx, w.pending = nil, nil
		return
	}
	w.tx = nil
	// group's members were loaded last, so they are pending's last.
	w.pending = w.pending[:len(w.pending)-len(group)]
	w.rollback(err)
	w.loadOneByOne(group)
}

// rollback rolls the open span back, if it is still open, after cause;
// the members it held are to be pulled again, and the spans that follow
// hold half as many records (in case the span was too large for DuckDB's
// memory).
func (w *writer) rollback(cause error) {
	if w.tx != nil {
		if err := w.tx.Rollback(w.ctx); err != nil {
			cause = errors.Join(cause, err)
		}
		w.tx = nil
	}
	if len(w.pending) > 0 {
		w.r.log.Warn("members rolled back, to be pulled again", "members", len(w.pending),
			"error", cardmask.MaskText(cause.Error()))
		w.span = max(w.span/2, w.r.loadRows)
	}
	for _, st := range w.pending {
		w.again = append(w.again, st.MerchantID)
	}
	w.pending = nil
}

// loadOneByOne loads each member of group in a transaction of its own,
// recording a member whose data the database refuses as failed.
func (w *writer) loadOneByOne(group []loadJob) {
	for _, j := range group {
		w.r.loadAlone(w.ctx, &j, &w.err)
		w.statuses = append(w.statuses, w.r.loaded(j.status))
	}
}

// loadJobOf turns a member's fan-out result into the writer's job: its
// batch and an ok status, or a failed status with the reason and no data.
func (r *puller) loadJobOf(res groups.Result[*memberBatch], stats *platform.Stats) loadJob {
	st := MemberResult{RunID: r.opts.RunID, MerchantID: res.Member.MerchantID, Status: store.MemberOK,
		Started: res.Started.UTC(), Finished: res.Finished.UTC(),
		Requests: stats.Requests.Load(), Retries: stats.Retries.Load()}
	if st.Started.IsZero() { // never started: the run was interrupted first
		st.Started, st.Finished = time.Now().UTC(), time.Now().UTC()
	}
	if res.Err != nil {
		st.Status, st.Error = store.MemberFailed, cardmask.MaskText(res.Err.Error())
		return loadJob{status: st}
	}
	b := res.Value
	st.Plans, st.Subscriptions = b.plans.Len(), b.subscriptions.Len()
	st.Payments, st.Transactions = b.payments.Len(), b.transactions.Len()
	st.NotEnabled = b.notEnabled
	return loadJob{batch: b, status: st}
}

// pullMember reads everything of one member and converts it into rows.
func (r *puller) pullMember(ctx context.Context, mid string) (*memberBatch, error) {
	api := r.opts.Client.Merchant(mid)
	prev, err := r.stored.take(ctx, maskedID(mid))
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
			reason = r.backfill(subscriptions.PullReason(p, s, terms), s)
		}
		if reason == "" {
			reason = "unchanged"
		}
		reasons[reason]++ // Pull calls need from its own goroutine only
		return reason != "unchanged" && reason != deferred
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	transactions := r.searchTransactions(ctx, api)
	var notEnabled []NotEnabled
	var firstNotEnabled error // the pull's error of the first product not enabled
	var plans storedPlans
	var plansReason string
	snap, err := subscriptions.PullWith(ctx, api, r.opts.PaymentLists, need, r.plansDecision(ctx, mid, prev, &plans, &plansReason))
	if e, ok := platform.NotEnabled(err); ok {
		firstNotEnabled = err
		// The account lacks Recurring Billing: its card transactions are
		// still reconciled, and the stored recurring rows stay as they
		// were (an empty snapshot replaces nothing).
		notEnabled = append(notEnabled, newNotEnabled(ProductRecurringBilling, e))
		snap, err = &subscriptions.Snapshot{Payments: map[string]*platform.PaymentList{}}, nil
	}
	if err != nil {
		return nil, err
	}
	r.log.Debug("payment lists", "merchant_id", mid, "reasons", reasons)
	r.log.Debug("plans", "merchant_id", mid, "pulled", snap.PlansPulled, "reason", plansReason)
	if snap, err = maskSnapshot(snap); err != nil {
		return nil, err
	}
	b := newMemberBatch(mid)
	if err := b.addRecurring(snap, prev, r.runID, r.now); err != nil {
		return nil, err
	}
	if !snap.PlansPulled {
		// The stored plans stand for tonight's list: the schedules take
		// their terms from them, and they are not loaded again (their
		// loaded_at says when the list was last pulled).
		snap.Plans = plans.plans
	}
	if err := b.addSchedules(snap, r.window.End, r.runID, r.now); err != nil {
		return nil, err
	}
	found := <-transactions
	if e, ok := platform.NotEnabled(found.err); ok {
		if firstNotEnabled == nil {
			firstNotEnabled = found.err
		}
		notEnabled = append(notEnabled, newNotEnabled(ProductTransactionSearch, e))
		found = searched{}
	}
	if found.err != nil {
		return nil, found.err
	}
	if err := allNotEnabled(firstNotEnabled, notEnabled); err != nil {
		return nil, err
	}
	b.notEnabled = notEnabled
	list, err := maskTransactions(found.list)
	if err != nil {
		return nil, err
	}
	b.reserveTransactions(list)
	for _, t := range list {
		if err := b.addTransaction(t, r.runID, r.now); err != nil {
			return nil, err
		}
	}
	b.seal()
	return b, nil
}

// searched is a member's transactions of the window, or why they could not
// be listed.
type searched struct {
	list []platform.TransactionSummary
	err  error
}

// searchTransactions lists the member's transactions of the run's window in
// a goroutine of its own, beside the recurring pull: against a platform's
// latency, the search's pages would otherwise wait for the last payment
// list, and a member would have one request in flight for a quarter of its
// time (BenchmarkRateBudget). Cancelling ctx stops it; a panic while
// listing is its error, as one in the member's own goroutine would be
// (groups.FanOut).
func (r *puller) searchTransactions(ctx context.Context, api *platform.Merchant) <-chan searched {
	out := make(chan searched, 1)
	if list, ok := r.sharedTransactions(api.ID()); ok { // the run's one search found them
		out <- searched{list: list}
		return out
	}
	go func() {
		var s searched
		defer func() {
			if p := recover(); p != nil {
				s.list, s.err = nil, fmt.Errorf("search transactions: panic: %v", p)
			}
			out <- s
		}()
		for t, err := range api.SearchTransactions(ctx, r.window.Start, r.window.End) {
			if err != nil {
				s.err = fmt.Errorf("search transactions: %w", err)
				return
			}
			s.list = append(s.list, t)
		}
	}()
	return out
}
