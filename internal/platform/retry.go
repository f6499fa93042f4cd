package platform

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how often and how patiently a failed attempt is repeated.
// Zero fields take their defaults, so RetryPolicy{MaxAttempts: 3} is valid.
//
// Backoff is "full jitter": the delay before retry n (n = 0 for the first
// retry) is uniform in [0, min(MaxDelay, BaseDelay*2^n)), which spreads the
// retries of many concurrent members instead of having them hit a recovering
// server in step. A Retry-After header (seconds or an HTTP date) is honoured
// but capped at MaxRetryAfter, so one misconfigured proxy cannot park a
// nightly run for an hour: the wait is max(capped Retry-After, jittered
// delay).
type RetryPolicy struct {
	MaxAttempts   int           // total attempts including the first; default 6
	BaseDelay     time.Duration // default 200ms
	MaxDelay      time.Duration // cap of one backoff; default 10s
	MaxRetryAfter time.Duration // cap applied to a Retry-After header; default 30s
}

// defaultRetryPolicy is the policy of a client built without WithRetryPolicy.
var defaultRetryPolicy = RetryPolicy{
	MaxAttempts:   6,
	BaseDelay:     200 * time.Millisecond,
	MaxDelay:      10 * time.Second,
	MaxRetryAfter: 30 * time.Second,
}

// withDefaults fills zero (or negative) fields from defaultRetryPolicy.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := defaultRetryPolicy
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	return p
}

// backoff returns how long to wait before retry n (0-based), given the
// response's Retry-After (0 if none).
func (p RetryPolicy) backoff(n int, retryAfter time.Duration) time.Duration {
	ceiling := p.MaxDelay
	if n < 62 {
		if d := p.BaseDelay << uint(n); d > 0 && d < ceiling && d>>uint(n) == p.BaseDelay {
			ceiling = d
		}
	}
	var wait time.Duration
	if ceiling > 0 {
		wait = rand.N(ceiling)
	}
	if retryAfter > 0 {
		wait = max(wait, min(retryAfter, p.MaxRetryAfter))
	}
	return wait
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date
// (RFC 9110 10.2.3). It returns 0 for anything else or a date in the past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// sleep waits d or until ctx is done, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
