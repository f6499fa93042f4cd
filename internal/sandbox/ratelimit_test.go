package sandbox

import (
	"net/http"
	"strconv"
	"testing"
)

// TestRateLimitPerKey: beyond its bucket, a key is answered 429 in the
// platform's error body with a Retry-After of whole seconds, and takes no
// token for it; another key has a bucket of its own; the sandbox counts
// what it served, the 429s among them.
func TestRateLimitPerKey(t *testing.T) {
	// One token per 100 s: the bucket does not refill during the test,
	// however slow the machine.
	s, c := newTestServer(t, Config{RateLimit: RateLimit{PerSecond: 0.01, Burst: 3}})
	mid := s.Members()[0]
	const path = "/rbs/v1/plans?offset=0&limit=1"
	for i := range 3 {
		if resp, b, err := c.do("GET", path, mid, nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d within the burst: %v %v %s", i+1, err, resp, b)
		}
	}
	for i := range 2 {
		resp, _, err := c.do("GET", path, mid, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("request %d over the burst: status %d, want 429", 4+i, resp.StatusCode)
		}
		ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || ra < 1 || ra > 100 {
			t.Errorf("Retry-After %q, want whole seconds until the next token (1..100)", resp.Header.Get("Retry-After"))
		}
	}
	body := c.j("GET", path, mid, nil, http.StatusTooManyRequests)
	wantError(t, body, "TOO_MANY_REQUESTS", "RATE_LIMITED", "", "")

	// Another key of the organization has its own bucket.
	other := c.as(t, s.UserKeyID(UserTransacting, ""), mid)
	other.j("GET", path, mid, nil, http.StatusOK)

	sv := s.Served()
	if sv.Requests != 7 || sv.RateLimited != 3 || sv.ByArea["/rbs/v1"] != 7 {
		t.Errorf("served %+v, want 7 requests, 3 answered 429, 7 in /rbs/v1", sv)
	}
}

// TestRateLimitConfig: a negative or NaN rate is refused; a rate without a
// burst holds one second's worth.
func TestRateLimitConfig(t *testing.T) {
	if _, err := New(Config{RateLimit: RateLimit{PerSecond: -1}}); err == nil {
		t.Error("a negative rate limit was accepted")
	}
	s, err := New(Config{RateLimit: RateLimit{PerSecond: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Config().RateLimit.Burst; b != 20 {
		t.Errorf("burst %d, want 20 (one second's worth)", b)
	}
}
