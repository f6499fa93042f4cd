package sandbox

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// subFixture is a sandbox with a customer token and a way to make plans
// and subscriptions on it.
type subFixture struct {
	s    *Server
	c    *tclient
	mid  string
	cust string
}

func newSubFixture(t *testing.T) *subFixture {
	s, c := newTestServer(t, Config{Seed: 11})
	f := &subFixture{s: s, c: c, mid: memberID(1)}
	f.cust = newCustomerToken(t, c, f.mid)
	return f
}

// plan creates an active plan billing amount every length unit, total
// cycles (0: indefinitely).
func (f *subFixture) plan(t *testing.T, unit string, length, total int, amount string) string {
	b := obj{"planInformation": obj{"name": "P", "billingPeriod": obj{"length": fmt.Sprint(length), "unit": unit},
		"billingCycles": obj{"total": fmt.Sprint(total)}},
		"orderInformation": obj{"amountDetails": obj{"billingAmount": amount, "currency": "USD"}}}
	return str(f.c.with(t).j("POST", "/rbs/v1/plans", f.mid, b, 201), "id")
}

// sub subscribes the customer to plan starting at start ("" = now).
func (f *subFixture) sub(t *testing.T, plan, start string) string {
	si := obj{"planId": plan, "name": "Sub"}
	if start != "" {
		si["startDate"] = start
	}
	return str(f.c.with(t).j("POST", "/rbs/v1/subscriptions", f.mid, obj{"subscriptionInformation": si,
		"paymentInformation": obj{"customer": obj{"id": f.cust}}}, 201), "id")
}

func (f *subFixture) status(t *testing.T, id string) string {
	return str(f.c.with(t).j("GET", "/rbs/v1/subscriptions/"+id, f.mid, nil, 200), "subscriptionInformation.status")
}

func (f *subFixture) payments(t *testing.T, id string) []tPayment {
	p, _ := f.c.with(t).payments(f.mid, id)
	return p
}

func (f *subFixture) advance(t *testing.T, d time.Duration) {
	if _, err := f.s.AdvanceClock(d); err != nil {
		t.Fatal(err)
	}
}

// processed lists the processed payments as "TYPE STATUS cycle".
func processed(ps []tPayment) []string {
	var out []string
	for _, p := range ps {
		if p.Status != payScheduled && p.Status != paySkipped {
			out = append(out, p.PaymentType+" "+p.Status+" "+p.BillingCycle)
		}
	}
	return out
}

