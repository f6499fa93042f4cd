package sandbox

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"
)

// Hand-written encoders for the two big list answers, subscriptions and
// subscription payments: reflection-based encoding of a page of 100
// subscriptions took most of the time of serving it. They write the
// same bytes as encoding/json would for the same structs (field order,
// omitempty, no HTML escaping): TestFastJSONMatchesEncodingJSON checks it,
// so the structs stay the one description of the shapes.

// jw appends JSON objects to b. It lives on the caller's stack (no
// pointer into the heap is written per field), and needs no stack of its
// own: after a key comes a value, after a value a comma.
type jw struct {
	b     []byte
	first bool // no field written yet in the current object
}

func (w *jw) open() {
	w.b = append(w.b, '{')
	w.first = true
}

func (w *jw) close() {
	w.b = append(w.b, '}')
	w.first = false
}

func (w *jw) key(name string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

// str writes a string field; strOmit leaves it out when empty.
func (w *jw) str(name, v string) {
	w.key(name)
	w.b = appendJSONString(w.b, v)
}

func (w *jw) strOmit(name, v string) {
	if v != "" {
		w.str(name, v)
	}
}

func (w *jw) link(name string, l *link) {
	if l == nil {
		return
	}
	w.key(name)
	w.open()
	w.str("href", l.Href)
	w.strOmit("method", l.Method)
	w.close()
}

// appendJSONString quotes s as encoding/json does without HTML escaping:
// plain printable ASCII is copied, anything else goes through the
// standard encoder.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func (sj *subscriptionJSON) appendJSON(b []byte) []byte {
	w := jw{b: b}
	w.open()
	w.key("_links")
	if ls := sj.Links; ls == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.open()
		w.link("activate", ls.Activate)
		w.link("cancel", ls.Cancel)
		w.link("deactivate", ls.Deactivate)
		w.link("self", ls.Self)
		w.link("suspend", ls.Suspend)
		w.link("update", ls.Update)
		w.close()
	}
	w.str("id", sj.ID)
	w.key("clientReferenceInformation")
	w.open()
	w.str("code", sj.ClientReferenceInformation.Code)
	w.close()

	pi := &sj.PlanInformation
	w.key("planInformation")
	w.open()
	w.str("code", pi.Code)
	w.str("name", pi.Name)
	w.key("billingPeriod")
	w.open()
	w.str("length", pi.BillingPeriod.Length)
	w.str("unit", pi.BillingPeriod.Unit)
	w.close()
	w.key("billingCycles")
	w.open()
	w.strOmit("total", pi.BillingCycles.Total)
	w.strOmit("current", pi.BillingCycles.Current)
	w.close()
	w.close()

	si := &sj.SubscriptionInformation
	w.key("subscriptionInformation")
	w.open()
	w.str("code", si.Code)
	w.strOmit("planId", si.PlanID)
	w.str("name", si.Name)
	w.strOmit("description", si.Description)
	w.str("startDate", si.StartDate)
	w.str("status", si.Status)
	w.close()

	w.key("paymentInformation")
	w.open()
	w.key("customer")
	w.open()
	w.str("id", sj.PaymentInformation.Customer.ID)
	w.close()
	w.close()

	oi := &sj.OrderInformation
	w.key("orderInformation")
	w.open()
	w.key("amountDetails")
	w.open()
	w.str("currency", oi.AmountDetails.Currency)
	w.str("billingAmount", oi.AmountDetails.BillingAmount)
	w.strOmit("setupFee", oi.AmountDetails.SetupFee)
	w.close()
	if bt := oi.BillTo; bt != nil {
		w.key("billTo")
		w.open()
		w.str("firstName", bt.FirstName)
		w.str("lastName", bt.LastName)
		w.strOmit("address1", bt.Address1)
		w.strOmit("locality", bt.Locality)
		w.strOmit("administrativeArea", bt.AdministrativeArea)
		w.strOmit("postalCode", bt.PostalCode)
		w.strOmit("country", bt.Country)
		w.strOmit("email", bt.Email)
		w.close()
	}
	w.close()

	if ri := sj.ReactivationInformation; ri != nil {
		w.key("reactivationInformation")
		w.open()
		w.str("missedPaymentsCount", ri.MissedPaymentsCount)
		w.str("missedPaymentsTotalAmount", ri.MissedPaymentsTotalAmount)
		w.close()
	}
	w.close()
	return w.b
}

func (pj *paymentJSON) appendJSON(b []byte) []byte {
	w := jw{b: b}
	w.open()
	w.str("id", pj.ID)
	w.str("status", pj.Status)
	w.str("paymentType", pj.PaymentType)
	w.strOmit("transactionID", pj.TransactionID)
	w.str("date", pj.Date)
	w.str("currency", pj.Currency)
	w.str("billingStartDate", pj.BillingStartDate)
	w.str("billingEndDate", pj.BillingEndDate)
	w.str("billingCycle", pj.BillingCycle)
	w.str("paymentNumber", pj.PaymentNumber)
	w.str("billingAmount", pj.BillingAmount)
	w.strOmit("setupFee", pj.SetupFee)
	w.strOmit("surchargeAmount", pj.SurchargeAmount)
	w.strOmit("surchargeDescription", pj.SurchargeDescription)
	w.key("modifiable")
	w.b = strconv.AppendBool(w.b, pj.Modifiable)
	w.close()
	return w.b
}

// appendPageEnd ends a list answer with the page's items, under name, and
// totalCount: the last keys of both lists in encoding/json's (sorted)
// order.
func appendPageEnd[T any](b []byte, name string, items []T, total int, encode func(b []byte, item T) []byte) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = encode(b, it)
	}
	b = append(b, `],"totalCount":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	return append(b, '}')
}

// plainByte marks the bytes copied as they are into a JSON string.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendLinksMap encodes a map of links in sorted key order, as
// encoding/json does.
func appendLinksMap(b []byte, links map[string]link) []byte {
	w := jw{b: b}
	w.open()
	for _, k := range slices.Sorted(maps.Keys(links)) {
		l := links[k]
		w.link(k, &l)
	}
	w.close()
	return w.b
}

// scratch recycles the buffers list answers are encoded into.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 128<<10); return &b }}
