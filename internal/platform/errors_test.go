package platform

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAPIErrorFromSpecBody(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("v-c-correlation-id", "corr-123")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"submitTimeUtc":"2026-11-20T10:15:00Z","status":"INVALID_REQUEST","reason":"INVALID_DATA",
			"message":"Declined - One or more fields in the request contains invalid data",
			"details":[{"field":"planInformation.code","reason":"DUPLICATE"}],"correlationId":"body-corr"}`))
	})
	err := c.Merchant("m1").do(context.Background(), "POST", "/rbs/v1/plans?x=1", map[string]string{"a": "b"}, nil)
	var e *APIError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *APIError", err)
	}
	want := APIError{
		HTTPStatus:    400,
		Status:        "INVALID_REQUEST",
		Reason:        "INVALID_DATA",
		Message:       "Declined - One or more fields in the request contains invalid data",
		CorrelationID: "corr-123",
		SubmitTime:    "2026-11-20T10:15:00Z",
		Method:        "POST",
		Path:          "/rbs/v1/plans",
	}
	if e.HTTPStatus != want.HTTPStatus || e.Status != want.Status || e.Reason != want.Reason ||
		e.Message != want.Message || e.CorrelationID != want.CorrelationID || e.SubmitTime != want.SubmitTime ||
		e.Method != want.Method || e.Path != want.Path || e.RetryAfter != 0 {
		t.Errorf("got %+v\nwant %+v", *e, want)
	}
	if len(e.Details) != 1 || e.Details[0] != (ErrorDetail{Field: "planInformation.code", Reason: "DUPLICATE"}) {
		t.Errorf("details %+v", e.Details)
	}
	wantMsg := "POST /rbs/v1/plans: 400 INVALID_REQUEST INVALID_DATA: Declined - One or more fields in the request contains invalid data [planInformation.code DUPLICATE] (correlation id corr-123)"
	if e.Error() != wantMsg {
		t.Errorf("Error() =\n%s\nwant\n%s", e.Error(), wantMsg)
	}
}

func TestAPIErrorForbiddenMessage(t *testing.T) {
	e := &APIError{HTTPStatus: 403, Status: "FORBIDDEN", Reason: "NOT_AUTHORIZED", Message: "message", CorrelationID: "X", Method: "GET", Path: "/rbs/v1/plans"}
	if got := e.Error(); got != "GET /rbs/v1/plans: 403 FORBIDDEN NOT_AUTHORIZED: message (correlation id X)" {
		t.Errorf("Error() = %q", got)
	}
	if (&APIError{HTTPStatus: 429}).Temporary() != true || (&APIError{HTTPStatus: 501}).Temporary() {
		t.Error("Temporary wrong for 429/501")
	}
}

// Without the header, the body's correlationId is used.
func TestAPIErrorCorrelationFromBody(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"status":"NOT_FOUND","reason":"INVALID_DATA","message":"Subscription not found","correlationId":"body-corr"}`))
	})
	err := c.Merchant("m1").do(context.Background(), "GET", "/rbs/v1/subscriptions/9", nil, nil)
	var e *APIError
	if !errors.As(err, &e) || e.CorrelationID != "body-corr" || !IsStatus(err, 404) || IsStatus(err, 400) {
		t.Fatalf("err = %#v", err)
	}
}

func TestAPIErrorNonJSONBody(t *testing.T) {
	page := "<html><body>" + strings.Repeat("gateway says no ", 40) + "</body></html>"
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(page))
	})
	err := c.Merchant("m1").do(context.Background(), "GET", "/x", nil, nil)
	var e *APIError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	if e.HTTPStatus != 403 || e.Message != page[:200] || e.Status != "" {
		t.Errorf("got status %d message %q", e.HTTPStatus, e.Message)
	}
}

func TestAPIErrorRetryAfter(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		writeJSON(w, http.StatusTooManyRequests, `{"status":"TOO_MANY_REQUESTS","reason":"RATE_LIMITED"}`)
	}, WithRetryPolicy(RetryPolicy{MaxAttempts: 1}))
	err := c.Merchant("m1").do(context.Background(), "GET", "/x", nil, nil)
	var e *APIError
	if !errors.As(err, &e) || e.RetryAfter != 7*time.Second || !e.Temporary() {
		t.Fatalf("err = %v (%+v)", err, e)
	}
}

// The error body is read through a 1 MiB limit.
func TestAPIErrorHugeBody(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 1<<16))
		for range 64 { // 4 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	err := c.Merchant("m1").do(context.Background(), "GET", "/x", nil, nil)
	var e *APIError
	if !errors.As(err, &e) || len(e.body) > maxErrorBody || len(e.Message) != 200 {
		t.Fatalf("err = %v, body %d bytes", err, len(e.body))
	}
}

// The platform answers a failed authentication with
// {"response":{"rmsg":"…"}} (the vendor's authentication error shape): its
// words reach the error text, not a bare "401 Unauthorized".
func TestAPIErrorAuthenticationShape(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusUnauthorized, `{"response":{"rmsg":"Authentication Failed: the key is not valid for merchant m1"}}`)
	})
	err := c.Merchant("m1").do(context.Background(), "GET", "/rbs/v1/plans", nil, nil)
	var e *APIError
	if !errors.As(err, &e) || e.HTTPStatus != 401 {
		t.Fatalf("err = %v, want a 401 *APIError", err)
	}
	if e.Message != "Authentication Failed: the key is not valid for merchant m1" {
		t.Errorf("message %q", e.Message)
	}
	if want := "GET /rbs/v1/plans: 401 Unauthorized: Authentication Failed: the key is not valid for merchant m1 (correlation id corr-test)"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

// Some 404s come as {"errors":[{"type":"…","message":"…"}]} (the vendor's
// not-available shape): the type becomes the reason, the messages the
// message, at most maxErrorEntries of them.
func TestAPIErrorNotAvailableShape(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, `{"errors":[{"type":"notFound","message":"The requested resource does not exist"},
			{"type":"notEnabled","message":"Group Management is not enabled"}]}`)
	})
	err := c.Merchant("m1").do(context.Background(), "GET", "/group-management/v1/groups?organizationId=o", nil, nil)
	var e *APIError
	if !errors.As(err, &e) || !IsStatus(err, 404) {
		t.Fatalf("err = %v, want a 404 *APIError", err)
	}
	want := "GET /group-management/v1/groups: 404 notFound: The requested resource does not exist; notEnabled: Group Management is not enabled (correlation id corr-test)"
	if e.Reason != "notFound" || e.Error() != want {
		t.Errorf("reason %q, Error() =\n%s\nwant\n%s", e.Reason, e.Error(), want)
	}

	many := `{"errors":[` + strings.TrimSuffix(strings.Repeat(`{"type":"x","message":"m"},`, 1000), ",") + `]}`
	c, _ = newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusNotFound, many) })
	err = c.Merchant("m1").do(context.Background(), "GET", "/x", nil, nil)
	if !errors.As(err, &e) || e.Message != "m; m; m; m; m; and 995 more" {
		t.Errorf("1000 entries: message %q", e.Message)
	}
}
