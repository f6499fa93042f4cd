package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestRetry429RetryAfterThenSuccess(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, `{"status":"TOO_MANY_REQUESTS","reason":"RATE_LIMITED"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{"n":1}`)
	}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: 150 * time.Millisecond}))
	var st Stats
	ctx := WithStats(context.Background(), &st)
	start := time.Now()
	var out struct{ N int }
	if err := c.Merchant("m1").do(ctx, "GET", "/x", nil, &out); err != nil {
		t.Fatal(err)
	}
	// Retry-After (1s) capped at 150ms was honoured: the jittered backoff
	// alone is under 1ms.
	if el := time.Since(start); el < 140*time.Millisecond {
		t.Errorf("retried after %v, want >= the capped Retry-After of 150ms", el)
	}
	if out.N != 1 || calls.Load() != 2 {
		t.Errorf("out=%+v calls=%d", out, calls.Load())
	}
	if st.Requests.Load() != 2 || st.Retries.Load() != 1 {
		t.Errorf("stats requests=%d retries=%d, want 2 and 1", st.Requests.Load(), st.Retries.Load())
	}
}

// An hour-long Retry-After is capped at MaxRetryAfter: the call completes
// well within the test's deadline instead of waiting.
func TestRetryAfterCapped(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "3600")
			writeJSON(w, http.StatusServiceUnavailable, `{"status":"SERVER_ERROR"}`)
			return
		}
		writeJSON(w, http.StatusOK, `{}`)
	}, WithRetryPolicy(RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxRetryAfter: 20 * time.Millisecond}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Merchant("m1").do(ctx, "GET", "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestRetry5xxThenSuccess(t *testing.T) {
	for _, code := range []int{500, 502, 503, 504} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			var calls atomic.Int64
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					writeJSON(w, code, `{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR"}`)
					return
				}
				writeJSON(w, http.StatusOK, `{"plans":[]}`)
			})
			var st Stats
			if err := c.Merchant("m1").do(WithStats(context.Background(), &st), "GET", "/rbs/v1/plans", nil, new(json.RawMessage)); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 2 || st.Requests.Load() != 2 || st.Retries.Load() != 1 {
				t.Errorf("calls=%d requests=%d retries=%d", calls.Load(), st.Requests.Load(), st.Retries.Load())
			}
		})
	}
}

func TestNotRetried(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 409, 422, 501} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			var calls atomic.Int64
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				writeJSON(w, code, `{"status":"X","reason":"Y","message":"no"}`)
			})
			var st Stats
			err := c.Merchant("m1").do(WithStats(context.Background(), &st), "POST", "/x", map[string]int{}, nil)
			if !IsStatus(err, code) {
				t.Fatalf("err = %v, want an APIError %d", err, code)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Temporary() {
				t.Errorf("APIError %v Temporary() = true", apiErr)
			}
			if calls.Load() != 1 || st.Retries.Load() != 0 {
				t.Errorf("calls=%d retries=%d, want 1 and 0", calls.Load(), st.Retries.Load())
			}
		})
	}
}

func TestMaxAttempts(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, http.StatusInternalServerError, `{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR"}`)
	}, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}))
	var st Stats
	err := c.Merchant("m1").do(WithStats(context.Background(), &st), "GET", "/x", nil, nil)
	if !IsStatus(err, 500) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("error %q does not say how often it tried", err)
	}
	if calls.Load() != 3 || st.Requests.Load() != 3 || st.Retries.Load() != 2 {
		t.Errorf("calls=%d requests=%d retries=%d, want 3, 3, 2", calls.Load(), st.Requests.Load(), st.Retries.Load())
	}
}

func TestTruncatedBodyRetried(t *testing.T) {
	cases := map[string]http.HandlerFunc{
		"wrong content length": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "200")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"plans":[{"id":"1"`))
		},
		"broken json": func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"plans":[{"id":"1"`)
		},
		"empty body": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
		},
	}
	for name, broken := range cases {
		t.Run(name+" then good", func(t *testing.T) {
			var calls atomic.Int64
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					broken(w, r)
					return
				}
				writeJSON(w, http.StatusOK, `{"plans":[]}`)
			})
			var out json.RawMessage
			if err := c.Merchant("m1").do(context.Background(), "GET", "/x", nil, &out); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 2 || string(out) != `{"plans":[]}` {
				t.Errorf("calls=%d out=%s", calls.Load(), out)
			}
		})
		t.Run(name+" always", func(t *testing.T) {
			var calls atomic.Int64
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				broken(w, r)
			})
			var out json.RawMessage
			err := c.Merchant("m1").do(context.Background(), "GET", "/x", nil, &out)
			if !errors.Is(err, ErrInvalidData) {
				t.Fatalf("err = %v, want ErrInvalidData", err)
			}
			t.Logf("error: %v", err)
			if calls.Load() != int64(fastRetry.MaxAttempts) {
				t.Errorf("calls=%d, want %d", calls.Load(), fastRetry.MaxAttempts)
			}
		})
	}
}

