package groups

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// Result is what happened to one member in a fan-out.
type Result struct {
	Member   Member
	Err      error
	Started  time.Time
	Finished time.Time
}

// FanOut runs fn for every member with at most limit at once, each under its
// own timeout (0: none). A member's error is recorded in its result slot and
// never cancels the others; only the parent context stops the fan-out, and
// members not started by then are reported with the context's error.
func FanOut(ctx context.Context, members []Member, limit int, timeout time.Duration, fn func(context.Context, Member) error) []Result {
	if limit < 1 {
		limit = 1
	}
	results := make([]Result, len(members))
	var g errgroup.Group // not WithContext: one member's failure must not cancel the rest
	g.SetLimit(limit)
	for i, m := range members {
		results[i].Member = m
		if ctx.Err() != nil {
			results[i].Err = fmt.Errorf("not started: %w", context.Cause(ctx))
			continue
		}
		g.Go(func() error {
			mctx, cancel := ctx, context.CancelFunc(func() {})
			if timeout > 0 {
				mctx, cancel = context.WithTimeoutCause(ctx, timeout,
					fmt.Errorf("member %s: timed out after %s", m.MerchantID, timeout))
			}
			defer cancel()
			results[i].Started = time.Now()
			err := runSafely(mctx, m, fn)
			if err != nil && mctx.Err() != nil && context.Cause(mctx) != nil {
				err = fmt.Errorf("%w (%v)", err, context.Cause(mctx))
			}
			results[i].Err = err
			results[i].Finished = time.Now()
			return nil
		})
	}
	g.Wait()
	return results
}

// runSafely turns a panic in one member's job into that member's error.
func runSafely(ctx context.Context, m Member, fn func(context.Context, Member) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("member %s: panic: %v", m.MerchantID, p)
		}
	}()
	return fn(ctx, m)
}
