package ingest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/platform"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
	"github.com/reconcile/reconcile/subscriptions"
)

// memberBatch is everything pulled for one member, already converted into
// rows, ready to be loaded in one transaction.
type memberBatch struct {
	merchantID    string
	reloaded      []string // subscriptions whose payment list was pulled
	plans         *store.Rows
	subscriptions *store.Rows
	payments      *store.Rows
	transactions  *store.Rows
	billing       billingRows // the projected schedules (billing.go)
}

func newMemberBatch(mid string) *memberBatch {
	return &memberBatch{
		merchantID: mid,
		plans: &store.Rows{Table: "plans", Columns: []string{
			"merchant_id", "plan_id", "code", "name", "description", "status",
			"billing_period_length", "billing_period_unit", "cycles_total",
			"billing_amount", "setup_fee", "currency", "raw", "run_id", "loaded_at"}},
		subscriptions: &store.Rows{Table: "subscriptions", Columns: []string{
			"merchant_id", "subscription_id", "code", "plan_id", "plan_code", "name", "status",
			"start_date", "customer_id", "client_reference", "billing_amount", "setup_fee", "currency",
			"billing_period_length", "billing_period_unit", "cycles_total", "cycles_current",
			"payments_total_count", "billing_cycles_to_skip", "cycles_completed", "payments_pulled_at",
			"raw", "run_id", "loaded_at"}},
		payments: &store.Rows{Table: "subscription_payments", Columns: []string{
			"merchant_id", "payment_id", "subscription_id", "status", "payment_type",
			"billing_cycle", "payment_number", "payment_date", "billing_start_date", "billing_end_date",
			"billing_amount", "setup_fee", "surcharge_amount", "surcharge_description", "currency",
			"transaction_id", "modifiable", "raw", "run_id", "loaded_at"}},
		transactions: &store.Rows{Table: "transactions", Columns: []string{
			"merchant_id", "transaction_id", "submit_time", "status", "reason_code", "r_code", "r_flag",
			"application_names", "applications", "amount", "currency", "card_bin", "card_last4", "card_type",
			"customer_id", "instrument_identifier_id", "payment_solution", "commerce_indicator",
			"business_application_id", "client_reference", "raw", "run_id", "loaded_at"}},
	}
}

// addRecurring converts a member's recurring-billing snapshot into rows. A
// subscription whose payment list was not pulled keeps what the earlier
// pull stored of its list (prev).
func (b *memberBatch) addRecurring(snap *subscriptions.Snapshot, prev map[string]storedList, runID string, now time.Time) error {
	mid := b.merchantID
	for _, p := range snap.Plans {
		var c converter
		b.plans.Add(mid, p.ID, text(p.Code), text(p.Name), text(p.Description), text(p.Status),
			c.integer("billingPeriod.length", p.PeriodLength), text(p.PeriodUnit), cyclesTotal(&c, p.CyclesTotal),
			c.amount("billingAmount", p.BillingAmount), c.amount("setupFee", p.SetupFee), text(p.Currency),
			rawJSON(p.Raw), runID, now)
		if c.err != nil {
			return fmt.Errorf("plan %s: %w", p.ID, c.err)
		}
	}
	for _, s := range snap.Subscriptions {
		var c converter
		list := snap.Payments[s.ID]
		var total, skip, completed, pulledAt any
		if list != nil {
			total = int32(list.TotalCount)
			skip = jsonText(list.BillingCyclesToSkip)
			completed = jsonText(list.CyclesCompleted)
			pulledAt = now
			b.reloaded = append(b.reloaded, s.ID)
		} else if p, ok := prev[s.ID]; ok {
			total, skip, completed, pulledAt = p.totalCount, p.skip, p.completed, p.pulledAt
		}
		b.subscriptions.Add(mid, s.ID, text(s.Code), text(s.PlanID), text(s.PlanCode), text(s.Name), text(s.Status),
			c.timestamp("startDate", s.StartDate), text(s.CustomerID), text(s.ClientReference),
			c.amount("billingAmount", s.BillingAmount), c.amount("setupFee", s.SetupFee), text(s.Currency),
			c.integer("billingPeriod.length", s.PeriodLength), text(s.PeriodUnit), cyclesTotal(&c, s.CyclesTotal),
			c.integer("billingCycles.current", s.CyclesCurrent), total, skip, completed, pulledAt,
			rawJSON(s.Raw), runID, now)
		if c.err != nil {
			return fmt.Errorf("subscription %s: %w", s.ID, c.err)
		}
		if list == nil {
			continue
		}
		for _, p := range list.Payments {
			var modifiable any
			if p.Modifiable != nil {
				modifiable = *p.Modifiable
			}
			b.payments.Add(mid, p.ID, s.ID, text(p.Status), text(p.PaymentType),
				c.integer("billingCycle", p.BillingCycle), c.integer("paymentNumber", p.PaymentNumber),
				c.timestamp("date", p.Date), c.timestamp("billingStartDate", p.BillingStartDate),
				c.timestamp("billingEndDate", p.BillingEndDate),
				c.amount("billingAmount", p.BillingAmount), c.amount("setupFee", p.SetupFee),
				c.amount("surchargeAmount", p.SurchargeAmount), text(p.SurchargeDescription), text(p.Currency),
				text(p.TransactionID), modifiable, rawJSON(p.Raw), runID, now)
			if c.err != nil {
				return fmt.Errorf("payment %s of subscription %s: %w", p.ID, s.ID, c.err)
			}
		}
	}
	return nil
}

