package sandbox

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// Test cards (Luhn-valid) on BINs of the sandbox's table (bins.go).
const (
	visaCredit2   = "4111111111111111" // 411111: consumer credit
	visaPurchase2 = "4485900000000007" // 448590: commercial (purchasing)
	visaHealth2   = "4715100000000006" // 471510: healthcare (HSA) debit
)

func billToUS() obj {
	return obj{"firstName": "Ana", "lastName": "Diaz", "address1": "1 Market St", "locality": "Austin",
		"administrativeArea": "TX", "postalCode": "78701", "country": "US", "email": "ana@example.com"}
}

// cardBody is an authorization (capture false) or sale of amount on pan.
func cardBody(pan, amount string, capture bool) obj {
	return obj{"clientReferenceInformation": obj{"code": "T-" + amount},
		"processingInformation": obj{"capture": capture, "commerceIndicator": "internet"},
		"paymentInformation":    obj{"card": obj{"number": pan, "expirationMonth": "12", "expirationYear": "2031", "type": "001"}},
		"orderInformation":      obj{"amountDetails": obj{"totalAmount": amount, "currency": "USD"}, "billTo": billToUS()}}
}

// newCustomerToken makes a customer token with a CIT that stores the card
// (TOKEN_CREATE), as a merchant does before creating a subscription.
func newCustomerToken(t *testing.T, c *tclient, mid string) string {
	t.Helper()
	b := cardBody(visaCredit2, "1.00", false)
	b["processingInformation"] = obj{"actionList": []string{"TOKEN_CREATE"}, "actionTokenTypes": []string{"customer", "instrumentIdentifier"},
		"commerceIndicator": "internet", "authorizationOptions": obj{"initiator": obj{"type": "customer", "credentialStoredOnFile": true}}}
	resp := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
	id := str(resp, "tokenInformation.customer.id")
	if id == "" {
		t.Fatalf("no customer token: %v", resp)
	}
	return id
}

// searchIDs runs a Transaction Search of the member over the data clock's
// day and returns the summaries by id.
func searchIDs(t *testing.T, c *tclient, mid string, s *Server) map[string]tSummary {
	day := utcDay(s.Clock())
	out := map[string]tSummary{}
	for _, sum := range c.with(t).searchAll(mid, day, day.AddDate(0, 0, 1), 2000) {
		out[sum.ID] = sum
	}
	return out
}

