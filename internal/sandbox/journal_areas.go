package sandbox

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// How the area calls (plant_calls.go) appear in a merchant's journal: the
// request as the spec shows it and the answer the sandbox's endpoint gives
// (the shapes of payments.go, followons.go, bnpl.go, installments.go).
// Authorizations and sales are gen.go's calls with more fields
// (decorateRequest, decorateResponse); the other kinds have shapes of their
// own (request, response).

// custom reports whether the call has a shape of its own rather than an
// authorization's, sale's, capture's or credit's.
func (x *callExt) custom(c *call) bool { return isAreaKind(c.kind) }

// path is the call's path, or "" for gen.go's.
func (x *callExt) path(c *call) string {
	switch c.kind {
	case callRefund:
		return "/pts/v2/captures/" + c.auth.respID + "/refunds"
	case callReversal:
		return "/pts/v2/payments/" + c.auth.respID + "/reversals"
	case callSession:
		return "/pts/v2/payment-references"
	case callBNPLAuth:
		return "/pts/v2/payments"
	case callBNPLCapture:
		return "/pts/v2/payments/" + c.auth.respID + "/captures"
	case callAccept:
		return "/fin/v1/plan-acceptance/"
	case callCancel:
		return "/fin/v1/plan-acceptance/cancel/"
	}
	return ""
}

// jobj is a JSON object of a journal body.
type jobj = map[string]any

func callAmounts(c *call) jobj {
	return jobj{"totalAmount": moneyIn(c.amount, c.currency), "currency": c.currency}
}

// refundAmounts is a refund's amount as the platform's SDK models it.
func refundAmounts(amount int64, currency string) jobj {
	return jobj{"refundAmount": moneyIn(amount, currency), "currency": currency}
}

func (c *call) address(country string) jobj {
	b := c.bill
	return jobj{"firstName": b.first, "lastName": b.last, "address1": b.address, "locality": b.city,
		"administrativeArea": b.state, "postalCode": b.postal, "country": country, "email": b.email}
}

// request is the body of a call with a shape of its own.
func (x *callExt) request(c *call, careless bool) map[string]any {
	code := jobj{"code": c.code}
	switch c.kind {
	case callRefund, callBNPLCapture:
		return jobj{"clientReferenceInformation": code, "orderInformation": jobj{"amountDetails": callAmounts(c)}}
	case callReversal:
		return jobj{"clientReferenceInformation": code, "reversalInformation": jobj{"amountDetails": callAmounts(c),
			"reason": "order cancelled"}}
	case callSession, callBNPLAuth:
		s := c
		if c.kind == callBNPLAuth {
			s = x.session
		}
		ship := c.address(s.x.country)
		delete(ship, "email")
		req := jobj{"clientReferenceInformation": code,
			"paymentInformation": jobj{"paymentType": jobj{"name": "INVOICE", "method": jobj{"name": x.method}}},
			"orderInformation":   jobj{"amountDetails": callAmounts(c), "billTo": c.address(x.country), "shipTo": ship}}
		if c.kind == callSession {
			req["processingInformation"] = jobj{"actionList": []string{"AP_SESSIONS"}}
			req["merchantInformation"] = jobj{"successURL": "https://shop.example.com/bnpl/success",
				"cancelURL": "https://shop.example.com/bnpl/cancel", "failureURL": "https://shop.example.com/bnpl/failure"}
		} else {
			req["processingInformation"] = jobj{"actionList": []string{"AP_AUTH"}}
			req["processorInformation"] = jobj{"preApprovalToken": s.x.token}
			req["merchantInformation"] = jobj{"successUrl": "https://shop.example.com/bnpl/success",
				"cancelUrl": "https://shop.example.com/bnpl/cancel"}
		}
		return req
	case callAccept, callCancel:
		auth := c.auth
		proc := jobj{"installmentServiceProvider": installmentProvider,
			"authorizationOptions": jobj{"networkTransactionId": auth.networkID}}
		req := jobj{"processingInformation": proc,
			"paymentInformation": jobj{"paymentAccountReference": jobj{"id": par(auth.card)}}}
		if c.kind == callAccept {
			req["installmentInformation"] = jobj{"planId": x.planID, "tcVersion": x.tcVersion}
			return req
		}
		req["orderInformation"] = jobj{"amountDetails": callAmounts(auth)}
		if x.refund > 0 {
			proc["refundOptions"] = jobj{"refundAmount": moneyIn(x.refund, c.currency)}
		}
		return req
	}
	return nil
}

