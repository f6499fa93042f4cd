// Package calls says what a journaled call was and what it carried in each
// service area: its kind (authorization, sale, capture, credit, refund,
// buy-now-pay-later session, installment plan call, ...), its transaction,
// card BIN and amount, what the platform answered, and the facts of
// credentialed transactions, healthcare, buy-now-pay-later, installments,
// device wallets and terminals (areas.go). The Level II/III facts are
// level3audit's.
//
// The platform keeps none of this, so it comes from the merchants' own
// journals of requests and responses. Inspect reads a call once for every
// fact the checks need; the checks themselves stay in SQL
// (queries/findings).
package calls

import (
	"strings"

	"github.com/reconcile/reconcile/internal/jsonbody"
	"github.com/reconcile/reconcile/level3audit"
)

// CallKind classifies a payments API call by method, path and request.
type CallKind string

const (
	Authorization CallKind = "authorization"
	Sale          CallKind = "sale" // an authorization with processingInformation.capture true
	Capture       CallKind = "capture"
	Credit        CallKind = "credit" // a stand-alone credit (POST /pts/v2/credits)
	Refund        CallKind = "refund"
	Reversal      CallKind = "reversal"
	Void          CallKind = "void"
	Other         CallKind = "other"

	// BNPLSession is a buy-now-pay-later session (POST
	// /pts/v2/payment-references); the authorization that follows is an
	// Authorization whose Actions hold AP_AUTH.
	BNPLSession CallKind = "bnpl_session"
	// InstallmentPlans asks the issuer's plans for a purchase (POST /fin/v1/plans).
	InstallmentPlans CallKind = "installment_plans"
	// InstallmentAcceptance links an authorization to a plan (POST
	// /fin/v1/plan-acceptance).
	InstallmentAcceptance CallKind = "installment_acceptance"
	// InstallmentCancel cancels a selected plan, or with a refundAmount
	// refunds part of it (POST /fin/v1/plan-acceptance/cancel).
	InstallmentCancel CallKind = "installment_cancel"
)

// Call is what the audit needs to know about one journaled call. It never
// holds a full card number: only the BIN (first six digits) and last four.
type Call struct {
	Kind          CallKind
	TransactionID string // the id of the platform's response
	ParentID      string // the transaction a follow-on call refers to (from the path)
	CardBIN       string // first 6 digits of the card or device token number, when the request carries one
	CardLast4     string
	// CardType is the platform's three-digit card type code (001 Visa,
	// 002 Mastercard, ...): as answered (paymentAccountInformation.card.type,
	// paymentInformation.card or tokenizedCard .type), else as sent. It
	// names the card's network when its BIN's lookup does not.
	CardType    string
	TotalAmount string // decimal string as sent (as answered for refunds and credits, or when the request has none)
	Currency    string

	level3audit.Facts // Level II/III: purchase level, line items, transmission status, missing fields

	// What the platform answered.
	// ResponseStatus is the response's status as sent, upper-cased (a
	// payment's: AUTHORIZED, PARTIAL_AUTHORIZED, AUTHORIZED_PENDING_REVIEW,
	// AUTHORIZED_RISK_DECLINED, PENDING_AUTHENTICATION, PENDING_REVIEW,
	// DECLINED, INVALID_REQUEST, SDK model PtsV2PaymentsPost201Response;
	// follow-ons PENDING, REVERSED, ...). What it means is classified in
	// SQL, once (payment_status_outcome in queries/views.sql), so that an
	// unknown status is never taken for an approval.
	ResponseStatus       string
	NetworkTransactionID string // processorInformation.networkTransactionId of the response
	ApprovalCode         string // processorInformation.approvalCode of the response
	// ResponseCode is processorInformation.responseCode, upper case: the
	// network's answer (Visa's category 1 codes say the issuer will never
	// approve the card).
	ResponseCode string
	// MerchantAdviceCode and MerchantAdviceCodeRaw are
	// processorInformation.merchantAdvice.code (the platform's value: Visa
	// 1-3, Mastercard 01-42) and .codeRaw (Mastercard's own, passed
	// through): whether and when a declined card may be tried again.
	MerchantAdviceCode    string
	MerchantAdviceCodeRaw string
	// ClientReference is the merchant's order number,
	// clientReferenceInformation.code, as sent, else as answered: what
	// finance looks a charge up by.
	ClientReference string

	Areas // the other service areas (areas.go)
}

