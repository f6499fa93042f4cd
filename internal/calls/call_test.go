package calls

import (
	"reflect"
	"testing"

	"github.com/reconcile/reconcile/internal/jsonbody"
	"github.com/reconcile/reconcile/level3audit"
)

func TestInspect(t *testing.T) {
	cases := []struct {
		name, method, path, req, resp string
		want                          Call
	}{
		{
			name: "sale with level III, status N", method: "POST", path: "/pts/v2/payments",
			req: `{"processingInformation":{"capture":true,"purchaseLevel":"3"},
			       "paymentInformation":{"card":{"number":"4111111111111111"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"102.50","currency":"USD"},"lineItems":[{},{}]}}`,
			resp: `{"id":"6000000000000000000001","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"N"}}}`,
			want: Call{Kind: Sale, TransactionID: "6000000000000000000001", CardBIN: "411111", CardLast4: "1111",
				TotalAmount: "102.50", Currency: "USD",
				Facts: level3audit.Facts{PurchaseLevel: "3", LineItems: 2, Level3Status: "N",
					Level3Missing: "lineItems[0].commodityCode,lineItems[0].discountAmount,lineItems[0].productCode,lineItems[0].quantity,lineItems[0].unitOfMeasure,lineItems[0].unitPrice," +
						"lineItems[1].commodityCode,lineItems[1].discountAmount,lineItems[1].productCode,lineItems[1].quantity,lineItems[1].unitOfMeasure,lineItems[1].unitPrice"}},
		},
		{
			name: "capture, older boolean status", method: "POST", path: "/pts/v2/payments/6000000000000000000001/captures",
			req:  `{"orderInformation":{"amountDetails":{"totalAmount":"5.00","currency":"EUR"}},"processingInformation":{"purchaseLevel":3}}`,
			resp: `{"id":"6000000000000000000002","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":false}}}`,
			want: Call{Kind: Capture, TransactionID: "6000000000000000000002", ParentID: "6000000000000000000001",
				TotalAmount: "5.00", Currency: "EUR",
				Facts: level3audit.Facts{PurchaseLevel: "3", Level3Status: "N", Level3Missing: "lineItems"}},
		},
		{
			name: "authorization, masked card, no level III", method: "POST", path: "/pts/v2/payments/",
			req:  `{"paymentInformation":{"card":{"number":"555555XXXXXX4444"}},"orderInformation":{"amountDetails":{"totalAmount":"1.00","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000003","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":true}}}`,
			want: Call{Kind: Authorization, TransactionID: "6000000000000000000003", CardBIN: "555555", CardLast4: "4444",
				TotalAmount: "1.00", Currency: "USD",
				Facts: level3audit.Facts{Level3Status: "Y"}},
		},
		{
			name: "credit, amount from response", method: "POST", path: "/pts/v2/credits",
			resp: `{"id":"6000000000000000000004","creditAmountDetails":{"creditAmount":"7.25","currency":"GBP"}}`,
			want: Call{Kind: Credit, TransactionID: "6000000000000000000004", TotalAmount: "7.25", Currency: "GBP"},
		},
		{
			name: "refund of a capture", method: "POST", path: "/pts/v2/captures/6000000000000000000002/refunds",
			want: Call{Kind: Refund, ParentID: "6000000000000000000002"},
		},
		{
			name: "refund answered in the SDK's shape: the amount refunded wins over the one asked", method: "POST",
			path: "/pts/v2/payments/6000000000000000000002/refunds",
			req:  `{"orderInformation":{"amountDetails":{"totalAmount":"12.00","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000010","status":"PENDING","refundAmountDetails":{"refundAmount":"10.00","currency":"USD"}}`,
			want: Call{Kind: Refund, TransactionID: "6000000000000000000010", ParentID: "6000000000000000000002",
				TotalAmount: "10.00", Currency: "USD", ResponseStatus: "PENDING"},
		},
		{
			name: "refund without an amount asked (in full), answered as creditAmount", method: "POST",
			path: "/pts/v2/captures/6000000000000000000002/refunds",
			req:  `{"clientReferenceInformation":{"code":"R-1"}}`,
			resp: `{"id":"6000000000000000000011","refundAmountDetails":{"creditAmount":"4.50","currency":"EUR"}}`,
			want: Call{Kind: Refund, TransactionID: "6000000000000000000011", ParentID: "6000000000000000000002",
				TotalAmount: "4.50", Currency: "EUR", ClientReference: "R-1"},
		},
		{
			name: "the order number as sent, before the one answered", method: "POST", path: "/pts/v2/captures/6000000000000000000002/refunds",
			req:  `{"clientReferenceInformation":{"code":"sent-1"}}`,
			resp: `{"id":"6000000000000000000013","clientReferenceInformation":{"code":"answered-1"}}`,
			want: Call{Kind: Refund, TransactionID: "6000000000000000000013", ParentID: "6000000000000000000002", ClientReference: "sent-1"},
		},
		{
			name: "the order number as answered when none was sent", method: "POST", path: "/pts/v2/captures/6000000000000000000002/refunds",
			resp: `{"id":"6000000000000000000014","clientReferenceInformation":{"code":"answered-2"}}`,
			want: Call{Kind: Refund, TransactionID: "6000000000000000000014", ParentID: "6000000000000000000002", ClientReference: "answered-2"},
		},
		{
			name: "refund answered in the older shape", method: "POST", path: "/pts/v2/captures/6000000000000000000002/refunds",
			resp: `{"id":"6000000000000000000012","orderInformation":{"amountDetails":{"totalAmount":"3.00","currency":"USD"}}}`,
			want: Call{Kind: Refund, TransactionID: "6000000000000000000012", ParentID: "6000000000000000000002",
				TotalAmount: "3.00", Currency: "USD"},
		},
		{
			name: "credit answered in the SDK's shape with Level III", method: "POST", path: "/pts/v2/credits",
			req: `{"processingInformation":{"purchaseLevel":"3"},"paymentInformation":{"card":{"number":"448590XXXXXX1234"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"20.00","currency":"USD"},"invoiceDetails":{"purchaseOrderNumber":"PO-7"},
			         "lineItems":[{"commodityCode":"44103103","discountAmount":"0.00","productCode":"SKU-1","quantity":"2","unitOfMeasure":"EA","unitPrice":"10.00"}]}}`,
			resp: `{"id":"6000000000000000000013","status":"PENDING","creditAmountDetails":{"creditAmount":"20.00","currency":"USD"},
			        "orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"Y"}}}`,
			want: Call{Kind: Credit, TransactionID: "6000000000000000000013", CardBIN: "448590", CardLast4: "1234",
				TotalAmount: "20.00", Currency: "USD", ResponseStatus: "PENDING",
				Facts: level3audit.Facts{PurchaseLevel: "3", LineItems: 1, Level3Status: "Y", PurchaseOrderNumber: "PO-7"}},
		},
		{
			name: "reversal, amount from the reversal details", method: "POST", path: "/pts/v2/payments/6000000000000000000001/reversals",
			req:  `{"reversalInformation":{"amountDetails":{"totalAmount":"5.00","currency":"EUR"}}}`,
			resp: `{"id":"6000000000000000000009","status":"REVERSED","reversalAmountDetails":{"reversedAmount":"5.00","currency":"EUR"}}`,
			want: Call{Kind: Reversal, TransactionID: "6000000000000000000009", ParentID: "6000000000000000000001",
				TotalAmount: "5.00", Currency: "EUR", ResponseStatus: "REVERSED"},
		},
		{name: "a GET is other", method: "GET", path: "/pts/v2/payments/1", want: Call{Kind: Other}},
		{
			name: "level III capture: a field left out, rates as percents", method: "POST", path: "/pts/v2/payments/6000000000000000000001/captures",
			req: `{"processingInformation":{"purchaseLevel":"3"},
			       "orderInformation":{"amountDetails":{"totalAmount":"10.80","currency":"USD","taxDetails":[{"rate":"8.00","amount":"0.80"}]},
			         "invoiceDetails":{"purchaseOrderNumber":" PO-1 "},
			         "lineItems":[{"commodityCode":"44103103","discountAmount":"0.00","discountRate":"0.05","productCode":"SKU-1","quantity":1,"unitOfMeasure":"EA","unitPrice":"10.00","taxDetails":[{"rate":0.08}]},
			                      {"commodityCode":"","discountAmount":"0.00","productCode":"SKU-2","quantity":"2","unitPrice":"1.00","discountRate":12.5}]}}`,
			resp: `{"id":"6000000000000000000005","status":"PENDING","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"Y"}}}`,
			want: Call{Kind: Capture, TransactionID: "6000000000000000000005", ParentID: "6000000000000000000001", TotalAmount: "10.80",
				Currency: "USD", ResponseStatus: "PENDING",
				Facts: level3audit.Facts{PurchaseLevel: "3", LineItems: 2, Level3Status: "Y", PurchaseOrderNumber: "PO-1",
					Level3Missing: "lineItems[1].commodityCode,lineItems[1].unitOfMeasure",
					PercentRates:  "amountDetails.taxDetails[0].rate=8.00,lineItems[1].discountRate=12.5"}},
		},
		{
			name: "merchant-initiated sale by token, answered", method: "POST", path: "/pts/v2/payments",
			req: `{"processingInformation":{"capture":"true","commerceIndicator":"recurring","authorizationOptions":{"initiator":{"type":"Merchant",
			         "storedCredentialUsed":true,"merchantInitiatedTransaction":{"reason":"7","previousTransactionId":"12345678901234567890"}}}},
			       "paymentInformation":{"customer":{"id":"ABC"}},"orderInformation":{"amountDetails":{"totalAmount":"9.99","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000006","status":"AUTHORIZED","processorInformation":{"networkTransactionId":"98765432109876543210","approvalCode":"123456"},
			        "pointOfSaleInformation":{"terminalId":"T-1"}}`,
			want: Call{Kind: Sale, TransactionID: "6000000000000000000006", TotalAmount: "9.99", Currency: "USD", ResponseStatus: "AUTHORIZED",
				NetworkTransactionID: "98765432109876543210", ApprovalCode: "123456",
				Areas: Areas{CommerceIndicator: "recurring", Initiator: "merchant", StoredCredentialUsed: true, MITReason: "7",
					PreviousTransactionID: "12345678901234567890", TerminalID: "T-1"}},
		},
		{
			name: "declined Mastercard sale: the merchant advice codes and response code, the card type answered", method: "POST", path: "/pts/v2/payments",
			req: `{"processingInformation":{"capture":true},"paymentInformation":{"card":{"number":"530695XXXXXX0001","type":"001"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"12.00","currency":"GBP"}}}`,
			resp: `{"id":"6000000000000000000014","status":"declined","paymentAccountInformation":{"card":{"type":" 002 "}},
			        "processorInformation":{"responseCode":"05","merchantAdvice":{"code":" 03","codeRaw":"21"}}}`,
			want: Call{Kind: Sale, TransactionID: "6000000000000000000014", CardBIN: "530695", CardLast4: "0001", CardType: "002",
				TotalAmount: "12.00", Currency: "GBP", ResponseStatus: "DECLINED", ResponseCode: "05",
				MerchantAdviceCode: "03", MerchantAdviceCodeRaw: "21"},
		},
		{
			name: "declined Visa authorization by token: category 1 response code, the card type only sent", method: "POST", path: "/pts/v2/payments",
			req: `{"paymentInformation":{"customer":{"id":"ABC"},"tokenizedCard":{"type":"001"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"1.00","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000015","status":"DECLINED","processorInformation":{"responseCode":"r1","merchantAdvice":{"code":1}}}`,
			want: Call{Kind: Authorization, TransactionID: "6000000000000000000015", CardType: "001", TotalAmount: "1.00", Currency: "USD",
				ResponseStatus: "DECLINED", ResponseCode: "R1", MerchantAdviceCode: "1"},
		},
		{
			name: "customer-initiated authorization storing the card, healthcare amounts", method: "POST", path: "/pts/v2/payments",
			req: `{"processingInformation":{"commerceIndicator":"internet","actionList":["TOKEN_CREATE"],"paymentSolution":"001",
			         "authorizationOptions":{"initiator":{"type":"customer","credentialStoredOnFile":"true"}}},
			       "paymentInformation":{"card":{"number":"471510XXXXXX0012","productSubtype":"HC"},"fluidData":{"value":"eyJ9"}},
			       "healthCareInformation":{"amountDetails":[{"amountType":"Healthcare","amount":"20.00"},{"amountType":"vision","amount":" 5.00"}]},
			       "orderInformation":{"amountDetails":{"totalAmount":"20.00","currency":"USD"},"billTo":{"country":"us"}}}`,
			want: Call{Kind: Authorization, CardBIN: "471510", CardLast4: "0012", TotalAmount: "20.00", Currency: "USD",
				Areas: Areas{CommerceIndicator: "internet", Initiator: "customer", CredentialStored: true, Actions: "TOKEN_CREATE",
					ProductSubtype: "HC", HealthcareAmounts: []HealthcareAmount{{"healthcare", "20.00"}, {"vision", "5.00"}},
					Country: "US", PaymentSolution: "001", WalletData: true}},
		},
		{
			name: "buy-now-pay-later session", method: "POST", path: "/pts/v2/payment-references",
			req: `{"processingInformation":{"actionList":["AP_SESSIONS"]},"paymentInformation":{"paymentType":{"name":"INVOICE"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"50.00","currency":"NZD"},"shipTo":{"country":"NZ"}}}`,
			resp: `{"id":"6000000000000000000007","status":"PENDING","processorInformation":{"token":"BNPL-1","paymentUrl":"https://x"}}`,
			want: Call{Kind: BNPLSession, TransactionID: "6000000000000000000007", TotalAmount: "50.00", Currency: "NZD", ResponseStatus: "PENDING",
				Areas: Areas{Actions: "AP_SESSIONS", PaymentType: "INVOICE", SessionToken: "BNPL-1", Country: "NZ"}},
		},
		{
			name: "installment plan cancel with a partial refund", method: "POST", path: "/fin/v1/plan-acceptance/cancel/",
			req: `{"processingInformation":{"installmentServiceProvider":"VISA","refundOptions":{"refundAmount":"30.00"},
			         "authorizationOptions":{"networkTransactionId":"12345678901234567890","authorizationCode":"654321"}},
			       "orderInformation":{"amountDetails":{"totalAmount":"300.00","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000008","status":"ACCEPTED","installmentInformation":{"id":"SBXIA1","planId":"P-3"}}`,
			want: Call{Kind: InstallmentCancel, TransactionID: "6000000000000000000008", TotalAmount: "300.00", Currency: "USD", ResponseStatus: "ACCEPTED",
				Areas: Areas{InstallmentID: "SBXIA1", PlanID: "P-3", RefNetworkTransactionID: "12345678901234567890",
					RefAuthorizationCode: "654321", RefundAmount: "30.00"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Inspect(tc.method, tc.path, jsonbody.Object(tc.req), jsonbody.Object(tc.resp))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Inspect:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
