package sandbox

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Subscription payments (spec: Subscription payment, the payment state
// table, Limits): the list envelope, and skipping or restoring cycles.

// modifyCutoff: no skip or restore within two hours of processing (spec).
const modifyCutoff = 2 * time.Hour

type paymentJSON struct {
	ID                   string `json:"id"`
	Status               string `json:"status"`
	PaymentType          string `json:"paymentType"`
	TransactionID        string `json:"transactionID,omitempty"`
	Date                 string `json:"date"`
	Currency             string `json:"currency"`
	BillingStartDate     string `json:"billingStartDate"`
	BillingEndDate       string `json:"billingEndDate"`
	BillingCycle         string `json:"billingCycle"`
	PaymentNumber        string `json:"paymentNumber"`
	BillingAmount        string `json:"billingAmount"`
	SetupFee             string `json:"setupFee,omitempty"`
	SurchargeAmount      string `json:"surchargeAmount,omitempty"`
	SurchargeDescription string `json:"surchargeDescription,omitempty"`
	Modifiable           bool   `json:"modifiable"`
}

// modifiable: a future payment more than two hours before its processing.
// Retry payments are never listed before they happen, so never modifiable.
func (pm *payment) modifiable(now time.Time) bool {
	return !pm.processed() && pm.date.Sub(now) > modifyCutoff
}

func renderPayment(pm *payment, now time.Time) paymentJSON {
	pj := paymentJSON{ID: pm.id, Status: pm.status, PaymentType: pm.ptype, TransactionID: pm.txnID,
		Date: ts(pm.date), Currency: pm.currency, BillingStartDate: ts(pm.periodStart), BillingEndDate: ts(pm.periodEnd),
		BillingCycle: strconv.Itoa(pm.cycle), PaymentNumber: strconv.Itoa(pm.number),
		BillingAmount: moneyIn(pm.amount, pm.currency), SetupFee: optMoneyIn(pm.setupFee, pm.currency), Modifiable: pm.modifiable(now)}
	if pm.surcharge > 0 {
		pj.SurchargeAmount, pj.SurchargeDescription = moneyIn(pm.surcharge, pm.currency), "Card surcharge"
	}
	return pj
}

// listPayments lists every processed payment, then at most
// scheduledPaymentsCount future ones (docs/dev/wire.md).
func (s *Server) listPayments(x *exchange, _ noBody) answer {
	id := x.r.PathValue("id")
	v, refused := x.queryInts(nil, offsetParam, intParam{"limit", 20, 1, 100}, intParam{"scheduledPaymentsCount", 5, 0, 9999})
	if refused != nil {
		return *refused
	}
	offset, limit, count := v[0], v[1], v[2]
	sub, ok := subTarget.in(x, id)
	if !ok {
		return subTarget.missing(x, id)
	}
	now := s.Clock()
	var listed []*payment
	final := map[int]string{}
	for _, pm := range sub.payments {
		if pm.processed() {
			listed = append(listed, pm)
			final[pm.cycle] = strings.ToLower(pm.status)
		}
	}
	scheduled := 0
	for _, pm := range sub.payments {
		if !pm.processed() && scheduled < count {
			listed = append(listed, pm)
			scheduled++
		}
	}
	// cyclesCompletedCount counts cycles by the status of their last
	// processed payment (a retried cycle counts once).
	completed := map[string]int{}
	for _, st := range final {
		completed[st]++
	}
	path := "/rbs/v1/subscriptions/" + id + "/payments"
	links := pageLinks(path, url.Values{"scheduledPaymentsCount": {strconv.Itoa(count)}}, offset, limit, len(listed), true)
	links["update"] = link{Href: path, Method: http.MethodPut}
	// Keys in the order encoding/json gives a map.
	b := x.buffer()
	b = append(b, `{"_links":`...)
	b = appendLinksMap(b, links)
	b = append(b, `,"billingCyclesToSkip":[`...)
	for i, cy := range sub.skipped {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(cy), 10)
	}
	b = append(b, `],"cyclesCompletedCount":{`...)
	for i, k := range slices.Sorted(maps.Keys(completed)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(completed[k]), 10)
	}
	b = append(b, `},"submitTimeUtc":`...)
	b = appendJSONString(b, s.now())
	b = appendPageEnd(b, "subscriptionPayment", window(listed, offset, limit), len(listed), func(b []byte, pm *payment) []byte {
		pj := renderPayment(pm, now)
		return pj.appendJSON(b)
	})
	return x.encoded(http.StatusOK, b)
}

