package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is the simulated platform. It is safe for concurrent use.
type Server struct {
	cfg   Config
	gen   *generator
	cache *memberCache
	mux   *http.ServeMux

	reports reportingMemo // members' settlements for the reporting endpoints (reporting_memo.go)

	clockMu sync.Mutex
	clock   time.Time // the data clock (clock.go)

	groupMu     sync.RWMutex
	groups      []*group // live: changed by the group endpoints
	initial     []TruthGroup
	nextGroupID int

	searches *searchStore // /tss/v2/searches/{id}

	faultMu  sync.Mutex
	faultRNG *rand.Rand

	limits keyBuckets   // Config.RateLimit (ratelimit.go)
	served servedCounts // Served (ratelimit.go)
}

// New builds a sandbox. Members are generated lazily on first use (and kept
// in a bounded cache), so New is cheap at every scale.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("sandbox config: %w", err)
	}
	s := &Server{cfg: cfg, gen: newGenerator(cfg), clock: cfg.Clock, searches: newSearchStore(),
		faultRNG: rand.New(rand.NewPCG(uint64(cfg.Seed), 0xfa017))}
	// Enough members for a client's fan-out to keep its working set cached.
	s.cache = newMemberCache(min(cfg.Scale.Members, 64), s.gen.member)
	s.groups = buildGroups(cfg)
	for _, g := range s.groups {
		s.initial = append(s.initial, TruthGroup{ID: g.id, Name: g.name, Members: append([]string{}, g.members...)})
	}
	s.nextGroupID = 1001 + len(s.groups)
	s.mux = s.routes()
	return s, nil
}

// Handler serves the platform's endpoints.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Config returns the configuration with its defaults applied.
func (s *Server) Config() Config {
	c := s.cfg
	c.Secret = append([]byte(nil), s.cfg.Secret...)
	fm := make(map[string]int, len(s.cfg.Faults.FailMembers))
	for k, v := range s.cfg.Faults.FailMembers {
		fm[k] = v
	}
	c.Faults.FailMembers = fm
	c.Faults.ShortListings = slices.Clone(s.cfg.Faults.ShortListings)
	return c
}

// Members lists every member MID of the organization's groups, sorted.
func (s *Server) Members() []string {
	out := make([]string, s.cfg.Scale.Members)
	for i := range out {
		out[i] = memberID(i)
	}
	return out
}

// memberIndex maps a MID to its 0-based index.
func (s *Server) memberIndex(mid string) (int, bool) {
	if len(mid) != 12 || !strings.HasPrefix(mid, "sbxmid") {
		return 0, false
	}
	n, err := strconv.Atoi(mid[6:])
	if err != nil || n < 1 || n > s.cfg.Scale.Members || memberID(n-1) != mid {
		return 0, false
	}
	return n - 1, true
}

type ctxKey struct{}

// reqInfo is what the middleware learnt about a request.
type reqInfo struct {
	mid         string
	user        User
	member      *member // nil when acting as the organization itself
	body        []byte
	correlation string
	// bodiless: the answer is a status code only, errors included (group
	// update and delete, spec Errors).
	bodiless bool
}

func info(r *http.Request) *reqInfo { return r.Context().Value(ctxKey{}).(*reqInfo) }

