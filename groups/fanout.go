package groups

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// Result is what happened to one member in a fan-out.
type Result[T any] struct {
	Member Member
	Value  T // what the job returned; the zero value if it panicked or never started
	Err    error
	// Started and Finished bound the job; both are zero for a member that
	// never started.
	Started, Finished time.Time
}

// FanOut runs job for every member, at most limit at once, each under its
// own timeout (0: none), and hands every member's Result to done: exactly
// once per member, whatever happened. A job that returns gives its value and
// error; one that panics gives an error carrying the panic's value; one that
// outlives its timeout gives its error with the timeout as the cause; a
// member not started because ctx ended first gives "not started" with ctx's
// cause. So a caller that records the results accounts for every member,
// and never reports success for work that was not done.
//
// A member's error never cancels the others; only ctx stops the fan-out.
// done is called on the member's goroutine (on the caller's for members not
// started), so calls for different members may run at once; FanOut returns
// after the last done has returned.
func FanOut[T any](ctx context.Context, members []Member, limit int, timeout time.Duration,
	job func(context.Context, Member) (T, error), done func(Result[T])) {
	if limit < 1 {
		limit = 1
	}
	var g errgroup.Group // not WithContext: one member's failure must not cancel the rest
	g.SetLimit(limit)
	for _, m := range members {
		if ctx.Err() != nil {
			done(Result[T]{Member: m, Err: fmt.Errorf("member %s: not started: %w", m.MerchantID, context.Cause(ctx))})
			continue
		}
		g.Go(func() error {
			done(runOne(ctx, m, timeout, job))
			return nil
		})
	}
	g.Wait()
}

// runOne runs one member's job under its timeout.
func runOne[T any](ctx context.Context, m Member, timeout time.Duration, job func(context.Context, Member) (T, error)) Result[T] {
	mctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		mctx, cancel = context.WithTimeoutCause(ctx, timeout,
			fmt.Errorf("member %s: timed out after %s", m.MerchantID, timeout))
	}
	defer cancel()
	r := Result[T]{Member: m, Started: time.Now()}
	r.Value, r.Err = runSafely(mctx, m, job)
	if r.Err != nil && mctx.Err() != nil && context.Cause(mctx) != nil {
		r.Err = fmt.Errorf("%w (%v)", r.Err, context.Cause(mctx))
	}
	r.Finished = time.Now()
	return r
}

// runSafely turns a panic in one member's job into that member's error, so
// one bad member neither crashes the run nor goes unrecorded.
func runSafely[T any](ctx context.Context, m Member, job func(context.Context, Member) (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("member %s: panic: %v", m.MerchantID, p)
		}
	}()
	return job(ctx, m)
}