// response is the answer to a call with a shape of its own.
func (x *callExt) response(c *call) map[string]any {
	id := c.respID
	code := jobj{"code": c.code}
	switch c.kind {
	case callRefund:
		self := "/pts/v2/refunds/" + id
		return jobj{"_links": jobj{"self": link{Href: self, Method: http.MethodGet}, "void": link{Href: self + "/voids", Method: http.MethodPost}},
			"id": id, "status": "PENDING", "submitTimeUtc": ts(c.time), "reconciliationId": c.reconcileID,
			"clientReferenceInformation": code, "refundAmountDetails": refundAmounts(c.amount, c.currency),
			"processorInformation": jobj{"approvalCode": c.approval, "networkTransactionId": c.networkID,
				"transactionId": c.networkID, "responseCode": "00"}}
	case callReversal:
		return jobj{"_links": jobj{"self": link{Href: "/pts/v2/reversals/" + id, Method: http.MethodGet}},
			"id": id, "status": "REVERSED", "submitTimeUtc": ts(c.time), "reconciliationId": c.reconcileID,
			"clientReferenceInformation": code,
			"reversalAmountDetails":      jobj{"reversedAmount": moneyIn(c.amount, c.currency), "currency": c.currency},
			"processorInformation":       jobj{"responseCode": "00"}}
	case callSession:
		links := map[string]link{}
		for k, v := range sessionLinks(id, false) {
			links[k] = v
		}
		return jobj{"_links": links, "id": id, "status": sessionPending, "submitTimeUtc": ts(c.time),
			"reconciliationId": c.reconcileID, "clientReferenceInformation": code,
			"orderInformation":     jobj{"amountDetails": callAmounts(c)},
			"processorInformation": jobj{"paymentUrl": "https://sandbox.invalid" + checkoutPath + x.token, "token": x.token}}
	case callBNPLAuth:
		self := "/pts/v2/payments/" + id
		links := jobj{"self": link{Href: self, Method: http.MethodGet}}
		proc := jobj{"transactionId": c.networkID, "responseCode": "00", "responseDetails": strings.ToLower(x.status)}
		resp := jobj{"_links": links, "id": id, "status": x.status, "submitTimeUtc": ts(c.time),
			"reconciliationId": c.reconcileID, "clientReferenceInformation": code,
			"orderInformation": jobj{"amountDetails": callAmounts(c)}, "processorInformation": proc}
		if x.status == "AUTHORIZED" {
			links["authReversal"] = link{Href: self + "/reversals", Method: http.MethodPost}
			links["capture"] = link{Href: self + "/captures", Method: http.MethodPost}
			links["status"] = link{Href: "/pts/v2/refresh-payment-status/" + id, Method: http.MethodPost}
		} else {
			proc["responseCode"] = "05"
			resp["errorInformation"] = jobj{"reason": "INVALID_DATA", "message": "The request has invalid or missing fields",
				"details": []errorDetail{{Field: "orderInformation.billTo.country", Reason: "INVALID_DATA: not a supported country (AU, CA, NZ, GB, US)"}}}
		}
		return resp
	case callBNPLCapture:
		self := "/pts/v2/captures/" + id
		return jobj{"_links": jobj{"self": link{Href: self, Method: http.MethodGet}, "refund": link{Href: self + "/refunds", Method: http.MethodPost}},
			"id": id, "status": "SETTLED", "submitTimeUtc": ts(c.time), "reconciliationId": c.reconcileID,
			"clientReferenceInformation": code, "orderInformation": jobj{"amountDetails": callAmounts(c)},
			"processorInformation": jobj{"transactionId": c.auth.networkID, "responseCode": "00"}}
	case callAccept, callCancel:
		acc := c
		if c.kind == callCancel {
			acc = x.accept
		}
		return jobj{"id": id, "submitTimeUtc": ts(c.time), "status": "ACCEPTED",
			"processorInformation":   jobj{"responseCode": "00"},
			"installmentInformation": jobj{"id": acc.x.acceptID, "planId": acc.x.planID},
			"paymentInformation":     jobj{"paymentAccountReference": jobj{"id": par(c.auth.card)}}}
	}
	return nil
}

