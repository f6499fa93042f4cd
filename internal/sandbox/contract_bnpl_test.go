package sandbox

import (
	"net/http"
	"strings"
	"testing"
)

func bnplBase(amount string) obj {
	addr := obj{"firstName": "Ana", "lastName": "Diaz", "address1": "1 Market St", "locality": "Austin", "administrativeArea": "TX",
		"postalCode": "78701", "country": "US", "email": "ana@example.com"}
	return obj{"clientReferenceInformation": obj{"code": "BNPL-ORDER"},
		"paymentInformation": obj{"paymentType": obj{"name": "INVOICE", "method": obj{"name": "AFTERPAY"}}},
		"orderInformation":   obj{"amountDetails": obj{"totalAmount": amount, "currency": "USD"}, "billTo": addr, "shipTo": addr},
		"merchantInformation": obj{"successURL": "https://shop.example/ok", "cancelURL": "https://shop.example/cancel",
			"failureURL": "https://shop.example/fail"}}
}

func session(amount string) obj {
	b := bnplBase(amount)
	b["processingInformation"] = obj{"actionList": []string{"AP_SESSIONS"}}
	return b
}

func bnplAuthBody(amount, token string) obj {
	b := bnplBase(amount)
	b["processingInformation"] = obj{"actionList": []string{"AP_AUTH"}}
	b["processorInformation"] = obj{"preApprovalToken": token}
	return b
}

