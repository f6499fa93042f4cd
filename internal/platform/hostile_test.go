package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// What a hostile or broken platform may answer, and what the client must do
// about it: never send a signed request elsewhere, never pass a partial
// listing off as whole, never read an unbounded body.

// TestRedirectsNeverFollowed: the platform answers every redirect status,
// pointing at another server that records what reaches it. Nothing must:
// the call fails at once, not retried, with an error that names the status
// and the other host; also with the caller's own http.Client, whose
// CheckRedirect would follow.
func TestRedirectsNeverFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		writeJSON(w, 200, `{"totalCount":0,"plans":[]}`)
	}))
	defer other.Close()
	otherHost := strings.TrimPrefix(other.URL, "http://")

	clients := map[string][]Option{
		"default client":     nil,
		"caller's client":    {WithHTTPClient(&http.Client{Timeout: 5 * time.Second})},
		"caller's redirects": {WithHTTPClient(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }})},
	}
	for name, opts := range clients {
		for _, status := range []int{301, 302, 303, 307, 308} {
			t.Run(fmt.Sprintf("%s/%d", name, status), func(t *testing.T) {
				var calls atomic.Int64
				c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					http.Redirect(w, r, other.URL+r.URL.RequestURI(), status)
				}, opts...)
				var n int
				var last error
				for _, err := range c.Merchant("child1").Plans(context.Background()) {
					n++
					last = err
				}
				var re *RedirectError
				if n != 1 || !errors.As(last, &re) {
					t.Fatalf("%d yields, last %v; want one *RedirectError", n, last)
				}
				if re.HTTPStatus != status || re.LocationHost != otherHost {
					t.Errorf("RedirectError %+v; want status %d, host %s", re, status, otherHost)
				}
				msg := last.Error()
				if !strings.Contains(msg, strconv.Itoa(status)) || !strings.Contains(msg, otherHost) || !strings.Contains(msg, "not followed") {
					t.Errorf("error %q does not name the status, the host and that it was not followed", msg)
				}
				if calls.Load() != 1 {
					t.Errorf("%d requests to the platform: a redirect must not be retried", calls.Load())
				}
			})
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other host received %d request(s): a signed request left the configured host", n)
	}
}

// TestRedirectToSameHostRefused: even a redirect to a path of the same host
// is an error (the API does not redirect), naming where it pointed.
func TestRedirectToSameHostRefused(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			t.Error("the redirect was followed")
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	err := c.Merchant("m").do(context.Background(), "GET", "/rbs/v1/plans", nil, nil)
	var re *RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `"/elsewhere"`) {
		t.Errorf("err = %v; want a *RedirectError naming /elsewhere", err)
	}
}

// stopEarlyServer serves a listing of total records in pages of limit, but
// answers every page from stopAt on with no records (totalCount unchanged),
// as a platform that loses pages would. page renders one page's JSON.
func stopEarlyServer(t *testing.T, total, stopAt int, page func(offset, n, total int) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/group-management/v1/groups" && !r.URL.Query().Has("offset") {
			// The group list's first page names no paging: the platform
			// links the pages after it.
			r.URL.RawQuery += "&offset=0&limit=100"
		}
		offset, limit := offsetOf(t, r)
		n := max(0, min(limit, total-offset))
		if offset >= stopAt {
			n = 0
		}
		writeJSON(w, 200, page(offset, n, total))
	}
}

func records(offset, n int, format string) string {
	var recs []string
	for i := offset; i < offset+n; i++ {
		recs = append(recs, fmt.Sprintf(format, i))
	}
	return strings.Join(recs, ",")
}