func TestContractSubscriptions(t *testing.T) {
	f := newSubFixture(t)
	c, mid := f.c, f.mid
	t.Run("subscriptions: create, get, list (facts); a subscription combines a customer token and a plan", func(t *testing.T) {
		p := f.plan(t, "M", 1, 12, "10.00")
		r := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"clientReferenceInformation": obj{"code": "REF-9"},
			"subscriptionInformation": obj{"planId": p, "name": "Gold", "description": "d", "startDate": "2026-12-01"},
			"paymentInformation":      obj{"customer": obj{"id": f.cust}}}, 201)
		id := str(r, "id")
		if str(r, "status") != "COMPLETED" || str(r, "subscriptionInformation.status") != subPending {
			t.Fatalf("create %v", r)
		}
		g := c.with(t).j("GET", "/rbs/v1/subscriptions/"+id, mid, nil, 200)
		if str(g, "subscriptionInformation.planId") != p || str(g, "paymentInformation.customer.id") != f.cust ||
			str(g, "clientReferenceInformation.code") != "REF-9" || str(g, "subscriptionInformation.startDate") != "2026-12-01T00:00:00Z" ||
			str(g, "reactivationInformation.missedPaymentsCount") != "0" {
			t.Fatalf("get %v", g)
		}
		found := false
		for _, sb := range c.with(t).subscriptions(mid) {
			found = found || sb.ID == id
		}
		if !found {
			t.Fatal("not listed")
		}
		// "Only the customer token type can be used."
		eb := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"planId": p, "name": "X"},
			"paymentInformation": obj{"customer": obj{"id": f.cust}, "instrumentIdentifier": obj{"id": f.cust}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "paymentInformation.instrumentIdentifier.id", "INVALID_DATA")
	})
	t.Run("one-time plans: created inside a single subscription request, not stored for reuse, no code, name or description", func(t *testing.T) {
		before := len(arr(c.with(t).j("GET", "/rbs/v1/plans?limit=100", mid, nil, 200), "plans"))
		r := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"name": "Once"},
			"planInformation":    obj{"billingPeriod": obj{"length": "1", "unit": "W"}, "billingCycles": obj{"total": "3"}},
			"orderInformation":   obj{"amountDetails": obj{"billingAmount": "5.00", "currency": "USD"}},
			"paymentInformation": obj{"customer": obj{"id": f.cust}}}, 201)
		g := c.with(t).j("GET", "/rbs/v1/subscriptions/"+str(r, "id"), mid, nil, 200)
		if str(g, "subscriptionInformation.planId") != "" || str(g, "planInformation.code") != "" || str(g, "planInformation.billingCycles.total") != "3" {
			t.Fatalf("one-time subscription %v", g)
		}
		if after := len(arr(c.with(t).j("GET", "/rbs/v1/plans?limit=100", mid, nil, 200), "plans")); after != before {
			t.Fatalf("a one-time plan was listed: %d plans, were %d", after, before)
		}
		eb := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"name": "Once"},
			"planInformation":    obj{"name": "Named", "billingPeriod": obj{"length": "1", "unit": "W"}, "billingCycles": obj{"total": "3"}},
			"orderInformation":   obj{"amountDetails": obj{"billingAmount": "5.00", "currency": "USD"}},
			"paymentInformation": obj{"customer": obj{"id": f.cust}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.name", "INVALID_DATA")
	})
	t.Run("Unknown subscription ID: status NOT_FOUND, reason INVALID_DATA, message saying the subscription was not found", func(t *testing.T) {
		for _, m := range []string{"GET", "PATCH"} {
			eb := c.with(t).j(m, "/rbs/v1/subscriptions/1234567890123456789012", mid, obj{}, 404)
			wantError(t, eb, "NOT_FOUND", "INVALID_DATA", "", "")
			if s := str(eb, "message"); s != "Subscription 1234567890123456789012 not found" {
				t.Fatalf("message %q", s)
			}
		}
	})
	t.Run("update, cancel, suspend, activate (facts)", func(t *testing.T) {
		p := f.plan(t, "M", 1, 0, "10.00")
		id := f.sub(t, p, "2026-12-10")
		c.with(t).j("PATCH", "/rbs/v1/subscriptions/"+id, mid, obj{"subscriptionInformation": obj{"name": "Renamed", "startDate": "2026-12-12"},
			"orderInformation": obj{"amountDetails": obj{"billingAmount": "12.00"}}}, 200)
		g := c.with(t).j("GET", "/rbs/v1/subscriptions/"+id, mid, nil, 200)
		if str(g, "subscriptionInformation.name") != "Renamed" || str(g, "orderInformation.amountDetails.billingAmount") != "12.00" ||
			str(g, "subscriptionInformation.startDate") != "2026-12-12T00:00:00Z" {
			t.Fatalf("update %v", g)
		}
		if ps := f.payments(t, id); ps[0].Date != "2026-12-12T00:00:00Z" || ps[0].BillingAmount != "12.00" {
			t.Fatalf("rescheduled payments %+v", ps[0])
		}
		// A PENDING subscription is not suspended; cancel ends it.
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/suspend", mid, nil, 400)
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/cancel", mid, nil, 200)
		if f.status(t, id) != subCancelled || len(f.payments(t, id)) != 0 {
			t.Fatal("cancelled subscription keeps payments")
		}
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/cancel", mid, nil, 400)
		c.with(t).j("PATCH", "/rbs/v1/subscriptions/"+id, mid, obj{"subscriptionInformation": obj{"name": "x"}}, 400)
		// "Inactive plans cannot ... receive switched subscriptions."
		id2 := f.sub(t, p, "")
		inactive := f.plan(t, "M", 1, 0, "3.00")
		c.with(t).j("POST", "/rbs/v1/plans/"+inactive+"/deactivate", mid, nil, 200)
		eb := c.with(t).j("PATCH", "/rbs/v1/subscriptions/"+id2, mid, obj{"subscriptionInformation": obj{"planId": inactive}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "subscriptionInformation.planId", "INVALID_DATA")
	})
}

