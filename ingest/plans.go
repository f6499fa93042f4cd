package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/subscriptions"
)

var storedPlansSQL = queries.Must("ingest.sql", "StoredPlans")

// storedPlans is what the database holds of a member's plan list: the
// plans (decoded from the masked records stored, as a pull would give them
// after masking) and when the list was last pulled.
type storedPlans struct {
	plans []platform.Plan
	state subscriptions.StoredPlans
}

// readStoredPlans reads member's stored plans (member as stored: masked).
// It is asked only when a run may skip the plan list (PullOptions.PlansMaxAge),
// once a member: the plans table holds a few rows a member.
func (r *puller) readStoredPlans(ctx context.Context, member string) (storedPlans, error) {
	out := storedPlans{state: subscriptions.StoredPlans{IDs: map[string]bool{}}}
	rows, err := r.store.ReadPool().QueryContext(ctx, storedPlansSQL, member)
	if err != nil {
		return out, fmt.Errorf("read stored plans of %s: %w", member, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, raw string
		var loaded time.Time
		if err := rows.Scan(&id, &raw, &loaded); err != nil {
			return out, fmt.Errorf("read stored plans of %s: %w", member, err)
		}
		p, err := platform.DecodePlan([]byte(raw))
		if err != nil {
			return out, fmt.Errorf("read stored plan %s of %s: %w", id, member, err)
		}
		p.ID = id // identifiers are stored as the platform sent them
		out.plans = append(out.plans, p)
		out.state.IDs[id] = true
		if loaded.After(out.state.PulledAt) {
			out.state.PulledAt = loaded
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("read stored plans of %s: %w", member, err)
	}
	return out, nil
}

// plansDecision returns the pull's wantPlans (subscriptions.PullWith) for
// member, and the stored plans that stand for tonight's list when it says
// no: nil (pull every night) on a full refresh or without a maximum age.
// reason receives why the list is pulled ("" when it is not), for the
// member's debug line.
func (r *puller) plansDecision(ctx context.Context, mid string, prev map[string]storedList,
	stored *storedPlans, reason *string) func([]platform.Subscription) bool {
	if r.opts.FullRefresh || r.opts.PlansMaxAge <= 0 {
		*reason = "every night"
		return nil
	}
	return func(subs []platform.Subscription) bool {
		st, err := r.readStoredPlans(ctx, maskedID(mid))
		if err != nil {
			// The list is pulled, as it would be without stored plans:
			// a read that failed costs a request, not the member.
			r.log.Warn("stored plans not read: the plan list is pulled", "merchant_id", mid, "error", err)
			*reason = "stored plans not read"
			return true
		}
		*stored = st
		byID := make(map[string]*subscriptions.Previous, len(prev))
		for id, p := range prev {
			byID[id] = &p.prev
		}
		*reason = subscriptions.PlansReason(st.state, subs, byID, r.now, r.opts.PlansMaxAge)
		return *reason != ""
	}
}
