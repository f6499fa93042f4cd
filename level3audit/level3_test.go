package level3audit

import (
	"testing"

	"github.com/reconcile/reconcile/internal/jsonbody"
)

// TestInspect reads the Level II/III facts of a call: the required
// line-item fields a purchaseLevel 3 call left out, rates written as
// percents (order and line-item tax rates, discount rates), the purchase
// order number, and the transmission status in its current and older forms.
func TestInspect(t *testing.T) {
	cases := []struct {
		name, req, resp string
		want            Facts
	}{
		{
			name: "level III without line items, older boolean status",
			req:  `{"processingInformation":{"purchaseLevel":3}}`,
			resp: `{"orderInformation":{"invoiceDetails":{"level3TransmissionStatus":false}}}`,
			want: Facts{PurchaseLevel: "3", Level3Status: "N", Level3Missing: "lineItems"},
		},
		{
			name: "level III with a field left out and percents",
			req: `{"processingInformation":{"purchaseLevel":"3"},
			       "orderInformation":{"amountDetails":{"taxDetails":[{"rate":"8.25"},{"rate":"0.01"}]},
			         "invoiceDetails":{"purchaseOrderNumber":" PO-7 "},
			         "lineItems":[{"commodityCode":"1","discountAmount":"0","productCode":"A","quantity":1,"unitOfMeasure":"EA","unitPrice":"2.00",
			                       "discountRate":"0.1","taxDetails":[{"rate":7}]},
			                      {"commodityCode":" ","discountAmount":"0","productCode":"B","quantity":1,"unitPrice":"1.00","unitOfMeasure":null}]}}`,
			resp: `{"orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"y"}}}`,
			want: Facts{PurchaseLevel: "3", LineItems: 2, Level3Status: "Y", PurchaseOrderNumber: "PO-7",
				Level3Missing: "lineItems[1].commodityCode,lineItems[1].unitOfMeasure",
				PercentRates:  "amountDetails.taxDetails[0].rate=8.25,lineItems[0].taxDetails[0].rate=7"},
		},
		{
			name: "level II: a purchase order, no level III, status as TRUE",
			req:  `{"orderInformation":{"invoiceDetails":{"purchaseOrderNumber":"PO-1"}}}`,
			resp: `{"orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"TRUE"}}}`,
			want: Facts{PurchaseOrderNumber: "PO-1", Level3Status: "Y"},
		},
		{
			name: "line items without purchase level 3 are not judged for missing fields; an unknown status is none",
			req:  `{"orderInformation":{"lineItems":[{}]}}`,
			resp: `{"orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"maybe"}}}`,
			want: Facts{LineItems: 1},
		},
		{name: "no bodies", want: Facts{}},
	}
	for _, c := range cases {
		if got := Inspect(jsonbody.Object(c.req), jsonbody.Object(c.resp)); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}