// TestContractBillingEngine checks the engine against the state tables.
func TestContractBillingEngine(t *testing.T) {
	f := newSubFixture(t)
	c, mid := f.c, f.mid
	t.Run("SCHEDULED, processing at the scheduled time, success: PAID; the transaction is in Transaction Search", func(t *testing.T) {
		id := f.sub(t, f.plan(t, "M", 1, 3, "10.00"), "")
		ps := f.payments(t, id)
		if ps[0].Status != payPaid || ps[0].TransactionID == "" || f.status(t, id) != subActive {
			t.Fatalf("first payment %+v", ps[0])
		}
		d := c.with(t).j("GET", "/tss/v2/transactions/"+ps[0].TransactionID, mid, nil, 200)
		if str(d, "orderInformation.amountDetails.totalAmount") != "10.00" || str(d, "recurringPaymentInformation.subscriptionId") != id {
			t.Fatalf("transaction %v", d)
		}
		// The detail spells its time submitTimeUTC (the SDK's model), the
		// search results submitTimeUtc.
		if _, err := time.Parse(time.RFC3339, str(d, "submitTimeUTC")); err != nil || d["submitTimeUtc"] != nil {
			t.Fatalf("transaction detail time: submitTimeUTC %q, submitTimeUtc %v", str(d, "submitTimeUTC"), d["submitTimeUtc"])
		}
		// Fixed number of payments: the last one completes it.
		f.advance(t, 62*24*time.Hour)
		if got := processed(f.payments(t, id)); !slices.Equal(got, []string{"STANDARD PAID 1", "STANDARD PAID 2", "STANDARD PAID 3"}) || f.status(t, id) != subCompleted {
			t.Fatalf("after two months: %v, %s", got, f.status(t, id))
		}
	})
	retry := []struct {
		unit  string
		n     int
		every time.Duration
	}{{"D", 1, time.Hour}, {"W", 3, 24 * time.Hour}, {"M", 5, 48 * time.Hour}, {"Y", 3, 15 * 24 * time.Hour}}
	for _, tc := range retry {
		t.Run(fmt.Sprintf("active, external decline, retries remain: delinquent; retried %d times every %s (%s); retries exhausted: suspended", tc.n, tc.every, tc.unit), func(t *testing.T) {
			id := f.sub(t, f.plan(t, tc.unit, 1, 0, "20.96"), "")
			if st := f.status(t, id); st != subDelinquent {
				t.Fatalf("after a decline: %s", st)
			}
			ps := f.payments(t, id)
			first, _ := time.Parse(time.RFC3339, ps[0].Date)
			f.advance(t, time.Duration(tc.n)*tc.every)
			want := []string{"STANDARD FAILED 1"}
			for i := 0; i < tc.n; i++ {
				want = append(want, "RETRY FAILED 1")
			}
			ps = f.payments(t, id)
			if got := processed(ps); !slices.Equal(got, want) {
				t.Fatalf("payments %v, want %v", got, want)
			}
			for i, p := range ps[1 : 1+tc.n] {
				if at, _ := time.Parse(time.RFC3339, p.Date); !at.Equal(first.Add(time.Duration(i+1) * tc.every)) {
					t.Fatalf("retry %d at %s, want %s", i+1, p.Date, first.Add(time.Duration(i+1)*tc.every))
				}
			}
			if st := f.status(t, id); st != subSuspended {
				t.Fatalf("after %d retries: %s", tc.n, st)
			}
		})
	}
	t.Run("issuer returns a reason such as do-not-retry: suspended, all retries stop at once", func(t *testing.T) {
		id := f.sub(t, f.plan(t, "M", 1, 0, "20.97"), "")
		if st := f.status(t, id); st != subSuspended {
			t.Fatalf("status %s", st)
		}
		f.advance(t, 10*24*time.Hour)
		if got := processed(f.payments(t, id)); !slices.Equal(got, []string{"STANDARD FAILED 1"}) {
			t.Fatalf("payments %v", got)
		}
	})
	t.Run("a retry that succeeds returns the subscription to ACTIVE", func(t *testing.T) {
		id := f.sub(t, f.plan(t, "M", 1, 0, "20.98"), "")
		f.advance(t, 48*time.Hour)
		if got := processed(f.payments(t, id)); !slices.Equal(got, []string{"STANDARD FAILED 1", "RETRY PAID 1"}) || f.status(t, id) != subActive {
			t.Fatalf("payments %v, %s", got, f.status(t, id))
		}
	})
	t.Run("Internal processing error: the payment is retried until the error is resolved; no status change", func(t *testing.T) {
		id := f.sub(t, f.plan(t, "M", 1, 0, "20.95"), "")
		ps := f.payments(t, id)
		if ps[0].Status != payScheduled || f.status(t, id) != subActive && f.status(t, id) != subPending {
			t.Fatalf("after an internal error: %+v %s", ps[0], f.status(t, id))
		}
		f.advance(t, time.Hour)
		if ps = f.payments(t, id); ps[0].Status != payPaid {
			t.Fatalf("an hour later: %+v", ps[0])
		}
	})
	t.Run("suspended: missed cycles are counted; activate?processMissedPayments=true bills them", func(t *testing.T) {
		id := f.sub(t, f.plan(t, "W", 1, 0, "5.00"), "")
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/suspend", mid, nil, 200)
		f.advance(t, 15*24*time.Hour)
		g := c.with(t).j("GET", "/rbs/v1/subscriptions/"+id, mid, nil, 200)
		if str(g, "reactivationInformation.missedPaymentsCount") != "2" || str(g, "reactivationInformation.missedPaymentsTotalAmount") != "10.00" {
			t.Fatalf("reactivation information %v", g["reactivationInformation"])
		}
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/activate?processMissedPayments=true", mid, nil, 200)
		if got := processed(f.payments(t, id)); !slices.Equal(got, []string{"STANDARD PAID 1", "STANDARD PAID 2", "STANDARD PAID 3"}) || f.status(t, id) != subActive {
			t.Fatalf("after activation: %v %s", got, f.status(t, id))
		}
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id+"/activate", mid, nil, 400)
	})
	t.Run("billing intervals over 12 months rejected", func(t *testing.T) {
		eb := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"name": "Long"},
			"planInformation":    obj{"billingPeriod": obj{"length": "13", "unit": "M"}, "billingCycles": obj{"total": "2"}},
			"orderInformation":   obj{"amountDetails": obj{"billingAmount": "5.00", "currency": "USD"}},
			"paymentInformation": obj{"customer": obj{"id": f.cust}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.billingPeriod.length", "INVALID_DATA")
	})
}

