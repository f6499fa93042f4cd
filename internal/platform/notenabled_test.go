package platform

import (
	"errors"
	"fmt"
	"testing"
)

// TestNotEnabled: the answers that say a product is not enabled for the
// merchant (the SDK-modelled ones and the plausible unverified ones, see
// notenabled.go) are told from other refusals, also when wrapped.
func TestNotEnabled(t *testing.T) {
	for _, c := range []struct {
		e    *APIError
		want bool
	}{
		{&APIError{HTTPStatus: 400, Status: "INVALID_REQUEST", Reason: "INVALID_MERCHANT_CONFIGURATION"}, true}, // InlineResponse4005
		{&APIError{HTTPStatus: 403, Status: "FORBIDDEN_ACCESS", Reason: "FORBIDDEN_ACCESS"}, true},              // BinLookup403Response
		{&APIError{HTTPStatus: 403, Status: "FORBIDDEN"}, true},                                                 // InlineResponse4032
		{&APIError{HTTPStatus: 403, Status: "FORBIDDEN", Reason: "NOT_AUTHORIZED"}, true},
		{&APIError{HTTPStatus: 400, Reason: "not_authorized"}, true},
		{&APIError{HTTPStatus: 400, Status: "INVALID_REQUEST", Reason: "INVALID_DATA", Message: "Recurring Billing is not enabled"}, true},
		{&APIError{HTTPStatus: 400, Message: "Merchant is not authorized for this service"}, true},
		{&APIError{HTTPStatus: 400, Status: "INVALID_REQUEST", Reason: "INVALID_DATA", Message: "limit out of range"}, false},
		{&APIError{HTTPStatus: 401, Status: "UNAUTHORIZED", Reason: "AUTHENTICATION_FAILED", Message: "not authorized"}, false},
		{&APIError{HTTPStatus: 404, Status: "NOT_FOUND"}, false},
		{&APIError{HTTPStatus: 500, Message: "service not enabled"}, false},
	} {
		err := fmt.Errorf("list plans: %w", c.e)
		got, ok := NotEnabled(err)
		if ok != c.want || (ok && got != c.e) {
			t.Errorf("NotEnabled(%v) = %v, %v; want %v", c.e, got, ok, c.want)
		}
	}
	if _, ok := NotEnabled(errors.New("403 not enabled")); ok {
		t.Error("a plain error taken for the platform's answer")
	}
	if _, ok := NotEnabled(nil); ok {
		t.Error("nil taken for not enabled")
	}
}