// decorateRequest adds to an authorization, sale, capture or credit
// request of gen.go's shape what the call carries beyond it.
func (x *callExt) decorateRequest(c *call, req map[string]any, careless bool) {
	order, _ := req["orderInformation"].(map[string]any)
	proc, _ := req["processingInformation"].(map[string]any)
	if proc == nil {
		proc = jobj{}
	}
	if items, ok := order["lineItems"].([]map[string]any); ok {
		if x.dropField != "" && x.dropItem < len(items) {
			delete(items[x.dropItem], x.dropField)
		}
		if x.percent {
			// 0.08 written as 8.00.
			percent := func(taxes any) {
				list, _ := taxes.([]map[string]any)
				for _, t := range list {
					if r, ok := t["rate"].(string); ok && r == "0.08" {
						t["rate"] = "8.00"
					}
				}
			}
			percent(order["amountDetails"].(map[string]any)["taxDetails"])
			for _, it := range items {
				percent(it["taxDetails"])
			}
		}
	}
	pay, _ := req["paymentInformation"].(map[string]any)
	if len(x.health) > 0 {
		if cardInfo, ok := pay["card"].(map[string]any); ok {
			cardInfo["productSubtype"] = "HC"
		}
		list := make([]jobj, len(x.health))
		for i, h := range x.health {
			list[i] = jobj{"amountType": h.typ, "amount": moneyIn(h.amount, c.currency)}
		}
		req["healthCareInformation"] = jobj{"amountDetails": list}
	}
	if !x.area || c.card == nil {
		return
	}
	// What pays: the card number, its token, wallet data or a device token.
	num := c.card.masked()
	if careless {
		num = c.card.pan
	}
	cardInfo := jobj{"number": num, "expirationMonth": fmt.Sprintf("%02d", c.card.expMonth),
		"expirationYear": fmt.Sprint(c.card.expYear), "type": c.card.cardType()}
	if len(x.health) > 0 {
		cardInfo["productSubtype"] = "HC"
	}
	switch {
	case x.byToken:
		req["paymentInformation"] = jobj{"customer": jobj{"id": c.card.customerID}}
		delete(order, "billTo")
	case x.fluid != nil:
		req["paymentInformation"] = jobj{"card": jobj{"type": c.card.cardType()},
			"fluidData":     jobj{"descriptor": walletDescriptor, "value": base64.StdEncoding.EncodeToString(x.fluid), "encoding": "Base64"},
			"tokenizedCard": jobj{"transactionType": "1"}}
	case x.dpan:
		cardInfo["transactionType"] = "1"
		req["paymentInformation"] = jobj{"tokenizedCard": cardInfo}
	default:
		req["paymentInformation"] = jobj{"card": cardInfo}
	}
	if x.commerce != "" {
		proc["commerceIndicator"] = x.commerce
	}
	if x.solution != "" {
		proc["paymentSolution"] = x.solution
	}
	if x.initiator != "" {
		init := jobj{"type": x.initiator}
		if x.storedOnFile {
			init["credentialStoredOnFile"] = true
		}
		if x.initiator == "merchant" {
			init["storedCredentialUsed"] = true
			mit := jobj{}
			if x.reason != "" {
				mit["reason"] = x.reason
			}
			if p := x.previous(); p != "" {
				mit["previousTransactionId"] = p
			}
			if len(mit) > 0 {
				init["merchantInitiatedTransaction"] = mit
			}
		}
		proc["authorizationOptions"] = jobj{"initiator": init}
	}
	if x.tokenCreate {
		proc["actionList"] = []string{"TOKEN_CREATE"}
		proc["actionTokenTypes"] = []string{"customer", "paymentInstrument", "instrumentIdentifier"}
	}
	if x.firstRecur {
		proc["recurringOptions"] = jobj{"firstRecurringPayment": true}
	}
	if x.terminal != "" {
		req["pointOfSaleInformation"] = jobj{"terminalId": x.terminal, "entryMode": "contactless"}
	}
	req["processingInformation"] = proc
}

// decorateResponse adds to an answer of gen.go's shape what the platform
// answers beyond it (payments.go: approvedExtras, and its decline).
func (x *callExt) decorateResponse(c *call, resp map[string]any) {
	if !x.area || c.card == nil {
		return
	}
	proc := resp["processorInformation"].(map[string]any)
	if c.kind != callAuth && c.kind != callSale {
		return
	}
	proc["paymentAccountReferenceNumber"] = par(c.card)
	proc["authIndicator"] = "1"
	if x.fluid != nil || x.dpan {
		resp["paymentInformation"] = jobj{"tokenizedCard": jobj{"type": c.card.cardType()}}
	} else if !x.byToken {
		resp["paymentInformation"] = jobj{"card": jobj{"type": c.card.cardType()}}
	}
	if len(x.health) > 0 {
		self := "/pts/v2/payments/" + c.respID
		resp["_links"] = jobj{"void": link{Href: self + "/voids", Method: http.MethodPost}, "self": link{Href: self, Method: http.MethodGet}}
	}
	if x.tokenCreate {
		resp["tokenInformation"] = tokenInformation(c.card)
	}
	if x.terminal != "" {
		resp["pointOfSaleInformation"] = jobj{"terminalId": x.terminal}
	}
}