func TestContractBuyNowPayLater(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 4})
	mid := memberID(1)
	var sess obj
	t.Run("create session: PENDING (redirect address issued): id, status, paymentUrl and token, reconciliationId, submitTimeUtc, _links", func(t *testing.T) {
		sess = c.with(t).j("POST", "/pts/v2/payment-references", mid, session("60.00"), 201)
		if str(sess, "status") != "PENDING" || str(sess, "processorInformation.token") == "" ||
			!strings.HasPrefix(str(sess, "processorInformation.paymentUrl"), "http") || str(sess, "reconciliationId") == "" || str(sess, "submitTimeUtc") == "" {
			t.Fatalf("session %v", sess)
		}
		id := str(sess, "id")
		sameLinks(t, sess, map[string]string{"self": "GET", "updateSession": "PATCH", "status": "POST", "order": "POST"})
		if str(sess, "_links.updateSession.href") != "/pts/v2/payment-references/"+id || str(sess, "_links.order.href") != "/pts/v2/payments/"+id+"/intents" {
			t.Fatalf("links %v", sess["_links"])
		}
	})
	t.Run("Shipping fields are mandatory on a session; totalAmount optional when lineItems[].totalAmount is present", func(t *testing.T) {
		b := session("60.00")
		delete(b["orderInformation"].(obj), "shipTo")
		wantError(t, c.with(t).j("POST", "/pts/v2/payment-references", mid, b, 400), "INVALID_REQUEST", "MISSING_FIELD", "orderInformation.shipTo.address1", "")
		b = session("60.00")
		delete(b["orderInformation"].(obj)["amountDetails"].(obj), "totalAmount")
		b["orderInformation"].(obj)["lineItems"] = []obj{{"productName": "a", "quantity": "1", "unitPrice": "20.00", "totalAmount": "20.00"},
			{"productName": "b", "quantity": "2", "unitPrice": "5.00", "totalAmount": "10.00"}}
		r := c.with(t).j("POST", "/pts/v2/payment-references", mid, b, 201)
		if str(r, "orderInformation.amountDetails.totalAmount") != "30.00" {
			t.Fatalf("amount from line items: %v", r)
		}
	})
	t.Run("Supported countries and currencies: AU AUD; CA CAN (as written); NZ NZD; GB GBP; US USD", func(t *testing.T) {
		for _, cc := range [][2]string{{"AU", "AUD"}, {"CA", "CAN"}, {"CA", "CAD"}, {"NZ", "NZD"}, {"GB", "GBP"}} {
			b := session("10.00")
			b["orderInformation"].(obj)["amountDetails"].(obj)["currency"] = cc[1]
			b["orderInformation"].(obj)["billTo"] = obj{"country": cc[0], "email": "a@b.c"}
			c.with(t).j("POST", "/pts/v2/payment-references", mid, b, 201)
		}
		b := session("10.00")
		b["orderInformation"].(obj)["amountDetails"].(obj)["currency"] = "EUR"
		c.with(t).j("POST", "/pts/v2/payment-references", mid, b, 400)
	})
	token := func() string { return str(sess, "processorInformation.token") }
	var pendingID string
	t.Run("authorization request accepted but payment not yet authorized: PENDING (complete using the redirect address in the answer)", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("60.00", token()), 201)
		pendingID = str(r, "id")
		if str(r, "status") != "PENDING" || str(r, "processorInformation.paymentUrl") != str(sess, "processorInformation.paymentUrl") {
			t.Fatalf("pending authorization %v", r)
		}
	})
	t.Run("PENDING: customer approves at provider, then authorization with the session token: AUTHORIZED, with links authReversal, capture, self, status", func(t *testing.T) {
		// The customer's browser opens the paymentUrl: no credentials.
		resp, err := http.Get(str(sess, "processorInformation.paymentUrl") + "?decision=approve")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("checkout: %v %v", err, resp)
		}
		resp.Body.Close()
		r := c.with(t).j("POST", "/pts/v2/refresh-payment-status/"+pendingID, mid, nil, 200)
		if str(r, "status") != "AUTHORIZED" {
			t.Fatalf("refreshed %v", r)
		}
		sameLinks(t, r, map[string]string{"authReversal": "POST", "capture": "POST", "self": "GET", "status": "POST"})
		if str(r, "_links.authReversal.href") != "/pts/v2/payments/"+pendingID+"/reversals" || str(r, "_links.capture.href") != "/pts/v2/payments/"+pendingID+"/captures" {
			t.Fatalf("links %v", r["_links"])
		}
		// The other spelling of the refresh path.
		c.with(t).j("POST", "/pts/v2/status/"+pendingID+"/refresh", mid, nil, 200)
		// The token is used: another authorization with it fails.
		if r := c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("60.00", token()), 201); str(r, "status") != "FAILED" {
			t.Fatalf("reused token: %v", r)
		}
	})
	t.Run("AUTHORIZED, capture: SETTLED", func(t *testing.T) {
		r := c.with(t).j("POST", "/pts/v2/payments/"+pendingID+"/captures", mid, obj{}, 201)
		if str(r, "status") != "SETTLED" || str(r, "orderInformation.amountDetails.totalAmount") != "60.00" {
			t.Fatalf("capture %v", r)
		}
		c.with(t).j("POST", "/pts/v2/payments/"+pendingID+"/captures", mid, obj{}, 400)
	})
	t.Run("authorization directly after approval: AUTHORIZED; authorization reversal offered", func(t *testing.T) {
		ss := c.with(t).j("POST", "/pts/v2/payment-references", mid, session("15.00"), 201)
		if err := s.Checkout(str(ss, "processorInformation.paymentUrl"), true); err != nil {
			t.Fatal(err)
		}
		r := c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("15.00", str(ss, "processorInformation.token")), 201)
		if str(r, "status") != "AUTHORIZED" {
			t.Fatalf("authorization %v", r)
		}
		rv := c.with(t).j("POST", "/pts/v2/payments/"+str(r, "id")+"/reversals", mid, obj{}, 201)
		if str(rv, "status") != "REVERSED" {
			t.Fatalf("reversal %v", rv)
		}
	})
	t.Run("Buy-now-pay-later authorization with invalid or missing fields: status FAILED", func(t *testing.T) {
		b := bnplAuthBody("15.00", "")
		r := c.with(t).j("POST", "/pts/v2/payments", mid, b, 201)
		if str(r, "status") != "FAILED" || str(r, "errorInformation.reason") != "MISSING_FIELD" {
			t.Fatalf("missing token: %v", r)
		}
		if r := c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("15.00", "BNPL-nope"), 201); str(r, "status") != "FAILED" {
			t.Fatalf("unknown token: %v", r)
		}
		ss := c.with(t).j("POST", "/pts/v2/payment-references", mid, session("15.00"), 201)
		if err := s.Checkout(str(ss, "processorInformation.token"), false); err != nil {
			t.Fatal(err)
		}
		if r := c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("15.00", str(ss, "processorInformation.token")), 201); str(r, "status") != "FAILED" {
			t.Fatalf("declined session: %v", r)
		}
	})
	t.Run("updateSession PATCH /pts/v2/payment-references/{id}", func(t *testing.T) {
		ss := c.with(t).j("POST", "/pts/v2/payment-references", mid, session("15.00"), 201)
		r := c.with(t).j("PATCH", "/pts/v2/payment-references/"+str(ss, "id"), mid,
			obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": "17.50", "currency": "USD"}}}, 200)
		if str(r, "orderInformation.amountDetails.totalAmount") != "17.50" {
			t.Fatalf("updated %v", r)
		}
	})
	t.Run("buy-now-pay-later payments are in Transaction Search", func(t *testing.T) {
		found := searchIDs(t, c, mid, s)
		if sum, ok := found[pendingID]; !ok || sum.Status != "AUTHORIZED" || sum.PaymentInformation.Card.Prefix != "" {
			t.Fatalf("search: %+v", found[pendingID])
		}
	})
}
