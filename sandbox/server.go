package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
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

	clockMu sync.Mutex
	clock   time.Time // the data clock (clock.go)

	groupMu     sync.RWMutex
	groups      []*group // live: changed by the group endpoints
	initial     []TruthGroup
	nextGroupID int

	searches *searchStore // /tss/v2/searches/{id}

	faultMu  sync.Mutex
	faultRNG *rand.Rand
}

// group is a group of MIDs. Its fields are guarded by Server.groupMu.
type group struct {
	id, name, description, groupType string
	owner                            string // the organization with administrative control
	members                          []string
	created, updated                 time.Time
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

// buildGroups spreads the members round-robin over the groups; about one
// member in ten (those whose index ends in 3, so at least one from 4
// members on) also belongs to the next group.
func buildGroups(cfg Config) []*group {
	n := cfg.Scale.Groups
	gs := make([]*group, n)
	for g := range gs {
		created := cfg.BusinessDate.AddDate(0, 0, -(500 + 17*g)).Add(9*time.Hour + time.Duration(g)*time.Minute)
		gs[g] = &group{id: strconv.Itoa(1001 + g), name: fmt.Sprintf("Region %d", g+1), owner: cfg.OrganizationID,
			description: fmt.Sprintf("Merchant accounts of region %d", g+1), groupType: groupTypeCustom,
			created: created, updated: created.AddDate(0, 0, 30)}
	}
	for i := 0; i < cfg.Scale.Members; i++ {
		mid := memberID(i)
		gs[i%n].members = append(gs[i%n].members, mid)
		if n > 1 && i%10 == 3 {
			second := (i%n + 1) % n
			gs[second].members = append(gs[second].members, mid)
		}
	}
	return gs
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
	body, user, mid, err := s.authenticate(r)
	if err != nil {
		msg := "authentication failed"
		if isAuthErr(err) {
			msg = err.Error()
		}
		s.writeError(w, ri, http.StatusUnauthorized, "UNAUTHORIZED", "AUTHENTICATION_FAILED", msg)
		return
	}
	ri.body, ri.user, ri.mid = body, user, mid
	if !s.mayActFor(user, ri.mid) {
		s.writeError(w, ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED",
			fmt.Sprintf("key %s may not act for merchant %s", user.KeyID, ri.mid))
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
		w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		s.writeError(w, ri, http.StatusTooManyRequests, "TOO_MANY_REQUESTS", "RATE_LIMITED", "too many requests")
		return
	case s.roll(f.ErrorRate):
		// The spec names the status of an unexpected error or time-out
		// for two services: 502 for installments, 500 for group update
		// and delete; elsewhere 503 (wire.md).
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
		ri.member.mu.Unlock()
	}
	rec := &recorder{header: w.Header(), status: http.StatusOK, buf: bufPool.Get().(*bytes.Buffer)}
	defer func() {
		if rec.buf.Cap() <= 1<<22 {
			rec.buf.Reset()
			bufPool.Put(rec.buf)
		}
	}()
	s.mux.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri)))
	out := rec.buf.Bytes()
	if rec.status >= 200 && rec.status < 300 && len(f.ShortListings) > 0 {
		out = s.shortenListing(r, ri, out)
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

// listingOf names the listing r reads (one of Listings) and the path of
// keys to its records in the answer; "" when r reads none.
func listingOf(r *http.Request) (string, []string) {
	p := r.URL.Path
	switch r.Method + " " + p {
	case "GET /groups":
		return "groups", []string{"_embedded", "groups"}
	case "GET /rbs/v1/plans":
		return "plans", []string{"plans"}
	case "GET /rbs/v1/subscriptions":
		return "subscriptions", []string{"subscriptions"}
	case "POST /tss/v2/searches":
		return "transactions", []string{"_embedded", "transactionSummaries"}
	}
	if r.Method == http.MethodGet && strings.HasPrefix(p, "/rbs/v1/subscriptions/") && strings.HasSuffix(p, "/payments") {
		return "payments", []string{"subscriptionPayment"}
	}
	return "", nil
}

// shortenListing applies a ShortListing fault to a listing's page: the
// records at positions from Served on are dropped (and the page's count
// with them); totalCount is left as it was. An answer it cannot read is
// left alone.
func (s *Server) shortenListing(r *http.Request, ri *reqInfo, out []byte) []byte {
	name, keys := listingOf(r)
	if name == "" {
		return out
	}
	served := -1
	for _, sl := range s.cfg.Faults.ShortListings {
		if sl.Listing == name && (sl.MerchantID == "" || sl.MerchantID == ri.mid) {
			served = sl.Served
		}
	}
	if served < 0 {
		return out
	}
	var req struct {
		Offset int `json:"offset"`
	}
	if r.Method == http.MethodPost {
		_ = json.Unmarshal(ri.body, &req)
	} else {
		req.Offset, _ = strconv.Atoi(r.URL.Query().Get("offset"))
	}
	page, kept, err := trimRecords(out, keys, max(0, served-req.Offset))
	if err != nil {
		return out
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(page, &top); err != nil {
		return out
	}
	if _, ok := top["count"]; ok {
		top["count"] = json.RawMessage(strconv.Itoa(kept))
		if page, err = json.Marshal(top); err != nil {
			return out
		}
	}
	return page
}

// trimRecords keeps the first keep records of the array found by following
// keys into a JSON object, and says how many it kept.
func trimRecords(raw json.RawMessage, keys []string, keep int) (json.RawMessage, int, error) {
	if len(keys) == 0 {
		var recs []json.RawMessage
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &recs); err != nil {
				return nil, 0, err
			}
		}
		recs = append([]json.RawMessage{}, recs[:min(len(recs), keep)]...)
		b, err := json.Marshal(recs)
		return b, len(recs), err
	}
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, 0, err
		}
	}
	inner, kept, err := trimRecords(obj[keys[0]], keys[1:], keep)
	if err != nil {
		return nil, 0, err
	}
	obj[keys[0]] = inner
	b, err := json.Marshal(obj)
	return b, kept, err
}

