package platform

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// adaptiveRate adapts the client's rate limiter to the platform's answers,
// as TCP adapts to a network it does not know: the vendor publishes no rate
// limit (it is set per account), so --rate is a ceiling, not a promise.
//
//   - A 429 halves the rate, or brings it to half of what the platform
//     served in the second before (successes counted) when that is lower:
//     a platform that served 21 in the last second has told what it serves,
//     whatever --rate says. Requests that started waiting for their token
//     before the rate last fell do not lower it again: the members in
//     flight when a limit is met cut the rate once, not once each.
//   - A 429's Retry-After (capped at RetryPolicy.MaxRetryAfter) holds every
//     request of the client until it has passed, not just the one retried:
//     the limit is the key's, so the other members' requests would be
//     refused too.
//   - Each second's worth of successes at the current rate raises it: by
//     half the way back to 90 % of what was served before the last 429
//     (at least 1 request/s), then by 1 % (at least 0.1 request/s), never
//     above the ceiling. The rate comes back within seconds to just under
//     what the platform served, then probes above it slowly, so that the
//     next 429 comes late and once.
//
// The rate never falls below floor (1 request/s, or the ceiling if lower).
type adaptiveRate struct {
	lim     *rate.Limiter
	ceiling rate.Limit
	floor   rate.Limit
	maxHold time.Duration

	mu         sync.Mutex
	epoch      uint64 // bumped at each decrease
	successes  int    // since the last change of rate
	recent     [256]time.Time
	next       int // ring index into recent
	holdUntil  time.Time
	known      rate.Limit // what the platform served in the second before the last 429
	lowest     rate.Limit
	decreases  int64
	increases  int64
	throttled  int64
	heldFor    time.Duration
	lastChange time.Time
}

func newAdaptiveRate(lim *rate.Limiter, maxHold time.Duration) *adaptiveRate {
	c := lim.Limit()
	return &adaptiveRate{lim: lim, ceiling: c, floor: min(c, 1), lowest: c, maxHold: maxHold}
}

// wait waits for any hold a Retry-After set, then for a token; it returns
// the epoch the attempt belongs to.
func (a *adaptiveRate) wait(ctx context.Context) (uint64, error) {
	for {
		a.mu.Lock()
		hold := time.Until(a.holdUntil)
		a.mu.Unlock()
		if hold <= 0 {
			break
		}
		if err := sleep(ctx, hold); err != nil {
			return 0, err
		}
	}
	// The epoch is the one the attempt starts waiting in: a token it was
	// promised at a rate since lowered still goes out at that rate, and
	// its 429 is that rate's, which the fall has already answered.
	a.mu.Lock()
	epoch := a.epoch
	a.mu.Unlock()
	if err := a.lim.Wait(ctx); err != nil {
		return 0, err
	}
	// A 429 while this attempt waited for its token holds it too: its
	// token was promised before the platform said to wait.
	a.mu.Lock()
	hold := time.Until(a.holdUntil)
	a.mu.Unlock()
	if err := sleep(ctx, hold); err != nil {
		return 0, err
	}
	return epoch, nil
}

// refused takes a 429 to an attempt sent in epoch, with its Retry-After
// (0 if none).
func (a *adaptiveRate) refused(epoch uint64, retryAfter time.Duration) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.throttled++
	if retryAfter > 0 {
		if until := now.Add(min(retryAfter, a.maxHold)); until.After(a.holdUntil) {
			if a.holdUntil.Before(now) {
				a.heldFor += until.Sub(now)
			} else {
				a.heldFor += until.Sub(a.holdUntil)
			}
			a.holdUntil = until
		}
	}
	if epoch != a.epoch {
		return // sent before the rate last fell: that fall answered it
	}
	cur := a.lim.Limit()
	next := cur / 2
	if served := a.servedSince(now.Add(-time.Second)); served > 0 {
		a.known = rate.Limit(served)
		next = min(next, a.known/2)
	}
	next = max(a.floor, next)
	a.lim.SetLimitAt(now, next)
	a.epoch++
	a.successes = 0
	a.decreases++
	a.lowest = min(a.lowest, next)
	a.lastChange = now
}

// servedSince counts the successes noted since t (at most the ring's size).
func (a *adaptiveRate) servedSince(t time.Time) int {
	n := 0
	for _, s := range a.recent {
		if !s.IsZero() && s.After(t) {
			n++
		}
	}
	return n
}

// served takes a 2xx answer.
func (a *adaptiveRate) served() {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.recent[a.next] = now
	a.next = (a.next + 1) % len(a.recent)
	cur := a.lim.Limit()
	if cur >= a.ceiling {
		return
	}
	a.successes++
	if a.successes < max(1, int(cur)) {
		return
	}
	a.successes = 0
	step := max(0.1, cur/100) // probing: 1 % a second
	if target := 0.9 * a.known; cur < target {
		step = max(1, (target-cur)/2) // back towards what was served
		step = min(step, target-cur)
	}
	a.lim.SetLimitAt(now, min(a.ceiling, cur+step))
	a.increases++
	a.lastChange = now
}

// RateReport is what the client's rate adaptation did: the ceiling
// (WithRateLimiter's rate, --rate), the rate now and the lowest it fell
// to, in requests a second; how often it fell and rose; the 429s it took;
// and how long Retry-After held every request in all.
type RateReport struct {
	Ceiling, Current, Lowest float64
	Decreases, Increases     int64
	Refused                  int64
	Held                     time.Duration
}

// Rate reports the client's rate adaptation; the zero report when the
// client has no rate limiter.
func (c *Client) Rate() RateReport {
	a := c.adapt
	if a == nil {
		return RateReport{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return RateReport{Ceiling: float64(a.ceiling), Current: float64(a.lim.Limit()), Lowest: float64(a.lowest),
		Decreases: a.decreases, Increases: a.increases, Refused: a.throttled, Held: a.heldFor}
}
