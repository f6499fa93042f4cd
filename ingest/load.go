package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/subscriptions"
)

// memberBatch is everything pulled for one member, already converted into
// rows, ready to be loaded in one transaction.
type memberBatch struct {
	merchantID    string
	reloaded      []string // subscriptions whose payment list was pulled
	plans         *store.Batch
	subscriptions *store.Batch
	payments      *store.Batch
	transactions  *store.Batch
	billing       billingRows  // the projected schedules (billing.go)
	notEnabled    []NotEnabled // the products that answered "not enabled" (notenabled.go)
	keptAside     *store.Batch // records kept aside (keepAside)
}

func newMemberBatch(mid string) *memberBatch {
	return &memberBatch{
		merchantID:    maskedID(mid),
		plans:         plansTable.NewBatch(),
		subscriptions: subscriptionsTable.NewBatch(),
		payments:      paymentsTable.NewBatch(),
		transactions:  transactionsTable.NewBatch(),
		keptAside:     keptAsideTable.NewBatch(),
	}
}

// keepAside checks a record's amounts (name and text pairs) against its
// currency's decimals (platform.CheckCurrencyDecimals). An amount with more
// decimals than its currency has is never rounded: the record is not
// loaded, and kept_aside holds it with the field, the amount and the
// reason, while the rest of the member loads. It says whether the record
// was kept aside.
func (b *memberBatch) keepAside(record, id, currency string, raw []byte, runID string, now time.Time, amounts ...string) bool {
	for i := 0; i+1 < len(amounts); i += 2 {
		if err := checkAmount(amounts[i+1], currency); err != nil {
			b.keptAside.Str(runID).Str(b.merchantID).Str(record).Str(id).Str(amounts[i]).Str(amounts[i+1]).
				Text(currency).Str(err.Error()).JSONText(raw).Time(now, true).End()
			return true
		}
	}
	return false
}

// checkAmount is why an amount of a record cannot be loaded as sent: more
// decimals than its currency has, beyond what an amount column holds, or
// negative (the platform sends no negative billing amount, fee or
// transaction total: a sign there is a merchant's or a proxy's error, and
// summed it would hide as much money as it shows). "" and a well-formed
// amount pass.
func checkAmount(amount, currency string) error {
	if err := platform.CheckCurrencyDecimals(amount, currency); err != nil {
		return err
	}
	a := strings.TrimSpace(amount)
	if a == "" {
		return nil
	}
	beyond := fmt.Errorf("amount %s %s is beyond what an amount column holds (DECIMAL(18,3): under 10^15)", a, strings.TrimSpace(currency))
	v, err := platform.ParseAmount(a)
	switch {
	case err != nil && strings.Contains(err.Error(), "out of range"):
		return beyond
	case err != nil:
		return err
	case v < 0:
		return fmt.Errorf("amount %s %s is negative; the platform sends none here", a, strings.TrimSpace(currency))
	case v >= maxColumnAmount:
		return beyond
	}
	return nil
}

// maxColumnAmount is the first amount, in thousandths, an amount column
// (DECIMAL(18,3)) cannot hold.
const maxColumnAmount = 1_000_000_000_000_000_000

// seal seals the member's batches (store.Batch.Seal) in the member's own
// goroutine, before they wait for the writer.
func (b *memberBatch) seal() {
	for _, batch := range []*store.Batch{b.plans, b.subscriptions, b.payments, b.transactions,
		b.billing.schedules, b.billing.expected, b.keptAside} {
		batch.Seal()
	}
}