func TestContractCardPayments(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 5})
	mid := memberID(1)
	var authID string
	t.Run("Authorization response fields: id, status, reconciliationId, authorizedAmount, processorInformation, _links", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "25.00", false), 201)
		authID = str(r, "id")
		if str(r, "status") != "AUTHORIZED" || len(authID) != 22 || len(str(r, "reconciliationId")) != 12 ||
			str(r, "orderInformation.amountDetails.authorizedAmount") != "25.00" || str(r, "orderInformation.amountDetails.currency") != "USD" ||
			len(str(r, "processorInformation.networkTransactionId")) != 20 || len(str(r, "processorInformation.approvalCode")) != 6 ||
			str(r, "paymentAccountInformation.card.type") != "001" || len(str(r, "processorInformation.paymentAccountReferenceNumber")) != 29 {
			t.Fatalf("authorization %v", r)
		}
		// The links the journals carry for an authorization.
		sameLinks(t, r, map[string]string{"self": "GET", "capture": "POST", "authReversal": "POST"})
		again := c.with(t).j("GET", "/pts/v2/payments/"+authID, mid, nil, 200)
		if str(again, "id") != authID {
			t.Fatalf("self link answers %v", again)
		}
	})
	t.Run("Missing required fields: 400 with the missing fields", func(t *testing.T) {
		b := cardBody(visaCredit2, "25.00", false)
		delete(b["orderInformation"].(obj), "billTo")
		eb := c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
		wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", "orderInformation.billTo.email", "MISSING_FIELD")
		b = cardBody("4111111111111112", "25.00", false)
		wantError(t, c.with(t).j("POST", "/pts/v2/payments", mid, b, 400), "INVALID_REQUEST", "INVALID_DATA", "paymentInformation.card.number", "")
	})
	t.Run("When relaxed address and expiry requirements are enabled for the account, not all listed fields are required", func(t *testing.T) {
		if err := s.SetMerchantSettings(memberID(3), MerchantSettings{Level3Enabled: true, RelaxedRequirements: true}); err != nil {
			t.Fatal(err)
		}
		b := cardBody(visaCredit2, "5.00", true)
		delete(b["orderInformation"].(obj), "billTo")
		delete(b["paymentInformation"].(obj)["card"].(obj), "expirationMonth")
		c.with(t).j("POST", "/pts/v2/payments", memberID(3), b, 201)
	})
	var captureID string
	t.Run("POST /pts/v2/payments/{id}/captures ({id} is the transaction ID from the authorization)", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments/"+authID+"/captures", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "20.00", "currency": "USD"}}}, 201)
		captureID = str(r, "id")
		if str(r, "status") != "PENDING" || str(r, "orderInformation.invoiceDetails.level3TransmissionStatus") != "" {
			t.Fatalf("capture %v", r)
		}
		sameLinks(t, r, map[string]string{"self": "GET", "void": "POST"})
		if !strings.HasSuffix(str(r, "_links.void.href"), "/pts/v2/captures/"+captureID+"/voids") {
			t.Fatalf("void link %v", r["_links"])
		}
		// At most what remains of the authorization.
		eb := c.with(t).j("POST", "/pts/v2/payments/"+authID+"/captures", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "5.01", "currency": "USD"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "orderInformation.amountDetails.totalAmount", "INVALID_DATA")
		// A captured authorization is not reversed.
		c.with(t).j("POST", "/pts/v2/payments/"+authID+"/reversals", mid, obj{}, 400)
	})
	t.Run("reversal and void", func(t *testing.T) {
		a := str(c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "7.00", false), 201), "id")
		r := c.with(t).j("POST", "/pts/v2/payments/"+a+"/reversals", mid, obj{"reversalInformation": obj{"reason": "customer"}}, 201)
		if str(r, "status") != "REVERSED" || str(r, "reversalAmountDetails.reversedAmount") != "7.00" {
			t.Fatalf("reversal %v", r)
		}
		c.with(t).j("POST", "/pts/v2/payments/"+a+"/reversals", mid, obj{}, 400)
		c.with(t).j("POST", "/pts/v2/payments/"+a+"/captures", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "1.00", "currency": "USD"}}}, 400)
		v := c.with(t).j("POST", "/pts/v2/captures/"+captureID+"/voids", mid, obj{}, 201)
		if str(v, "status") != "VOIDED" || str(v, "voidAmountDetails.voidAmount") != "20.00" {
			t.Fatalf("void %v", v)
		}
		c.with(t).j("POST", "/pts/v2/captures/"+captureID+"/voids", mid, obj{}, 400)
	})
	t.Run("a sale: processingInformation.capture true; refund; void only before settlement", func(t *testing.T) {
		sale := c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "30.00", true), 201)
		sameLinks(t, sale, map[string]string{"self": "GET", "void": "POST"})
		id := str(sale, "id")
		ref := c.with(t).j("POST", "/pts/v2/payments/"+id+"/refunds", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "10.00", "currency": "USD"}}}, 201)
		if str(ref, "status") != "PENDING" {
			t.Fatalf("refund %v", ref)
		}
		c.with(t).j("POST", "/pts/v2/payments/"+id+"/refunds", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "20.01", "currency": "USD"}}}, 400)
		// Settled in the nightly batch: no void the next day.
		if _, err := s.AdvanceClock(24 * time.Hour); err != nil {
			t.Fatal(err)
		}
		eb := c.with(t).j("POST", "/pts/v2/payments/"+id+"/voids", mid, obj{}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "id", "NOT_VOIDABLE")
	})
	t.Run("a credit: POST /pts/v2/credits with the Level II billing and card fields", func(t *testing.T) {
		b := cardBody(visaCredit2, "12.00", false)
		delete(b, "processingInformation")
		r := c.with(t).j("POST", "/pts/v2/credits", mid, b, 201)
		if str(r, "status") != "PENDING" || !strings.HasPrefix(str(r, "_links.self.href"), "/pts/v2/credits/") {
			t.Fatalf("credit %v", r)
		}
		// "One list spells the state field administrationArea."
		bt := b["orderInformation"].(obj)["billTo"].(obj)
		bt["administrationArea"] = bt["administrativeArea"]
		delete(bt, "administrativeArea")
		c.with(t).j("POST", "/pts/v2/credits", mid, b, 201)
		delete(bt, "administrationArea")
		eb := c.with(t).j("POST", "/pts/v2/credits", mid, b, 400)
		wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", "orderInformation.billTo.administrativeArea", "MISSING_FIELD")
	})
	t.Run("Transaction Search and transaction detail reflect every payment the sandbox processed", func(t *testing.T) {
		d := c.with(t).j("GET", "/tss/v2/transactions/"+authID, mid, nil, 200)
		apps := arr(d, "applicationInformation.applications")
		if str(d, "id") != authID || str(d, "orderInformation.amountDetails.totalAmount") != "25.00" || str(d, "paymentInformation.card.prefix") != "411111" ||
			len(apps) != 1 || str(apps[0], "name") != "ics_auth" || str(d, "applicationInformation.status") != "AUTHORIZED" {
			t.Fatalf("auth detail %v", d)
		}
		// Everything since the business day: the clock moved a day on
		// after the sale.
		all := map[string]tSummary{}
		for _, sum := range c.with(t).searchAll(mid, testDate, s.Clock().Add(time.Hour), 2000) {
			all[sum.ID] = sum
		}
		if _, ok := all[authID]; !ok {
			t.Fatal("authorization not in Transaction Search")
		}
		if _, ok := all[captureID]; !ok {
			t.Fatal("capture not in Transaction Search")
		}
		kinds := map[string]int{}
		for _, sum := range all {
			for _, a := range sum.ApplicationInformation.Applications {
				kinds[a.Name]++
			}
		}
		for _, k := range []string{"ics_auth", "ics_bill", "ics_credit", "ics_auth_reversal", "ics_void"} {
			if kinds[k] == 0 {
				t.Errorf("no %s in Transaction Search: %v", k, kinds)
			}
		}
	})
}

