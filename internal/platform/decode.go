package platform

import (
	"fmt"
	json "github.com/goccy/go-json"
	"strings"
)

// Records and pages are decoded with github.com/goccy/go-json, a drop-in
// for encoding/json that decodes this project's records about three times
// faster; decoding is most of a run's CPU next to the database's. The
// subscription payments, nine records in ten, and their pages are walked
// by hand instead (object.go, paymentpage.go): about twice as fast again,
// with a tenth of the bytes allocated (BenchmarkDecodePaymentPage).

// decodeRecord decodes one record of a listing into its wire shape. A record
// that does not fit (an object where a string belongs) is ErrInvalidData: the
// body was valid JSON, so retrying would give the same answer.
func decodeRecord[W any](what string, raw json.RawMessage) (W, error) {
	var w W
	if err := json.Unmarshal(raw, &w); err != nil {
		return w, fmt.Errorf("decode %s: %w: %w", what, ErrInvalidData, err)
	}
	return w, nil
}

// decodePage decodes a whole page body.
func decodePage[P any](what string, body []byte) (P, error) {
	var p P
	if err := json.Unmarshal(body, &p); err != nil {
		return p, pageError(what, err)
	}
	return p, nil
}

// pageError is the error of a page of what that did not decode.
func pageError(what string, err error) error {
	return fmt.Errorf("decode %s: %w: %w", what, ErrInvalidData, err)
}

// continueOffsets reports whether an offset-paged listing has another page
// after one that brought n records: stop on an empty page (whatever the links
// say, so a broken server cannot loop us), otherwise go on while the next
// link is present or the offset is short of totalCount.
func continueOffsets(next, n, total int, hasNext bool) bool {
	if n == 0 {
		return false
	}
	return hasNext || next < total
}

func upper(s flexString) string { return strings.ToUpper(strings.TrimSpace(string(s))) }

// DecodePlan, DecodeSubscription, DecodePayment and DecodeTransaction decode
// one stored record (a `raw` column) exactly as a page's record is decoded,
// so stored data can be re-processed without the platform, and so the
// decoding cost can be measured apart from the network.
func DecodePlan(raw json.RawMessage) (Plan, error) { return decodePlan(raw) }

// DecodeSubscription: see DecodePlan.
func DecodeSubscription(raw json.RawMessage) (Subscription, error) { return decodeSubscription(raw) }

// DecodePayment: see DecodePlan.
func DecodePayment(raw json.RawMessage) (Payment, error) { return decodePayment(raw) }

// DecodeTransaction: see DecodePlan.
func DecodeTransaction(raw json.RawMessage) (TransactionSummary, error) { return decodeSummary(raw) }
