package platform

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrShortfall is wrapped when a listing yields fewer distinct records than
// the platform said it holds (totalCount): offsets over live data drift, and a
// silent gap would make a reconciliation look clean when it is not.
var ErrShortfall = errors.New("fewer records than totalCount")

// tally checks a paged listing for completeness: it counts the distinct
// records yielded against the largest totalCount the pages announced.
// Offsets over live data drift, so a record may come twice (it is yielded
// once) or be skipped; a server that stops early, with an empty page before
// offset reaches totalCount, shows the same way. Every paged listing of the
// client ends with shortfall, so none passes a partial list off as whole.
type tally struct {
	seen    map[string]struct{}
	yielded int
	total   int
}

// page notes one page's totalCount.
func (t *tally) page(totalCount int) { t.total = max(t.total, totalCount) }

// first counts a record and reports whether it is new to the listing: false
// for an id already yielded. A record with no id cannot be told apart, so it
// always counts.
func (t *tally) first(id string) bool {
	if id != "" {
		if _, dup := t.seen[id]; dup {
			return false
		}
		if t.seen == nil {
			t.seen = map[string]struct{}{}
		}
		t.seen[id] = struct{}{}
	}
	t.yielded++
	return true
}

// shortfall is the error of a listing that ended with fewer distinct records
// (what names them, e.g. "plans") than its totalCount, or nil.
func (t *tally) shortfall(what string) error {
	if t.yielded < t.total {
		return fmt.Errorf("%d distinct %s but totalCount %d: %w", t.yielded, what, t.total, ErrShortfall)
	}
	return nil
}

// ErrInvalidData is wrapped when a 2xx response body cannot be decoded: it was
// truncated or not JSON on every attempt, exceeded the size limit, or did not
// have the shape of the resource.
var ErrInvalidData = errors.New("invalid response data")

// ErrTooLarge is wrapped, beside ErrInvalidData, when a response body
// exceeded the size limit of what was asked: a caller that can ask for
// less (a shorter span) may try again.
var ErrTooLarge = errors.New("response body over its limit")

// tooLargeError says which limit a body passed; it is ErrTooLarge.
type tooLargeError string

