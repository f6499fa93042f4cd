package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/reconcile/reconcile/cardmask"
	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
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
	// Loaded, when set, is told each member's outcome once it is committed
	// (from the writer goroutine; keep it quick).
	Loaded func(MemberResult)
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
}

// PullMembers pulls and loads members (pullMembers). It returns each
// member's final outcome, in merchant ID order, and an error only when a
// member's outcome could not be recorded.
func PullMembers(ctx context.Context, s *store.Store, opts PullOptions, members []groups.Member) ([]MemberResult, error) {
	opts.Concurrency, opts.PaymentLists = max(opts.Concurrency, 1), max(opts.PaymentLists, 1)
	r := &puller{store: s, opts: opts, runID: opts.RunID, window: opts.Window, now: opts.Now, log: opts.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	stored, err := storedMembers(ctx, s)
	if err != nil {
		return nil, err
	}
	order := make([]string, len(members))
	for i, m := range members {
		order[i] = maskedID(m.MerchantID)
	}
	r.stored = newStoredLists(s, order, stored)
	return r.pullMembers(ctx, members)
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

// A load (one transaction) takes members as they come until it holds
// maxRowsPerLoad records or maxLoadWait has passed since its first member.
// Big loads are what make the members stage fast: every commit costs a
// write-ahead log flush (an fsync) and every statement a fixed cost; with
// loads of a few thousand rows, commits took more of the stage than the
// inserts. The bound keeps the pulled records waiting in memory (as Arrow
// buffers, about 0.6 KB each, and the Go values they came from) small:
// at 1,000 members, loads of 100,000 records peaked at 818-890 MiB RSS
// (Go's share 220-295 MiB), of 50,000 at 685 MiB (172 MiB), for ~10% more
// of the stage's CPU (BenchmarkIngest, both under load). The wait keeps a
// slow platform's members from waiting long for their commit (and the
// progress display from stalling).
const (
	maxRowsPerLoad = 50_000
	maxLoadWait    = time.Second
)

// gather takes first and the members that follow on jobs into one load
// (see maxRowsPerLoad), stopping early when jobs is closed.
func gather(first loadJob, jobs <-chan loadJob) []loadJob {
	group, rows := []loadJob{first}, first.rows()
	timer := time.NewTimer(maxLoadWait)
	defer timer.Stop()
	for rows < maxRowsPerLoad {
		select {
		case j, ok := <-jobs:
			if !ok {
				return group
			}
			group, rows = append(group, j), rows+j.rows()
		case <-timer.C:
			return group
		}
	}
	return group
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
	err := loadMembers(ctx, r.store, []loadJob{*j})
	if err == nil {
		return
	}
	j.status.Status, j.status.Error = store.MemberFailed, "load into database: "+cardmask.MaskText(err.Error())
	j.batch = nil
	if err := loadMembers(ctx, r.store, []loadJob{*j}); err != nil && *writeErr == nil {
		*writeErr = err
	}
}

// loaded logs a member's outcome and tells the caller (PullOptions.Loaded).
func (r *puller) loaded(st MemberResult) MemberResult {
	if st.Status == store.MemberOK {
		r.log.Info("member loaded", "merchant_id", st.MerchantID, "plans", st.Plans,
			"subscriptions", st.Subscriptions, "payments", st.Payments, "transactions", st.Transactions,
			"requests", st.Requests, "retries", st.Retries)
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
// reason), so the run log accounts for each one. It returns each member's
// final status.
func (r *puller) pullMembers(ctx context.Context, members []groups.Member) ([]MemberResult, error) {
	jobs := make(chan loadJob, r.opts.Concurrency)
	var statuses []MemberResult
	var writeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Completed members are committed even while the run is being
		// interrupted: what was pulled is not thrown away.
		wctx := context.WithoutCancel(ctx)
		for job := range jobs {
			group := gather(job, jobs)
			err := loadMembers(wctx, r.store, group)
			if err != nil && len(group) > 1 {
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
	sort.Slice(statuses, func(i, j int) bool { return statuses[i].MerchantID < statuses[j].MerchantID })
	if writeErr != nil {
		return statuses, fmt.Errorf("record member status: %w", writeErr)
	}
	return statuses, nil
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
			reason = subscriptions.PullReason(p, s, terms)
		}
		if reason == "" {
			reason = "unchanged"
		}
		reasons[reason]++ // Pull calls need from its own goroutine only
		return reason != "unchanged"
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	transactions := r.searchTransactions(ctx, api)
	snap, err := subscriptions.Pull(ctx, api, r.opts.PaymentLists, need)
	if err != nil {
		return nil, err
	}
	r.log.Debug("payment lists", "merchant_id", mid, "reasons", reasons)
	if snap, err = maskSnapshot(snap); err != nil {
		return nil, err
	}
	b := newMemberBatch(mid)
	if err := b.addRecurring(snap, prev, r.runID, r.now); err != nil {
		return nil, err
	}
	if err := b.addSchedules(snap, r.window.End, r.runID, r.now); err != nil {
		return nil, err
	}
	found := <-transactions
	if found.err != nil {
		return nil, found.err
	}
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
