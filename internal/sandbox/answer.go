package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Answers as they go out: the platform's error body, JSON written without
// HTML escaping, and the buffer every answer is written into first (so that
// a fault can truncate it, server.go).

// errorBody is the platform's error body (docs/dev/wire.md).
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

// authFailure is the vendor's body of a failed authentication (401):
// {"response":{"rmsg":"…"}} (the authentication error of the vendor's
// integrations, docs/platform.md, Error bodies); the standard error body's
// fields are not in it.
type authFailure struct {
	Response authFailureResponse `json:"response"`
}

type authFailureResponse struct {
	RMsg string `json:"rmsg"`
}

// notAvailableBody is the vendor's body of some 404s, a resource or
// product not available: {"errors":[{"type":"…","message":"…"}]}.
type notAvailableBody struct {
	Errors []notAvailableError `json:"errors"`
}

type notAvailableError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// notAvailable is a 404 in the not-available shape.
func notAvailable(typ, msg string) answer {
	return answer{code: http.StatusNotFound, body: notAvailableBody{Errors: []notAvailableError{{Type: typ, Message: msg}}}}
}

// groupsUnavailable answers a group management request when the
// GroupsUnavailable fault is on: 404 in the not-available shape, or 403 in
// the standard shape, both saying the product is not enabled.
func (s *Server) groupsUnavailable(ri *reqInfo) answer {
	const msg = "Group Management is not enabled for this organization"
	if s.cfg.Faults.GroupsUnavailable == http.StatusNotFound {
		if ri.bodiless {
			return answer{code: http.StatusNotFound}
		}
		return notAvailable("notEnabled", msg)
	}
	return s.errorAnswer(ri, http.StatusForbidden, "FORBIDDEN", "NOT_AUTHORIZED", msg)
}

// errorAnswer is an error in the platform's error body; a bodiless
// request (a group update or delete) is answered its status alone.
func (s *Server) errorAnswer(ri *reqInfo, code int, status, reason, msg string, details ...errorDetail) answer {
	if ri.bodiless {
		return answer{code: code}
	}
	return answer{code: code, body: errorBody{Status: status, Reason: reason, Message: msg,
		SubmitTimeUtc: s.now(), Details: details, CorrelationID: ri.correlation}}
}

// writeError writes an error answer outside the handlers: authentication,
// the merchant check and the faults.
func (s *Server) writeError(w http.ResponseWriter, ri *reqInfo, code int, status, reason, msg string, details ...errorDetail) {
	s.write(w, s.errorAnswer(ri, code, status, reason, msg, details...))
}

// write writes an answer.
func (s *Server) write(w http.ResponseWriter, a answer) {
	switch body := a.body.(type) {
	case nil:
		w.WriteHeader(a.code)
	case rawJSON:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.code)
		_, _ = w.Write(body)
	default:
		s.writeJSON(w, a.code, body)
	}
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