// addRecurring converts a member's recurring-billing snapshot into rows. A
// subscription whose payment list was not pulled keeps what the earlier
// pull stored of its list (prev).
func (b *memberBatch) addRecurring(snap *subscriptions.Snapshot, prev map[string]storedList, runID string, now time.Time) error {
	mid := b.merchantID
	b.reserveRecurring(snap)
	for _, p := range snap.Plans {
		if b.keepAside("plan", p.ID, p.Currency, p.Raw, runID, now, "billingAmount", p.BillingAmount, "setupFee", p.SetupFee) {
			continue
		}
		var c converter
		b.plans.Str(mid).Str(p.ID).Text(p.Code).Text(p.Name).Text(p.Description).Text(p.Status).
			Int32(c.integer("billingPeriod.length", p.PeriodLength)).Text(p.PeriodUnit).Int32(cyclesTotal(&c, p.CyclesTotal)).
			Amount(c.amount("billingAmount", p.BillingAmount)).Amount(c.amount("setupFee", p.SetupFee)).Text(p.Currency).
			JSONText(p.Raw).Str(runID).Time(now, true).End()
		if c.err != nil {
			return fmt.Errorf("plan %s: %w", p.ID, c.err)
		}
	}
	for _, s := range snap.Subscriptions {
		var c converter
		list := snap.Payments[s.ID]
		var stored storedList
		if list != nil {
			stored = storedList{totalCount: int32(list.TotalCount), hasTotal: true,
				skip: maskedJSON(jsonText(list.BillingCyclesToSkip)), completed: maskedJSON(jsonText(list.CyclesCompleted)),
				pulledAt: now}
			b.reloaded = append(b.reloaded, s.ID)
		} else if p, ok := prev[s.ID]; ok {
			stored = p
		}
		if b.keepAside("subscription", s.ID, s.Currency, s.Raw, runID, now, "billingAmount", s.BillingAmount, "setupFee", s.SetupFee) {
			continue
		}
		b.subscriptions.Str(mid).Str(s.ID).Text(s.Code).Text(s.PlanID).Text(s.PlanCode).Text(s.Name).Text(s.Status).
			Time(c.timestamp("startDate", s.StartDate)).Text(s.CustomerID).Text(s.ClientReference).
			Amount(c.amount("billingAmount", s.BillingAmount)).Amount(c.amount("setupFee", s.SetupFee)).Text(s.Currency).
			Int32(c.integer("billingPeriod.length", s.PeriodLength)).Text(s.PeriodUnit).Int32(cyclesTotal(&c, s.CyclesTotal)).
			Int32(c.integer("billingCycles.current", s.CyclesCurrent)).
			Int32(stored.totalCount, stored.hasTotal).JSONText(stored.skip).JSONText(stored.completed).
			Time(stored.pulledAt, !stored.pulledAt.IsZero()).
			JSONText(s.Raw).Str(runID).Time(now, true).End()
		if c.err != nil {
			return fmt.Errorf("subscription %s: %w", s.ID, c.err)
		}
		if list == nil {
			continue
		}
		for _, p := range list.Payments {
			if b.keepAside("payment", p.ID, p.Currency, p.Raw, runID, now, "billingAmount", p.BillingAmount,
				"setupFee", p.SetupFee, "surchargeAmount", p.SurchargeAmount) {
				continue
			}
			var modifiable, hasModifiable bool
			if p.Modifiable != nil {
				modifiable, hasModifiable = *p.Modifiable, true
			}
			b.payments.Str(mid).Str(p.ID).Str(s.ID).Text(p.Status).Text(p.PaymentType).
				Int32(c.integer("billingCycle", p.BillingCycle)).Int32(c.integer("paymentNumber", p.PaymentNumber)).
				Time(c.timestamp("date", p.Date)).Time(c.timestamp("billingStartDate", p.BillingStartDate)).
				Time(c.timestamp("billingEndDate", p.BillingEndDate)).
				Amount(c.amount("billingAmount", p.BillingAmount)).Amount(c.amount("setupFee", p.SetupFee)).
				Amount(c.amount("surchargeAmount", p.SurchargeAmount)).Text(p.SurchargeDescription).Text(p.Currency).
				Text(p.TransactionID).Bool(modifiable, hasModifiable).JSONText(p.Raw).Str(runID).Time(now, true).End()
			if c.err != nil {
				return fmt.Errorf("payment %s of subscription %s: %w", p.ID, s.ID, c.err)
			}
		}
	}
	return nil
}

