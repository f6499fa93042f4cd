package ingest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// The BIN stage of a run: the card attributes of every BIN the run's
// transactions and journal calls carry, looked up once and cached in
// bin_attributes.

// BINOptions configure the BIN stage of a run.
type BINOptions struct {
	Client      *platform.Client
	RunID       string
	Window      store.Window
	Now         time.Time     // the run's start: looked_up_at
	RefreshAge  time.Duration // look a cached BIN up again once it is older than this
	Concurrency int           // lookups at once
	// Timeout bounds each BIN's lookups (prefix, tokens, transaction
	// details) as a member's time-out bounds its pulls; 0: none. Each
	// request also has its own per-attempt time-out (platform).
	Timeout time.Duration
	// StageTimeout bounds the stage as a whole: a BIN service that accepts
	// and never answers held a run for hours after every member was done
	// (each BIN waiting out its own Timeout, a few at a time). BINs not
	// looked up by then are failures of this run, looked up by the next;
	// 0: none.
	StageTimeout time.Duration
	// DetailBudget is how many transaction details (GET
	// /tss/v2/transactions/{id}) the stage may read in a run to find an
	// instrument identifier for a MULTIPLE BIN whose transactions carry no
	// customer token; 0 is DefaultBINDetailBudget, negative none.
	DetailBudget int
}

// DefaultBINDetailBudget is the transaction details a run's BIN stage reads
// at most. A detail is one request per transaction and may take minutes
// (the Transaction Search guide: "may exceed 2 minutes"); a few per BIN are
// enough, as any token of a card resolves its BIN.
const DefaultBINDetailBudget = 20

// EnrichBINs looks up each distinct BIN once (enrichBINs).
func EnrichBINs(ctx context.Context, s *store.Store, opts BINOptions) (looked int, failures []error, err error) {
	r := &binLookups{store: s, opts: opts, runID: opts.RunID, window: opts.Window, now: opts.Now}
	switch {
	case opts.DetailBudget == 0:
		r.details.Store(DefaultBINDetailBudget)
	case opts.DetailBudget > 0:
		r.details.Store(int64(opts.DetailBudget))
	}
	return r.enrichBINs(ctx)
}

// binLookups is one BIN stage in flight.
type binLookups struct {
	store  *store.Store
	opts   BINOptions
	runID  string
	window store.Window
	now    time.Time

	details atomic.Int64 // transaction details left to read
}

// Statements of queries/ingest.sql.
var (
	binsToLookUp       = queries.Must("ingest.sql", "BINsToLookUp")
	tokensForBIN       = queries.Must("ingest.sql", "TokensForBIN")
	transactionsForBIN = queries.Must("ingest.sql", "TransactionsForBIN")
)

// binOutcome is one BIN's lookup, ready to store.
type binOutcome struct {
	bin        string
	result     *platform.BINResult
	resolvedBy string
}

// enrichBINs looks up each distinct BIN once (MULTIPLE retried with tokens
// the transactions carry) and stores the results in bin_attributes. Lookups
// that fail are returned as errors per BIN; they do not stop the others.
func (r *binLookups) enrichBINs(ctx context.Context) (looked int, failures []error, err error) {
	refreshBefore := r.now.Add(-r.opts.RefreshAge)
	type todo struct{ bin, merchantID string }
	var work []todo
	rows, err := r.store.Conn().QueryContext(ctx, binsToLookUp, r.window.Start, r.window.End, r.runID, refreshBefore)
	if err != nil {
		return 0, nil, fmt.Errorf("list BINs to look up: %w", err)
	}
	for rows.Next() {
		var t todo
		if err := rows.Scan(&t.bin, &t.merchantID); err != nil {
			rows.Close()
			return 0, nil, fmt.Errorf("list BINs to look up: %w", err)
		}
		work = append(work, t)
	}
	if err := rows.Close(); err != nil {
		return 0, nil, fmt.Errorf("list BINs to look up: %w", err)
	}

	// Token candidates are read before the lookups start: the store has one
	// connection and the lookups run concurrently.
	tokens := map[string][]tokenRef{}
	for _, t := range work {
		refs, err := r.binTokens(ctx, t.bin)
		if err != nil {
			return 0, nil, err
		}
		if !hasCustomer(refs) {
			txns, err := r.binTransactions(ctx, t.bin)
			if err != nil {
				return 0, nil, err
			}
			refs = append(refs, txns...)
		}
		tokens[t.bin] = refs
	}

	outcomes := make([]*binOutcome, len(work))
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(max(r.opts.Concurrency, 1))
	stage := ctx
	if r.opts.StageTimeout > 0 {
		var cancel context.CancelFunc
		stage, cancel = context.WithTimeoutCause(ctx, r.opts.StageTimeout,
			fmt.Errorf("the BIN stage's time limit (%s) was reached; the next run looks it up", r.opts.StageTimeout))
		defer cancel()
	}
	for i, t := range work {
		g.Go(func() error {
			if stage.Err() != nil {
				mu.Lock()
				failures = append(failures, fmt.Errorf("look up BIN %s: not looked up: %w", t.bin, context.Cause(stage)))
				mu.Unlock()
				return nil
			}
			ctx := stage
			if r.opts.Timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, r.opts.Timeout)
				defer cancel()
			}
			o, err := r.lookupBIN(ctx, t.bin, t.merchantID, tokens[t.bin])
			if err != nil {
				mu.Lock()
				failures = append(failures, fmt.Errorf("look up BIN %s: %w", t.bin, err))
				mu.Unlock()
				return nil
			}
			outcomes[i] = o
			return nil
		})
	}
	g.Wait()

	out := binAttributesTable.NewBatch()
	for _, o := range outcomes {
		if o == nil {
			continue
		}
		res := o.result
		var health any
		if res.HealthCard != nil {
			health = *res.HealthCard
		}
		out.Add(o.bin, cardmask.MaskText(res.Status), text(o.resolvedBy), maskedText(res.FundingSource),
			maskedText(res.FundingSourceSubType), maskedText(res.CardPlatform), maskedText(res.CardProduct), health,
			maskedText(res.BrandName), maskedText(res.CardType), maskedText(res.IssuerName), maskedText(res.IssuerCountry),
			rawJSON(cardmask.MaskRecord(res.Raw)), r.now)
		looked++
	}
	err = r.store.Transact(ctx, func(tx *store.Tx) error {
		return tx.Load(ctx, binAttributesTable, nil, out)
	})
	if err != nil {
		return 0, failures, fmt.Errorf("store BIN attributes: %w", err)
	}
	return looked, failures, nil
}

