package sandbox

import (
	"fmt"
	"testing"
	"time"
)

func plansBody(pan, amount string) obj {
	return obj{"processingInformation": obj{"installmentServiceProvider": installmentProvider},
		"paymentInformation": obj{"card": obj{"number": pan}},
		"orderInformation":   obj{"amountDetails": obj{"totalAmount": amount, "currency": "USD"}}}
}

func TestContractInstallments(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 4})
	mid := memberID(1)
	planIDs := func(t *testing.T, r obj) []string {
		var ids []string
		for _, p := range arr(r, "installmentInformation.planDetails") {
			ids = append(ids, str(p, "planId"))
		}
		return ids
	}
	t.Run("get plans: 201, status ACCEPTED, planDetails[]; plans expired or expiring within 24 hours are omitted", func(t *testing.T) {
		r := c.with(t).j("POST", "/fin/v1/plans/", mid, plansBody(visaCredit2, "600.00"), 201)
		if str(r, "status") != "ACCEPTED" || str(r, "processorInformation.responseCode") == "" || str(r, "id") == "" {
			t.Fatalf("answer %v", r)
		}
		ids := planIDs(t, r)
		want := []string{"SBX-IP-03M-MERCHANT", "SBX-IP-06M-CONSUMER", "SBX-IP-12M-ISLAMIC", "SBX-IP-18M-MERCHANT"}
		if len(ids) != len(want) {
			t.Fatalf("plans %v, want %v", ids, want)
		}
		for i := range want {
			if ids[i] != want[i] {
				t.Fatalf("plans %v, want %v", ids, want)
			}
		}
		// A plan's fields.
		p := arr(r, "installmentInformation.planDetails")[1]
		if str(p, "planType") != "ISSUER_DEFAULT" || str(p, "frequency") != "MONTHLY" || len(str(p, "identifier")) != 10 ||
			arr(p, "fundedBy")[0] != "CONSUMER" || len(arr(p, "amountDetails.fees")) != 2 ||
			str(p, "amountDetails.firstInstallment.totalAmountExcludingUpfrontFee") != "103.00" ||
			str(p, "amountDetails.totalPlanAmount") != "628.00" || str(p, "amountDetails.currency") != "USD" ||
			str(arr(p, "termsAndConditions")[0], "version") == "" {
			t.Fatalf("consumer-funded plan %v", p)
		}
		// "Fees exist only when fundedBy is CONSUMER."
		m := arr(r, "installmentInformation.planDetails")[0]
		if arr(m, "fundedBy")[0] != "MERCHANT" || dig(m, "amountDetails", "fees") != nil || str(m, "amountDetails.totalFeeAmount") != "0.00" {
			t.Fatalf("merchant-funded plan %v", m)
		}
		// "true means show text by Islamic banking principles; no value means not an Islamic plan."
		if str(arr(r, "installmentInformation.planDetails")[2], "isIslamicPlan") != "true" || dig(m, "isIslamicPlan") != nil {
			t.Fatal("isIslamicPlan")
		}
		// "empty array when no plan matches"
		for _, b := range []obj{plansBody(visaPurchase2, "600.00"), plansBody(visaCredit2, "50.00")} {
			r := c.with(t).j("POST", "/fin/v1/plans/", mid, b, 201)
			if d, ok := dig(r, "installmentInformation", "planDetails").([]any); !ok || len(d) != 0 {
				t.Fatalf("no plan: %v", r)
			}
		}
		eb := c.with(t).j("POST", "/fin/v1/plans/", mid, obj{}, 400)
		wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", "processingInformation.installmentServiceProvider", "")
	})

	auth := c.j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "600.00", false), 201)
	authID, code, nti := str(auth, "id"), str(auth, "processorInformation.approvalCode"), str(auth, "processorInformation.networkTransactionId")
	parID := str(auth, "processorInformation.paymentAccountReferenceNumber")
	authTime := str(auth, "submitTimeUtc")
	selectBody := func(byNTI bool, plan string) obj {
		ao := obj{"authorizationCode": code}
		if byNTI {
			ao = obj{"networkTransactionId": nti}
		}
		return obj{"processingInformation": obj{"installmentServiceProvider": installmentProvider, "authorizationOptions": ao},
			"installmentInformation": obj{"planId": plan, "tcVersion": "3.0"},
			"paymentInformation":     obj{"paymentAccountReference": obj{"id": parID}},
			"orderInformation":       obj{"amountDetails": obj{"totalAmount": "600.00", "currency": "USD"}}}
	}
	var acceptID string
	t.Run("select plan: links an authorization to the chosen plan; status ACCEPTED with installmentInformation.id", func(t *testing.T) {
		r := c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, selectBody(false, "SBX-IP-06M-CONSUMER"), 201)
		acceptID = str(r, "installmentInformation.id")
		if str(r, "status") != "ACCEPTED" || acceptID == "" || len(acceptID) > 50 || str(r, "installmentInformation.planId") != "SBX-IP-06M-CONSUMER" {
			t.Fatalf("select %v", r)
		}
		d := c.with(t).j("GET", "/tss/v2/transactions/"+authID, mid, nil, 200)
		if str(d, "installmentInformation.planId") != "SBX-IP-06M-CONSUMER" {
			t.Fatalf("authorization record %v", d["installmentInformation"])
		}
		// A plan no longer on offer; the wrong terms version.
		c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, selectBody(false, "SBX-IP-24M-CONSUMER"), 400)
		b := selectBody(false, "SBX-IP-03M-MERCHANT")
		b["installmentInformation"].(obj)["tcVersion"] = "9.9"
		c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, b, 400)
	})
	cancelBody := func(byNTI bool) obj {
		ao := obj{"authorizationCode": code, "authorizationDateTime": authTime}
		if byNTI {
			ao = obj{"networkTransactionId": nti}
		}
		return obj{"processingInformation": obj{"installmentServiceProvider": installmentProvider, "authorizationOptions": ao},
			"paymentInformation": obj{"paymentAccountReference": obj{"id": parID}},
			"orderInformation":   obj{"amountDetails": obj{"totalAmount": "600.00", "currency": "USD"}}}
	}
	t.Run("cancelling by network transaction ID requires it to have been sent in the select request", func(t *testing.T) {
		eb := c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, cancelBody(true), 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", authOpts+"networkTransactionId", "INVALID_DATA")
	})
	t.Run("either paymentAccountReference.id or exactly one token identifier", func(t *testing.T) {
		b := cancelBody(false)
		b["tokenInformation"] = obj{"jti": "x"}
		c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, b, 400)
		b = cancelBody(false)
		b["paymentInformation"] = obj{}
		c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, b, 400)
		b["tokenInformation"] = obj{"jti": "x", "transientTokenJwt": "y"}
		c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, b, 400)
	})
	t.Run("partial refund: below the total order amount; multiple partial refunds cannot exceed the captured amount", func(t *testing.T) {
		refund := func(amount string, want int) obj {
			b := cancelBody(false)
			b["processingInformation"].(obj)["refundOptions"] = obj{"refundAmount": amount}
			return c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, b, want)
		}
		// Nothing captured yet.
		refund("10.00", 400)
		c.with(t).j("POST", "/pts/v2/payments/"+authID+"/captures", mid, obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "100.00", "currency": "USD"}}}, 201)
		refund("60.00", 201)
		refund("40.00", 201)
		eb := refund("0.01", 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "processingInformation.refundOptions.refundAmount", "INVALID_DATA")
		refund("600.00", 400)
		refund("-1.00", 400)
		refund("1.001", 400)
	})
	t.Run("cancel: status ACCEPTED with the PAR, installmentInformation.id and planId; by authorization code with its time", func(t *testing.T) {
		r := c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, cancelBody(false), 201)
		if str(r, "status") != "ACCEPTED" || str(r, "installmentInformation.id") != acceptID || str(r, "paymentInformation.paymentAccountReference.id") != parID {
			t.Fatalf("cancel %v", r)
		}
		c.with(t).j("POST", "/fin/v1/plan-acceptance/cancel/", mid, cancelBody(false), 400)
	})
	t.Run("Field lengths: authorization code 6; network transaction ID 20; plan ID 50; terms version 36", func(t *testing.T) {
		b := selectBody(true, "SBX-IP-03M-MERCHANT")
		b["processingInformation"].(obj)["authorizationOptions"] = obj{"networkTransactionId": nti + "1"}
		b["installmentInformation"].(obj)["tcVersion"] = string(make([]byte, 37))
		eb := c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, b, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", authOpts+"networkTransactionId", "INVALID_DATA")
		// The details come in the fields' order, the same every time.
		want := fmt.Sprint(arr(eb, "details"))
		for range 10 {
			if got := fmt.Sprint(arr(c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, b, 400), "details")); got != want {
				t.Fatalf("details %s, then %s", want, got)
			}
		}
	})
	t.Run("Cancellation is required after the authorization is reversed once a plan was selected", func(t *testing.T) {
		a := c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "300.00", false), 201)
		b := obj{"processingInformation": obj{"installmentServiceProvider": installmentProvider,
			"authorizationOptions": obj{"networkTransactionId": str(a, "processorInformation.networkTransactionId")}},
			"installmentInformation": obj{"planId": "SBX-IP-03M-MERCHANT"},
			"paymentInformation":     obj{"paymentAccountReference": obj{"id": str(a, "processorInformation.paymentAccountReferenceNumber")}}}
		c.with(t).j("POST", "/fin/v1/plan-acceptance/", mid, b, 201)
		c.with(t).j("POST", "/pts/v2/payments/"+str(a, "id")+"/reversals", mid, obj{}, 201)
		d := c.with(t).j("GET", "/tss/v2/transactions/"+str(a, "id"), mid, nil, 200)
		if str(d, "installmentInformation.status") != "CANCELLATION_REQUIRED" {
			t.Fatalf("after reversal: %v", d["installmentInformation"])
		}
	})
	t.Run("Installment plan visibility: moving the clock makes a plan expiring within 24 hours drop out", func(t *testing.T) {
		if _, err := s.AdvanceClock(11 * time.Hour); err != nil {
			t.Fatal(err)
		}
		r := c.with(t).j("POST", "/fin/v1/plans/", mid, plansBody(visaCredit2, "600.00"), 201)
		if ids := planIDs(t, r); len(ids) != 3 {
			t.Fatalf("plans after 11 hours: %v", ids)
		}
	})
}
