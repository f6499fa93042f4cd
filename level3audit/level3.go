// Package level3audit owns the Level II/III rules: what Level II/III data
// a merchant's call carried (purchase level, line items, purchase order
// number), which required Level III line-item fields it left out, which
// rates it wrote as a percent, and what the platform said about
// transmitting it (level3TransmissionStatus). The platform stores no Level
// II/III data, so these facts come from the merchant's own journal of
// requests and responses; package calls reads them for every call.
package level3audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reconcile/reconcile/internal/jsonbody"
)

// Facts are the Level II/III facts of one call.
type Facts struct {
	PurchaseLevel string // processingInformation.purchaseLevel as sent ("3" for Level III)
	LineItems     int    // number of orderInformation.lineItems sent
	Level3Status  string // "Y", "N" or "" when the response does not say

	PurchaseOrderNumber string // orderInformation.invoiceDetails.purchaseOrderNumber
	// Level3Missing lists the required Level III line-item fields a call
	// with purchaseLevel 3 left out ("lineItems[1].unitOfMeasure", or
	// "lineItems" when it sent none), comma separated; "" when complete.
	Level3Missing string
	// PercentRates lists the rates written as a percent rather than a
	// fraction ("lineItems[0].taxDetails[0].rate=8.25"), comma separated.
	PercentRates string
}

// Inspect reads the Level II/III facts of a call from its decoded request
// and response (nil when absent).
func Inspect(request, response map[string]any) Facts {
	c := Facts{
		PurchaseLevel: str(lookup(request, "processingInformation", "purchaseLevel")),
		Level3Status:  normaliseLevel3Status(lookup(response, "orderInformation", "invoiceDetails", "level3TransmissionStatus")),
	}
	if items, ok := lookup(request, "orderInformation", "lineItems").([]any); ok {
		c.LineItems = len(items)
	}
	c.inspectLevel23(request)
	return c
}

// normaliseLevel3Status accepts the current "Y"/"N" strings and the older
// boolean form (false = not transmitted).
func normaliseLevel3Status(v any) string {
	switch s := v.(type) {
	case bool:
		if s {
			return "Y"
		}
		return "N"
	case string:
		switch strings.ToUpper(strings.TrimSpace(s)) {
		case "Y", "TRUE":
			return "Y"
		case "N", "FALSE":
			return "N"
		}
	}
	return ""
}

// Level3ItemFields are the line-item fields the spec requires of a Level III
// capture (endpoints: "lineItems[] commodityCode, discountAmount,
// discountRate (one network), productCode, quantity, unitOfMeasure,
// unitPrice, and purchaseLevel 3").
//
// discountRate is left out on purpose: the spec requires it for one network
// without naming it, so a call cannot be judged on it. When it is sent, it
// is still a rate, and the percent rule below applies to it.
var Level3ItemFields = []string{"commodityCode", "discountAmount", "productCode", "quantity", "unitOfMeasure", "unitPrice"}

// inspectLevel23 reads what the Level II/III rules need from a request: the
// purchase order number, the required Level III fields that a call with
// purchaseLevel 3 left out, and rates written as a percent.
func (c *Facts) inspectLevel23(request map[string]any) {
	c.PurchaseOrderNumber = strings.TrimSpace(str(lookup(request, "orderInformation", "invoiceDetails", "purchaseOrderNumber")))
	items, _ := lookup(request, "orderInformation", "lineItems").([]any)
	if c.PurchaseLevel == "3" {
		c.Level3Missing = strings.Join(missingItemFields(items), ",")
	}
	c.PercentRates = strings.Join(percentRates(request, items), ",")
}

// missingItemFields lists the required fields absent, null or blank in the
// line items; "lineItems" when there are none.
func missingItemFields(items []any) []string {
	if len(items) == 0 {
		return []string{"lineItems"}
	}
	var out []string
	for i, it := range items {
		item, _ := it.(map[string]any)
		for _, f := range Level3ItemFields {
			if strings.TrimSpace(str(item[f])) == "" {
				out = append(out, fmt.Sprintf("lineItems[%d].%s", i, f))
			}
		}
	}
	return out
}

// percentRates lists the tax rates (order-level and per line item) and
// discount rates whose value is above 1. The spec writes rates as
// fractions with a decimal point ("1 percent is 0.01"), so no real rate is
// above 1: 8.25 is 8.25 percent written as a percent, which the processor
// would read as 825 percent. Values that are not numbers are not judged
// here (the platform rejects them).
func percentRates(request map[string]any, items []any) []string {
	var out []string
	check := func(path string, v any) {
		s := strings.TrimSpace(str(v))
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 1 {
			out = append(out, path+"="+s)
		}
	}
	taxes := func(prefix string, list any) {
		l, _ := list.([]any)
		for i, t := range l {
			td, _ := t.(map[string]any)
			check(fmt.Sprintf("%staxDetails[%d].rate", prefix, i), td["rate"])
		}
	}
	taxes("amountDetails.", lookup(request, "orderInformation", "amountDetails", "taxDetails"))
	for i, it := range items {
		item, _ := it.(map[string]any)
		p := fmt.Sprintf("lineItems[%d].", i)
		check(p+"discountRate", item["discountRate"])
		taxes(p, item["taxDetails"])
	}
	return out
}

func lookup(m map[string]any, keys ...string) any { return jsonbody.Lookup(m, keys...) }
func str(v any) string                            { return jsonbody.Text(v) }
