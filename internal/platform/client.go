package platform

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// maxErrorBody bounds what is read of a non-2xx body: it is only read for
// its message.
const maxErrorBody = 1 << 20

// bodyLimit is the largest 2xx body the client reads from one endpoint: what
// the largest page it asks for can hold, with headroom for fields it does not
// read. A body over the limit fails the call (never retried) instead of
// growing the heap: a run has up to --concurrency members in flight, each
// with up to 4 payment lists or one transaction search at a time, so these
// limits are what bounds a hostile or broken platform's share of memory.
//
// It also carries the family's time-out: how long one attempt may take, from
// sending the request to the last byte of the answer. A retry starts a new
// attempt with a new time-out; the caller's context (a member's time-out,
// the run's) bounds the whole.
type bodyLimit struct {
	bytes   int64
	of      string        // what the limit is for, for the error: "a page of 100 plans"
	timeout time.Duration // per attempt; 0 is defaultTimeout
}

// Time-outs per endpoint family, each above the platform's worst case as its
// vendor source gives it, so that a slow night is waited out rather than cut
// and retried (which would add load when the platform is already slow):
//
//   - Transaction details: 3 min. The Transaction Search guide ("Transaction
//     Details API", Important note) says a details request "may exceed 2
//     minutes" in exceptional periods.
//   - Transaction Search: 3 min. The guide gives no figure for searches; a
//     search reads the same store as details and pages of 2500 records are
//     larger than one detail, so the details' worst case is the floor
//     (unverified).
//   - Recurring billing, BIN lookup, group management: 60 s. No vendor source
//     gives a worst case; these are single-record reads or pages of at most
//     100 records (unverified).
//
// The figures are the defaults; WithTimeouts replaces them.
const (
	detailTimeout  = 3 * time.Minute
	searchTimeout  = 3 * time.Minute
	defaultTimeout = 60 * time.Second
)

// The limits, by endpoint. Sizes measured on the sandbox: a subscription is
// ~1 KB, a payment ~0.3 KB, a transaction summary ~1 KB, so a page of 100
// recurring billing records is ~0.1 MB and one of 2000 summaries ~2 MB.
var (
	rbsPageLimit    = bodyLimit{bytes: 4 << 20, of: "a page of 100 plans, subscriptions or payments", timeout: defaultTimeout}
	searchPageLimit = bodyLimit{bytes: 20 << 20, of: "a page of 2500 transaction summaries", timeout: searchTimeout}
	detailLimit     = bodyLimit{bytes: 1 << 20, of: "one transaction detail", timeout: detailTimeout}
	binLimit        = bodyLimit{bytes: 1 << 20, of: "one BIN lookup result", timeout: defaultTimeout}
	// A page of 100 groups of up to 10,000 MIDs each (the platform's
	// limit) is up to ~35 MB; the listing is one request at a time, before
	// the fan-out starts.
	groupsPageLimit = bodyLimit{bytes: 64 << 20, of: "a page of 100 groups of up to 10,000 members", timeout: defaultTimeout}
	// do calls endpoints this package does not model (its tests).
	doLimit = bodyLimit{bytes: 16 << 20, of: "a response of an endpoint called through do", timeout: defaultTimeout}
)

// DefaultUserAgent is sent when no WithUserAgent option is given.
const DefaultUserAgent = "reconcile-platform/1"

// Client is a REST client of the platform for one credential. It is safe for
// concurrent use; one Client (and so one rate-limit budget and one pool of
// connections) is meant to serve every merchant a run fans out over, through
// Merchant.
type Client struct {
	base      *url.URL // scheme and host, and a path prefix if any (no trailing slash)
	creds     Credentials
	hc        *http.Client // its Transport is the signer
	userHC    *http.Client
	conns     int // keep-alive pool size of the default transport
	limiter   *rate.Limiter
	adapt     *adaptiveRate // adapts limiter to 429s (adaptive.go); nil without one
	retry     RetryPolicy
	now       func() time.Time
	userAgent string

	searchTimeForm SearchTimeForm
	timeouts       Timeouts
	mle            ResponseMLEKey // WithResponseMLE; zero: encrypted answers are refused (mle.go)
}