// tokenRef is a token a transaction on the BIN carried (customerID, from
// the summary's paymentInformation.customer.customerId, or instrumentID), or
// failing both the transaction (transactionID) whose detail may name one.
type tokenRef struct{ merchantID, customerID, instrumentID, transactionID string }

func hasCustomer(refs []tokenRef) bool {
	for _, r := range refs {
		if r.customerID != "" {
			return true
		}
	}
	return false
}

// binTransactions are transactions on the BIN that carried no token.
func (r *binLookups) binTransactions(ctx context.Context, bin string) ([]tokenRef, error) {
	rows, err := r.store.Conn().QueryContext(ctx, transactionsForBIN, bin)
	if err != nil {
		return nil, fmt.Errorf("transactions on BIN %s: %w", bin, err)
	}
	defer rows.Close()
	var refs []tokenRef
	for rows.Next() {
		var ref tokenRef
		if err := rows.Scan(&ref.merchantID, &ref.transactionID); err != nil {
			return nil, fmt.Errorf("transactions on BIN %s: %w", bin, err)
		}
		refs = append(refs, ref)
	}
	return refs, rows.Err()
}

// detailToken reads the transaction's detail for a token, within the run's
// budget: its customer (customer.customerId or .id), else its instrument
// identifier. ok is false when the budget is spent.
func (r *binLookups) detailToken(ctx context.Context, t tokenRef) (tokenRef, bool, error) {
	if r.details.Add(-1) < 0 {
		return t, false, nil
	}
	d, err := r.opts.Client.Merchant(t.merchantID).TransactionDetail(ctx, t.transactionID)
	if err != nil {
		return t, true, err
	}
	t.customerID, t.instrumentID = d.CustomerID, d.InstrumentIdentifierID
	return t, true, nil
}

func (r *binLookups) binTokens(ctx context.Context, bin string) ([]tokenRef, error) {
	rows, err := r.store.Conn().QueryContext(ctx, tokensForBIN, bin)
	if err != nil {
		return nil, fmt.Errorf("tokens for BIN %s: %w", bin, err)
	}
	defer rows.Close()
	var refs []tokenRef
	for rows.Next() {
		var mid string
		var cust, inst *string
		if err := rows.Scan(&mid, &cust, &inst); err != nil {
			return nil, fmt.Errorf("tokens for BIN %s: %w", bin, err)
		}
		ref := tokenRef{merchantID: mid}
		if cust != nil {
			ref.customerID = *cust
		}
		if inst != nil {
			ref.instrumentID = *inst
		}
		refs = append(refs, ref)
	}
	return refs, rows.Err()
}

// lookupBIN looks the prefix up; a MULTIPLE answer is retried with each
// token until one resolves. A transaction that carried no token (its
// summary had no customer.customerId, and summaries never carry the
// instrument identifier) is read in detail for one, within the run's
// budget of details. A token the platform refuses (a customer
// deleted since, a member whose credential lost the service) does not stop
// the next one; the lookup fails with the first refusal only when no token
// resolves. A full card number is never sent: the prefix is six digits and
// platform.LookupBIN refuses anything longer.
func (r *binLookups) lookupBIN(ctx context.Context, bin, merchantID string, tokens []tokenRef) (*binOutcome, error) {
	res, err := r.opts.Client.Merchant(merchantID).LookupBIN(ctx, platform.BINQuery{CardPrefix: bin})
	if err != nil {
		return nil, err
	}
	o := &binOutcome{bin: bin, result: res, resolvedBy: "prefix"}
	if res.Status != "MULTIPLE" {
		return o, nil
	}
	var refused error
	for _, t := range tokens {
		if t.transactionID != "" {
			var spent bool
			t, spent, err = r.detailToken(ctx, t)
			if !spent {
				break
			}
			if err != nil {
				if refused == nil {
					refused = fmt.Errorf("reading a transaction of %s for its token: %w", t.merchantID, err)
				}
				if ctx.Err() != nil {
					break
				}
				continue
			}
			if t.customerID == "" && t.instrumentID == "" {
				continue
			}
		}
		q := platform.BINQuery{CustomerID: t.customerID}
		if q.CustomerID == "" {
			q.InstrumentIdentifierID = t.instrumentID
		}
		tr, err := r.opts.Client.Merchant(t.merchantID).LookupBIN(ctx, q)
		if err != nil {
			if refused == nil {
				refused = fmt.Errorf("with a token of %s: %w", t.merchantID, err)
			}
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if tr.Status == "COMPLETED" {
			return &binOutcome{bin: bin, result: tr, resolvedBy: "token"}, nil
		}
	}
	if refused != nil {
		return nil, refused
	}
	return o, nil
}