// TestListingsStopEarlyAreShortfalls: each paged listing, served 100 of
// 250 records and then empty pages, ends with an error wrapping
// ErrShortfall that gives both counts, instead of a clean short list; the
// same server serving all 250 gives a clean, complete list.
func TestListingsStopEarlyAreShortfalls(t *testing.T) {
	// next is a page's next link, while records remain.
	next := func(prefix string, offset, n, total int) string {
		if offset+n < total {
			return fmt.Sprintf(`,"next":{"href":"%soffset=%d&limit=100"}`, prefix, offset+n)
		}
		return ""
	}
	// count runs a listing to its end: the records yielded, and its last error.
	count := func(seq func(yield func(struct{}, error) bool)) (n int, last error) {
		for _, err := range seq {
			if err != nil {
				last = err
				continue
			}
			n++
		}
		return n, last
	}
	cases := map[string]struct {
		page func(offset, n, total int) string
		// list returns the records yielded (0 for a list returned whole) and the error.
		list func(m *Merchant) (int, error)
	}{
		"plans": {
			page: func(offset, n, total int) string {
				return fmt.Sprintf(`{"_links":{"self":{"href":"/rbs/v1/plans"}%s},"totalCount":%d,"plans":[%s]}`,
					next("/rbs/v1/plans?", offset, n, total), total, records(offset, n, `{"id":"P%03d"}`))
			},
			list: func(m *Merchant) (int, error) {
				return count(func(yield func(struct{}, error) bool) {
					for _, err := range m.Plans(context.Background()) {
						yield(struct{}{}, err)
					}
				})
			},
		},
		"subscriptions": {
			page: func(offset, n, total int) string {
				return fmt.Sprintf(`{"_links":{"self":{"href":"/rbs/v1/subscriptions"}%s},"totalCount":%d,"subscriptions":[%s]}`,
					next("/rbs/v1/subscriptions?", offset, n, total), total, records(offset, n, `{"id":"S%03d"}`))
			},
			list: func(m *Merchant) (int, error) {
				return count(func(yield func(struct{}, error) bool) {
					for _, err := range m.Subscriptions(context.Background()) {
						yield(struct{}{}, err)
					}
				})
			},
		},
		"payments": {
			page: func(offset, n, total int) string {
				return fmt.Sprintf(`{"_links":{"self":{"href":"/rbs/v1/subscriptions/S1/payments"}},"totalCount":%d,"subscriptionPayment":[%s]}`,
					total, records(offset, n, `{"id":"PAY%03d","status":"PAID"}`))
			},
			list: func(m *Merchant) (int, error) {
				l, err := m.SubscriptionPayments(context.Background(), "S1")
				if err != nil {
					return 0, err
				}
				return len(l.Payments), nil
			},
		},
		"groups": {
			page: func(offset, n, total int) string {
				return fmt.Sprintf(`{"count":%d,"totalCount":%d,"_embedded":{"groups":[%s]},"_links":{"self":{"href":"/group-management/v1/groups"}%s}}`,
					n, total, records(offset, n, `{"id":"G%03d","members":["mid1"]}`),
					next("/group-management/v1/groups?organizationId=o&", offset, n, total))
			},
			list: func(m *Merchant) (int, error) {
				return count(func(yield func(struct{}, error) bool) {
					for _, err := range m.Groups(context.Background(), "o") {
						yield(struct{}{}, err)
					}
				})
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, stopEarlyServer(t, 250, 100, tc.page))
			n, err := tc.list(c.Merchant("m"))
			want := "100 distinct " + name + " but totalCount 250"
			if !errors.Is(err, ErrShortfall) || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v; want an ErrShortfall saying %q", err, want)
			}
			if name != "payments" && n != 100 {
				t.Errorf("%d records yielded before the error, want the 100 served", n)
			}
			c, _ = newTestClient(t, stopEarlyServer(t, 250, 250, tc.page))
			if n, err := tc.list(c.Merchant("m")); err != nil || n != 250 {
				t.Errorf("complete listing: %d records, error %v", n, err)
			}
		})
	}
}

// TestListingRepeatsCountOnce: a record served twice (offsets drifting over
// live data) is yielded once, and the count against totalCount is of
// distinct records.
func TestListingRepeatsCountOnce(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		offset, _ := offsetOf(t, r)
		switch offset {
		case 0:
			writeJSON(w, 200, `{"totalCount":3,"plans":[{"id":"A"},{"id":"B"}]}`)
		case 2:
			writeJSON(w, 200, `{"totalCount":3,"plans":[{"id":"B"}]}`) // B again: C was skipped
		default:
			writeJSON(w, 200, `{"totalCount":3,"plans":[]}`)
		}
	})
	var ids []string
	var last error
	for p, err := range c.Merchant("m").Plans(context.Background()) {
		if err != nil {
			last = err
			continue
		}
		ids = append(ids, p.ID)
	}
	if fmt.Sprint(ids) != "[A B]" || !errors.Is(last, ErrShortfall) {
		t.Errorf("ids %v, error %v; want [A B] and a shortfall of 2 against 3", ids, last)
	}
}