// Timeouts are the per-attempt time-outs of the endpoint families (see
// detailTimeout); a zero field keeps its default.
type Timeouts struct {
	Details, Search, Other time.Duration
}

// WithTimeouts replaces the per-attempt time-outs of the endpoint families.
func WithTimeouts(t Timeouts) Option {
	return func(c *Client) { c.timeouts = t }
}

// attemptTimeout is how long one attempt against limit's family may take.
func (c *Client) attemptTimeout(limit bodyLimit) time.Duration {
	switch {
	case limit == detailLimit && c.timeouts.Details > 0:
		return c.timeouts.Details
	case limit == searchPageLimit && c.timeouts.Search > 0:
		return c.timeouts.Search
	case limit != detailLimit && limit != searchPageLimit && c.timeouts.Other > 0:
		return c.timeouts.Other
	case limit.timeout > 0:
		return limit.timeout
	}
	return defaultTimeout
}

// Option configures a Client in NewClient.
type Option func(*Client)

// WithHTTPClient sends requests through hc: its Transport (http.DefaultTransport
// if nil), Timeout and Jar are kept. Its CheckRedirect is not: the client never
// follows a redirect (see NewClient). hc itself is not modified;
// the client wraps a copy's Transport with the signer. nil keeps the default,
// whose transport keeps 64 idle connections per host so a fan-out over many
// members reuses connections instead of reconnecting.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.userHC = hc }
}

// WithConnections sizes the default transport's keep-alive pool for n
// requests in flight at once. Go keeps only 2 idle connections per host by
// default: with more in flight, every extra request would open (and the
// server would accept) a new connection. Ignored with WithHTTPClient.
func WithConnections(n int) Option {
	return func(c *Client) { c.conns = n }
}

// WithRateLimiter makes every attempt (retries included) of every merchant of
// the client wait for a token of l, so the whole run stays within one budget
// however many members it fans out over. nil means unlimited. l's rate is
// the ceiling: the client lowers it on 429s and raises it back as answers
// succeed (adaptive.go), through l.SetLimit.
func WithRateLimiter(l *rate.Limiter) Option {
	return func(c *Client) { c.limiter = l }
}

// WithRetryPolicy replaces the default policy (6 attempts, 200ms base, 10s
// max, Retry-After capped at 30s); zero fields keep their defaults.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p.withDefaults() }
}