// isGroupWrite reports whether r is a group update or delete, whose
// answers are a status code only.
func isGroupWrite(r *http.Request) bool {
	return (r.Method == http.MethodPatch || r.Method == http.MethodDelete) && strings.HasPrefix(r.URL.Path, "/groups/")
}

func (s *Server) delay() time.Duration {
	f := &s.cfg.Faults
	d := f.Latency
	if f.Jitter > 0 {
		s.faultMu.Lock()
		d += time.Duration(s.faultRNG.Int64N(int64(f.Jitter)))
		s.faultMu.Unlock()
	}
	return d
}

func (s *Server) roll(rate float64) bool {
	if rate <= 0 {
		return false
	}
	if rate >= 1 {
		return true
	}
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	return s.faultRNG.Float64() < rate
}

// recorder buffers a handler's answer.
type recorder struct {
	header      http.Header
	status      int
	wroteHeader bool
	buf         *bytes.Buffer
}

// bufPool recycles answer buffers: a page of 100 subscriptions is ~100 KB,
// and growing a fresh buffer for each was a good part of serving one.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = code, true
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.wroteHeader = true
	return r.buf.Write(b)
}

func correlationID() string {
	a, b := rand.Uint64(), rand.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, (b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}

// errorBody is the platform's error body (wire.md).
type errorBody struct {
	Status        string        `json:"status"`
	Reason        string        `json:"reason"`
	Message       string        `json:"message,omitempty"`
	SubmitTimeUtc string        `json:"submitTimeUtc"`
	Details       []errorDetail `json:"details,omitempty"`
	CorrelationID string        `json:"correlationId,omitempty"`
}

type errorDetail struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

func (s *Server) writeError(w http.ResponseWriter, ri *reqInfo, code int, status, reason, msg string, details ...errorDetail) {
	if ri.bodiless {
		w.WriteHeader(code)
		return
	}
	s.writeJSON(w, code, errorBody{Status: status, Reason: reason, Message: msg,
		SubmitTimeUtc: s.now(), Details: details, CorrelationID: ri.correlation})
}

func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	if rec, ok := w.(*recorder); ok {
		// Encode straight into the answer buffer (the common case).
		w.Header().Set("Content-Type", "application/json")
		rec.WriteHeader(code)
		start := rec.buf.Len()
		enc := json.NewEncoder(rec.buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err == nil {
			rec.buf.Truncate(rec.buf.Len() - 1) // the encoder's newline
			return
		}
		rec.buf.Truncate(start)
		rec.status = http.StatusInternalServerError
		rec.buf.WriteString(`{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR","message":"encoding the response failed"}`)
		return
	}
	b, err := marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"status":"SERVER_ERROR","reason":"SYSTEM_ERROR","message":"encoding the response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// marshal encodes v without HTML escaping (the platform writes & in links
// as is) and without a trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// now is the real clock as the platform writes submitTimeUtc.
func (s *Server) now() string { return s.cfg.Now().UTC().Format(time.RFC3339) }

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	// Group management.
	mux.HandleFunc("GET /groups", s.listGroups)
	mux.HandleFunc("POST /groups", s.createGroup)
	mux.HandleFunc("GET /groups/{id}", s.getGroupOrList)
	// A group's self link names it under /group-management/v1 (spec).
	mux.HandleFunc("GET /group-management/v1/groups/{id}", s.getGroupOrList)
	mux.HandleFunc("PATCH /groups/{id}", s.patchGroup)
	mux.HandleFunc("DELETE /groups/{id}", s.deleteGroup)
	// Recurring billing.
	mux.HandleFunc("GET /rbs/v1/plans", s.listPlans)
	mux.HandleFunc("POST /rbs/v1/plans", s.createPlan)
	mux.HandleFunc("GET /rbs/v1/plans/code", s.planCode)
	mux.HandleFunc("GET /rbs/v1/plans/{id}", s.getPlan)
	mux.HandleFunc("PATCH /rbs/v1/plans/{id}", s.patchPlan)
	mux.HandleFunc("DELETE /rbs/v1/plans/{id}", s.deletePlan)
	mux.HandleFunc("POST /rbs/v1/plans/{id}/activate", s.planState(planActive))
	mux.HandleFunc("POST /rbs/v1/plans/{id}/deactivate", s.planState(planInactive))
	mux.HandleFunc("GET /rbs/v1/subscriptions", s.listSubscriptions)
	mux.HandleFunc("POST /rbs/v1/subscriptions", s.createSubscription)
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}", s.getSubscription)
	mux.HandleFunc("PATCH /rbs/v1/subscriptions/{id}", s.patchSubscription)
	mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/cancel", s.subLifecycle("cancel"))
	mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/suspend", s.subLifecycle("suspend"))
	mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/activate", s.subLifecycle("activate"))
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}/payments", s.listPayments)
	mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/payments", s.skipPayments)
	mux.HandleFunc("PUT /rbs/v1/subscriptions/{id}/payments", s.skipPayments)
	// Payments.
	mux.HandleFunc("POST /pts/v2/payments", s.pay)
	mux.HandleFunc("POST /pts/v2/payments/{$}", s.pay)
	mux.HandleFunc("POST /pts/v2/payments/{id}/captures", s.capture)
	mux.HandleFunc("POST /pts/v2/payments/{id}/reversals", s.reverse)
	mux.HandleFunc("POST /pts/v2/payments/{id}/refunds", s.refund)
	mux.HandleFunc("POST /pts/v2/captures/{id}/refunds", s.refund)
	mux.HandleFunc("POST /pts/v2/payments/{id}/voids", s.void(kindSale))
	mux.HandleFunc("POST /pts/v2/captures/{id}/voids", s.void(kindCapture))
	mux.HandleFunc("POST /pts/v2/credits/{id}/voids", s.void(kindCredit))
	mux.HandleFunc("POST /pts/v2/refunds/{id}/voids", s.void(kindRefund))
	mux.HandleFunc("POST /pts/v2/credits", s.credit)
	mux.HandleFunc("POST /pts/v2/credits/{$}", s.credit)
	for _, kind := range []string{"payments", "captures", "credits", "refunds", "reversals", "voids"} {
		mux.HandleFunc("GET /pts/v2/"+kind+"/{id}", s.getPayment)
	}
	mux.HandleFunc("POST /pts/v2/payment-references", s.createSession)
	mux.HandleFunc("GET /pts/v2/payment-references/{id}", s.getSession)
	mux.HandleFunc("PATCH /pts/v2/payment-references/{id}", s.updateSession)
	mux.HandleFunc("POST /pts/v2/refresh-payment-status/{id}", s.refreshStatus)
	mux.HandleFunc("POST /pts/v2/status/{id}/refresh", s.refreshStatus)
	mux.HandleFunc("POST /pts/v2/payments/{id}/intents", s.createIntent)
	// Installments, BIN lookup, key generation.
	mux.HandleFunc("POST /fin/v1/plans/{$}", s.getInstallmentPlans)
	mux.HandleFunc("POST /fin/v1/plans", s.getInstallmentPlans)
	mux.HandleFunc("POST /fin/v1/plan-acceptance/{$}", s.selectPlan)
	mux.HandleFunc("POST /fin/v1/plan-acceptance", s.selectPlan)
	mux.HandleFunc("POST /fin/v1/plan-acceptance/cancel/{$}", s.cancelPlan)
	mux.HandleFunc("POST /fin/v1/plan-acceptance/cancel", s.cancelPlan)
	mux.HandleFunc("POST /bin/v1/binlookup", s.binLookup)
	mux.HandleFunc("POST /kms/v2/keys-sym-pos", s.generateKeys)
	// Transaction data.
	mux.HandleFunc("POST /tss/v2/searches", s.search)
	mux.HandleFunc("GET /tss/v2/searches/{id}", s.getSearch)
	mux.HandleFunc("GET /tss/v2/transactions/{id}", s.getTransaction)
	// The sandbox's own controls.
	mux.HandleFunc("GET /sandbox/v1/clock", s.control(s.getClock))
	mux.HandleFunc("POST /sandbox/v1/clock", s.control(s.setClock))
	mux.HandleFunc("GET /sandbox/v1/merchants/{mid}/settings", s.control(s.getSettings))
	mux.HandleFunc("PUT /sandbox/v1/merchants/{mid}/settings", s.control(s.putSettings))
	mux.HandleFunc("GET /sandbox/v1/merchants/{mid}/notifications", s.control(s.getNotifications))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA",
			fmt.Sprintf("no resource at %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// workers bounds the goroutines that stream over members.
func workers() int { return max(1, min(runtime.GOMAXPROCS(0), 8)) }
