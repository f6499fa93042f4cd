package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// Every endpoint is served through handle, or handleOn when its path names
// a resource ({id}). The adapter does what every request needs, in the
// same order for every endpoint, so that a handler holds only the rules of
// its own:
//
//  1. the permission its access asks (group management, the sandbox's
//     controls), else 403;
//  2. the body, decoded into the handler's request type, else 400
//     (decodeRequest);
//  3. the lock its access asks: the member acted for, to read or to
//     write, or the groups; a write that acts for no member is 403;
//  4. with handleOn, the resource {id} names in that member, else 404;
//  5. the handler, whose answer is written before the lock is released.
//
// The route table (routes.go) therefore says, for each endpoint, what it
// reads and what it may change.

// access is what a handler needs checked and held while it runs.
type access uint8

const (
	// unlocked: the handler reads no member and no group (BIN lookup,
	// key generation, which locks the members it names itself).
	unlocked access = iota
	// readMember: the member acted for, as cached, locked; none when the
	// request acts for the organization (a read then finds nothing).
	readMember
	// writeMember: the member acted for, pinned in the cache (its state
	// is no longer a generation), caught up with the data clock, marked
	// changed and locked. A request acting for the organization is 403.
	writeMember
	// readGroups and writeGroups: the groups, read- or write-locked, for a
	// user who may reach group management at all (else 403).
	readGroups
	writeGroups
	// createGroups: writeGroups, for a user who may also create groups (a
	// transacting organization user may not).
	createGroups
	// control: the sandbox's own control endpoints, for the portfolio key
	// only (else 403).
	control
)

// exchange is one request as its handler sees it: what the middleware
// learnt (reqInfo: the merchant acted for, the user, the body), and what
// the adapter holds for it.
type exchange struct {
	s *Server
	r *http.Request
	*reqInfo
	held    access  // the lock taken (acquire), released after the answer is written
	scratch *[]byte // a pooled buffer lent to the handler (buffer)
}

// answer is what a handler answers: a status and a body, written as JSON.
// A rawJSON body is written as it is; no body (nil) writes the status
// alone, as the group writes answer (spec).
type answer struct {
	code int
	body any
}

// rawJSON is an answer body already encoded (fastjson.go).
type rawJSON []byte

// noBody is the request type of an endpoint that reads no body; one sent
// anyway is ignored.
type noBody struct{}

func reply(code int, body any) answer { return answer{code: code, body: body} }

// refusal is a refused step's answer, for the helpers that answer only
// when something is wrong (nil: go on).
func refusal(a answer) *answer { return &a }

// handle serves an endpoint of request type Req with the given access.
func handle[Req any](s *Server, a access, h func(x *exchange, req Req) answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		x := &exchange{s: s, r: r, reqInfo: info(r)}
		defer x.release()
		s.write(w, serveExchange(x, a, h))
	}
}

// serveExchange takes handle's steps in order; the first refusal is the
// answer.
func serveExchange[Req any](x *exchange, a access, h func(*exchange, Req) answer) answer {
	if refused := x.permit(a); refused != nil {
		return *refused
	}
	var req Req
	if refused := x.decode(&req); refused != nil {
		return *refused
	}
	if refused := x.acquire(a); refused != nil {
		return *refused
	}
	return h(x, req)
}

// handleOn serves an endpoint whose path's {id} names a resource of the
// member acted for: the handler gets it, and its absence is 404.
func handleOn[Req, T any](s *Server, a access, target resource[T], h func(x *exchange, req Req, t T) answer) http.HandlerFunc {
	return handle(s, a, func(x *exchange, req Req) answer {
		id := x.r.PathValue("id")
		t, ok := target.in(x, id)
		if !ok {
			return target.missing(x, id)
		}
		return h(x, req, t)
	})
}

// resource is a kind of thing a path's {id} names in the member acted for.
type resource[T any] struct {
	notFound string // the 404 message, %s the id
	find     func(m *member, id string) (T, bool)
}

// The resources paths name.
var (
	planTarget = resource[*plan]{"plan %s was not found", func(m *member, id string) (*plan, bool) {
		p, ok := m.planByID[id]
		return p, ok
	}}
	subTarget = resource[*subscription]{"Subscription %s not found", func(m *member, id string) (*subscription, bool) {
		sub, ok := m.subByID[id]
		return sub, ok
	}}
	txnTarget = resource[*transaction]{"transaction %s was not found", func(m *member, id string) (*transaction, bool) {
		t, ok := m.txnByID[id]
		return t, ok
	}}
	// A session is kept by its id and by its token: only its id names it.
	sessionTarget = resource[*bnplSession]{"payment reference %s was not found", func(m *member, id string) (*bnplSession, bool) {
		if m.api == nil {
			return nil, false
		}
		ss, ok := m.api.sessions[id]
		return ss, ok && ss.id == id
	}}
)

// in finds the resource id in the member the exchange holds; never when
// it acts for the organization.
func (rs resource[T]) in(x *exchange, id string) (T, bool) {
	if x.member == nil {
		var zero T
		return zero, false
	}
	return rs.find(x.member, id)
}

func (rs resource[T]) missing(x *exchange, id string) answer {
	return x.notFound(fmt.Sprintf(rs.notFound, id))
}

