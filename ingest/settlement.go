package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// Settlement and funding (docs/platform.md, Reporting): the settlement stage
// reads the Reporting API a group at a time (groupName), so that a group's
// night costs a few requests whatever its size: the purchase and refund
// details over the reporting span (pages of 2,000), the net fundings of each
// day of the window, and one payment batch summary of the organization. A
// member of no group (--merchants) is read on its own (organizationId). A
// group the key may not read reports for is read member by member; a member
// the key may not read is recorded in run_members as a product not enabled
// (ProductReporting), not a failure.

// ProductReporting (disputes.go) names the Reporting API in
// run_members.products_not_enabled for these reports too.

// ReportingLookbackDays is how many days before the window the purchase
// and refund details are read: a capture older than the window that is
// still not settled shows there as pending (capture_not_settled).
const ReportingLookbackDays = 14

// SettlementOptions configure the settlement stage.
type SettlementOptions struct {
	Client         *platform.Client
	OrganizationID string
	RunID          string
	Window         store.Window
	Now            time.Time
	Directory      *groups.Directory
	Members        []groups.Member // this run's (shard's) members
	Logger         *slog.Logger
}

// SettlementResult is what the stage did.
type SettlementResult struct {
	Settlements, Fundings, Batches int
	NotReadable                    []string // members whose reports the key may not read
	Problems                       []error  // requests that failed: the run is partial
	Requests                       int64
	// HeldRows is the most rows the stage held in Go at once: a page of
	// the Reporting API's, whatever the number of groups and members,
	// as it hands each page to DuckDB (settlementRows).
	HeldRows int
}

var (
	settlementsTable = store.NewTable("settlements", []string{"merchant_id", "request_id"}, "merchant_id", store.Columns(
		"merchant_id text, request_id text, group_name text, transaction_type text, request_time time, "+
			"settlement_status text, settlement_time time, batch_id text, batch_time time, amount amount, currency text, "+
			"card_type text, payment_type text, interchange_description text, interchange_percentage amount, "+
			"interchange_amount amount, interchange_per_item_fee amount, discount_amount amount, dues_assessments amount, "+
			"total_fee amount, fee_currency text, funding_amount amount, funding_currency text, "+
			"authorization_request_id text, merchant_reference text, raw json, run_id text, loaded_at time")...)
	fundingsTable = store.NewTable("fundings", []string{"scope_id", "funding_day", "currency"}, "", store.Columns(
		"scope_type text, scope_id text, group_name text, merchant_id text, funding_day time, currency text, "+
			"purchases amount, refunds amount, fees amount, chargebacks amount, funded amount, raw json, run_id text, loaded_at time")...)
	settlementBatchesTable = store.NewTable("settlement_batches", []string{"merchant_id", "batch_day", "currency", "payment_subtype"}, "", store.Columns(
		"merchant_id text, batch_day time, currency text, payment_subtype text, sales_count int32, sales_amount amount, "+
			"credit_count int32, credit_amount amount, raw json, run_id text, loaded_at time")...)
)

// markReportingNotEnabled is queries/ingest.sql's MarkReportingNotEnabled.
var markReportingNotEnabled = queries.Must("ingest.sql", "MarkReportingNotEnabled")

// settlementRows are the stage's rows. Each scope (a group, or a member
// read on its own) is loaded in a transaction of its own, a page at a
// time (flush), and rolled back when a request of its purchase and refund
// details fails: the stage holds a page of rows in Go, and DuckDB writes
// what it is handed to the file as it goes, where the stage used to keep
// every scope's details as Go values until one load at its end (a run of
// 5,000 members peaked at 4 GB in it). One transaction held open across the
// stage would not do: DuckDB keeps every row a transaction inserts into a
// temporary table, deleted or not, until its end, so a staging table for
// the scope's pages grew with the whole stage.
type settlementRows struct {
	tx                                    *store.Tx
	settlements, fundings, batches, aside *store.Batch // rows not yet handed to DuckDB
	scopeSettlements, scopeFundings       int          // rows of the transaction, counted in res once it commits
	opts                                  *SettlementOptions
	res                                   *SettlementResult
}