// WithClock sets the clock that dates (and so signs) each attempt; tests fix
// it to check signatures. Default time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *Client) {
		if now != nil {
			c.now = now
		}
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// NewClient returns a client of the platform at baseURL (scheme and host, e.g.
// "https://apitest.example.net", optionally with a path prefix) that signs with
// creds, in the mode they name.
//
// The client sends signed requests to baseURL's host only. It never follows
// a redirect: the signer is the transport, so a followed redirect would be
// signed afresh for wherever the Location header points (another host, or
// plain http), and that host's answer taken for the platform's. A 3xx answer
// is a *RedirectError instead, whatever http.Client WithHTTPClient gives.
func NewClient(baseURL string, creds Credentials, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("platform base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("platform base URL %q: scheme must be http or https", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("platform base URL %q: no host", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("platform base URL %q: must not carry a query, fragment or user info", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	auth, err := creds.authenticator()
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:      u,
		creds:     creds,
		retry:     defaultRetryPolicy,
		now:       time.Now,
		userAgent: DefaultUserAgent,
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.limiter != nil {
		c.adapt = newAdaptiveRate(c.limiter, c.retry.MaxRetryAfter)
	}
	var hc http.Client
	if c.userHC != nil {
		hc = *c.userHC
	} else {
		// No overall Timeout: each attempt has its family's (send).
		hc = http.Client{Transport: defaultTransport(c.conns)}
	}
	if !c.mle.IsZero() {
		j, ok := auth.(*jwtSigner)
		if !ok {
			return nil, fmt.Errorf("platform credentials: response message-level encryption needs a JWT (--auth %s or %s): an HTTP signature cannot name the response key", AuthJWT, AuthJWTP12)
		}
		j2 := *j
		j2.mleKid = c.mle.KeyID()
		auth = &j2
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc.Transport = &signer{base: base, auth: auth, portfolio: creds.PortfolioID, now: c.now}
	hc.CheckRedirect = refuseRedirect
	c.hc = &hc
	c.userHC = nil
	return c, nil
}

// refuseRedirect makes http.Client return a 3xx response as it is, for send
// to turn into a *RedirectError, rather than follow it.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// defaultTransport is http.DefaultTransport's settings with a connection pool
// sized for fan-out (conns in flight; 64 when not given). How long a
// response may take is each attempt's deadline (send), by endpoint family:
// no ResponseHeaderTimeout here, which would cut the slowest family (details,
// documented to exceed 2 minutes) short.
func defaultTransport(conns int) *http.Transport {
	if conns <= 0 {
		conns = 64
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(256, conns)
	t.MaxIdleConnsPerHost = conns
	t.IdleConnTimeout = 90 * time.Second
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ExpectContinueTimeout = time.Second
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// Merchant returns a handle that acts for merchantID: its requests carry
// v-c-merchant-id: merchantID, signed with the client's credential (the
// portfolio's, when it has one).
func (c *Client) Merchant(merchantID string) *Merchant {
	return &Merchant{c: c, id: merchantID}
}

// Merchant is the client acting for one merchant ID. It is cheap; make one per
// member of a group.
type Merchant struct {
	c  *Client
	id string
}

// ID returns the merchant ID acted for.
func (m *Merchant) ID() string { return m.id }

// do sends one request to any endpoint, with the same signing, retries, rate
// limit and error handling as the typed methods. The product reads only the
// endpoints this package models, so it is unexported: the package's tests
// use it as the plain signed request; tests elsewhere that write to the
// sandbox use sandboxtest.Env.Do. path is relative to the base URL
// and may carry a query. body is nil (no body) or marshalled as JSON. out is
// nil (the response body is discarded) or a pointer that the JSON response is
// decoded into, e.g. *json.RawMessage.
func (m *Merchant) do(ctx context.Context, method, path string, body any, out any) error {
	method = strings.ToUpper(strings.TrimSpace(method))
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return fmt.Errorf("%s %s: encode request body: %w", method, pathOnly(path), err)
		}
	}
	resp, err := m.send(ctx, method, path, b, out != nil, doLimit)
	if err != nil {
		return err
	}
	if out == nil || len(resp) == 0 {
		return nil
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return fmt.Errorf("%s %s: %w: %w", method, pathOnly(path), ErrInvalidData, err)
	}
	return nil
}

// send is the one place that sends requests: it waits for the rate limiter,
// sends an attempt (signed by the transport), classifies the outcome, and
// retries what may succeed later. It returns the body of a 2xx response, at
// most limit's bytes; when wantJSON is set that body is one complete JSON
// object or array (or empty for 204): see complete. Whether it is valid
// JSON is for the caller's decoder to say.
//
// Retried: 429, 500, 502, 503, 504; transport errors (refused, reset, timed
// out); a 2xx body that breaks off or, when wantJSON, is not a complete
// JSON object or array, which is how a truncated response shows. Never
// retried: other statuses, redirects (*RedirectError), a body over the
// limit, a cancelled context, TLS certificate failures, signing failures.
func (m *Merchant) send(ctx context.Context, method, target string, body []byte, wantJSON bool, limit bodyLimit) ([]byte, error) {
	c := m.c
	p := pathOnly(target)
	what := method + " " + p
	if m.id == "" {
		return nil, fmt.Errorf("%s: no merchant id", what)
	}
	if !validHeaderValue(m.id) {
		// Go's transport refuses such a header on every attempt: an error
		// now, not six attempts that cannot succeed.
		return nil, fmt.Errorf("%s: %w: merchant id %q cannot be sent in the v-c-merchant-id header (control characters)", what, ErrInvalidData, m.id)
	}
	full, err := c.resolve(target)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	stats := statsFrom(ctx)
	var lastErr error
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		var epoch uint64
		if c.adapt != nil {
			if epoch, err = c.adapt.wait(ctx); err != nil {
				return nil, fmt.Errorf("%s: wait for rate limiter: %w", what, err)
			}
		}
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		timeout := c.attemptTimeout(limit)
		actx, cancel := context.WithTimeoutCause(ctx, timeout, errAttemptTimeout)
		req, err := http.NewRequestWithContext(actx, method, full, rd)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("%s: build request: %w", what, err)
		}
		req.Header.Set(merchantHeader, m.id)
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.userAgent != "" {
			req.Header.Set("User-Agent", c.userAgent)
		}
		family := familyOf(limit, p)
		if stats != nil {
			stats.addAttempt(family)
		}

		var retryAfter time.Duration
		sent := time.Now()
		resp, err := c.hc.Do(req)
		// outcome notes how the attempt ended (status 0: no answer) once
		// its body is read.
		outcome := func(status int) {
			if stats != nil {
				stats.addOutcome(status, time.Since(sent))
			}
		}
		// timedOut: this attempt's deadline passed, the caller's did not.
		timedOut := func() bool { return ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptTimeout) }
		switch {
		case err != nil:
			cancel()
			outcome(0)
			if cerr := ctx.Err(); cerr != nil {
				return nil, fmt.Errorf("%s: %w", what, cerr)
			}
			if timedOut() {
				lastErr = fmt.Errorf("%s: %w: no answer within %v, the time-out of %s", what, ErrTimeout, timeout, limit.of)
				break
			}
			if !retryableTransportError(err) {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			lastErr = fmt.Errorf("%s: %w", what, err)

		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			resp.Body.Close()
			cancel()
			outcome(resp.StatusCode)
			return nil, newRedirectError(method, p, resp)

		case resp.StatusCode >= 200 && resp.StatusCode < 300:
			var b []byte
			rerr := errBodyTooLarge // a declared length over the limit is not read at all
			if resp.ContentLength <= limit.bytes {
				b, rerr = readBodySized(resp.Body, limit.bytes, resp.ContentLength)
			}
			resp.Body.Close()
			cancel()
			outcome(resp.StatusCode)
			if rerr == nil && c.adapt != nil {
				c.adapt.served()
			}
			if rerr == nil {
				// Message-level encryption (mle.go): the plain body
				// replaces the envelope before the checks below.
				if b, rerr = c.openResponse(b); rerr != nil {
					return nil, fmt.Errorf("%s: %w", what, rerr)
				}
			}
			switch {
			case errors.Is(rerr, errBodyTooLarge):
				return nil, fmt.Errorf("%s: %w: %w", what, ErrInvalidData,
					tooLargeError(fmt.Sprintf("response body exceeds %d MiB, the limit for %s", limit.bytes>>20, limit.of)))
			case rerr != nil:
				if cerr := ctx.Err(); cerr != nil {
					return nil, fmt.Errorf("%s: %w", what, cerr)
				}
				if timedOut() {
					lastErr = fmt.Errorf("%s: %w: the answer did not end within %v, the time-out of %s", what, ErrTimeout, timeout, limit.of)
					break
				}
				lastErr = fmt.Errorf("%s: %w: read response body: %w", what, ErrInvalidData, rerr)
			case wantJSON && resp.StatusCode != http.StatusNoContent && !complete(b):
				lastErr = fmt.Errorf("%s: %w: %d-byte response body is not a complete JSON object or array (truncated?)", what, ErrInvalidData, len(b))
			default:
				return b, nil
			}

		default:
			b, _ := readBody(resp.Body, maxErrorBody) // a partial error body still says something
			resp.Body.Close()
			cancel()
			outcome(resp.StatusCode)
			if resp.StatusCode == http.StatusTooManyRequests && c.adapt != nil {
				c.adapt.refused(epoch, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()))
			}
			b, derr := c.openResponse(b) // error answers are encrypted too
			if derr != nil {
				return nil, fmt.Errorf("%s: %d answer: %w", what, resp.StatusCode, derr)
			}
			apiErr := newAPIError(method, p, resp, b, time.Now())
			if merr := c.mleRefusal(apiErr); merr != nil {
				return nil, merr
			}
			if !apiErr.Temporary() {
				return nil, apiErr
			}
			lastErr = apiErr
			retryAfter = apiErr.RetryAfter
		}

		if attempt+1 >= c.retry.MaxAttempts {
			if c.retry.MaxAttempts > 1 {
				return nil, fmt.Errorf("giving up after %d attempts: %w", attempt+1, lastErr)
			}
			return nil, lastErr
		}
		if stats != nil {
			stats.addRetry()
		}
		if err := sleep(ctx, c.retry.backoff(attempt, retryAfter)); err != nil {
			return nil, fmt.Errorf("%s: %w while waiting to retry after: %v", what, err, lastErr)
		}
	}
}