func TestContractCredentialed(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 5})
	mid := memberID(1)
	cit := func(ci string) obj {
		b := cardBody(visaCredit2, "3.00", false)
		b["processingInformation"] = obj{"commerceIndicator": ci,
			"authorizationOptions": obj{"initiator": obj{"type": "customer", "credentialStoredOnFile": true}}}
		return b
	}
	var nti string
	t.Run("Initial CIT storing credentials: initiator.type customer, credentialStoredOnFile true, commerceIndicator internet, MOTO or payer authentication value", func(t *testing.T) {
		for _, ci := range []string{"internet", "MOTO", "vbv", "spa"} {
			r := c.with(t).j("POST", "/pts/v2/payments", mid, cit(ci), 201)
			nti = str(r, "processorInformation.networkTransactionId")
			if str(r, "status") != "AUTHORIZED" || nti == "" {
				t.Fatalf("%s: %v", ci, r)
			}
		}
		eb := c.with(t).j("POST", "/pts/v2/payments", mid, cit("recurring"), 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "processingInformation.commerceIndicator", "INVALID_DATA")
		c.with(t).j("POST", "/pts/v2/payments", mid, cit("nonsense"), 400)
	})
	t.Run("In regions that mandate strong customer authentication, the CIT that establishes stored credentials must be strongly authenticated", func(t *testing.T) {
		b := cit("internet")
		b["orderInformation"].(obj)["billTo"].(obj)["country"] = "FR"
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if str(r, "status") != "DECLINED" || str(r, "errorInformation.reason") != "CUSTOMER_AUTHENTICATION_REQUIRED" {
			t.Fatalf("unauthenticated CIT in FR: %v", r)
		}
		b = cit("vbv")
		b["orderInformation"].(obj)["billTo"].(obj)["country"] = "FR"
		if r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201); str(r, "status") != "AUTHORIZED" {
			t.Fatalf("authenticated CIT in FR: %v", r)
		}
	})
	t.Run("Subsequent MIT with PAN: initiator.type merchant, storedCredentialUsed true, previousTransactionId", func(t *testing.T) {
		b := cardBody(visaCredit2, "3.00", true)
		b["processingInformation"] = obj{"capture": true, "commerceIndicator": "recurring",
			"authorizationOptions": obj{"initiator": obj{"type": "merchant", "storedCredentialUsed": true,
				"merchantInitiatedTransaction": obj{"reason": "7"}}}}
		eb := c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
		wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", "processingInformation.authorizationOptions.initiator.merchantInitiatedTransaction.previousTransactionId", "")
		b["processingInformation"].(obj)["authorizationOptions"].(obj)["initiator"].(obj)["merchantInitiatedTransaction"].(obj)["previousTransactionId"] = nti
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		d := c.with(t).j("GET", "/tss/v2/transactions/"+str(r, "id"), mid, nil, 200)
		if str(d, "processingInformation.authorizationOptions.initiator.merchantInitiatedTransaction.previousTransactionId") != nti ||
			str(d, "processingInformation.commerceIndicator") != "recurring" {
			t.Fatalf("MIT detail %v", d)
		}
	})
	var customer, instrument, nti2 string
	t.Run("CIT creating tokens: actionList TOKEN_CREATE, actionTokenTypes; tokenInformation returned when tokens are created", func(t *testing.T) {
		b := cit("internet")
		p := b["processingInformation"].(obj)
		p["actionList"] = []string{"TOKEN_CREATE"}
		p["actionTokenTypes"] = []string{"customer", "paymentInstrument", "instrumentIdentifier"}
		p["recurringOptions"] = obj{"firstRecurringPayment": true}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		customer, instrument = str(r, "tokenInformation.customer.id"), str(r, "tokenInformation.instrumentIdentifier.id")
		nti2 = str(r, "processorInformation.networkTransactionId")
		if customer == "" || instrument == "" || str(r, "tokenInformation.paymentInstrument.id") == "" ||
			str(r, "tokenInformation.instrumentIdentifier.state") != "ACTIVE" || str(r, "tokenInformation.instrumentidentifierNew") != "true" {
			t.Fatalf("tokens %v", r)
		}
		// The same card again: the instrument identifier is not new.
		r = c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if str(r, "tokenInformation.instrumentIdentifier.id") != instrument || str(r, "tokenInformation.instrumentidentifierNew") != "false" {
			t.Fatalf("second tokenization %v", r)
		}
		p["actionTokenTypes"] = []string{"shippingAddress"}
		c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
		// A token looks up like its card.
		if got := c.with(t).binLookup(tokenLookup("customer", customer)); got != "COMPLETED/CONSUMER" {
			t.Fatalf("bin lookup of the new token: %s", got)
		}
	})
	t.Run("MIT unscheduled with token: one paymentInformation token identifier, reason 10; the stored transaction id is used unless the merchant gives one", func(t *testing.T) {
		b := obj{"clientReferenceInformation": obj{"code": "MIT-1"},
			"processingInformation": obj{"capture": true, "commerceIndicator": "internet", "authorizationOptions": obj{"initiator": obj{
				"type": "merchant", "storedCredentialUsed": true, "merchantInitiatedTransaction": obj{"reason": "10"}}}},
			"paymentInformation": obj{"customer": obj{"id": customer}},
			"orderInformation":   obj{"amountDetails": obj{"totalAmount": "4.00", "currency": "USD"}}}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		d := c.with(t).j("GET", "/tss/v2/transactions/"+str(r, "id"), mid, nil, 200)
		prev := "processingInformation.authorizationOptions.initiator.merchantInitiatedTransaction.previousTransactionId"
		if str(d, prev) != nti2 || str(d, "paymentInformation.customer.id") != customer {
			t.Fatalf("MIT with token: %v", d)
		}
		// "The merchant-supplied original or network transaction identifier
		// takes precedence over one stored with a token."
		b["processingInformation"].(obj)["authorizationOptions"].(obj)["initiator"].(obj)["merchantInitiatedTransaction"].(obj)["previousTransactionId"] = nti
		r = c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if d := c.with(t).j("GET", "/tss/v2/transactions/"+str(r, "id"), mid, nil, 200); str(d, prev) != nti {
			t.Fatalf("merchant id does not take precedence: %v", d)
		}
		b["paymentInformation"] = obj{"customer": obj{"id": customer}, "instrumentIdentifier": obj{"id": instrument}}
		c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
	})
	t.Run("CIT with device token: paymentSolution, tokenizedCard.transactionType 1, TOKEN_CREATE instrumentIdentifier", func(t *testing.T) {
		b := obj{"clientReferenceInformation": obj{"code": "DEV-1"},
			"processingInformation": obj{"paymentSolution": "012", "commerceIndicator": "internet", "actionList": []string{"TOKEN_CREATE"},
				"actionTokenTypes": []string{"instrumentIdentifier"}},
			"paymentInformation": obj{"tokenizedCard": obj{"number": visaCredit2, "expirationMonth": "11", "expirationYear": "2030", "transactionType": "1", "type": "001"}},
			"orderInformation":   obj{"amountDetails": obj{"totalAmount": "2.00", "currency": "USD"}, "billTo": billToUS()}}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if str(r, "tokenInformation.instrumentIdentifier.id") == "" || str(r, "paymentInformation.tokenizedCard.type") != "001" {
			t.Fatalf("device token CIT %v", r)
		}
		b["processingInformation"].(obj)["paymentSolution"] = "999"
		c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
	})
}