// Inspect derives a Call from a journaled call. request and response are the
// decoded JSON bodies (nil when absent).
func Inspect(method, path string, request, response map[string]any) Call {
	c := Call{
		Kind:          classify(method, path, request),
		TransactionID: str(lookup(response, "id")),
		ParentID:      parentID(path),
		Facts:         level3audit.Inspect(request, response),
	}
	for _, card := range []string{"card", "tokenizedCard"} {
		if n := str(lookup(request, "paymentInformation", card, "number")); n != "" {
			c.CardBIN, c.CardLast4 = binAndLast4(n)
			break
		}
	}
	c.TotalAmount = firstNonEmpty(
		answeredAmount(c.Kind, response, "refundAmount", "creditAmount"),
		str(lookup(request, "orderInformation", "amountDetails", "totalAmount")),
		str(lookup(response, "orderInformation", "amountDetails", "totalAmount")),
		str(lookup(response, "orderInformation", "amountDetails", "authorizedAmount")),
		str(lookup(request, "reversalInformation", "amountDetails", "totalAmount")),
		str(lookup(response, "reversalAmountDetails", "reversedAmount")),
	)
	c.Currency = firstNonEmpty(
		answeredAmount(c.Kind, response, "currency", "currency"),
		str(lookup(request, "orderInformation", "amountDetails", "currency")),
		str(lookup(response, "orderInformation", "amountDetails", "currency")),
		str(lookup(request, "reversalInformation", "amountDetails", "currency")),
		str(lookup(response, "reversalAmountDetails", "currency")),
	)
	c.ResponseStatus = strings.ToUpper(str(lookup(response, "status")))
	c.NetworkTransactionID = str(lookup(response, "processorInformation", "networkTransactionId"))
	c.ApprovalCode = str(lookup(response, "processorInformation", "approvalCode"))
	c.ResponseCode = strings.ToUpper(strings.TrimSpace(str(lookup(response, "processorInformation", "responseCode"))))
	c.MerchantAdviceCode = strings.TrimSpace(str(lookup(response, "processorInformation", "merchantAdvice", "code")))
	c.MerchantAdviceCodeRaw = strings.TrimSpace(str(lookup(response, "processorInformation", "merchantAdvice", "codeRaw")))
	c.ClientReference = firstNonEmpty(
		str(lookup(request, "clientReferenceInformation", "code")),
		str(lookup(response, "clientReferenceInformation", "code")),
	)
	c.CardType = cardType(request, response)
	c.Areas = inspectAreas(request, response)
	return c
}

// cardType is the card's type code as the platform answered it, else as
// the request sent it.
func cardType(request, response map[string]any) string {
	for _, v := range []any{
		lookup(response, "paymentAccountInformation", "card", "type"),
		lookup(response, "paymentInformation", "card", "type"),
		lookup(response, "paymentInformation", "tokenizedCard", "type"),
		lookup(request, "paymentInformation", "card", "type"),
		lookup(request, "paymentInformation", "tokenizedCard", "type"),
	} {
		if t := strings.TrimSpace(str(v)); t != "" {
			return t
		}
	}
	return ""
}

// answeredAmount reads what the platform says a refund or a credit moved:
// refundAmountDetails (refundField; creditAmount as well, which the SDK's
// refund model also has) or creditAmountDetails (creditField), the names
// of the platform's SDK models. What was answered wins over what was asked
// (a request may leave the amount out to refund in full); an answer in
// the older shape (orderInformation.amountDetails) has neither, and the
// request's or that shape's amount is read instead.
func answeredAmount(kind CallKind, response map[string]any, refundField, creditField string) string {
	switch kind {
	case Refund:
		return firstNonEmpty(str(lookup(response, "refundAmountDetails", refundField)),
			str(lookup(response, "refundAmountDetails", creditField)))
	case Credit:
		return str(lookup(response, "creditAmountDetails", creditField))
	}
	return ""
}

func classify(method, path string, request map[string]any) CallKind {
	if !strings.EqualFold(method, "POST") {
		return Other
	}
	p := strings.TrimSuffix(stripQuery(path), "/")
	switch {
	case p == "/pts/v2/payment-references":
		return BNPLSession
	case p == "/fin/v1/plans":
		return InstallmentPlans
	case p == "/fin/v1/plan-acceptance":
		return InstallmentAcceptance
	case p == "/fin/v1/plan-acceptance/cancel":
		return InstallmentCancel
	case p == "/pts/v2/payments":
		if isTrue(lookup(request, "processingInformation", "capture")) {
			return Sale
		}
		return Authorization
	case p == "/pts/v2/credits":
		return Credit
	case strings.HasSuffix(p, "/captures"):
		return Capture
	case strings.HasSuffix(p, "/refunds"):
		return Refund
	case strings.HasSuffix(p, "/reversals"):
		return Reversal
	case strings.HasSuffix(p, "/voids"):
		return Void
	}
	return Other
}

// parentID returns the id segment of a follow-on path such as
// /pts/v2/payments/{id}/captures or /pts/v2/captures/{id}/refunds.
func parentID(path string) string {
	parts := strings.Split(strings.Trim(stripQuery(path), "/"), "/")
	// pts v2 <collection> <id> <action>
	if len(parts) == 5 && parts[0] == "pts" {
		return parts[3]
	}
	return ""
}

func binAndLast4(number string) (bin, last4 string) {
	if len(number) >= 6 && allDigits(number[:6]) {
		bin = number[:6]
	}
	if len(number) >= 10 && allDigits(number[len(number)-4:]) {
		last4 = number[len(number)-4:]
	}
	return bin, last4
}

// lookup, str and isTrue read the decoded bodies (package jsonbody), in
// names short enough for the field lists of Inspect and inspectAreas.
func lookup(m map[string]any, keys ...string) any { return jsonbody.Lookup(m, keys...) }
func str(v any) string                            { return jsonbody.Text(v) }
func isTrue(v any) bool                           { return jsonbody.IsTrue(v) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func stripQuery(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[:i]
	}
	return p
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