// reserveRecurring makes room in the batches for the snapshot's records
// and their raw JSON (store.Batch.Reserve).
func (b *memberBatch) reserveRecurring(snap *subscriptions.Snapshot) {
	var planBytes, subBytes, payments, paymentBytes int
	for _, p := range snap.Plans {
		planBytes += len(p.Raw)
	}
	for _, s := range snap.Subscriptions {
		subBytes += len(s.Raw)
		if list := snap.Payments[s.ID]; list != nil {
			payments += len(list.Payments)
			for _, p := range list.Payments {
				paymentBytes += len(p.Raw)
			}
		}
	}
	b.plans.Reserve(len(snap.Plans), map[string]int{"raw": planBytes})
	b.subscriptions.Reserve(len(snap.Subscriptions), map[string]int{"raw": subBytes})
	b.payments.Reserve(payments, map[string]int{"raw": paymentBytes})
}

// reserveTransactions makes room in the batch for the transactions and
// their raw JSON (store.Batch.Reserve).
func (b *memberBatch) reserveTransactions(list []platform.TransactionSummary) {
	var n int
	for _, t := range list {
		n += len(t.Raw)
	}
	b.transactions.Reserve(len(list), map[string]int{"raw": n})
}

// cyclesTotal is NULL for a plan that bills indefinitely (no total, "0" or
// empty).
func cyclesTotal(c *converter, s string) (int32, bool) {
	if strings.TrimSpace(s) == "0" {
		return 0, false
	}
	return c.integer("billingCycles.total", s)
}

// addTransaction converts one Transaction Search summary into a row.
func (b *memberBatch) addTransaction(t platform.TransactionSummary, runID string, now time.Time) error {
	if b.keepAside("transaction", t.ID, t.Currency, t.Raw, runID, now, "totalAmount", t.TotalAmount) {
		return nil
	}
	var c converter
	names := make([]string, 0, len(t.Applications))
	for _, a := range t.Applications {
		names = append(names, a.Name)
	}
	b.transactions.Str(b.merchantID).Str(t.ID).Time(c.timestamp("submitTimeUtc", t.SubmitTimeUTC)).
		Text(t.Status).Text(t.ReasonCode).Text(t.RCode).Text(t.RFlag).
		Text(strings.Join(names, ",")).JSONText(jsonText(t.Applications)).
		Amount(c.amount("totalAmount", t.TotalAmount)).Text(t.Currency).
		Text(t.CardPrefix).Text(t.CardSuffix).Text(t.CardType).
		Text(t.CustomerID).Text(t.InstrumentIdentifierID).Text(t.PaymentSolution).
		Text(t.CommerceIndicator).Text(t.BusinessApplicationID).Text(t.ClientReference).
		JSONText(t.Raw).Str(runID).Time(now, true).End()
	if c.err != nil {
		return fmt.Errorf("transaction %s: %w", t.ID, c.err)
	}
	return nil
}