// serve runs every request through latency, authentication, the merchant
// check and the fault switches, then the routes, buffering the answer so
// that a 2xx body can be truncated.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	corr := correlationID()
	w.Header().Set("v-c-correlation-id", corr)
	f := &s.cfg.Faults
	if d := s.delay(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	ri := &reqInfo{correlation: corr, bodiless: isGroupWrite(r)}
	if strings.HasPrefix(r.URL.Path, checkoutPath) {
		// The buy-now-pay-later provider's page, which the customer's
		// browser opens: no platform credentials.
		s.checkout(w, r)
		return
	}
	s.count(r)
	body, user, mid, mle, err := s.authenticate(r)
	if err != nil {
		msg := "authentication failed"
		if isAuthErr(err) {
			msg = err.Error()
		}
		// The vendor's authentication error shape (docs/platform.md,
		// Error bodies), status code only for a bodiless request.
		a := answer{code: http.StatusUnauthorized}
		if !ri.bodiless {
			a.body = authFailure{Response: authFailureResponse{RMsg: msg}}
		}
		s.write(w, a)
		return
	}
	ri.body, ri.user, ri.mid = body, user, mid
	rec := &recorder{header: w.Header(), status: http.StatusOK, buf: bufPool.Get().(*bytes.Buffer)}
	defer func() {
		if rec.buf.Cap() <= 1<<22 {
			rec.buf.Reset()
			bufPool.Put(rec.buf)
		}
	}()
	// Every answer after authentication, errors included, is buffered in
	// rec, so that it can be encrypted (mle.go) and a 2xx body truncated.
	s.serveAuthenticated(rec, r, ri)
	out := rec.buf.Bytes()
	if rec.status >= 200 && rec.status < 300 && len(f.ShortListings) > 0 {
		out = s.shortenListing(r, ri, out)
	}
	if mle != nil && len(out) > 0 {
		enc, err := encryptAnswer(*mle, out, s.cfg.Now())
		if err != nil {
			rec.status = http.StatusInternalServerError
			enc = []byte(`{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR","message":"encrypting the response failed"}`)
		}
		out = enc
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	if rec.status >= 200 && rec.status < 300 && len(out) > 1 && s.roll(f.TruncateRate) {
		// The full length is declared and half is sent: the server then
		// closes the connection and the client reads an unexpected EOF.
		out = out[:len(out)/2]
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(out)
}

// serveAuthenticated answers an authenticated request into rec: the
// merchant check, the fault switches, then the routes.
func (s *Server) serveAuthenticated(w *recorder, r *http.Request, ri *reqInfo) {
	f := &s.cfg.Faults
	// The key's rate first, as a platform's gateway limits before it
	// looks at what is asked.
	if ok, wait := s.admit(ri.user.KeyID, time.Now()); !ok {
		s.rateLimited(w, ri, wait)
		return
	}
	if !s.mayActFor(ri.user, ri.mid) {
		user := ri.user
		s.writeError(w, ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED",
			fmt.Sprintf("key %s may not act for merchant %s", user.KeyID, ri.mid))
		return
	}
	if f.GroupsUnavailable != 0 && (r.URL.Path == groupsPath || strings.HasPrefix(r.URL.Path, groupsPrefix)) {
		s.write(w, s.groupsUnavailable(ri))
		return
	}
	if st, ok := f.FailMembers[ri.mid]; ok {
		if st == http.StatusForbidden {
			s.writeError(w, ri, st, "FORBIDDEN", "NOT_AUTHORIZED", "access to merchant "+ri.mid+" is not allowed")
		} else {
			s.writeError(w, ri, st, "SERVER_ERROR", "SYSTEM_ERROR", "unexpected error processing merchant "+ri.mid)
		}
		return
	}
	switch {
	case s.roll(f.RateLimitRate):
		s.served.rateLimited.Add(1)
		w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		s.writeError(w, ri, http.StatusTooManyRequests, "TOO_MANY_REQUESTS", "RATE_LIMITED", "too many requests")
		return
	case s.roll(f.ErrorRate):
		// The spec names the status of an unexpected error or time-out
		// for two services: 502 for installments, 500 for group update
		// and delete; elsewhere 503 (docs/dev/wire.md).
		code := http.StatusServiceUnavailable
		switch {
		case strings.HasPrefix(r.URL.Path, "/fin/v1/"):
			code = http.StatusBadGateway
		case ri.bodiless:
			code = http.StatusInternalServerError
		}
		s.writeError(w, ri, code, "SERVER_ERROR", "SYSTEM_ERROR", "service temporarily unavailable")
		return
	}
	if idx, ok := s.memberIndex(ri.mid); ok {
		ri.member = s.cache.get(idx)
		ri.member.mu.Lock()
		s.advance(ri.member, s.Clock())
		noRBS := ri.member.settings.RecurringBillingDisabled
		ri.member.mu.Unlock()
		if noRBS && strings.HasPrefix(r.URL.Path, "/rbs/v1/") {
			s.writeError(w, ri, http.StatusBadRequest, "INVALID_REQUEST", "INVALID_MERCHANT_CONFIGURATION",
				"Recurring Billing is not enabled for merchant "+ri.mid)
			return
		}
	}
	s.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri)))
}

// isGroupWrite reports whether r is a group update or delete, whose
// answers are a status code only.
func isGroupWrite(r *http.Request) bool {
	return (r.Method == http.MethodPatch || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, groupsPrefix)
}

func correlationID() string {
	a, b := rand.Uint64(), rand.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, (b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}
