package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// The disputes stage of a run: the members' interchange clearing levels,
// chargebacks and retrievals from the Reporting API over the run's window.
// By default (DisputeScopeOrganization, disputes_org.go) each report is
// read once for the whole organization and its records attributed to the
// members, three requests a night; with DisputeScopeMember, or where the
// organization's report cannot be read or attributed, member by member,
// three requests a member (the SDK's reports take no group and no paging:
// internal/platform/disputes.go). A member's rows whose time falls in the
// window are replaced, older ones kept, so that the tables grow night by
// night like the other sources. A member the key may not read reports for
// is recorded as such in run_members (products_not_enabled "reporting"),
// not as a failure; any other failure is the run's problem, and the other
// members finish.

// ProductReporting names the Reporting API in run_members.products_not_enabled.
const ProductReporting = "reporting"

// DisputeOptions configure the disputes stage of a run.
type DisputeOptions struct {
	Client *platform.Client
	// OrganizationID is the run's organization, whose reports hold every
	// member's records (DisputeScopeOrganization); empty reads member by
	// member.
	OrganizationID string
	Scope          DisputeScope
	RunID          string
	Window         store.Window
	Now            time.Time     // the run's start: loaded_at
	Concurrency    int           // members at once (at least 1)
	Timeout        time.Duration // bounds each member's three reports; 0: none
	Logger         *slog.Logger
}

// DisputeResult is what the stage loaded, and which members could not be
// read (failures) or may not read reports (NotEnabled).
type DisputeResult struct {
	Clearing, Chargebacks, Retrievals, KeptAside int
	NotEnabled                                   []string
	Failures                                     []error
}

var (
	clearingTable = store.NewTable("interchange_clearing", []string{"merchant_id", "request_id"}, "merchant_id", store.Columns(
		"merchant_id text, request_id text, transaction_time time, settlement_time time, transaction_type text, "+
			"amount amount, currency text, sent_level text, cleared_level text, billback_reason_code text, billback_reason text, "+
			"downgrade_reason_code text, fee_expected amount, fee_charged amount, billback_amount amount, fee_currency text, "+
			"raw json, run_id text, loaded_at time")...)
	disputeColumns = "merchant_id text, request_id text, time time, reason_code text, amount amount, currency text, sign text, " +
		"response_due time, original_settlement_time time, nature_of_dispute text, action text, action_description text, " +
		"card_type text, merchant_reference text, "
	chargebacksTable = store.NewTable("chargebacks", []string{"merchant_id", "request_id", "time"}, "merchant_id",
		store.Columns(disputeColumns+"pre_dispute text, raw json, run_id text, loaded_at time")...)
	retrievalsTable = store.NewTable("retrievals", []string{"merchant_id", "request_id", "time"}, "merchant_id",
		store.Columns(disputeColumns+"raw json, run_id text, loaded_at time")...)

	deleteClearingInWindow    = queries.Must("ingest.sql", "DeleteClearingInWindow")
	deleteChargebacksInWindow = queries.Must("ingest.sql", "DeleteChargebacksInWindow")
	deleteRetrievalsInWindow  = queries.Must("ingest.sql", "DeleteRetrievalsInWindow")
	reportingNotEnabled       = queries.Must("ingest.sql", "ReportingNotEnabled")
)

// memberReports is one member's three reports as pulled.
type memberReports struct {
	merchantID  string
	clearing    []platform.ClearingRecord
	chargebacks []platform.Dispute
	retrievals  []platform.Dispute
	notEnabled  *platform.APIError
}

// PullDisputes pulls the reports of members (merchant IDs), for the
// organization at once or a few members at once (opts.Scope), and loads
// them in one transaction.
func PullDisputes(ctx context.Context, s *store.Store, opts DisputeOptions, members []string) (DisputeResult, error) {
	var res DisputeResult
	var pulled []*memberReports
	var err error
	if opts.Scope == DisputeScopeMember || opts.OrganizationID == "" {
		pulled, res.Failures, err = pullMembers(ctx, opts, members, allReports)
	} else {
		pulled, res.Failures, err = pullOrganization(ctx, s, opts, members)
	}
	if err != nil {
		return res, err
	}
	return storeReports(ctx, s, opts, pulled, res.Failures)
}

