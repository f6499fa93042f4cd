package platform

import (
	"encoding/json"
)

// rbsPageTags are rbsPage's JSON keys, in the order of its fields.
var rbsPageTags = []string{"_links", "totalCount", "submitTimeUtc", "cyclesCompletedCount", "billingCyclesToSkip",
	"plans", "subscriptions", "subscriptionPayment"}

// decodePaymentPage decodes a page of a subscription's payment list as
// encoding/json would, without copying the page or its payments: the page
// is walked once (eachMember), each payment is a part of body, and only
// the envelope's few small values are decoded apart. Keys match fields as
// in decodePayment.
func decodePaymentPage(body []byte) (rbsPage, error) {
	var p rbsPage
	fields := [...]any{&p.Links, &p.TotalCount, &p.SubmitTimeUTC, &p.CyclesCompleted, &p.BillingCyclesToSkip,
		&p.Plans, &p.Subscriptions}
	err := eachMember(body, func(key []byte, v jsonValue) (int, error) {
		i := fieldIndex(key, rbsPageTags)
		if i < len(fields) {
			end, err := v.skip()
			if err == nil && i >= 0 {
				err = json.Unmarshal(body[v.start:end], fields[i])
			}
			return end, err
		}
		// The payments, each a part of body, found as the array is checked.
		p.Payments = nil
		if !v.null() {
			p.Payments = make([]json.RawMessage, 0, rbsPageSize)
		}
		return v.eachElement(func(start, end int) error {
			p.Payments = append(p.Payments, body[start:end])
			return nil
		})
	})
	if err != nil {
		return rbsPage{}, pageError("subscription payment list", err)
	}
	return p, nil
}
