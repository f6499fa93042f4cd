package platform

import (
	"errors"
	"net/http"
	"strings"
)

// A product (Recurring Billing, Transaction Search, BIN lookup) is enabled
// per merchant account: a member whose account lacks one answers that
// product's calls with an error, while its other products work. These are
// the answers read as "not enabled" (docs/platform.md, "Products not
// enabled"):
//
//   - 400 with reason INVALID_MERCHANT_CONFIGURATION: the SDK's model of the
//     recurring-billing 400 (InlineResponse4005) lists it;
//   - 403, whatever its reason: BIN lookup's 403 is FORBIDDEN_ACCESS
//     (BinLookup403Response), other services' 403 is FORBIDDEN
//     (InlineResponse4032) or NOT_AUTHORIZED; unverified for Recurring
//     Billing and Transaction Search;
//   - 400 whose reason is NOT_AUTHORIZED or FORBIDDEN_ACCESS, or whose
//     message says "not enabled" or "not authorized": unverified.
var notEnabledReasons = map[string]bool{
	"INVALID_MERCHANT_CONFIGURATION": true,
	"NOT_AUTHORIZED":                 true,
	"FORBIDDEN_ACCESS":               true,
}

// NotEnabled reports whether err is, or wraps, the platform's answer that
// the product called is not enabled for the merchant (see above), and
// returns that answer.
func NotEnabled(err error) (*APIError, bool) {
	var e *APIError
	if !errors.As(err, &e) {
		return nil, false
	}
	switch e.HTTPStatus {
	case http.StatusForbidden:
		return e, true
	case http.StatusBadRequest:
		if notEnabledReasons[strings.ToUpper(e.Reason)] {
			return e, true
		}
		msg := strings.ToLower(e.Message)
		if strings.Contains(msg, "not enabled") || strings.Contains(msg, "not authorized") {
			return e, true
		}
	}
	return nil, false
}