// pullMembers reads the reports which of each member, a few members at
// once: nil in place of a member that failed, with its error.
func pullMembers(ctx context.Context, opts DisputeOptions, members []string, which reportSet) ([]*memberReports, []error, error) {
	var failures []error
	pulled := make([]*memberReports, len(members))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Concurrency, 1))
	for i, mid := range members {
		g.Go(func() error {
			mctx := gctx
			if opts.Timeout > 0 {
				var cancel context.CancelFunc
				mctx, cancel = context.WithTimeout(gctx, opts.Timeout)
				defer cancel()
			}
			r, err := pullReports(mctx, opts.Client.Merchant(mid), opts.Window, which)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				mu.Lock()
				failures = append(failures, fmt.Errorf("reports of member %s: %w", maskedID(mid), err))
				mu.Unlock()
				return nil
			}
			pulled[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, failures, err
	}
	return pulled, failures, nil
}

// storeReports loads what was pulled (a nil entry is a member that
// failed: its rows stay as they were) in one transaction.
func storeReports(ctx context.Context, s *store.Store, opts DisputeOptions, pulled []*memberReports, failures []error) (DisputeResult, error) {
	var res DisputeResult
	err := s.Transact(ctx, func(tx *store.Tx) error {
		res = DisputeResult{Failures: failures}
		clearing, chargebacks, retrievals := clearingTable.NewBatch(), chargebacksTable.NewBatch(), retrievalsTable.NewBatch()
		aside := keptAsideTable.NewBatch()
		for _, r := range pulled {
			if r == nil {
				continue
			}
			mid := maskedID(r.merchantID)
			if r.notEnabled != nil {
				ne := newNotEnabled(ProductReporting, r.notEnabled)
				if _, err := tx.Exec(ctx, reportingNotEnabled, ne.Product, ne.Product+": "+ne.Message, opts.RunID, mid, ne.Product); err != nil {
					return fmt.Errorf("record reports not enabled for %s: %w", mid, err)
				}
				res.NotEnabled = append(res.NotEnabled, mid)
				continue
			}
			for _, q := range []string{deleteClearingInWindow, deleteChargebacksInWindow, deleteRetrievalsInWindow} {
				if _, err := tx.Exec(ctx, q, mid, opts.Window.Start, opts.Window.End); err != nil {
					return fmt.Errorf("replace the reports of %s: %w", mid, err)
				}
			}
			for _, c := range r.clearing {
				if addClearing(clearing, aside, mid, c, opts) {
					res.Clearing++
				} else {
					res.KeptAside++
				}
			}
			for _, d := range r.chargebacks {
				if addDispute(chargebacks, aside, "chargeback", mid, d, opts, true) {
					res.Chargebacks++
				} else {
					res.KeptAside++
				}
			}
			for _, d := range r.retrievals {
				if addDispute(retrievals, aside, "retrieval", mid, d, opts, false) {
					res.Retrievals++
				} else {
					res.KeptAside++
				}
			}
		}
		for _, l := range []struct {
			t *store.Table
			b *store.Batch
		}{{clearingTable, clearing}, {chargebacksTable, chargebacks}, {retrievalsTable, retrievals}, {keptAsideTable, aside}} {
			if err := tx.Load(ctx, l.t, nil, l.b); err != nil {
				return fmt.Errorf("load %s: %w", l.t.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("store the reports: %w", err)
	}
	return res, nil
}

// pullReports reads the reports which of a member over the window; a
// "not enabled" answer ends the member's pull without an error.
func pullReports(ctx context.Context, m *platform.Merchant, w store.Window, which reportSet) (*memberReports, error) {
	r := &memberReports{merchantID: m.ID()}
	var err error
	for _, rep := range []struct {
		bit  reportSet
		read func() error
	}{
		{reportClearing, func() (err error) { r.clearing, err = m.InterchangeClearingLevels(ctx, w.Start, w.End); return }},
		{reportChargebacks, func() (err error) { r.chargebacks, err = m.Chargebacks(ctx, w.Start, w.End); return }},
		{reportRetrievals, func() (err error) { r.retrievals, err = m.Retrievals(ctx, w.Start, w.End); return }},
	} {
		if which&rep.bit == 0 {
			continue
		}
		if err = rep.read(); err != nil {
			if e, ok := platform.NotEnabled(err); ok {
				r.notEnabled = e
				return r, nil
			}
			return nil, err
		}
	}
	return r, nil
}

// keep puts a record that cannot be loaded as sent into kept_aside with
// why, and says false.
func keep(aside *store.Batch, record, mid, id, field, value, currency, reason string, raw []byte, opts DisputeOptions) bool {
	aside.Str(opts.RunID).Str(mid).Str(record).Str(maskedID(id)).Text(field).Text(cardmask.MaskText(value)).
		Text(currency).Str(reason).JSONText(cardmask.MaskRecord(raw)).Time(opts.Now, true).End()
	return false
}

// addClearing converts a clearing record into a row; a record without a
// request id, with a time that does not read, or with an amount its
// currency cannot hold is kept aside instead.
func addClearing(b, aside *store.Batch, mid string, c platform.ClearingRecord, opts DisputeOptions) bool {
	const record = "interchange clearing"
	if c.RequestID == "" {
		return keep(aside, record, mid, "", "requestId", "", c.CurrencyCode, "no requestId: the record names no transaction", c.Raw, opts)
	}
	feeCurrency := c.ClearingRateCurrencyCode
	if feeCurrency == "" {
		feeCurrency = c.CurrencyCode
	}
	for _, a := range []struct{ field, value, currency string }{
		{"amount", c.Amount, c.CurrencyCode}, {"interchangeAmount", c.InterchangeAmount, feeCurrency},
	} {
		if err := checkAmount(a.value, a.currency); err != nil {
			return keep(aside, record, mid, c.RequestID, a.field, a.value, a.currency, err.Error(), c.Raw, opts)
		}
	}
	if err := platform.CheckCurrencyDecimals(c.BillbackAmount, feeCurrency); err != nil {
		return keep(aside, record, mid, c.RequestID, "billbackAmount", c.BillbackAmount, feeCurrency, err.Error(), c.Raw, opts)
	}
	var cv converter
	txTime, txOK := cv.timestamp("transactionTime", c.TransactionTime)
	settled, settledOK := cv.timestamp("settlementTime", c.SettlementTime)
	amount, amountOK := cv.amount("amount", c.Amount)
	charged, chargedOK := cv.amount("interchangeAmount", c.InterchangeAmount)
	billback, billbackOK := cv.amount("billbackAmount", c.BillbackAmount)
	if cv.err != nil {
		return keep(aside, record, mid, c.RequestID, "", "", c.CurrencyCode, cv.err.Error(), c.Raw, opts)
	}
	expected, expectedOK := charged-billback, chargedOK
	if !billbackOK {
		expected = charged
	}
	b.Add(mid, maskedID(c.RequestID), orNull(txTime, txOK), orNull(settled, settledOK), maskedText(c.TransactionType),
		orNull(amount, amountOK), text(c.CurrencyCode), maskedText(c.MerchantPricedLevel), maskedText(c.ClearedLevel),
		maskedText(c.BillbackReasonCode), maskedText(c.BillbackReasonDescription), maskedText(c.DowngradeReasonCode),
		orNull(expected, expectedOK), orNull(charged, chargedOK), orNull(billback, billbackOK), text(feeCurrency),
		rawJSON(cardmask.MaskRecord(c.Raw)), opts.RunID, opts.Now)
	return true
}

// addDispute converts a chargeback (preDispute) or retrieval into a row;
// one without a request id or a time, or with an amount its currency
// cannot hold, is kept aside instead.
func addDispute(b, aside *store.Batch, record, mid string, d platform.Dispute, opts DisputeOptions, preDispute bool) bool {
	if d.RequestID == "" {
		return keep(aside, record, mid, "", "requestId", "", d.CurrencyCode, "no requestId: the record names no transaction", d.Raw, opts)
	}
	if err := checkAmount(d.Amount, d.CurrencyCode); err != nil {
		return keep(aside, record, mid, d.RequestID, "amount", d.Amount, d.CurrencyCode, err.Error(), d.Raw, opts)
	}
	var cv converter
	at, atOK := cv.timestamp("time", d.Time)
	due, dueOK := cv.timestamp("responseDueTime", d.ResponseDueTime)
	settled, settledOK := cv.timestamp("originalSettlementTime", d.OriginalSettlementTime)
	amount, amountOK := cv.amount("amount", d.Amount)
	if cv.err == nil && !atOK {
		cv.fail("time", d.Time, fmt.Errorf("absent: the record cannot be placed in a window"))
	}
	if cv.err != nil {
		return keep(aside, record, mid, d.RequestID, "", "", d.CurrencyCode, cv.err.Error(), d.Raw, opts)
	}
	row := []any{mid, maskedID(d.RequestID), at, maskedText(d.ReasonCode), orNull(amount, amountOK), text(d.CurrencyCode),
		maskedText(d.Sign), orNull(due, dueOK), orNull(settled, settledOK), maskedText(d.NatureOfDispute), maskedText(d.Action),
		maskedText(d.ActionDescription), maskedText(d.CardType), maskedText(d.MerchantReferenceNumber)}
	if preDispute {
		row = append(row, maskedText(d.PreDisputeFlag))
	}
	b.Add(append(row, rawJSON(cardmask.MaskRecord(d.Raw)), opts.RunID, opts.Now)...)
	return true
}

var disputesLoaded = queries.Must("ingest.sql", "DisputesLoaded")

// DisputesLoaded lists the members with a dispute report (clearing
// levels, chargebacks or retrievals) loaded by run runID: a resumed run
// reads the reports of the members an earlier attempt completed only when
// that attempt stopped before loading them. A member whose reports were
// all empty is read again, three requests.
func DisputesLoaded(ctx context.Context, s *store.Store, runID string) (map[string]bool, error) {
	rows, err := s.Conn().QueryContext(ctx, disputesLoaded, runID)
	if err != nil {
		return nil, fmt.Errorf("members with dispute reports loaded: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var mid string
		if err := rows.Scan(&mid); err != nil {
			return nil, fmt.Errorf("members with dispute reports loaded: %w", err)
		}
		out[mid] = true
	}
	return out, rows.Err()
}
