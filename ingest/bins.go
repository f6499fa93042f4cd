package ingest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/cardmask"
	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
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
}

// EnrichBINs looks up each distinct BIN once (enrichBINs).
func EnrichBINs(ctx context.Context, s *store.Store, opts BINOptions) (looked int, failures []error, err error) {
	r := &binLookups{store: s, opts: opts, runID: opts.RunID, window: opts.Window, now: opts.Now}
	return r.enrichBINs(ctx)
}

// binLookups is one BIN stage in flight.
type binLookups struct {
	store  *store.Store
	opts   BINOptions
	runID  string
	window store.Window
	now    time.Time
}

// Statements of queries/ingest.sql.
var (
	binsToLookUp = queries.Must("ingest.sql", "BINsToLookUp")
	tokensForBIN = queries.Must("ingest.sql", "TokensForBIN")
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
		tokens[t.bin] = refs
	}

	outcomes := make([]*binOutcome, len(work))
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(max(r.opts.Concurrency, 1))
	for i, t := range work {
		g.Go(func() error {
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

type tokenRef struct{ merchantID, customerID, instrumentID string }

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
// token until one resolves. A token the platform refuses (a customer
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