var errBodyTooLarge = errors.New("body too large")

// errAttemptTimeout is the cause of an attempt's context when its family's
// time-out passed (as opposed to the caller's deadline).
var errAttemptTimeout = errors.New("attempt time-out")

// ErrTimeout is wrapped by the error of an attempt that took longer than its
// endpoint family's time-out (retried like any transport error).
var ErrTimeout = errors.New("the platform did not answer in time")

// readBody reads at most limit bytes of r; more gives errBodyTooLarge.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	return readBodySized(r, limit, -1)
}

// maxPresized bounds the buffer a declared length buys before any byte of
// the body has come: a server (or a proxy) that declares 64 MiB and sends a
// few bytes must not make every attempt allocate 64 MiB. A page of 100
// records is tens of KB; a larger body grows its buffer as it arrives.
const maxPresized = 1 << 20

// readBodySized is readBody for a body of a declared length (-1: unknown):
// one of up to maxPresized bytes is read into one buffer of the length it
// declares, where growing one would allocate and copy it about twice over.
func readBodySized(r io.Reader, limit, length int64) ([]byte, error) {
	size := bytes.MinRead // ReadFrom sees the end without growing the buffer
	if length > 0 {
		size += int(min(length, limit, maxPresized))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	b := buf.Bytes()
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return b[:limit], errBodyTooLarge
	}
	return b, nil
}

