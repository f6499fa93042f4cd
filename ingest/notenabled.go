package ingest

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/platform"
)

// A member's account may lack a product: the platform then answers that
// product's calls "not enabled" (platform.NotEnabled). Such a member is
// reconciled on what its other products give, and run_members records
// which products answered so (products_not_enabled) with the platform's
// own words (not_enabled_message), so that the Summary can show why a
// member has, say, no subscriptions, and it is not counted as failed.

// The products whose answer may be "not enabled", as run_members names them.
const (
	ProductRecurringBilling  = "recurring billing"
	ProductTransactionSearch = "transaction search"
)

// maxNotEnabledMessage bounds the platform's message kept per product: it
// is outside text, shown on the Summary.
const maxNotEnabledMessage = 300

// NotEnabled is a product that answered "not enabled" for a member, with
// the platform's answer, masked and then cut to maxNotEnabledMessage bytes.
type NotEnabled struct {
	Product string
	Message string
}

// newNotEnabled records e as product's answer: what was called and what
// the platform said, without the correlation id, which differs on every
// request (a re-run of the day then records the same row). The text is
// masked before it is cut, so a cut can never leave part of a card number
// unmasked.
func newNotEnabled(product string, e *platform.APIError) NotEnabled {
	answer := *e
	answer.CorrelationID = ""
	return NotEnabled{Product: product, Message: cutText(cardmask.MaskText(answer.Error()), maxNotEnabledMessage)}
}

// allNotEnabled fails a member for which every product it was asked for
// answered "not enabled": nothing of it could be reconciled, which is what
// a key that may not act for the merchant at all looks like too. The
// error is the first product's, as the pull gave it (err), followed by the
// others' answers.
func allNotEnabled(err error, list []NotEnabled) error {
	if len(list) < 2 {
		return nil
	}
	if err == nil {
		err = errors.New(list[0].Product + ": " + list[0].Message)
	}
	return fmt.Errorf("%w; %s (no product of the member is enabled for this key)", err, notEnabledMessages(list[1:]))
}

// notEnabledProducts is run_members.products_not_enabled: the products,
// comma-separated ("" when every product answered).
func notEnabledProducts(list []NotEnabled) string {
	names := make([]string, len(list))
	for i, n := range list {
		names[i] = n.Product
	}
	return strings.Join(names, ", ")
}

// notEnabledMessages is run_members.not_enabled_message: each product with
// the platform's answer.
func notEnabledMessages(list []NotEnabled) string {
	parts := make([]string, len(list))
	for i, n := range list {
		parts[i] = n.Product + ": " + n.Message
	}
	return strings.Join(parts, "; ")
}

// cutText returns at most n bytes of s, cut on a rune boundary, marked
// with "..." when cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}