// permit checks the permission an access asks.
func (x *exchange) permit(a access) *answer {
	switch a {
	case readGroups, writeGroups, createGroups:
		switch x.user.Kind {
		case UserNoGroupsPermission:
			return refusal(x.forbidden("the Groups Manage permission is required"))
		case UserGroupAssigned:
			return refusal(x.forbidden("a user assigned to a group cannot reach group management"))
		}
		if a == createGroups && x.user.groupAccess() == groupsView {
			return refusal(x.forbidden("a transacting organization user cannot create a group"))
		}
	case control:
		if x.user.Kind != UserPortfolio {
			return refusal(x.forbidden("the sandbox control endpoints need the portfolio key"))
		}
	}
	return nil
}

// acquire takes the lock an access asks; release lets it go. A handler
// that must check its body before anything else (skipPayments) calls it
// itself.
func (x *exchange) acquire(a access) *answer {
	s := x.s
	switch a {
	case readMember:
		if x.member == nil {
			return nil
		}
		x.member.mu.Lock()
	case writeMember:
		idx, ok := s.memberIndex(x.mid)
		if !ok {
			return refusal(x.forbidden(x.mid + " is not a transacting merchant: name one in v-c-merchant-id"))
		}
		m := s.cache.pin(idx)
		m.mu.Lock()
		s.advance(m, s.Clock())
		m.dirty = true
		x.member = m
	case readGroups:
		s.groupMu.RLock()
	case writeGroups, createGroups:
		s.groupMu.Lock()
	default:
		return nil
	}
	x.held = a
	return nil
}

func (x *exchange) release() {
	switch x.held {
	case readMember, writeMember:
		x.member.mu.Unlock()
	case readGroups:
		x.s.groupMu.RUnlock()
	case writeGroups, createGroups:
		x.s.groupMu.Unlock()
	}
	x.held = unlocked
	if x.scratch != nil {
		scratch.Put(x.scratch)
		x.scratch = nil
	}
}

// buffer lends the handler a pooled buffer to encode its answer into
// (encoded); it returns to the pool once the answer is written.
func (x *exchange) buffer() []byte {
	if x.scratch == nil {
		x.scratch = scratch.Get().(*[]byte)
	}
	return (*x.scratch)[:0]
}

// encoded answers b, encoded into the buffer lent by buffer, which keeps
// what it grew to for the next answer.
func (x *exchange) encoded(code int, b []byte) answer {
	if x.scratch != nil {
		*x.scratch = b
	}
	return answer{code: code, body: rawJSON(b)}
}

// decode decodes the request body into v (decodeRequest); a malformed
// body is 400.
func (x *exchange) decode(v any) *answer {
	if err := decodeRequest(x.body, v); err != nil {
		return refusal(x.invalid("malformed request body: " + err.Error()))
	}
	return nil
}

// decodeRequest decodes a request body into v as its endpoint reads it:
//
//   - a doc (the bodies of the platform's write endpoints, read by dotted
//     paths, requests.go): numbers kept as written, an empty body the
//     empty object;
//   - a BIN lookup or a search request, which is nothing but its body: an
//     empty body is malformed;
//   - any other type (the sandbox's own controls): an empty body leaves
//     v as it is.
func decodeRequest(body []byte, v any) error {
	empty := len(bytes.TrimSpace(body)) == 0
	switch v := v.(type) {
	case *noBody:
		return nil
	case *doc:
		*v = doc{}
		if empty {
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		return dec.Decode(v)
	case *binLookupRequest, *searchRequest:
		return json.NewDecoder(bytes.NewReader(body)).Decode(v)
	}
	if empty {
		return nil
	}
	return json.Unmarshal(body, v)
}

// The error answers, in the platform's error body (answer.go).

func (x *exchange) fail(code int, status, reason, msg string, details ...errorDetail) answer {
	return x.s.errorAnswer(x.reqInfo, code, status, reason, msg, details...)
}

func (x *exchange) notFound(msg string) answer {
	return x.fail(http.StatusNotFound, "NOT_FOUND", "INVALID_DATA", msg)
}

func (x *exchange) forbidden(msg string) answer {
	return x.fail(http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED", msg)
}

// invalid is the 400 of a request the platform understood and declines.
func (x *exchange) invalid(msg string, details ...errorDetail) answer {
	return x.fail(http.StatusBadRequest, "INVALID_REQUEST", "INVALID_DATA", msg, details...)
}

// validationError is the 400 of parameters out of their rules: a list's
// query, a search request, a BIN lookup's credentials.
func (x *exchange) validationError(msg string, details ...errorDetail) answer {
	return x.fail(http.StatusBadRequest, "INVALID_REQUEST", "VALIDATION_ERROR", msg, details...)
}

// refuse declines an operation on the resource the path names: reason is
// the detail's, on field id.
func (x *exchange) refuse(reason, msg string) answer {
	return x.invalid(msg, errorDetail{Field: "id", Reason: reason})
}

// rejected is the 400 of a request that failed its field checks, as the
// platform words it.
func (x *exchange) rejected(c *checks) answer {
	reason, msg := "INVALID_DATA", "Declined - One or more fields in the request contains invalid data"
	if c.missing {
		reason, msg = "MISSING_FIELD", "Declined - The request is missing one or more fields"
	}
	return x.fail(http.StatusBadRequest, "INVALID_REQUEST", reason, msg, c.details...)
}