// skipPayments answers POST (spec) and PUT (facts, and the list's update
// link) /rbs/v1/subscriptions/{id}/payments. billingCyclesToSkip is the
// complete list of skipped future cycles: a cycle added is skipped, a
// cycle left out is restored. A change to a cycle that is not a future
// payment more than two hours before processing (a past cycle, a cycle
// being retried, one within the cut-off) fails the whole request with
// UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:<n>.
func (s *Server) skipPayments(x *exchange, d doc) answer {
	var c checks
	if !d.has("billingCyclesToSkip") {
		c.require(d, "billingCyclesToSkip")
	}
	var want []int
	for _, v := range d.list("billingCyclesToSkip") {
		n, err := strconv.Atoi(scalar(v))
		if err != nil {
			c.invalid("billingCyclesToSkip", "INVALID_DATA: not an integer")
			continue
		}
		if !slices.Contains(want, n) {
			want = append(want, n)
		}
	}
	if d.has("billingCyclesToSkip") && d.list("billingCyclesToSkip") == nil {
		c.invalid("billingCyclesToSkip", "INVALID_DATA: not an array")
	}
	if !c.ok() {
		return x.rejected(&c)
	}
	slices.Sort(want)
	if refused := x.acquire(writeMember); refused != nil {
		return *refused
	}
	m, id := x.member, x.r.PathValue("id")
	sub, ok := subTarget.in(x, id)
	if !ok {
		return subTarget.missing(x, id)
	}
	switch sub.status {
	case subActive, subPending, subDelinquent:
	default:
		return badSubState(x, sub, "changed")
	}
	now := s.Clock()
	// A skip may name a cycle of a bill-indefinitely plan beyond the
	// listed horizon: it is materialised first.
	if sub.terms.total == 0 && len(want) > 0 && len(sub.payments) > 0 {
		for last := len(sub.payments) - 1; want[len(want)-1] > sub.payments[last].cycle && want[len(want)-1] <= sub.current+9999; last++ {
			sub.payments = append(sub.payments, sub.newScheduled(m, sub.payments[last].cycle+1))
		}
		renumber(sub)
	}
	byCycle := map[int]*payment{}
	for _, pm := range sub.payments[sub.firstScheduled():] {
		byCycle[pm.cycle] = pm
	}
	var errs []errorDetail
	changed := map[int]bool{}
	for _, cy := range want {
		changed[cy] = !slices.Contains(sub.skipped, cy)
	}
	for _, cy := range sub.skipped {
		if !slices.Contains(want, cy) {
			changed[cy] = true
		}
	}
	for _, cy := range slices.Sorted(maps.Keys(changed)) {
		if !changed[cy] {
			continue
		}
		pm := byCycle[cy]
		switch {
		case cy < 1 || (sub.terms.total > 0 && cy > sub.terms.total):
			errs = append(errs, errorDetail{Field: "billingCyclesToSkip", Reason: fmt.Sprintf("INVALID_BILLING_CYCLE:%d", cy)})
		case pm == nil || !pm.modifiable(now):
			errs = append(errs, errorDetail{Field: "billingCyclesToSkip", Reason: fmt.Sprintf("UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:%d", cy)})
		}
	}
	if len(errs) > 0 {
		return x.invalid("one or more billing cycles cannot be skipped or restored", errs...)
	}
	for cy, ch := range changed {
		if !ch {
			continue
		}
		if slices.Contains(want, cy) {
			byCycle[cy].status = paySkipped
		} else {
			byCycle[cy].status = payScheduled
		}
	}
	sub.skipped = want
	path := "/rbs/v1/subscriptions/" + sub.id + "/payments"
	return reply(http.StatusOK, map[string]any{
		"_links":        map[string]link{"self": {Href: path, Method: http.MethodGet}, "update": {Href: path, Method: http.MethodPut}},
		"submitTimeUtc": s.clockNow(), "status": "COMPLETED", "billingCyclesToSkip": append([]int{}, want...),
	})
}