// settlementPageRows is how many rows the stage's batches hold between
// them before they are handed to DuckDB: a page of the Reporting API's.
const settlementPageRows = platform.MaxReportLimit

// settlementLoad is one of the stage's tables with its batch of rows not
// yet handed to DuckDB.
type settlementLoad struct {
	t *store.Table
	b **store.Batch
}

// loads are the stage's tables and their batches, in the order loaded.
func (r *settlementRows) loads() []settlementLoad {
	return []settlementLoad{{settlementsTable, &r.settlements}, {fundingsTable, &r.fundings},
		{settlementBatchesTable, &r.batches}, {keptAsideTable, &r.aside}}
}

// pending is how many rows the batches hold between them.
func (r *settlementRows) pending() int {
	n := 0
	for _, l := range r.loads() {
		n += (*l.b).Len()
	}
	return n
}

// reset gives each table an empty batch.
func (r *settlementRows) reset() {
	for _, l := range r.loads() {
		*l.b = l.t.NewBatch()
	}
}

// held notes the rows the stage holds in Go now (SettlementResult.HeldRows).
func (r *settlementRows) held() {
	r.res.HeldRows = max(r.res.HeldRows, r.pending())
}

// flush loads the rows into the transaction once the batches hold a page
// between them (or whatever they hold, with all).
func (r *settlementRows) flush(ctx context.Context, all bool) error {
	r.held()
	if !all && r.pending() < settlementPageRows {
		return nil
	}
	for _, l := range r.loads() {
		if (*l.b).Len() > 0 {
			if err := r.tx.Load(ctx, l.t, nil, *l.b); err != nil {
				return fmt.Errorf("load %s: %w", l.t.Name, err)
			}
		}
	}
	r.reset()
	return nil
}

// errScopeDropped rolls back a scope's transaction: a request of its
// purchase and refund details failed, or the key may not read them.
var errScopeDropped = errors.New("scope dropped")

// inTransaction runs fn in a transaction of its own, its rows loaded a
// page at a time; the rows fn made are counted in res once committed, and
// dropped if fn returns errScopeDropped, which is not an error.
func (r *settlementRows) inTransaction(ctx context.Context, s *store.Store, fn func() error) error {
	r.reset()
	r.scopeSettlements, r.scopeFundings = 0, 0
	err := s.Transact(ctx, func(tx *store.Tx) error {
		r.tx = tx
		defer func() { r.tx = nil }()
		if err := fn(); err != nil {
			return err
		}
		return r.flush(ctx, true)
	})
	r.held()
	r.reset()
	if err == nil {
		r.res.Settlements += r.scopeSettlements
		r.res.Fundings += r.scopeFundings
	}
	if errors.Is(err, errScopeDropped) {
		return nil
	}
	return err
}

// signedAmount checks an amount that may be negative (a refund's funding,
// a day's net total): its currency's decimals and the column's range.
func signedAmount(amount, currency string) (int64, bool, error) {
	a := strings.TrimSpace(amount)
	if a == "" {
		return 0, false, nil
	}
	if err := checkAmount(strings.TrimPrefix(a, "-"), currency); err != nil {
		return 0, false, err
	}
	v, err := platform.ParseAmount(a)
	return v, err == nil, err
}

// amounts converts name/text pairs of one record; the first amount that
// cannot be loaded keeps the record aside (kept_aside) with its reason.
func (r *settlementRows) amounts(record, mid, id, currency string, raw []byte, pairs ...string) ([]int64, []bool, bool) {
	vals, oks := make([]int64, len(pairs)/2), make([]bool, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		v, ok, err := signedAmount(pairs[i+1], currency)
		if err != nil {
			r.aside.Str(r.opts.RunID).Str(maskedID(mid)).Str(record).Str(maskedID(id)).Str(pairs[i]).Str(pairs[i+1]).
				Text(currency).Str(err.Error()).JSONText(cardmask.MaskRecord(raw)).Time(r.opts.Now, true).End()
			return nil, nil, false
		}
		vals[i/2], oks[i/2] = v, ok
	}
	return vals, oks, true
}