// jsonText is v as JSON text, nil for a nil value.
func jsonText(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// loadMembers writes the batches of several members and their status rows
// (the done-markers) in the transaction tx: after a crash, each member is
// either completely loaded and marked, or neither. Loading members together
// spreads DuckDB's per-statement cost, which would otherwise dominate
// members of a few thousand rows: a load is one INSERT per table
// (store.Tx.Load). A job without a batch (its pull failed) only writes its
// status. If it fails, tx can only be rolled back.
func loadMembers(ctx context.Context, tx *store.Tx, jobs []loadJob) error {
	status := runMembersTable.NewBatch()
	var plans, subs, payments, txns, schedules, expected, aside []*store.Batch
	var reloaded [][]string // merchant ID and subscription of every payment list pulled
	var members []string    // members whose schedules are replaced
	for _, j := range jobs {
		st := j.status
		status.Str(st.RunID).Str(maskedID(st.MerchantID)).Str(string(st.Status)).Text(st.Error).
			Time(st.Started, true).Time(st.Finished, true).
			Int32(int32(st.Plans), true).Int32(int32(st.Subscriptions), true).Int32(int32(st.Payments), true).
			Int32(int32(st.Transactions), true).Int64(st.Requests, true).Int64(st.Retries, true).
			Text(notEnabledProducts(st.NotEnabled)).Text(notEnabledMessages(st.NotEnabled)).End()
		b := j.batch
		if b == nil {
			continue
		}
		plans, subs = append(plans, b.plans), append(subs, b.subscriptions)
		payments, txns = append(payments, b.payments), append(txns, b.transactions)
		schedules, expected = append(schedules, b.billing.schedules), append(expected, b.billing.expected)
		aside = append(aside, b.keptAside)
		members = append(members, b.merchantID)
		for _, id := range b.reloaded {
			reloaded = append(reloaded, []string{b.merchantID, id})
		}
	}
	if err := tx.Load(ctx, plansTable, nil, plans...); err != nil {
		return err
	}
	if err := tx.Load(ctx, subscriptionsTable, nil, subs...); err != nil {
		return err
	}
	// A subscription's payment list is complete, so its reload replaces
	// every payment it had: a payment the platform no longer lists must
	// not linger. Lists not pulled this time stay as they were.
	if err := tx.Load(ctx, paymentsTable, &store.Replace{On: []string{"merchant_id", "subscription_id"}, Tuples: reloaded},
		payments...); err != nil {
		return err
	}
	if err := tx.Load(ctx, transactionsTable, nil, txns...); err != nil {
		return err
	}
	if err := loadSchedules(ctx, tx, members, schedules, expected); err != nil {
		return err
	}
	if err := tx.Load(ctx, keptAsideTable, nil, aside...); err != nil {
		return err
	}
	if err := tx.Load(ctx, runMembersTable, nil, status); err != nil {
		return fmt.Errorf("record member status: %w", err)
	}
	return nil
}

// directoryRows converts the directory into groups and group_members rows.
func directoryRows(dir *groups.Directory, runID string, now time.Time) (*store.Batch, *store.Batch, error) {
	gr, mr := groupsTable.NewBatch(), groupMembersTable.NewBatch()
	for _, g := range dir.Groups {
		var c converter
		// A group's texts are repaired to valid UTF-8 (as the journal's are):
		// one stray byte in a name failed the load, and with it the run.
		gr.Str(maskedID(g.ID)).Str(dir.OrganizationID).Text(cardmask.MaskText(strings.ToValidUTF8(g.Name, "\uFFFD"))).
			Text(cardmask.MaskText(strings.ToValidUTF8(g.Description, "\uFFFD"))).Text(cardmask.MaskText(strings.ToValidUTF8(groupType(g), "\uFFFD"))).
			Time(c.timestamp("createdTime", g.CreatedTime)).Time(c.timestamp("lastUpdatedTime", g.LastUpdatedTime)).
			JSONText(cardmask.MaskRecord(bytes.ToValidUTF8(g.Raw, []byte("\uFFFD")))).Str(runID).Time(now, true).End()
		if c.err != nil {
			return nil, nil, fmt.Errorf("group %s: %w", g.ID, c.err)
		}
		for _, mid := range g.Members {
			mr.Str(maskedID(g.ID)).Str(maskedID(mid)).Str(runID).End()
		}
	}
	return gr, mr, nil
}

// groupType reads the optional type from the raw record; the list response
// does not always carry it.
func groupType(g platform.Group) string {
	var v struct {
		Type string `json:"type"`
	}
	json.Unmarshal(g.Raw, &v)
	return v.Type
}