// cyclesTotal is NULL for a plan that bills indefinitely (no total, "0" or
// empty).
func cyclesTotal(c *converter, s string) any {
	if strings.TrimSpace(s) == "0" {
		return nil
	}
	return c.integer("billingCycles.total", s)
}

// addTransaction converts one Transaction Search summary into a row.
func (b *memberBatch) addTransaction(t platform.TransactionSummary, runID string, now time.Time) error {
	var c converter
	names := make([]string, 0, len(t.Applications))
	for _, a := range t.Applications {
		names = append(names, a.Name)
	}
	b.transactions.Add(b.merchantID, t.ID, c.timestamp("submitTimeUtc", t.SubmitTimeUTC),
		text(t.Status), text(t.ReasonCode), text(t.RCode), text(t.RFlag),
		text(strings.Join(names, ",")), jsonText(t.Applications),
		c.amount("totalAmount", t.TotalAmount), text(t.Currency),
		text(t.CardPrefix), text(t.CardSuffix), text(t.CardType),
		text(t.CustomerID), text(t.InstrumentIdentifierID), text(t.PaymentSolution),
		text(t.CommerceIndicator), text(t.BusinessApplicationID), text(t.ClientReference),
		rawJSON(t.Raw), runID, now)
	if c.err != nil {
		return fmt.Errorf("transaction %s: %w", t.ID, c.err)
	}
	return nil
}

func jsonText(v any) any {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return string(b)
}

// loadMembers writes the batches of several members and their status rows
// (the done-markers) in one transaction: after a crash, each member is
// either completely loaded and marked, or neither. Loading members together
// spreads DuckDB's per-statement and per-commit cost, which would otherwise
// dominate members of a few thousand rows. A job without a batch (its pull
// failed) only writes its status.
func loadMembers(ctx context.Context, s *store.Store, jobs []loadJob) error {
	merged := newMemberBatch("")
	status := &store.Rows{Table: "run_members", Columns: []string{"run_id", "merchant_id", "status", "error",
		"started_at", "finished_at", "plans", "subscriptions", "payments", "transactions", "requests", "retries"}}
	var reloadedMIDs, reloadedSubs []string // the subscriptions whose payment list was pulled
	for _, j := range jobs {
		st := j.status
		status.Add(st.RunID, st.MerchantID, string(st.Status), text(st.Error), st.Started, st.Finished,
			int32(st.Plans), int32(st.Subscriptions), int32(st.Payments), int32(st.Transactions), st.Requests, st.Retries)
		b := j.batch
		if b == nil {
			continue
		}
		merged.plans.Values = append(merged.plans.Values, b.plans.Values...)
		merged.subscriptions.Values = append(merged.subscriptions.Values, b.subscriptions.Values...)
		merged.payments.Values = append(merged.payments.Values, b.payments.Values...)
		merged.transactions.Values = append(merged.transactions.Values, b.transactions.Values...)
		merged.billing.merge(b.billing)
		for _, id := range b.reloaded {
			reloadedMIDs, reloadedSubs = append(reloadedMIDs, b.merchantID), append(reloadedSubs, id)
		}
	}
	return s.Transact(ctx, func(tx *store.Tx) error {
		if err := tx.Upsert(ctx, merged.plans, []string{"merchant_id", "plan_id"}, nil); err != nil {
			return err
		}
		if err := tx.Upsert(ctx, merged.subscriptions, []string{"merchant_id", "subscription_id"}, nil); err != nil {
			return err
		}
		// A subscription's payment list is complete, so its reload replaces
		// every payment it had: a payment the platform no longer lists must
		// not linger. Lists not pulled this time stay as they were.
		if err := tx.Upsert(ctx, merged.payments, []string{"merchant_id", "payment_id"}, &store.Replace{
			Relation: "SELECT unnest(?::VARCHAR[]) AS merchant_id, unnest(?::VARCHAR[]) AS subscription_id",
			On:       []string{"merchant_id", "subscription_id"},
			Args:     []any{reloadedMIDs, reloadedSubs},
		}); err != nil {
			return err
		}
		if err := tx.Upsert(ctx, merged.transactions, []string{"merchant_id", "transaction_id"}, nil); err != nil {
			return err
		}
		if err := merged.billing.upsert(ctx, tx); err != nil {
			return err
		}
		if err := tx.Upsert(ctx, status, []string{"run_id", "merchant_id"}, nil); err != nil {
			return fmt.Errorf("record member status: %w", err)
		}
		return nil
	})
}

