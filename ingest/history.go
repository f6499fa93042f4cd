package ingest

import (
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/subscriptions"
)

// The payment-list backfill. A first night pulls every subscription's
// payment list, which is most of its requests (98 of 105 a member at scale
// medium). With --history, a subscription that ended before the window's
// start less the history (subscriptions.EndedBefore) has no payment the
// window's checks read, and its never-pulled list is left to the backfill:
// each run pulls at most --backfill-budget of them, the oldest
// subscriptions of a member first (subscriptions.PullWith asks in that
// order), members in the run's order. What is left is recorded by the
// database itself: the subscription is stored with no payments_pulled_at,
// so the next run (or a re-run) finds it never pulled and takes it up
// again; missed_cycle does not judge it until then. A subscription that
// changes (reactivated, amended) is judged again on its new record.

// deferred is the reason of a list left to a later run's backfill.
const deferred = "left to the backfill"

// backfill turns the incremental rule's reason for s into the backfill's:
// "never pulled" becomes "backfill" (pulled, on the budget) or deferred
// when s ended before the history the run pulls.
func (r *puller) backfill(reason string, s platform.Subscription) string {
	if reason != "never pulled" || r.opts.History <= 0 ||
		!subscriptions.EndedBefore(s, r.window.Start.Add(-r.opts.History)) {
		return reason
	}
	if r.backfilled.Add(1) <= int64(r.opts.BackfillBudget) {
		return "backfill"
	}
	r.backfilled.Add(-1)
	r.deferred.Add(1)
	return deferred
}

// logBackfill says what the run's backfill pulled and left.
func (r *puller) logBackfill() {
	if r.opts.History <= 0 {
		return
	}
	r.log.Info("payment-list backfill", "pulled", r.backfilled.Load(), "left", r.deferred.Load(),
		"budget", r.opts.BackfillBudget)
}
