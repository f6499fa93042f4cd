// Package subscriptions owns recurring billing as the platform reports it:
// pulling a member's plans, subscriptions and payment lists (pull.go, and
// the incremental rule of incremental.go), and the billing-schedule and
// retry-schedule rules that say what should have happened (schedule.go;
// docs/billing.md).
package subscriptions

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/reconcile/reconcile/internal/platform"
)

// API is the part of the platform client a pull needs (*platform.Merchant).
type API interface {
	Plans(ctx context.Context) iter.Seq2[platform.Plan, error]
	Subscriptions(ctx context.Context) iter.Seq2[platform.Subscription, error]
	SubscriptionPayments(ctx context.Context, subscriptionID string) (*platform.PaymentList, error)
}

// Snapshot is a member's recurring billing at the time of the pull.
type Snapshot struct {
	Plans         []platform.Plan
	Subscriptions []platform.Subscription
	// Payments holds the complete payment list of each subscription whose
	// list was pulled, by subscription ID; a subscription whose list was
	// not pulled (see PullReason) has none.
	Payments map[string]*platform.PaymentList
	// PlansPulled says whether Plans is the platform's list of tonight;
	// when not (PullWith), the caller's stored plans stand for it.
	PlansPulled bool
}

// Pull reads every plan and subscription of the member and the payment list
// of each subscription for which need returns true (nil: all), with up to
// parallel payment lists in flight. Any error fails the whole pull: a member
// is loaded completely or not at all.
func Pull(ctx context.Context, api API, parallel int, need func(platform.Subscription) bool) (*Snapshot, error) {
	return PullWith(ctx, api, parallel, need, nil)
}

// PullWith is Pull where wantPlans, when not nil, decides from the listed
// subscriptions whether the plan list is pulled at all (PlansReason): a
// member's plans rarely change, and one request a member a night is a
// seventh of a next night's floor. Without it the plans are pulled beside
// the subscriptions; with it, beside the payment lists, once the
// subscriptions are listed. Snapshot.PlansPulled says which happened.
func PullWith(ctx context.Context, api API, parallel int, need func(platform.Subscription) bool,
	wantPlans func([]platform.Subscription) bool) (*Snapshot, error) {
	snap := &Snapshot{Payments: map[string]*platform.PaymentList{}}
	// The plans are listed beside the subscriptions and their payment
	// lists: against a platform's latency, one round trip fewer before
	// the lists start. A failure of the plans stops the subscriptions and
	// is the one reported, as when the plans were listed first.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	plans := make(chan error, 1)
	startPlans := func() {
		snap.PlansPulled = true
		go func() {
			err := listPlans(ctx, api, snap)
			if err != nil {
				cancel()
			}
			plans <- err
		}()
	}
	listed := func() {}
	if wantPlans == nil {
		startPlans()
	} else {
		listed = func() {
			if wantPlans(snap.Subscriptions) {
				startPlans()
			}
		}
	}
	err := pullSubscriptions(sctx, api, parallel, need, snap, listed)
	if snap.PlansPulled {
		if perr := <-plans; perr != nil {
			return nil, perr
		}
	}
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// listPlans fills snap's plans (Pull).
func listPlans(ctx context.Context, api API, snap *Snapshot) (err error) {
	defer recovered("list plans", &err)
	for p, err := range api.Plans(ctx) {
		if err != nil {
			return fmt.Errorf("list plans: %w", err)
		}
		snap.Plans = append(snap.Plans, p)
	}
	return nil
}

// pullSubscriptions fills snap's subscriptions and payment lists (Pull).
// listed is called once the subscriptions are listed, before their payment
// lists.
func pullSubscriptions(ctx context.Context, api API, parallel int, need func(platform.Subscription) bool, snap *Snapshot,
	listed func()) error {
	for s, err := range api.Subscriptions(ctx) {
		if err != nil {
			return fmt.Errorf("list subscriptions: %w", err)
		}
		snap.Subscriptions = append(snap.Subscriptions, s)
	}
	listed()
	lists := make([]*platform.PaymentList, len(snap.Subscriptions))
	g, gctx := errgroup.WithContext(ctx) // within one member, the first error ends the member
	g.SetLimit(max(parallel, 1))
	// need is asked about the oldest subscriptions first (by start date),
	// so that a budget it keeps (the ingest's backfill) goes to them.
	order, starts := make([]int, len(snap.Subscriptions)), make([]time.Time, len(snap.Subscriptions))
	for i, s := range snap.Subscriptions {
		order[i], starts[i] = i, startOf(s)
	}
	sort.SliceStable(order, func(a, b int) bool { return starts[order[a]].Before(starts[order[b]]) })
	for _, i := range order {
		s := snap.Subscriptions[i]
		if need != nil && !need(s) {
			continue
		}
		g.Go(func() (err error) {
			defer recovered("list payments of subscription "+s.ID, &err)
			l, err := api.SubscriptionPayments(gctx, s.ID)
			if err != nil {
				return fmt.Errorf("list payments of subscription %s: %w", s.ID, err)
			}
			lists[i] = l
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, s := range snap.Subscriptions {
		if lists[i] != nil {
			snap.Payments[s.ID] = lists[i]
		}
	}
	return nil
}

// startOf is s's start date; a start date that does not parse sorts last.
func startOf(s platform.Subscription) time.Time {
	t, err := time.Parse(time.RFC3339, s.StartDate)
	if err != nil {
		return time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

// recovered, deferred in a goroutine of a pull, makes a panic its error:
// errgroup does not carry a goroutine's panic to Wait, so the member's own
// recovery (groups.FanOut) would never see it and the process would crash.
// The member fails instead.
func recovered(what string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: panic: %v", what, p)
	}
}
