package sandbox

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	xrate "golang.org/x/time/rate"
)

// RateLimit limits each key's requests as a platform's gateway does: a
// token bucket per key ID, PerSecond tokens a second, holding at most Burst.
// A request that finds the bucket empty is answered 429 with a Retry-After
// of the whole seconds until a token is due (at least 1), and takes no
// token: a client that waits as told is served. The vendor publishes no
// limit, no burst and no 429 behaviour (docs/platform.md, unverified): this
// is the common shape of one, so that a client's adaptation is tested
// against a limit it does not know in advance.
type RateLimit struct {
	PerSecond float64 // 0: no limit
	Burst     int     // tokens a bucket holds; default ceil(PerSecond)
}

func (l RateLimit) withDefaults() (RateLimit, error) {
	if l.PerSecond < 0 || math.IsNaN(l.PerSecond) || math.IsInf(l.PerSecond, 0) {
		return l, errors.New("rate limit: want a positive number of requests a second (0 for none)")
	}
	if l.Burst < 0 {
		return l, errors.New("rate limit: negative burst")
	}
	if l.PerSecond > 0 && l.Burst == 0 {
		l.Burst = max(1, int(math.Ceil(l.PerSecond)))
	}
	return l, nil
}

// keyBuckets are the token buckets of RateLimit, by key ID.
type keyBuckets struct {
	mu      sync.Mutex
	buckets map[string]*xrate.Limiter
}

// admit takes a token of the key's bucket at now, or says how long until
// one is due when the bucket is empty.
func (s *Server) admit(keyID string, now time.Time) (bool, time.Duration) {
	l := s.cfg.RateLimit
	if l.PerSecond <= 0 {
		return true, 0
	}
	s.limits.mu.Lock()
	b := s.limits.buckets[keyID]
	if b == nil {
		if s.limits.buckets == nil {
			s.limits.buckets = map[string]*xrate.Limiter{}
		}
		b = xrate.NewLimiter(xrate.Limit(l.PerSecond), l.Burst)
		b.SetBurstAt(now, l.Burst) // full at its first request
		s.limits.buckets[keyID] = b
	}
	s.limits.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// rateLimited answers a request over its key's limit: 429 in the
// platform's error body, with Retry-After in whole seconds (at least 1).
func (s *Server) rateLimited(w http.ResponseWriter, ri *reqInfo, wait time.Duration) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	s.served.rateLimited.Add(1)
	s.writeError(w, ri, http.StatusTooManyRequests, "TOO_MANY_REQUESTS", "RATE_LIMITED",
		"too many requests for key "+ri.user.KeyID)
}

// servedCounts count the requests the sandbox answered.
type servedCounts struct {
	total, rateLimited atomic.Int64
	mu                 sync.Mutex
	byArea             map[string]int64
}

// Served is what the sandbox answered since it started: every request that
// reached it (authenticated or not, the buy-now-pay-later provider's page
// excepted), the 429s among them (RateLimit's and the RateLimitRate
// fault's), and the requests by area, the first two segments of the path
// ("/rbs/v1", "/tss/v2", "/bin/v1", ...). A test compares it with what the
// client says it sent.
type Served struct {
	Requests    int64
	RateLimited int64
	ByArea      map[string]int64
}

// Served returns the counts of requests answered so far.
func (s *Server) Served() Served {
	s.served.mu.Lock()
	defer s.served.mu.Unlock()
	out := Served{Requests: s.served.total.Load(), RateLimited: s.served.rateLimited.Load(), ByArea: map[string]int64{}}
	for k, v := range s.served.byArea {
		out.ByArea[k] = v
	}
	return out
}

// count notes a request that reached the sandbox.
func (s *Server) count(r *http.Request) {
	s.served.mu.Lock()
	defer s.served.mu.Unlock()
	s.served.total.Add(1)
	if s.served.byArea == nil {
		s.served.byArea = map[string]int64{}
	}
	s.served.byArea[areaOf(r.URL.Path)]++
}

// areaOf is the first two segments of a path: "/rbs/v1/plans" -> "/rbs/v1".
func areaOf(p string) string {
	parts := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 3)
	if len(parts) < 2 {
		return "/" + parts[0]
	}
	return "/" + parts[0] + "/" + parts[1]
}