func (e tooLargeError) Error() string        { return string(e) }
func (e tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// RedirectError is a 3xx answer of the platform. The client never follows
// one (NewClient): the platform's API does not redirect, and a signed
// request must not go wherever a response says.
type RedirectError struct {
	HTTPStatus   int
	Method, Path string // what was called (Path without the query)
	// LocationHost is the host the Location header names: empty when the
	// header is missing, unparsable, or a path on the same host.
	LocationHost string
	Location     string // the Location header as sent, at most 200 bytes
}

func newRedirectError(method, path string, resp *http.Response) *RedirectError {
	e := &RedirectError{HTTPStatus: resp.StatusCode, Method: method, Path: path,
		Location: firstBytes(resp.Header.Get("Location"), 200)}
	if u, err := url.Parse(resp.Header.Get("Location")); err == nil {
		e.LocationHost = u.Host
	}
	return e
}

// Error names the status and where the platform pointed, e.g. `GET
// /rbs/v1/plans: 307 Temporary Redirect to host evil.example not followed:
// signed requests go to the configured host only`.
func (e *RedirectError) Error() string {
	to := "with no Location"
	switch {
	case e.LocationHost != "":
		to = "to host " + e.LocationHost
	case e.Location != "":
		to = fmt.Sprintf("to %q", e.Location)
	}
	return fmt.Sprintf("%s %s: %d %s %s not followed: signed requests go to the configured host only",
		e.Method, e.Path, e.HTTPStatus, http.StatusText(e.HTTPStatus), to)
}

// ErrorDetail is one entry of an error body's details[].
type ErrorDetail struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// APIError is a non-2xx answer of the platform.
type APIError struct {
	HTTPStatus    int
	Status        string // body "status", e.g. INVALID_REQUEST
	Reason        string // body "reason", e.g. INVALID_DATA
	Message       string // body "message"; for a non-JSON body, its first 200 bytes
	Details       []ErrorDetail
	CorrelationID string // v-c-correlation-id header, else body correlationId
	SubmitTime    string // body submitTimeUtc
	Method, Path  string // what was called (Path without the query)
	RetryAfter    time.Duration

	body []byte // the error body as read (at most maxErrorBody), for callers in this package
}

// Error says what was called and what the platform answered, e.g.
// `GET /rbs/v1/plans: 403 FORBIDDEN NOT_AUTHORIZED: message (correlation id X)`.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.Method != "" || e.Path != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.Path))
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%d", e.HTTPStatus)
	if e.Status != "" {
		b.WriteString(" " + e.Status)
	}
	if e.Reason != "" {
		b.WriteString(" " + e.Reason)
	}
	if e.Status == "" && e.Reason == "" {
		if t := http.StatusText(e.HTTPStatus); t != "" {
			b.WriteString(" " + t)
		}
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if len(e.Details) > 0 {
		b.WriteString(" [")
		for i, d := range e.Details {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(strings.TrimSpace(d.Field + " " + d.Reason))
		}
		b.WriteString("]")
	}
	if e.CorrelationID != "" {
		b.WriteString(" (correlation id " + e.CorrelationID + ")")
	}
	return b.String()
}

// Temporary reports whether the same request may succeed later: rate limiting
// and server-side failures, except 501 (the platform will not start
// implementing the call between two attempts).
func (e *APIError) Temporary() bool {
	return retryableStatus(e.HTTPStatus)
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// IsStatus reports whether err is, or wraps, an *APIError with that HTTP status.
func IsStatus(err error, httpStatus int) bool {
	var e *APIError
	return errors.As(err, &e) && e.HTTPStatus == httpStatus
}

// errorBody is the platform's error body (spec "Errors", docs/dev/wire.md).
// Some services put reason and message under errorInformation instead.
// Two more shapes carry the platform's words elsewhere, and are read so
// that they reach the operator's error text rather than a bare "401
// Unauthorized": a failed authentication, {"response":{"rmsg":"…"}}, and
// some 404s (a resource or product not available),
// {"errors":[{"type":"…","message":"…"}]} (docs/platform.md, Error bodies).
type errorBody struct {
	Status           flexString    `json:"status"`
	Reason           flexString    `json:"reason"`
	Message          flexString    `json:"message"`
	SubmitTimeUTC    flexString    `json:"submitTimeUtc"`
	CorrelationID    flexString    `json:"correlationId"`
	Details          []errorDetail `json:"details"`
	ErrorInformation struct {
		Reason  flexString    `json:"reason"`
		Message flexString    `json:"message"`
		Details []errorDetail `json:"details"`
	} `json:"errorInformation"`
	Response struct {
		RMsg flexString `json:"rmsg"`
	} `json:"response"`
	Errors []struct {
		Type    flexString `json:"type"`
		Message flexString `json:"message"`
	} `json:"errors"`
}

// maxErrorEntries bounds how many entries of an errors[] body go into the
// message: the first say what went wrong, and a hostile body of thousands
// must not make an error text of a megabyte.
const maxErrorEntries = 5

type errorDetail struct {
	Field  flexString `json:"field"`
	Reason flexString `json:"reason"`
}

// newAPIError builds the error of a non-2xx response from its (already
// size-limited) body. A body that is not the JSON error shape still gives an
// APIError, with its first 200 bytes as the message, so a proxy's HTML page
// is visible in the error rather than lost.
func newAPIError(method, path string, resp *http.Response, body []byte, now time.Time) *APIError {
	e := &APIError{
		HTTPStatus:    resp.StatusCode,
		Method:        method,
		Path:          path,
		CorrelationID: resp.Header.Get("v-c-correlation-id"),
		body:          body,
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		e.RetryAfter = parseRetryAfter(ra, now)
	}
	var eb errorBody
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal(body, &eb) == nil {
		e.Status = string(eb.Status)
		e.Reason = string(eb.Reason)
		e.Message = string(eb.Message)
		e.SubmitTime = string(eb.SubmitTimeUTC)
		details := eb.Details
		if e.Reason == "" {
			e.Reason = string(eb.ErrorInformation.Reason)
		}
		if e.Message == "" {
			e.Message = string(eb.ErrorInformation.Message)
		}
		if len(details) == 0 {
			details = eb.ErrorInformation.Details
		}
		if e.Message == "" {
			e.Message = strings.TrimSpace(string(eb.Response.RMsg))
		}
		if e.Message == "" && e.Reason == "" {
			e.Reason, e.Message = errorsEntries(eb)
		}
		for _, d := range details {
			e.Details = append(e.Details, ErrorDetail{Field: string(d.Field), Reason: string(d.Reason)})
		}
		if e.CorrelationID == "" {
			e.CorrelationID = string(eb.CorrelationID)
		}
		return e
	}
	e.Message = firstBytes(trimmed, 200)
	return e
}

// errorsEntries reads the not-available shape {"errors":[{type,message}]}:
// the first entry's type as the reason, and the entries' messages joined
// (each prefixed with its type when the types differ from the first).
func errorsEntries(eb errorBody) (reason, message string) {
	var msgs []string
	for i, x := range eb.Errors {
		if i == maxErrorEntries {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(eb.Errors)-i))
			break
		}
		typ, msg := strings.TrimSpace(string(x.Type)), strings.TrimSpace(string(x.Message))
		if reason == "" {
			reason = typ
		}
		if typ != "" && typ != reason {
			msg = strings.TrimSpace(typ + ": " + msg)
		}
		if msg != "" {
			msgs = append(msgs, msg)
		}
	}
	return reason, strings.Join(msgs, "; ")
}

// firstBytes returns at most n bytes of s, cut on a rune boundary and made
// valid UTF-8 so an error message never carries broken text. It never cuts
// inside a number: the text is masked downstream (this package cannot
// mask), and a cut keeping 15 digits of a 16-digit card number keeps the
// card where the masker no longer recognises it (its Luhn digit gone). A
// run of digits and separators the cut would split is left out whole.
func firstBytes(s string, n int) string {
	if len(s) > n {
		if numberByte(s[n]) {
			for n > 0 && numberByte(s[n-1]) {
				n--
			}
		}
		s = s[:n]
		for len(s) > 0 && !utf8.ValidString(s) {
			r, size := utf8.DecodeLastRuneInString(s)
			if r != utf8.RuneError || size != 1 {
				break
			}
			s = s[:len(s)-1]
		}
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// numberByte is a byte of a written number: a digit or a separator a card
// number is grouped with (as cardmask reads them).
func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || strings.IndexByte(" \t-+./_", c) >= 0
}