func (r *settlementRows) addSettlement(s platform.Settlement) error {
	var c converter
	reqTime, reqOK := c.timestamp("time", s.RequestTime)
	setTime, setOK := c.timestamp("settlementTime", s.SettlementTime)
	batchTime, batchOK := c.timestamp("cybersourceBatchTime", s.BatchTime)
	if c.err != nil {
		return fmt.Errorf("purchase and refund details of request %s: %w", s.RequestID, c.err)
	}
	cur := s.Currency
	v, ok, fine := r.amounts("settlement", s.MerchantID, s.RequestID, cur, s.Raw,
		"amount", s.Amount, "interchangePercentage", s.InterchangePercentage,
		"interchangePercentageAmount", s.InterchangePercentageAmount, "interchangePerItemFee", s.InterchangePerItemFee,
		"discountAmount", s.DiscountAmount, "duesAssessments", s.DuesAssessments, "totalFee", s.TotalFee)
	if !fine {
		return nil
	}
	fv, fok, fine := r.amounts("settlement", s.MerchantID, s.RequestID, s.FundingCurrency, s.Raw, "fundingAmount", s.FundingAmount)
	if !fine {
		return nil
	}
	interchange, interchangeOK := v[2]+v[3], ok[2] || ok[3]
	r.settlements.Str(maskedID(s.MerchantID)).Str(maskedID(s.RequestID)).Text(cardmask.MaskText(s.GroupName)).Text(s.TransactionType).
		Time(reqTime, reqOK).Text(s.Status).Time(setTime, setOK).Text(s.BatchID).Time(batchTime, batchOK).
		Amount(v[0], ok[0]).Text(cur).Text(s.CardType).Text(s.PaymentType).Text(cardmask.MaskText(s.InterchangeDescription)).
		Amount(v[1], ok[1]).Amount(interchange, interchangeOK).Amount(v[3], ok[3]).Amount(v[4], ok[4]).Amount(v[5], ok[5]).
		Amount(v[6], ok[6]).Text(s.FeeCurrency).Amount(fv[0], fok[0]).Text(s.FundingCurrency).
		Text(maskedID(s.AuthorizationRequestID)).Text(cardmask.MaskText(s.MerchantReference)).JSONText(cardmask.MaskRecord(s.Raw)).
		Str(r.opts.RunID).Time(r.opts.Now, true).End()
	r.scopeSettlements++
	return nil
}

func (r *settlementRows) addFunding(scopeType, scopeID, groupName, filedUnder string, day time.Time, f platform.NetFunding, raw []byte) {
	id := scopeID + "/" + day.Format(time.DateOnly) + "/" + f.Currency
	v, ok, fine := r.amounts("funding", filedUnder, id, f.Currency, raw, "totalPurchases", f.Purchases, "totalRefunds", f.Refunds,
		"totalFees", f.Fees, "totalChargebacks", f.Chargebacks, "netTotal", f.NetTotal)
	if !fine {
		return
	}
	var group any
	if groupName != "" {
		group = cardmask.MaskText(groupName)
	}
	r.fundings.Add(scopeType, maskedID(scopeID), group, maskedID(filedUnder), day, f.Currency,
		orNull(v[0], ok[0]), orNull(v[1], ok[1]), orNull(v[2], ok[2]), orNull(v[3], ok[3]), orNull(v[4], ok[4]),
		rawJSON(cardmask.MaskRecord(raw)), r.opts.RunID, r.opts.Now)
	r.scopeFundings++
}

