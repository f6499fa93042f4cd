package sandbox

import (
	"net/http"
	"time"
)

// How the platform answers an authorization or sale the issuer declined
// (docs/dev/wire.md, Declines): a 201 with status DECLINED, errorInformation,
// and in processorInformation the network's response code and, on Visa
// and Mastercard cards, the merchant advice codes that say whether and
// when the card may be tried again. Transaction Search shows the decline
// as its application's reason code. The payments endpoint (payments.go)
// and the planted calls of the journals (plant_calls.go,
// plant_retries.go) answer through the same issuerDecline.

// issuerDecline is one way a payment is declined.
type issuerDecline struct {
	errorReason  string // errorInformation.reason: PROCESSOR_DECLINED, CUSTOMER_AUTHENTICATION_REQUIRED
	reason, flag string // the application's reasonCode and rFlag in Transaction Search
	message      string // errorInformation.message and the application's rMessage
	responseCode string // processorInformation.responseCode: the network's
	advice       string // processorInformation.merchantAdvice.code ("" for none)
	adviceRaw    string // .codeRaw: Mastercard's own code, passed through
}

// Reason codes of the platform's declines (Transaction Search).
const (
	reasonGeneralDecline = "203"
	reasonStolenLost     = "205" // the decline after which recurring billing never retries
)

// cardDecline is the decline the cents of an amount ask for (engine.go):
// a general decline the card may be tried again after, or the stolen or
// lost card that must never be tried again. Its codes follow the card's
// network: Visa answers response code 05 (do not honor) with merchant
// advice 2 (cannot approve at this time), or 43 (stolen card) with advice
// 1 (issuer never approves); Mastercard 05 with advice 02 (try again
// later), or 43 with 03 (do not try again), as code and codeRaw; the other
// networks give no merchant advice.
func cardDecline(cd *card, doNotRetry bool) *issuerDecline {
	d := &issuerDecline{errorReason: "PROCESSOR_DECLINED", reason: reasonGeneralDecline, flag: "DCARDREFUSED",
		message: "General decline of the card", responseCode: "05"}
	if doNotRetry {
		d.reason, d.message, d.responseCode = reasonStolenLost, "Stolen or lost card: do not retry", "43"
	}
	switch cd.cardType() {
	case cardTypeVisa:
		d.advice = map[bool]string{false: "2", true: "1"}[doNotRetry]
	case cardTypeMastercard:
		d.advice = map[bool]string{false: "02", true: "03"}[doNotRetry]
		d.adviceRaw = d.advice
	}
	return d
}

// healthcareDecline: a health card's issuer declines a payment without
// the healthcare amounts; on Visa (the sandbox's HSA card) with merchant
// advice 3, revalidate the payment data: sent with them, it may pass.
func healthcareDecline(cd *card) *issuerDecline {
	d := &issuerDecline{errorReason: "PROCESSOR_DECLINED", reason: "233", flag: "DNOAUTH",
		message: "Healthcare card: the issuer needs the healthcare amounts", responseCode: "05"}
	if cd.cardType() == cardTypeVisa {
		d.advice = "3"
	}
	return d
}

// authenticationDecline: a customer-initiated transaction storing the
// card where strong customer authentication is mandated, not strongly
// authenticated. The networks' soft declines: Visa 1A, Mastercard 65.
func authenticationDecline(cd *card) *issuerDecline {
	d := &issuerDecline{errorReason: "CUSTOMER_AUTHENTICATION_REQUIRED", reason: "478", flag: "DAUTHENTICATE",
		message: "Strong customer authentication is required", responseCode: "05"}
	switch cd.cardType() {
	case cardTypeVisa:
		d.responseCode = "1A"
	case cardTypeMastercard:
		d.responseCode = "65"
	}
	return d
}

// Card type codes of the two networks with merchant advice codes.
const (
	cardTypeVisa       = "001"
	cardTypeMastercard = "002"
)

// app is the decline as Transaction Search shows the transaction's
// application.
func (d *issuerDecline) app() appJSON {
	return appJSON{Name: "ics_auth", ReasonCode: d.reason, RCode: "0", RFlag: d.flag, RMessage: d.message}
}

// answer is the platform's answer to the declined payment id.
func (d *issuerDecline) answer(id, reconciliationID, code, networkTxnID string, at time.Time) map[string]any {
	proc := map[string]any{"responseCode": d.responseCode, "networkTransactionId": networkTxnID, "transactionId": networkTxnID}
	if d.advice != "" || d.adviceRaw != "" {
		advice := map[string]any{}
		if d.advice != "" {
			advice["code"] = d.advice
		}
		if d.adviceRaw != "" {
			advice["codeRaw"] = d.adviceRaw
		}
		proc["merchantAdvice"] = advice
	}
	return map[string]any{"_links": map[string]any{"self": link{Href: "/pts/v2/payments/" + id, Method: http.MethodGet}},
		"id": id, "status": "DECLINED", "submitTimeUtc": ts(at), "reconciliationId": reconciliationID,
		"clientReferenceInformation": map[string]any{"code": code},
		"errorInformation":           map[string]any{"reason": d.errorReason, "message": d.message},
		"processorInformation":       proc}
}