func TestContractWalletHealthcareLevel3(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 5})
	mid := memberID(1)
	wallet := func() obj {
		payload := base64.StdEncoding.EncodeToString([]byte(`{"applicationPrimaryAccountNumber":"` + visaCredit2 + `"}`))
		return obj{"clientReferenceInformation": obj{"code": "WALLET-1"},
			"processingInformation": obj{"paymentSolution": "001"},
			"paymentInformation": obj{"fluidData": obj{"descriptor": walletDescriptor, "value": payload, "encoding": "Base64"},
				"tokenizedCard": obj{"transactionType": "1", "type": "001"}},
			"orderInformation": obj{"amountDetails": obj{"totalAmount": "8.00", "currency": "USD"}, "billTo": billToUS()}}
	}
	t.Run("Device-wallet: required for a service-decrypted in-app payment: code, amount, billTo, card type, fluidData descriptor and value, transactionType 1, paymentSolution 001", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments", mid, wallet(), 201)
		if str(r, "status") != "AUTHORIZED" || str(r, "paymentInformation.tokenizedCard.type") != "001" {
			t.Fatalf("wallet %v", r)
		}
		d := c.with(t).j("GET", "/tss/v2/transactions/"+str(r, "id"), mid, nil, 200)
		if str(d, "processingInformation.paymentSolution") != "001" || str(d, "paymentInformation.card.prefix") != "411111" {
			t.Fatalf("wallet detail %v", d)
		}
		// "Capture, reversal and credit use the request ID of the earlier authorization."
		c.with(t).j("POST", "/pts/v2/payments/"+str(r, "id")+"/captures", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "8.00", "currency": "USD"}}}, 201)
		for _, drop := range []string{"descriptor", "value"} {
			b := wallet()
			delete(b["paymentInformation"].(obj)["fluidData"].(obj), drop)
			if drop == "value" {
				b["paymentInformation"].(obj)["card"] = obj{"type": "001"}
				c.with(t).j("POST", "/pts/v2/payments", mid, b, 400)
				continue
			}
			wantError(t, c.with(t).j("POST", "/pts/v2/payments", mid, b, 400), "INVALID_REQUEST", "MISSING_FIELD", "paymentInformation.fluidData.descriptor", "")
		}
		b := wallet()
		b["paymentInformation"].(obj)["fluidData"].(obj)["descriptor"] = "WRONG"
		wantError(t, c.with(t).j("POST", "/pts/v2/payments", mid, b, 400), "INVALID_REQUEST", "INVALID_DATA", "paymentInformation.fluidData.descriptor", "")
	})
	t.Run("Healthcare: productSubtype HC and healthCareInformation.amountDetails[]; response _links void and self, status AUTHORIZED", func(t *testing.T) {
		b := cardBody(visaHealth2, "40.00", false)
		b["paymentInformation"].(obj)["card"].(obj)["productSubtype"] = "HC"
		b["healthCareInformation"] = obj{"amountDetails": []obj{{"amountType": "healthcare", "amount": "40.00"}, {"amountType": "prescription", "amount": "15.00"}}}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if str(r, "status") != "AUTHORIZED" || str(r, "orderInformation.amountDetails.authorizedAmount") != "40.00" {
			t.Fatalf("healthcare %v", r)
		}
		sameLinks(t, r, map[string]string{"void": "POST", "self": "GET"})
		// Healthcare debit cards are rejected by the issuer without the breakdown.
		if r := c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaHealth2, "40.00", false), 201); str(r, "status") != "DECLINED" {
			t.Fatalf("healthcare card without healthcare amounts: %v", r)
		}
		bad := cardBody(visaHealth2, "40.00", false)
		bad["healthCareInformation"] = obj{"amountDetails": []obj{{"amountType": "cosmetic", "amount": "1.00"}}}
		c.with(t).j("POST", "/pts/v2/payments", mid, bad, 400)
		// "Healthcare fields are not sent on captures, refunds, credits or other follow-on transactions."
		eb := c.with(t).j("POST", "/pts/v2/payments/"+str(r, "id")+"/captures", mid, obj{"healthCareInformation": b["healthCareInformation"],
			"orderInformation": obj{"amountDetails": obj{"totalAmount": "40.00", "currency": "USD"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "healthCareInformation", "INVALID_DATA")
		// The void link offered on the authorization works, and ends it.
		v := c.with(t).j("POST", str(r, "_links.void.href"), mid, obj{}, 201)
		if str(v, "status") != "VOIDED" || str(v, "voidAmountDetails.voidAmount") != "40.00" {
			t.Fatalf("void of the healthcare authorization: %v", v)
		}
		eb = c.with(t).j("POST", "/pts/v2/payments/"+str(r, "id")+"/captures", mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "40.00", "currency": "USD"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "id", "NOT_CAPTURABLE")
		eb = c.with(t).j("POST", str(r, "_links.void.href"), mid, obj{}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "id", "NOT_VOIDABLE")
	})
	level3 := func(amount string) obj {
		return obj{"processingInformation": obj{"purchaseLevel": "3"},
			"orderInformation": obj{"amountDetails": obj{"totalAmount": amount, "currency": "USD", "taxDetails": []obj{{"amount": "0.80", "rate": "0.08"}}},
				"invoiceDetails": obj{"purchaseOrderNumber": "PO-1", "commodityCode": "44103103"},
				"lineItems": []obj{{"productCode": "SKU-1", "commodityCode": "44103103", "quantity": "1", "unitOfMeasure": "EA", "unitPrice": amount,
					"discountAmount": "0.00", "discountRate": "0.00", "taxAmount": "0.80", "taxDetails": []obj{{"rate": "0.08"}}}}}}
	}
	var auth string
	t.Run("Level III: level3TransmissionStatus returned on captures, sales and credits; not on an authorization", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaPurchase2, "10.00", false), 201)
		auth = str(r, "id")
		if str(r, "orderInformation.invoiceDetails.level3TransmissionStatus") != "" {
			t.Fatalf("authorization carries a transmission status: %v", r)
		}
		cp := c.with(t).j("POST", "/pts/v2/payments/"+auth+"/captures", mid, level3("10.00"), 201)
		if str(cp, "orderInformation.invoiceDetails.level3TransmissionStatus") != "Y" {
			t.Fatalf("Level III capture %v", cp)
		}
		// Level II or III omitted: not rejected.
		r = c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaPurchase2, "11.00", true), 201)
		if str(r, "orderInformation.invoiceDetails.level3TransmissionStatus") != "" {
			t.Fatalf("sale without Level III carries a status: %v", r)
		}
	})
	t.Run("Level III batching error at the processor: request not rejected; level3TransmissionStatus N", func(t *testing.T) {
		if err := s.SetMerchantSettings(mid, MerchantSettings{Level3Enabled: true, Level3BatchingError: true}); err != nil {
			t.Fatal(err)
		}
		sale := cardBody(visaPurchase2, "10.00", true)
		for k, v := range level3("10.00") {
			if k == "orderInformation" {
				for kk, vv := range v.(obj) {
					sale["orderInformation"].(obj)[kk] = vv
				}
			} else {
				sale["processingInformation"].(obj)["purchaseLevel"] = "3"
			}
		}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, sale, 201)
		if str(r, "orderInformation.invoiceDetails.level3TransmissionStatus") != "N" {
			t.Fatalf("batching error sale %v", r)
		}
		if err := s.SetMerchantSettings(mid, DefaultMerchantSettings()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Level III sent from an account not enabled for it: error for invalid data", func(t *testing.T) {
		other := memberID(4)
		if err := s.SetMerchantSettings(other, MerchantSettings{}); err != nil {
			t.Fatal(err)
		}
		a := str(c.with(t).j("POST", "/pts/v2/payments", other, cardBody(visaPurchase2, "10.00", false), 201), "id")
		eb := c.with(t).j("POST", "/pts/v2/payments/"+a+"/captures", other, level3("10.00"), 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "processingInformation.purchaseLevel", "INVALID_DATA")
	})
	t.Run("Format rules: tax rates carry a decimal point (1 percent is 0.01)", func(t *testing.T) {
		a := str(c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaPurchase2, "10.00", false), 201), "id")
		b := level3("10.00")
		b["orderInformation"].(obj)["amountDetails"].(obj)["taxDetails"] = []obj{{"amount": "0.80", "rate": "8"}}
		eb := c.with(t).j("POST", "/pts/v2/payments/"+a+"/captures", mid, b, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "orderInformation.amountDetails.taxDetails[0].rate", "INVALID_DATA")
		// "String fields of any length are accepted."
		b = level3("10.00")
		b["orderInformation"].(obj)["invoiceDetails"].(obj)["purchaseOrderNumber"] = strings.Repeat("P", 200)
		c.with(t).j("POST", "/pts/v2/payments/"+a+"/captures", mid, b, 201)
	})
}