// A 2xx that is valid JSON of the wrong shape is not retried: the same bytes
// would come back.
func TestWrongShapeNotRetried(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(w, http.StatusOK, `{"plans":"nope","totalCount":1}`)
	})
	for _, err := range c.Merchant("m1").Plans(context.Background()) {
		if !errors.Is(err, ErrInvalidData) {
			t.Fatalf("err = %v, want ErrInvalidData", err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("calls=%d, want 1", calls.Load())
	}
}

// A connection dropped before any response is retried.
func TestConnectionResetRetried(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close()
			return
		}
		writeJSON(w, http.StatusOK, `{}`)
	})
	var st Stats
	if err := c.Merchant("m1").do(WithStats(context.Background(), &st), "GET", "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || st.Retries.Load() != 1 {
		t.Errorf("calls=%d retries=%d", calls.Load(), st.Retries.Load())
	}
}

func TestConnectionRefusedExhausts(t *testing.T) {
	c, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
	srv.Close()
	var st Stats
	err := c.Merchant("m1").do(WithStats(context.Background(), &st), "GET", "/x", nil, nil)
	if err == nil {
		t.Fatal("no error from a closed server")
	}
	if st.Requests.Load() != int64(fastRetry.MaxAttempts) {
		t.Errorf("requests=%d, want %d", st.Requests.Load(), fastRetry.MaxAttempts)
	}
}

func TestBackoffWaitRespectsContext(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		writeJSON(w, http.StatusServiceUnavailable, `{}`)
	}, WithRetryPolicy(RetryPolicy{MaxAttempts: 5, MaxRetryAfter: time.Minute}))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := c.Merchant("m1").do(ctx, "GET", "/x", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
}

