package level3audit

import (
	"encoding/json"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	if s == "" {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

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
				TotalAmount: "102.50", Currency: "USD", PurchaseLevel: "3", LineItems: 2, Level3Status: "N"},
		},
		{
			name: "capture, older boolean status", method: "POST", path: "/pts/v2/payments/6000000000000000000001/captures",
			req:  `{"orderInformation":{"amountDetails":{"totalAmount":"5.00","currency":"EUR"}},"processingInformation":{"purchaseLevel":3}}`,
			resp: `{"id":"6000000000000000000002","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":false}}}`,
			want: Call{Kind: Capture, TransactionID: "6000000000000000000002", ParentID: "6000000000000000000001",
				TotalAmount: "5.00", Currency: "EUR", PurchaseLevel: "3", Level3Status: "N"},
		},
		{
			name: "authorization, masked card, no level III", method: "POST", path: "/pts/v2/payments/",
			req:  `{"paymentInformation":{"card":{"number":"555555XXXXXX4444"}},"orderInformation":{"amountDetails":{"totalAmount":"1.00","currency":"USD"}}}`,
			resp: `{"id":"6000000000000000000003","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":true}}}`,
			want: Call{Kind: Authorization, TransactionID: "6000000000000000000003", CardBIN: "555555", CardLast4: "4444",
				TotalAmount: "1.00", Currency: "USD", Level3Status: "Y"},
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
		{name: "a GET is other", method: "GET", path: "/pts/v2/payments/1", want: Call{Kind: Other}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Inspect(tc.method, tc.path, decode(t, tc.req), decode(t, tc.resp))
			if got != tc.want {
				t.Errorf("Inspect:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestHasLevel3(t *testing.T) {
	for _, c := range []struct {
		call Call
		want bool
	}{
		{Call{PurchaseLevel: "3"}, true},
		{Call{LineItems: 1}, true},
		{Call{PurchaseLevel: "2"}, false},
		{Call{}, false},
	} {
		if got := c.call.HasLevel3(); got != c.want {
			t.Errorf("%+v.HasLevel3() = %v, want %v", c.call, got, c.want)
		}
	}
}