// storedList is what the database holds of a subscription's payment list:
// what the incremental rule reads, and what a subscription whose list is not
// pulled again carries over.
type storedList struct {
	prev            subscriptions.Previous
	totalCount      any
	skip, completed any
	pulledAt        any
}

var storedPaymentLists = queries.Must("ingest.sql", "StoredPaymentLists")

// previousLists reads a member's stored subscriptions and payment-list
// state. It uses the read pool, beside the writer.
func previousLists(ctx context.Context, s *store.Store, merchantID string) (map[string]storedList, error) {
	rows, err := s.ReadPool().QueryContext(ctx, storedPaymentLists, merchantID)
	if err != nil {
		return nil, fmt.Errorf("read stored payment lists of %s: %w", merchantID, err)
	}
	defer rows.Close()
	out := map[string]storedList{}
	for rows.Next() {
		var id string
		var raw, status, skip, completed sql.NullString
		var pulled, nextDue, lastFailed sql.NullTime
		var total sql.NullInt32
		if err := rows.Scan(&id, &raw, &status, &pulled, &total, &skip, &completed, &nextDue, &lastFailed); err != nil {
			return nil, fmt.Errorf("read stored payment lists of %s: %w", merchantID, err)
		}
		l := storedList{prev: subscriptions.Previous{Raw: []byte(raw.String), Status: status.String,
			PulledAt: pulled.Time, NextDue: nextDue.Time, LastFailed: lastFailed.Time}, pulledAt: pulled.Time}
		if total.Valid {
			l.totalCount = total.Int32
		}
		if skip.Valid {
			l.skip = skip.String
		}
		if completed.Valid {
			l.completed = completed.String
		}
		out[id] = l
	}
	return out, rows.Err()
}

// directoryRows converts the directory into groups and group_members rows.
func directoryRows(dir *groups.Directory, runID string, now time.Time) (*store.Rows, *store.Rows, error) {
	gr := &store.Rows{Table: "groups", Columns: []string{"group_id", "organization_id", "name", "description", "type",
		"created_time", "updated_time", "raw", "run_id", "loaded_at"}}
	mr := &store.Rows{Table: "group_members", Columns: []string{"group_id", "merchant_id", "run_id"}}
	for _, g := range dir.Groups {
		var c converter
		gr.Add(g.ID, dir.OrganizationID, text(g.Name), text(g.Description), text(groupType(g)),
			c.timestamp("createdTime", g.CreatedTime), c.timestamp("lastUpdatedTime", g.LastUpdatedTime),
			rawJSON(g.Raw), runID, now)
		if c.err != nil {
			return nil, nil, fmt.Errorf("group %s: %w", g.ID, c.err)
		}
		for _, mid := range g.Members {
			mr.Add(g.ID, mid, runID)
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