func TestContractSubscriptionPayments(t *testing.T) {
	f := newSubFixture(t)
	c, mid := f.c, f.mid
	plan := f.plan(t, "M", 1, 0, "10.00")
	id := f.sub(t, plan, "")
	path := "/rbs/v1/subscriptions/" + id + "/payments"
	t.Run("Payment list envelope: _links (self GET, update PUT), submitTimeUtc, totalCount, cyclesCompletedCount, billingCyclesToSkip, subscriptionPayment[]", func(t *testing.T) {
		l := c.with(t).j("GET", path, mid, nil, 200)
		sameLinks(t, l, map[string]string{"self": "GET", "update": "PUT"})
		if str(l, "submitTimeUtc") == "" || str(l, "cyclesCompletedCount.paid") != "1" || dig(l, "billingCyclesToSkip") == nil {
			t.Fatalf("envelope %v", l)
		}
		// scheduledPaymentsCount: default 5, max 9999.
		if n := len(arr(l, "subscriptionPayment")); n != 1+5 || str(l, "totalCount") != "6" {
			t.Fatalf("default: %d payments, totalCount %s", n, str(l, "totalCount"))
		}
		if n := len(arr(c.with(t).j("GET", path+"?scheduledPaymentsCount=9999&limit=100", mid, nil, 200), "subscriptionPayment")); n != 1+indefiniteHorizon {
			t.Fatalf("fewer returned if fewer exist: %d", n)
		}
		c.with(t).j("GET", path+"?scheduledPaymentsCount=10000", mid, nil, 400)
	})
	t.Run("SCHEDULED, POST payments with the cycle in billingCyclesToSkip: SCHEDULED_SKIPPED; the array is the complete list", func(t *testing.T) {
		r := c.with(t).j("POST", path, mid, obj{"billingCyclesToSkip": []int{3, 2}}, 200)
		if str(r, "status") != "COMPLETED" || fmt.Sprint(r["billingCyclesToSkip"]) != "[2 3]" {
			t.Fatalf("skip answer %v", r)
		}
		ps, skip := c.with(t).payments(mid, id)
		if !slices.Equal(skip, []int{2, 3}) || ps[1].Status != paySkipped || ps[2].Status != paySkipped || ps[3].Status != payScheduled {
			t.Fatalf("after skip: %v %+v", skip, ps[:4])
		}
		// PUT (facts) with [3]: cycle 2 restored.
		c.with(t).j("PUT", path, mid, obj{"billingCyclesToSkip": []int{3}}, 200)
		ps, skip = c.with(t).payments(mid, id)
		if !slices.Equal(skip, []int{3}) || ps[1].Status != payScheduled || ps[2].Status != paySkipped {
			t.Fatalf("after restore: %v %+v", skip, ps[:3])
		}
	})
	t.Run("Skipping an unmodifiable payment: INVALID_REQUEST, INVALID_DATA, billingCyclesToSkip UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:<n>", func(t *testing.T) {
		eb := c.with(t).j("POST", path, mid, obj{"billingCyclesToSkip": []int{1, 3}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "billingCyclesToSkip", "UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:1")
	})
	t.Run("no skip or restore within 2 hours of processing", func(t *testing.T) {
		soon := f.s.Clock().Add(90 * time.Minute).Format(time.RFC3339)
		id2 := f.sub(t, f.plan(t, "W", 1, 0, "3.00"), soon)
		ps := f.payments(t, id2)
		if ps[0].Status != payScheduled || ps[0].Date != soon {
			t.Fatalf("first payment %+v", ps[0])
		}
		l := c.with(t).j("GET", "/rbs/v1/subscriptions/"+id2+"/payments", mid, nil, 200)
		if str(arr(l, "subscriptionPayment")[0], "modifiable") != "false" || str(arr(l, "subscriptionPayment")[1], "modifiable") != "true" {
			t.Fatalf("modifiable flags %v", arr(l, "subscriptionPayment")[:2])
		}
		eb := c.with(t).j("POST", "/rbs/v1/subscriptions/"+id2+"/payments", mid, obj{"billingCyclesToSkip": []int{1}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "billingCyclesToSkip", "UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:1")
		c.with(t).j("POST", "/rbs/v1/subscriptions/"+id2+"/payments", mid, obj{"billingCyclesToSkip": []int{2}}, 200)
	})
	t.Run("a retry payment cannot be added to the list", func(t *testing.T) {
		id3 := f.sub(t, f.plan(t, "M", 1, 0, "4.96"), "")
		eb := c.with(t).j("POST", "/rbs/v1/subscriptions/"+id3+"/payments", mid, obj{"billingCyclesToSkip": []int{1}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "billingCyclesToSkip", "UNMODIFIABLE_PAYMENT_SKIP_ATTEMPT_CYCLE:1")
	})
	t.Run("a skipped cycle is not billed when its date passes", func(t *testing.T) {
		f.advance(t, 70*24*time.Hour)
		ps, skip := c.with(t).payments(mid, id)
		if got := processed(ps); !slices.Equal(got[:3], []string{"STANDARD PAID 1", "STANDARD PAID 2", "STANDARD SKIPPED 3"}) || len(skip) != 0 {
			t.Fatalf("after the skipped cycle: %v, skip %v", got, skip)
		}
	})
}

// TestContractEvents: "The recurring billing service emails customers ...
// for three payment events: prepayment, successful payment, failed
// payment"; "Notifications can be disabled".
func TestContractEvents(t *testing.T) {
	f := newSubFixture(t)
	start := f.s.Clock().AddDate(0, 0, 5)
	ok := f.sub(t, f.plan(t, "M", 1, 0, "10.00"), start.Format(time.RFC3339))
	bad := f.sub(t, f.plan(t, "M", 1, 0, "10.96"), start.Format(time.RFC3339))
	f.advance(t, 5*24*time.Hour)
	events := func(t *testing.T) map[string][]string {
		out := map[string][]string{}
		l := f.c.with(t).j("GET", "/sandbox/v1/merchants/"+f.mid+"/notifications", DefaultOrganizationID, nil, 200)
		for _, n := range arr(l, "notifications") {
			out[str(n, "subscriptionId")] = append(out[str(n, "subscriptionId")], str(n, "event")+" "+str(n, "sentTime"))
			if str(n, "email") == "" || str(n, "merchantName") == "" || str(n, "billingAmount") == "" || str(n, "subscriptionName") == "" {
				t.Fatalf("notification %v", n)
			}
			if (str(n, "event") == noticePrepayment) != (str(n, "transactionId") == "") {
				t.Fatalf("transactionId on %v", n)
			}
		}
		return out
	}
	ev := events(t)
	notice := start.Add(-prepaymentNotice).Format(time.RFC3339)
	if got := ev[ok]; !slices.Equal(got, []string{noticePrepayment + " " + notice, noticeSuccess + " " + start.Format(time.RFC3339)}) {
		t.Fatalf("events of a paid subscription: %v", got)
	}
	if got := ev[bad]; len(got) != 2 || got[1] != noticeFailure+" "+start.Format(time.RFC3339) {
		t.Fatalf("events of a declined subscription: %v", got)
	}
	// Disabled: no more emails.
	f.c.j("PUT", "/sandbox/v1/merchants/"+f.mid+"/settings", DefaultOrganizationID, obj{"notificationsDisabled": true}, 200)
	f.advance(t, 40*24*time.Hour)
	if got := events(t); len(got[ok]) != 2 {
		t.Fatalf("emails sent while disabled: %v", got[ok])
	}
}