// SettlementLoaded lists the members whose settlement and funding reports
// run runID has loaded: a resumed run reads only the others'. A member
// listed here had its reports loaded whole: the batch summaries are loaded
// first, then each scope's details with its fundings in one transaction
// (PullSettlement).
func SettlementLoaded(ctx context.Context, s *store.Store, runID string) (map[string]bool, error) {
	rows, err := s.Conn().QueryContext(ctx, `SELECT DISTINCT merchant_id FROM settlements WHERE run_id = $1`, runID)
	if err != nil {
		return nil, fmt.Errorf("members with settlements loaded: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var mid string
		if err := rows.Scan(&mid); err != nil {
			return nil, fmt.Errorf("members with settlements loaded: %w", err)
		}
		out[mid] = true
	}
	return out, rows.Err()
}

// PullSettlement runs the settlement stage: the payment batch summaries of
// the organization in a transaction, then each scope (a group, or a member
// read on its own) in a transaction of its own, its purchase and refund
// details and its net fundings, loaded a page at a time (settlementRows).
// A scope's details load whole or not at all: when a later page fails, the
// scope's earlier pages are rolled back, its members have no details of the
// run and a resumed run reads them again (SettlementLoaded); its fundings
// are still read. A request that fails is a problem of the run (it goes on
// with the rest); reports the key may not read are recorded.
func PullSettlement(ctx context.Context, s *store.Store, opts SettlementOptions) (*SettlementResult, error) {
	res := &SettlementResult{}
	if len(opts.Members) == 0 {
		return res, nil
	}
	if err := pullSettlement(ctx, s, &opts, res); err != nil {
		return res, fmt.Errorf("settlement stage: %w", err)
	}
	return res, nil
}

func pullSettlement(ctx context.Context, s *store.Store, opts *SettlementOptions, res *SettlementResult) error {
	stats := &platform.Stats{}
	ctx = platform.WithStats(ctx, stats)
	defer func() { res.Requests = stats.Requests.Load() }()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &settlementRows{opts: opts, res: res}
	ours := map[string]bool{}
	for _, m := range opts.Members {
		ours[m.MerchantID] = true
	}
	org := opts.Client.Merchant(opts.OrganizationID)
	from := opts.Window.Start.AddDate(0, 0, -ReportingLookbackDays)
	notReadable := map[string]string{}
	problem := func(err error) {
		res.Problems = append(res.Problems, err)
		log.Error("settlement report failed", "error", err)
	}

	// Batch totals: one request for the organization, every member; loaded
	// first, so that a member whose details are loaded has them too.
	err := r.inTransaction(ctx, s, func() error {
		sums, err := org.PaymentBatchSummaries(ctx, opts.OrganizationID, from, opts.Window.End)
		if err != nil {
			if _, ok := platform.ReportsNotReadable(err); !ok {
				problem(err)
			}
			return nil
		}
		for _, b := range sums {
			if !ours[b.MerchantID] {
				continue
			}
			var c converter
			day, dayOK := c.timestamp("startTime", b.StartTime)
			if c.err != nil || !dayOK {
				problem(fmt.Errorf("payment batch summary of %s: %w", b.MerchantID, errors.Join(c.err, errors.New("no startTime"))))
				continue
			}
			v, ok, fine := r.amounts("batch summary", b.MerchantID, b.StartTime+"/"+b.Currency+"/"+b.PaymentSubType, b.Currency, b.Raw,
				"salesAmount", b.SalesAmount, "creditAmount", b.CreditAmount)
			if !fine {
				continue
			}
			r.batches.Add(maskedID(b.MerchantID), day, b.Currency, b.PaymentSubType, int32(b.SalesCount), orNull(v[0], ok[0]),
				int32(b.CreditCount), orNull(v[1], ok[1]), rawJSON(cardmask.MaskRecord(b.Raw)), opts.RunID, opts.Now)
			res.Batches++
			if err := r.flush(ctx, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}

	// details reads one scope's purchase and refund details into the
	// transaction a page at a time: errScopeDropped when a request failed
	// (a problem of the run) or the key may not read them (refused).
	details := func(scope platform.ReportScope) (refused bool, err error) {
		for st, err := range org.PurchaseRefundDetails(ctx, scope, from, opts.Window.End) {
			if err != nil {
				if e, ok := platform.ReportsNotReadable(err); ok {
					if scope.OrganizationID != "" {
						notReadable[scope.OrganizationID] = newNotEnabled(ProductReporting, e).Message
					}
					return true, errScopeDropped
				}
				problem(err)
				return false, errScopeDropped
			}
			if st.MerchantID == "" && scope.OrganizationID != "" {
				st.MerchantID = scope.OrganizationID
			}
			if !ours[st.MerchantID] {
				continue
			}
			if err := r.addSettlement(st); err != nil {
				problem(err)
			}
			if err := r.flush(ctx, false); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	// fundings reads one scope's net fundings of each day of the window.
	fundings := func(scope platform.ReportScope, scopeType, scopeID, filedUnder string) error {
		for day := opts.Window.Start; day.Before(opts.Window.End); day = day.AddDate(0, 0, 1) {
			list, raw, err := org.NetFundings(ctx, scope, day, day.AddDate(0, 0, 1))
			if err != nil {
				if e, ok := platform.ReportsNotReadable(err); ok && scope.OrganizationID != "" {
					notReadable[scope.OrganizationID] = newNotEnabled(ProductReporting, e).Message
					return nil
				}
				problem(err)
				continue
			}
			for _, f := range list {
				r.addFunding(scopeType, scopeID, scope.GroupName, filedUnder, day, f, raw)
			}
			if err := r.flush(ctx, false); err != nil {
				return err
			}
		}
		return nil
	}
	// scopeReports loads a scope's details and, unless the key may not
	// read them, its fundings (withFundings) in one transaction; when its
	// details fail, its fundings in one of their own. It says whether the
	// key was refused the details.
	scopeReports := func(scope platform.ReportScope, withFundings func() error) (bool, error) {
		var refused, dropped bool
		err := r.inTransaction(ctx, s, func() error {
			var err error
			if refused, err = details(scope); err != nil {
				dropped = errors.Is(err, errScopeDropped)
				return err
			}
			return withFundings()
		})
		if err != nil || refused || !dropped {
			return refused, err
		}
		return false, r.inTransaction(ctx, s, withFundings)
	}
	member := func(mid string) error {
		scope := platform.ReportScope{OrganizationID: mid}
		_, err := scopeReports(scope, func() error { return fundings(scope, "member", mid, mid) })
		return err
	}

	grouped := map[string]bool{}
	for _, g := range opts.Directory.Groups {
		if len(g.Members) == 0 {
			continue
		}
		first := slices.Min(g.Members)
		var mine []string
		for _, mid := range g.Members {
			if ours[mid] {
				mine = append(mine, mid)
			}
		}
		if len(mine) == 0 {
			continue
		}
		for _, mid := range mine {
			grouped[mid] = true
		}
		scope := platform.ReportScope{GroupName: g.Name}
		refused, err := scopeReports(scope, func() error {
			if !ours[first] {
				return nil
			}
			return fundings(scope, "group", g.ID, first)
		})
		if err != nil {
			return err
		}
		if refused {
			// The group as a whole is refused: its members one by one.
			log.Warn("reports of a group refused: reading its members one by one", "group", g.ID)
			for _, mid := range mine {
				if err := member(mid); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range opts.Members {
		if !grouped[m.MerchantID] && len(m.GroupIDs) == 0 {
			if err := member(m.MerchantID); err != nil {
				return err
			}
		}
	}
	for mid := range notReadable {
		res.NotReadable = append(res.NotReadable, mid)
	}
	slices.Sort(res.NotReadable)
	return s.Transact(ctx, func(tx *store.Tx) error {
		for _, mid := range res.NotReadable {
			if _, err := tx.Exec(ctx, markReportingNotEnabled, opts.RunID, maskedID(mid), ProductReporting, notReadable[mid]); err != nil {
				return fmt.Errorf("record reports not readable for %s: %w", mid, err)
			}
		}
		return nil
	})
}
