package calls

import (
	"strings"
)

// Areas are the facts of a call in the service areas other than Level
// II/III, as the spec names the fields. Every value is text as sent or
// received ("" when absent); the checks in queries/findings decide what a
// missing value means.
type Areas struct {
	// Credentialed transactions (processingInformation...).
	CommerceIndicator     string // processingInformation.commerceIndicator
	Initiator             string // authorizationOptions.initiator.type, lower case: customer (CIT) or merchant (MIT)
	CredentialStored      bool   // initiator.credentialStoredOnFile true: this CIT stores the credential
	StoredCredentialUsed  bool   // initiator.storedCredentialUsed true
	MITReason             string // initiator.merchantInitiatedTransaction.reason
	PreviousTransactionID string // initiator.merchantInitiatedTransaction.previousTransactionId
	// Actions is processingInformation.actionList, comma separated
	// (TOKEN_CREATE, AP_SESSIONS, AP_AUTH, ...).
	Actions string

	// Healthcare.
	ProductSubtype    string             // paymentInformation.card.productSubtype (HC)
	HealthcareAmounts []HealthcareAmount // healthCareInformation.amountDetails[]

	// Buy-now-pay-later.
	PaymentType string // paymentInformation.paymentType.name (INVOICE)
	// SessionToken is the session's processorInformation.token (on the
	// session's response) or the authorization's preApprovalToken (on its
	// request): the two sides of one session.
	SessionToken string
	Country      string // orderInformation.billTo.country, else shipTo.country, upper case

	// Installments.
	InstallmentID string // installmentInformation.id of the response: the plan acceptance
	PlanID        string // installmentInformation.planId (request, else response)
	// RefNetworkTransactionID and RefAuthorizationCode name the
	// authorization an installment call is about
	// (processingInformation.authorizationOptions.networkTransactionId,
	// authorizationCode).
	RefNetworkTransactionID string
	RefAuthorizationCode    string
	RefundAmount            string // processingInformation.refundOptions.refundAmount: a partial refund of a plan

	// Device wallets and contactless acceptance.
	PaymentSolution string // processingInformation.paymentSolution (001 Apple Pay, ...)
	WalletData      bool   // paymentInformation.fluidData.value sent (wallet payment data)
	TerminalID      string // pointOfSaleInformation.terminalId (response, else request)
}

// HealthcareAmount is one healthCareInformation.amountDetails[] entry.
type HealthcareAmount struct {
	Type   string // healthcare, healthcare-transit, prescription, clinic, dental, vision (Visa); eligible-total, prescription (Mastercard); lower case
	Amount string // decimal string as sent
}

const initiator = "initiator"

func inspectAreas(request, response map[string]any) Areas {
	ao := func(keys ...string) any {
		return lookup(request, append([]string{"processingInformation", "authorizationOptions"}, keys...)...)
	}
	a := Areas{
		CommerceIndicator:     str(lookup(request, "processingInformation", "commerceIndicator")),
		Initiator:             strings.ToLower(strings.TrimSpace(str(ao(initiator, "type")))),
		CredentialStored:      isTrue(ao(initiator, "credentialStoredOnFile")),
		StoredCredentialUsed:  isTrue(ao(initiator, "storedCredentialUsed")),
		MITReason:             strings.TrimSpace(str(ao(initiator, "merchantInitiatedTransaction", "reason"))),
		PreviousTransactionID: strings.TrimSpace(str(ao(initiator, "merchantInitiatedTransaction", "previousTransactionId"))),
		Actions:               strings.Join(strList(lookup(request, "processingInformation", "actionList")), ","),

		ProductSubtype: str(lookup(request, "paymentInformation", "card", "productSubtype")),

		PaymentType: str(lookup(request, "paymentInformation", "paymentType", "name")),
		SessionToken: firstNonEmpty(str(lookup(request, "processorInformation", "preApprovalToken")),
			str(lookup(response, "processorInformation", "token"))),
		Country: strings.ToUpper(strings.TrimSpace(firstNonEmpty(str(lookup(request, "orderInformation", "billTo", "country")),
			str(lookup(request, "orderInformation", "shipTo", "country"))))),

		InstallmentID: str(lookup(response, "installmentInformation", "id")),
		PlanID: firstNonEmpty(str(lookup(request, "installmentInformation", "planId")),
			str(lookup(response, "installmentInformation", "planId"))),
		RefNetworkTransactionID: str(ao("networkTransactionId")),
		RefAuthorizationCode:    str(ao("authorizationCode")),
		RefundAmount:            str(lookup(request, "processingInformation", "refundOptions", "refundAmount")),

		PaymentSolution: str(lookup(request, "processingInformation", "paymentSolution")),
		WalletData:      str(lookup(request, "paymentInformation", "fluidData", "value")) != "",
		TerminalID: firstNonEmpty(str(lookup(response, "pointOfSaleInformation", "terminalId")),
			str(lookup(request, "pointOfSaleInformation", "terminalId"))),
	}
	if list, ok := lookup(request, "healthCareInformation", "amountDetails").([]any); ok {
		for _, e := range list {
			m, _ := e.(map[string]any)
			a.HealthcareAmounts = append(a.HealthcareAmounts, HealthcareAmount{
				Type: strings.ToLower(strings.TrimSpace(str(m["amountType"]))), Amount: strings.TrimSpace(str(m["amount"]))})
		}
	}
	return a
}

// strList reads a JSON array of strings (or one string) as text values.
func strList(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s := strings.TrimSpace(str(e)); s != "" {
				out = append(out, s)
			}
		}
		return out
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return []string{s}
		}
	}
	return nil
}