// retryableTransportError reports whether a failed round trip is worth
// repeating. Connection failures, resets, timeouts and early EOFs are; a
// certificate the client does not trust, or a request it could not sign, will
// fail the same way again.
func retryableTransportError(err error) bool {
	var se *signError
	if errors.As(err, &se) {
		return false
	}
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
	)
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verify) {
		return false
	}
	return !errors.Is(err, context.Canceled)
}

// validHeaderValue reports whether v can be an HTTP header's value as Go's
// transport sends one: no control character but the tab (RFC 9110,
// field-value).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// resolve turns a path relative to the base URL (with an optional query) into
// an absolute URL string.
func (c *Client) resolve(target string) (string, error) {
	if !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") {
		return "", fmt.Errorf("path %q must start with a single /", target)
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", target, err)
	}
	if u.IsAbs() || u.Host != "" {
		return "", fmt.Errorf("path %q must be relative to the base URL", target)
	}
	return c.base.Scheme + "://" + c.base.Host + c.base.EscapedPath() + target, nil
}

// relativeLink turns a HAL link (absolute path or absolute URL) into a target
// for send. An absolute URL must name the base URL's host: the client never
// sends a signed request somewhere else because a response said so. A path
// that already starts with the base URL's path prefix loses it.
func (c *Client) relativeLink(href string) (string, error) {
	u, err := url.Parse(href)
	if err != nil {
		return "", fmt.Errorf("link %q: %w", href, err)
	}
	if u.IsAbs() || u.Host != "" {
		if !strings.EqualFold(u.Host, c.base.Host) {
			return "", fmt.Errorf("link %q points outside %s", href, c.base.Host)
		}
	}
	target := u.EscapedPath()
	if !strings.HasPrefix(target, "/") {
		return "", fmt.Errorf("link %q is not an absolute path", href)
	}
	if prefix := c.base.EscapedPath(); prefix != "" && (target == prefix || strings.HasPrefix(target, prefix+"/")) {
		target = strings.TrimPrefix(target, prefix)
	}
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	return target, nil
}

// pathOnly strips the query, for error messages.
func pathOnly(target string) string {
	if i := strings.IndexByte(target, '?'); i >= 0 {
		return target[:i]
	}
	return target
}