// TestBodyLimitsPerEndpoint: each endpoint's answer over its limit fails
// the call at once, not retried, with an error naming the endpoint and the
// limit; a declared Content-Length over it is refused without reading, and
// a chunked body is cut at the limit.
func TestBodyLimitsPerEndpoint(t *testing.T) {
	from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		endpoint string
		limit    bodyLimit
		call     func(m *Merchant) error
	}{
		{"GET /rbs/v1/plans", rbsPageLimit, func(m *Merchant) error { return firstErr(m.Plans(context.Background())) }},
		{"GET /rbs/v1/subscriptions", rbsPageLimit, func(m *Merchant) error { return firstErr(m.Subscriptions(context.Background())) }},
		{"GET /rbs/v1/subscriptions/S1/payments", rbsPageLimit, func(m *Merchant) error {
			_, err := m.SubscriptionPayments(context.Background(), "S1")
			return err
		}},
		{"POST /tss/v2/searches", searchPageLimit, func(m *Merchant) error {
			return firstErr(m.SearchTransactions(context.Background(), from, from.Add(time.Hour)))
		}},
		{"POST /bin/v1/binlookup", binLimit, func(m *Merchant) error {
			_, err := m.LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"})
			return err
		}},
		{"GET /group-management/v1/groups", groupsPageLimit, func(m *Merchant) error { return firstErr(m.Groups(context.Background(), "o")) }},
	}
	for _, tc := range cases {
		for _, chunked := range []bool{false, true} {
			if chunked && tc.limit.bytes > rbsPageLimit.bytes {
				continue // reading 16 or 64 MiB proves nothing more than 4 MiB does
			}
			t.Run(fmt.Sprintf("%s/chunked=%v", tc.endpoint, chunked), func(t *testing.T) {
				var calls atomic.Int64
				c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					calls.Add(1)
					io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", "application/json")
					if !chunked {
						w.Header().Set("Content-Length", strconv.FormatInt(tc.limit.bytes+1, 10))
						w.WriteHeader(200)
						return // the client must not wait for the body
					}
					w.WriteHeader(200)
					pad := strings.Repeat(" ", 1<<16)
					io.WriteString(w, `{"totalCount":1,`)
					for written := int64(0); written <= tc.limit.bytes; written += int64(len(pad)) {
						if _, err := io.WriteString(w, pad); err != nil {
							return
						}
					}
					io.WriteString(w, `"plans":[]}`)
				})
				err := tc.call(c.Merchant("m"))
				want := fmt.Sprintf("%s: invalid response data: response body exceeds %d MiB, the limit for %s",
					tc.endpoint, tc.limit.bytes>>20, tc.limit.of)
				if !errors.Is(err, ErrInvalidData) || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v\nwant it to contain %q", err, want)
				}
				if calls.Load() != 1 {
					t.Errorf("%d requests: an over-long body must not be retried", calls.Load())
				}
			})
		}
	}
}

// TestDeclaredLengthBuysNoBuffer: a server that declares a body just under
// the groups page's 64 MiB limit and sends a few bytes (a truncated answer,
// retried) makes the client allocate for what came, not for what was
// declared: the body is read into a buffer sized by its length only up to
// maxPresized.
func TestDeclaredLengthBuysNoBuffer(t *testing.T) {
	var calls atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.FormatInt(groupsPageLimit.bytes-1, 10))
		w.WriteHeader(200)
		io.WriteString(w, `{"groups":[`) // and the connection ends
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := firstErr(c.Merchant("m").Groups(context.Background(), "o"))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a body that breaks off was taken as a page")
	}
	if calls.Load() < 2 {
		t.Errorf("%d requests: a body that breaks off is retried", calls.Load())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("%d attempts allocated %d MiB for bodies of a few bytes each", calls.Load(), grew>>20)
	}
}

// firstErr is the first error an iterator yields.
func firstErr[T any](seq func(func(T, error) bool)) error {
	var first error
	seq(func(_ T, err error) bool {
		first = err
		return err == nil
	})
	return first
}

// TestLimitsFitAPage: each limit holds the largest page the client asks for
// of records far larger than the sandbox's (a page is read whole, so a limit
// below a real page would fail every member).
func TestLimitsFitAPage(t *testing.T) {
	for _, tc := range []struct {
		limit   bodyLimit
		records int
		bytes   int // a generous record size: 4× the sandbox's
	}{
		{rbsPageLimit, rbsPageSize, 4 << 10},
		{searchPageLimit, tssPageSize, 4 << 10},
		{groupsPageLimit, 100, 10000 * 40},
	} {
		if need := int64(tc.records * tc.bytes); need > tc.limit.bytes {
			t.Errorf("limit for %s: %d MiB, below a page of %d records of %d bytes", tc.limit.of, tc.limit.bytes>>20, tc.records, tc.bytes)
		}
	}
}
