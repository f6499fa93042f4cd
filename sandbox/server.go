package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is the simulated platform. It is safe for concurrent use.
type Server struct {
	cfg    Config
	gen    *generator
	cache  *memberCache
	groups []*group
	mux    *http.ServeMux

	faultMu  sync.Mutex
	faultRNG *rand.Rand
}

type group struct {
	id, name, description string
	members               []string
	created, updated      time.Time
}

// New builds a sandbox. Members are generated lazily on first use (and kept
// in a bounded cache), so New is cheap at every scale.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("sandbox config: %w", err)
	}
	s := &Server{cfg: cfg, gen: newGenerator(cfg),
		faultRNG: rand.New(rand.NewPCG(uint64(cfg.Seed), 0xfa017))}
	// Enough members for a client's fan-out to keep its working set cached.
	s.cache = newMemberCache(min(cfg.Scale.Members, 64), s.gen.member)
	s.groups = buildGroups(cfg)
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
		gs[g] = &group{id: strconv.Itoa(1001 + g), name: fmt.Sprintf("Region %d", g+1),
			description: fmt.Sprintf("Merchant accounts of region %d", g+1),
			created:     created, updated: created.AddDate(0, 0, 30)}
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
	member      *member // nil when acting as the organization itself
	body        []byte
	correlation string
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
	ri := &reqInfo{correlation: corr}
	body, err := s.authenticate(r)
	if err != nil {
		msg := "authentication failed"
		if isAuthErr(err) {
			msg = err.Error()
		}
		s.writeError(w, ri, http.StatusUnauthorized, "UNAUTHORIZED", "AUTHENTICATION_FAILED", msg)
		return
	}
	ri.body = body
	ri.mid = r.Header.Get("v-c-merchant-id")
	idx, isMember := s.memberIndex(ri.mid)
	if !isMember && ri.mid != s.cfg.OrganizationID {
		s.writeError(w, ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED",
			fmt.Sprintf("merchant %s is neither %s nor a member of its groups", ri.mid, s.cfg.OrganizationID))
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
		s.writeError(w, ri, http.StatusServiceUnavailable, "SERVER_ERROR", "SYSTEM_ERROR", "service temporarily unavailable")
		return
	}
	if isMember {
		ri.member = s.cache.get(idx)
	}
	rec := &recorder{header: w.Header(), status: http.StatusOK}
	s.mux.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri)))
	out := rec.buf.Bytes()
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	if rec.status >= 200 && rec.status < 300 && len(out) > 1 && s.roll(f.TruncateRate) {
		// The full length is declared and half is sent: the server then
		// closes the connection and the client reads an unexpected EOF.
		out = out[:len(out)/2]
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(out)
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
	buf         bytes.Buffer
}

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
	s.writeJSON(w, code, errorBody{Status: status, Reason: reason, Message: msg,
		SubmitTimeUtc: s.now(), Details: details, CorrelationID: ri.correlation})
}

func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
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
	mux.HandleFunc("GET /groups", s.listGroups)
	mux.HandleFunc("GET /groups/{id}", s.getGroupOrList)
	mux.HandleFunc("GET /rbs/v1/plans", s.listPlans)
	mux.HandleFunc("GET /rbs/v1/plans/code", s.planCode)
	mux.HandleFunc("GET /rbs/v1/plans/{id}", s.getPlan)
	mux.HandleFunc("GET /rbs/v1/subscriptions", s.listSubscriptions)
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}", s.getSubscription)
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}/payments", s.listPayments)
	mux.HandleFunc("POST /tss/v2/searches", s.search)
	mux.HandleFunc("GET /tss/v2/transactions/{id}", s.getTransaction)
	mux.HandleFunc("POST /bin/v1/binlookup", s.binLookup)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, info(r), http.StatusNotFound, "NOT_FOUND", "INVALID_DATA",
			fmt.Sprintf("no resource at %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// workers bounds the goroutines that stream over members.
func workers() int { return max(1, min(runtime.GOMAXPROCS(0), 8)) }