// One limiter budget is shared by every merchant of the client, and every
// attempt waits for it: 20 requests at 50/s with burst 1 take >= 19/50 s.
func TestRateLimiterShared(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{}`)
	}, WithRateLimiter(rate.NewLimiter(50, 1)))
	merchants := []*Merchant{c.Merchant("a"), c.Merchant("b")}
	start := time.Now()
	errc := make(chan error, 20)
	for i := range 20 {
		go func() { errc <- merchants[i%2].do(context.Background(), "GET", "/x", nil, nil) }()
	}
	for range 20 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 370*time.Millisecond {
		t.Errorf("20 requests took %v, want >= ~380ms at 50/s", el)
	}
}

func TestStatsPerContext(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, `{}`)
	})
	var a, b Stats
	for range 3 {
		if err := c.Merchant("a").do(WithStats(context.Background(), &a), "GET", "/x", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Merchant("b").do(WithStats(context.Background(), &b), "GET", "/x", nil, nil); err != nil {
		t.Fatal(err)
	}
	if a.Requests.Load() != 3 || b.Requests.Load() != 1 {
		t.Errorf("a=%d b=%d, want 3 and 1", a.Requests.Load(), b.Requests.Load())
	}
}

func TestBackoffBounds(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 6, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 5 * time.Second}
	for n := range 70 {
		ceiling := min(time.Second, 100*time.Millisecond<<min(n, 20))
		for range 50 {
			if d := p.backoff(n, 0); d < 0 || d >= ceiling {
				t.Fatalf("backoff(%d) = %v, want in [0, %v)", n, d, ceiling)
			}
		}
		if d := p.backoff(n, 3*time.Second); d != 3*time.Second {
			t.Fatalf("backoff(%d, Retry-After 3s) = %v", n, d)
		}
		if d := p.backoff(n, time.Hour); d != 5*time.Second {
			t.Fatalf("backoff(%d, Retry-After 1h) = %v, want the 5s cap", n, d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		" 0 ":                           0,
		"-3":                            0,
		"soon":                          0,
		"Fri, 20 Nov 2026 10:00:30 GMT": 30 * time.Second,
		"Fri, 20 Nov 2026 09:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNewClientValidates(t *testing.T) {
	creds := testCreds(t, "")
	for _, base := range []string{"", "ftp://x", "http://", "https://x/?q=1", "::"} {
		if _, err := NewClient(base, creds); err == nil {
			t.Errorf("NewClient(%q) accepted", base)
		}
	}
	if _, err := NewClient("https://x", Credentials{KeyID: "k"}); err == nil {
		t.Error("NewClient accepted an empty secret")
	}
	if _, err := NewClient("https://x", Credentials{Secret: creds.Secret}); err == nil {
		t.Error("NewClient accepted an empty key id")
	}
}

// A base URL with a path prefix prefixes every path; the user's http.Client
// is not modified.
func TestBasePathPrefixAndHTTPClient(t *testing.T) {
	var seen atomic.Value
	_, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.RequestURI)
		writeJSON(w, http.StatusOK, `{}`)
	})
	hc := &http.Client{Timeout: 5 * time.Second}
	c, err := NewClient(srv.URL+"/api/", testCreds(t, ""), WithHTTPClient(hc), WithUserAgent("ua-test"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Merchant("m").do(context.Background(), "GET", "/rbs/v1/plans?offset=0", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != "/api/rbs/v1/plans?offset=0" {
		t.Errorf("server saw %v", got)
	}
	if hc.Transport != nil {
		t.Error("WithHTTPClient modified the caller's http.Client")
	}
	if got, err := c.relativeLink("/api/groups?offset=100"); err != nil || got != "/groups?offset=100" {
		t.Errorf("relativeLink = %q, %v", got, err)
	}
	if _, err := c.relativeLink("https://elsewhere.example/groups"); err == nil {
		t.Error("relativeLink accepted another host")
	}
}

func TestDoRejectsBadPath(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1) })
	for _, p := range []string{"x", "//evil.example/x", "http://evil.example/x"} {
		if err := c.Merchant("m").do(context.Background(), "GET", p, nil, nil); err == nil {
			t.Errorf("Do(%q) accepted", p)
		}
	}
	if err := c.Merchant("").do(context.Background(), "GET", "/x", nil, nil); err == nil {
		t.Error("Do with no merchant accepted")
	}
	if calls.Load() != 0 {
		t.Errorf("%d requests sent", calls.Load())
	}
}

// TestNestedStats: a member's Stats under a run's Stats count into both.
func TestNestedStats(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"plans": [], "totalCount": 0}`))
	})
	var run, member Stats
	ctx := WithStats(WithStats(context.Background(), &run), &member)
	for _, err := range c.Merchant("m1").Plans(ctx) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]*Stats{"member": &member, "run": &run} {
		if s.Requests.Load() != 2 || s.Retries.Load() != 1 {
			t.Errorf("%s stats: %d requests, %d retries; want 2 and 1", name, s.Requests.Load(), s.Retries.Load())
		}
	}
}

// A 2xx body that is complete (its brackets close) but not valid JSON is
// not retried either: it was not cut short, and the same bytes would come
// back. Its records never reach the caller. (An escape JSON does not have,
// in a field the decoder skips, does reach it: the database's JSON cast
// refuses the record, and ingest's TestRefusedRecordsFailTheirMemberAlone
// shows that member failing alone.)
func TestCompleteButInvalidNotRetried(t *testing.T) {
	for _, body := range []string{
		`{"plans":[{"id":"1",}],"totalCount":1}`,
		`{"plans":[{"id":"1"}],"totalCount":1,}`,
		`{"plans":[{"id":"1"} {"id":"2"}],"totalCount":2}`,
		`{"plans":[{"id":"1","name":nul}],"totalCount":1}`,
		`{"plans":[{"id":"1","other":{"x":[1,2,}}}],"totalCount":1}`,
		`{"plans":[{"id":"1"}},"totalCount":1]`, // brackets that close, but not each other
	} {
		var calls atomic.Int64
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			writeJSON(w, http.StatusOK, body)
		})
		var got int
		var err error
		for _, e := range c.Merchant("m1").Plans(context.Background()) {
			if e != nil {
				err = e
				break
			}
			got++
		}
		if !errors.Is(err, ErrInvalidData) || got != 0 {
			t.Errorf("body %s: %d plans, err = %v; want none and ErrInvalidData", body, got, err)
		}
		if calls.Load() != 1 {
			t.Errorf("body %s: calls=%d, want 1", body, calls.Load())
		}
	}
}
