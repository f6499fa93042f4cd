package platform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// rbsPageSize is the largest page the recurring billing lists allow.
const rbsPageSize = 100

// Plan is a recurring billing plan, flattened from planInformation and
// orderInformation.amountDetails. Numbers stay strings as the platform sends
// them; CyclesTotal is empty (or "0") for a bill-indefinitely plan.
type Plan struct {
	ID            string
	Code          string
	Status        string
	Name          string
	Description   string
	PeriodLength  string
	PeriodUnit    string // upper case: D, W, M, Y
	CyclesTotal   string
	BillingAmount string
	SetupFee      string
	Currency      string
	Raw           json.RawMessage `json:"-"`
}

// Subscription is a recurring billing subscription (docs/platform.md, Subscriptions).
type Subscription struct {
	ID              string
	Code            string // subscriptionInformation.code
	PlanID          string
	PlanCode        string
	Name            string
	Status          string // PENDING, ACTIVE, FAILED, COMPLETED, DELINQUENT, SUSPENDED, CANCELLED
	StartDate       string
	CustomerID      string
	ClientReference string
	BillingAmount   string
	SetupFee        string
	Currency        string
	PeriodLength    string
	PeriodUnit      string // upper case
	CyclesTotal     string
	CyclesCurrent   string
	// reactivationInformation, on a GET by id only: the cycles a suspended
	// subscription missed and what they would have billed.
	MissedPaymentsCount       string
	MissedPaymentsTotalAmount string
	Raw                       json.RawMessage `json:"-"`
}

// PaymentList is every page of a subscription's payment list merged: the
// envelope of the first page and the payments of all pages in order.
type PaymentList struct {
	SubmitTimeUTC       string
	TotalCount          int
	CyclesCompleted     map[string]int // cyclesCompletedCount, e.g. {"paid": 3}
	BillingCyclesToSkip []int
	Links               map[string]Link // _links of the first page (self, update)
	Payments            []Payment
}

// Payment is one payment of a subscription's payment list.
type Payment struct {
	ID                   string
	Status               string // PAID, FAILED, SKIPPED, SCHEDULED, SCHEDULED_SKIPPED
	PaymentType          string // STANDARD, RETRY
	TransactionID        string
	Date                 string
	Currency             string
	BillingStartDate     string
	BillingEndDate       string
	BillingCycle         string
	PaymentNumber        string
	BillingAmount        string
	SetupFee             string
	SurchargeAmount      string
	SurchargeDescription string
	Modifiable           *bool           // nil when absent
	Raw                  json.RawMessage `json:"-"`
}

type amountDetailsWire struct {
	Currency      flexString `json:"currency"`
	BillingAmount flexString `json:"billingAmount"`
	SetupFee      flexString `json:"setupFee"`
}

type billingPeriodWire struct {
	Length flexString `json:"length"`
	Unit   flexString `json:"unit"`
}

// planInformationWire is a plan's planInformation (the SDK's
// GetAllPlansResponsePlanInformation): a plan has no current cycle.
type planInformationWire struct {
	Code          flexString        `json:"code"`
	Status        flexString        `json:"status"`
	Name          flexString        `json:"name"`
	Description   flexString        `json:"description"`
	BillingPeriod billingPeriodWire `json:"billingPeriod"`
	BillingCycles struct {
		Total flexString `json:"total"`
	} `json:"billingCycles"`
}

// subscriptionPlanWire is a subscription's planInformation (the SDK's
// GetAllSubscriptionsResponsePlanInformation), which has no plan status or
// description, and counts the current cycle. Only what decodeSubscription
// uses is read, so that the field guard (sdkfields_test.go) checks what
// is read.
type subscriptionPlanWire struct {
	Code          flexString        `json:"code"`
	BillingPeriod billingPeriodWire `json:"billingPeriod"`
	BillingCycles struct {
		Total   flexString `json:"total"`
		Current flexString `json:"current"`
	} `json:"billingCycles"`
}

type planWire struct {
	ID               flexString          `json:"id"`
	PlanInformation  planInformationWire `json:"planInformation"`
	OrderInformation struct {
		AmountDetails amountDetailsWire `json:"amountDetails"`
	} `json:"orderInformation"`
}

func decodePlan(raw json.RawMessage) (Plan, error) {
	w, err := decodeRecord[planWire]("plan", raw)
	if err != nil {
		return Plan{}, err
	}
	pi, ad := w.PlanInformation, w.OrderInformation.AmountDetails
	return Plan{
		ID:            string(w.ID),
		Code:          string(pi.Code),
		Status:        string(pi.Status),
		Name:          string(pi.Name),
		Description:   string(pi.Description),
		PeriodLength:  string(pi.BillingPeriod.Length),
		PeriodUnit:    upper(pi.BillingPeriod.Unit),
		CyclesTotal:   string(pi.BillingCycles.Total),
		BillingAmount: string(ad.BillingAmount),
		SetupFee:      string(ad.SetupFee),
		Currency:      string(ad.Currency),
		Raw:           raw,
	}, nil
}

type subscriptionWire struct {
	ID                         flexString `json:"id"`
	ClientReferenceInformation struct {
		Code flexString `json:"code"`
	} `json:"clientReferenceInformation"`
	PlanInformation         subscriptionPlanWire `json:"planInformation"`
	SubscriptionInformation struct {
		Code      flexString `json:"code"`
		PlanID    flexString `json:"planId"`
		Name      flexString `json:"name"`
		StartDate flexString `json:"startDate"`
		Status    flexString `json:"status"`
	} `json:"subscriptionInformation"`
	PaymentInformation struct {
		Customer struct {
			ID flexString `json:"id"`
		} `json:"customer"`
	} `json:"paymentInformation"`
	OrderInformation struct {
		AmountDetails amountDetailsWire `json:"amountDetails"`
	} `json:"orderInformation"`
	// missedPayments* as the SDK's model names them; older SDKs said
	// skippedPayments*.
	ReactivationInformation struct {
		MissedPaymentsCount        flexString `json:"missedPaymentsCount"`
		MissedPaymentsTotalAmount  flexString `json:"missedPaymentsTotalAmount"`
		SkippedPaymentsCount       flexString `json:"skippedPaymentsCount"`
		SkippedPaymentsTotalAmount flexString `json:"skippedPaymentsTotalAmount"`
	} `json:"reactivationInformation"`
}

func decodeSubscription(raw json.RawMessage) (Subscription, error) {
	w, err := decodeRecord[subscriptionWire]("subscription", raw)
	if err != nil {
		return Subscription{}, err
	}
	pi, si, ad, ri := w.PlanInformation, w.SubscriptionInformation, w.OrderInformation.AmountDetails, w.ReactivationInformation
	return Subscription{
		ID:                        string(w.ID),
		Code:                      string(si.Code),
		PlanID:                    string(si.PlanID),
		PlanCode:                  string(pi.Code),
		Name:                      string(si.Name),
		Status:                    string(si.Status),
		StartDate:                 string(si.StartDate),
		CustomerID:                string(w.PaymentInformation.Customer.ID),
		ClientReference:           string(w.ClientReferenceInformation.Code),
		BillingAmount:             string(ad.BillingAmount),
		SetupFee:                  string(ad.SetupFee),
		Currency:                  string(ad.Currency),
		PeriodLength:              string(pi.BillingPeriod.Length),
		PeriodUnit:                upper(pi.BillingPeriod.Unit),
		CyclesTotal:               string(pi.BillingCycles.Total),
		CyclesCurrent:             string(pi.BillingCycles.Current),
		MissedPaymentsCount:       string(firstNonEmpty(ri.MissedPaymentsCount, ri.SkippedPaymentsCount)),
		MissedPaymentsTotalAmount: string(firstNonEmpty(ri.MissedPaymentsTotalAmount, ri.SkippedPaymentsTotalAmount)),
		Raw:                       raw,
	}, nil
}

type paymentWire struct {
	ID                   flexString `json:"id"`
	Status               flexString `json:"status"`
	PaymentType          flexString `json:"paymentType"`
	TransactionID        flexString `json:"transactionID"`
	TransactionId        flexString `json:"transactionId"` // tolerated spelling
	Date                 flexString `json:"date"`
	Currency             flexString `json:"currency"`
	BillingStartDate     flexString `json:"billingStartDate"`
	BillingEndDate       flexString `json:"billingEndDate"`
	BillingCycle         flexString `json:"billingCycle"`
	PaymentNumber        flexString `json:"paymentNumber"`
	BillingAmount        flexString `json:"billingAmount"`
	SetupFee             flexString `json:"setupFee"`
	SurchargeAmount      flexString `json:"surchargeAmount"`
	SurchargeDescription flexString `json:"surchargeDescription"`
	Modifiable           flexBool   `json:"modifiable"`
}

// paymentTags are paymentWire's JSON keys, in the order of its fields.
var paymentTags = []string{"id", "status", "paymentType", "transactionID", "transactionId", "date", "currency",
	"billingStartDate", "billingEndDate", "billingCycle", "paymentNumber", "billingAmount", "setupFee",
	"surchargeAmount", "surchargeDescription", "modifiable"}

// field is the field of the member key (nil for a key it does not read),
// matched as encoding/json matches it (fieldIndex).
func (w *paymentWire) field(key []byte) any {
	fields := [...]any{&w.ID, &w.Status, &w.PaymentType, &w.TransactionID, &w.TransactionId, &w.Date, &w.Currency,
		&w.BillingStartDate, &w.BillingEndDate, &w.BillingCycle, &w.PaymentNumber, &w.BillingAmount, &w.SetupFee,
		&w.SurchargeAmount, &w.SurchargeDescription, &w.Modifiable}
	if i := fieldIndex(key, paymentTags); i >= 0 {
		return fields[i]
	}
	return nil
}

// decodePayment decodes the most numerous record of a run by walking its
// bytes once (eachMember) rather than through the reflective decoder the
// other records take, and keeps the values that are the record's text as
// it stands (no escapes) in one string: one allocation, of their length,
// for a dozen fields. Keys match fields as encoding/json matches them
// (fieldIndex); a key given twice, the last one counts.
func decodePayment(raw json.RawMessage) (Payment, error) {
	var w paymentWire
	var plain [16]plainField // one per field of paymentWire, more only for keys given twice
	n, size := 0, 0
	err := eachMember(raw, func(key []byte, v jsonValue) (int, error) {
		start := v.start
		end, err := v.skip()
		if err != nil {
			return end, err
		}
		switch f := w.field(key).(type) {
		case *flexString:
			if s, e, ok := plainValue(raw, start, end); ok {
				if n == len(plain) { // a record giving keys again and again
					flushPlain(raw, plain[:n], size)
					n, size = 0, 0
				}
				plain[n].f, plain[n].start, plain[n].end = f, s, e
				n, size = n+1, size+e-s
				return end, nil
			}
			for i := range plain[:n] { // set below, after this value: the last one counts
				if plain[i].f == f {
					plain[i].f = nil
				}
			}
			err = f.UnmarshalJSON(raw[start:end])
		case *flexBool:
			err = f.UnmarshalJSON(raw[start:end])
		}
		return end, err
	})
	if err != nil {
		return Payment{}, fmt.Errorf("decode subscription payment: %w: %w", ErrInvalidData, err)
	}
	flushPlain(raw, plain[:n], size)
	return w.payment(raw), nil
}

// plainField is a flexString field whose value is raw[start:end] as it
// stands.
type plainField struct {
	f          *flexString
	start, end int
}

// plainValue reports whether the flexString value raw[start:end] is its
// own text: a string without escapes (the part between its quotes), a
// number or a boolean, or null (empty).
func plainValue(raw []byte, start, end int) (int, int, bool) {
	switch v := raw[start:end]; {
	case string(v) == "null":
		return start, start, true
	case v[0] == '"':
		return start + 1, end - 1, bytes.IndexByte(v, '\\') < 0
	case v[0] == '{' || v[0] == '[':
		return 0, 0, false
	}
	return start, end, true
}

// flushPlain sets each field of fields (but those set to nil) to its value,
// all of them in one string of size bytes or more.
func flushPlain(raw []byte, fields []plainField, size int) {
	var b strings.Builder
	b.Grow(size)
	for _, p := range fields {
		if p.f != nil {
			b.Write(raw[p.start:p.end])
		}
	}
	text, at := b.String(), 0
	for _, p := range fields {
		if p.f != nil {
			n := p.end - p.start
			*p.f = flexString(text[at : at+n])
			at += n
		}
	}
}

// payment is the record w was decoded from, raw.
func (w *paymentWire) payment(raw json.RawMessage) Payment {
	return Payment{
		ID:                   string(w.ID),
		Status:               string(w.Status),
		PaymentType:          string(w.PaymentType),
		TransactionID:        string(firstNonEmpty(w.TransactionID, w.TransactionId)),
		Date:                 string(w.Date),
		Currency:             string(w.Currency),
		BillingStartDate:     string(w.BillingStartDate),
		BillingEndDate:       string(w.BillingEndDate),
		BillingCycle:         string(w.BillingCycle),
		PaymentNumber:        string(w.PaymentNumber),
		BillingAmount:        string(w.BillingAmount),
		SetupFee:             string(w.SetupFee),
		SurchargeAmount:      string(w.SurchargeAmount),
		SurchargeDescription: string(w.SurchargeDescription),
		Modifiable:           w.Modifiable.ptr(),
		Raw:                  raw,
	}
}

// rbsPage is one page of any recurring billing list; only the array of the
// listing asked for is filled.
type rbsPage struct {
	Links               map[string]link    `json:"_links"`
	TotalCount          flexInt            `json:"totalCount"`
	SubmitTimeUTC       flexString         `json:"submitTimeUtc"`
	CyclesCompleted     map[string]flexInt `json:"cyclesCompletedCount"`
	BillingCyclesToSkip []flexInt          `json:"billingCyclesToSkip"`
	Plans               []json.RawMessage  `json:"plans"`
	Subscriptions       []json.RawMessage  `json:"subscriptions"`
	Payments            []json.RawMessage  `json:"subscriptionPayment"`
}

func (p *rbsPage) hasNext() bool {
	l, ok := p.Links["next"]
	return ok && l.Href != ""
}

// offsetList iterates an offset-paged recurring billing list: pages of
// rbsPageSize from offset 0, each decoded and yielded record by record before
// the next is fetched. A record listed twice (offsets drift over live data)
// is yielded once; a listing that ends short of its totalCount ends with an
// error wrapping ErrShortfall (tally), after every record it found.
func offsetList[T any](ctx context.Context, m *Merchant, what, noun string,
	target func(offset int) string,
	items func(*rbsPage) []json.RawMessage,
	decode func(json.RawMessage) (T, error),
	id func(T) string,
) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var count tally
		for offset := 0; ; {
			t := target(offset)
			body, err := m.send(ctx, "GET", t, nil, true, rbsPageLimit)
			if err != nil {
				yield(zero, fmt.Errorf("%s of merchant %s at offset %d: %w", what, m.id, offset, err))
				return
			}
			page, err := decodePage[rbsPage](what, body)
			if err != nil {
				yield(zero, fmt.Errorf("%s of merchant %s at offset %d: %w", what, m.id, offset, err))
				return
			}
			count.page(int(page.TotalCount))
			recs := items(&page)
			fresh := 0
			for _, raw := range recs {
				v, err := decode(raw)
				if err != nil {
					yield(zero, fmt.Errorf("%s of merchant %s at offset %d: %w", what, m.id, offset, err))
					return
				}
				if !count.first(id(v)) {
					continue
				}
				fresh++
				if !yield(v, nil) {
					return
				}
			}
			if fresh == 0 {
				noteNothingNew(ctx)
			}
			offset += len(recs)
			// A page of records all listed before ends the listing: a
			// platform whose pages repeat with a next link each time would
			// otherwise be paged until --member-timeout, taking thousands
			// of requests from the whole run's budget. A list short of its
			// totalCount for it still fails (shortfall, below).
			if fresh == 0 || !continueOffsets(offset, len(recs), int(page.TotalCount), page.hasNext()) {
				break
			}
		}
		if err := count.shortfall(noun); err != nil {
			yield(zero, fmt.Errorf("%s of merchant %s: %w", what, m.id, err))
		}
	}
}

// Plans lists every plan of the merchant: GET /rbs/v1/plans?offset=N&limit=100
// until a page is empty, or neither a next link nor totalCount says more
// remain; fewer plans than totalCount is an error (ErrShortfall).
func (m *Merchant) Plans(ctx context.Context) iter.Seq2[Plan, error] {
	return offsetList(ctx, m, "list plans", "plans",
		func(offset int) string {
			return "/rbs/v1/plans?offset=" + strconv.Itoa(offset) + "&limit=" + strconv.Itoa(rbsPageSize)
		},
		func(p *rbsPage) []json.RawMessage { return p.Plans },
		decodePlan, func(p Plan) string { return p.ID })
}

// Subscriptions lists every subscription of the merchant: GET
// /rbs/v1/subscriptions?offset=N&limit=100, paged and checked like Plans.
func (m *Merchant) Subscriptions(ctx context.Context) iter.Seq2[Subscription, error] {
	return offsetList(ctx, m, "list subscriptions", "subscriptions",
		func(offset int) string {
			return "/rbs/v1/subscriptions?offset=" + strconv.Itoa(offset) + "&limit=" + strconv.Itoa(rbsPageSize)
		},
		func(p *rbsPage) []json.RawMessage { return p.Subscriptions },
		decodeSubscription, func(s Subscription) string { return s.ID })
}

// SubscriptionPayments returns every payment of a subscription, processed and
// scheduled: GET /rbs/v1/subscriptions/{id}/payments with
// scheduledPaymentsCount=9999 (the maximum, so the whole schedule is seen),
// paged with offset until offset reaches totalCount or a page is empty. The
// pages are merged: the envelope of the first page and every payment in the
// order served, each once. Fewer payments than totalCount is an error
// (ErrShortfall, see tally): a list is complete or not returned. A
// subscription has at most a few hundred payments, so the whole list is
// returned at once rather than as an iterator.
func (m *Merchant) SubscriptionPayments(ctx context.Context, subscriptionID string) (*PaymentList, error) {
	what := fmt.Sprintf("list payments of subscription %s of merchant %s", subscriptionID, m.id)
	if subscriptionID == "" {
		return nil, fmt.Errorf("%s: empty subscription id", what)
	}
	var list *PaymentList
	var count tally
	for offset := 0; ; {
		t := "/rbs/v1/subscriptions/" + url.PathEscape(subscriptionID) + "/payments?offset=" +
			strconv.Itoa(offset) + "&limit=" + strconv.Itoa(rbsPageSize) + "&scheduledPaymentsCount=9999"
		body, err := m.send(ctx, "GET", t, nil, true, rbsPageLimit)
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", what, offset, err)
		}
		page, err := decodePaymentPage(body)
		if err != nil {
			return nil, fmt.Errorf("%s at offset %d: %w", what, offset, err)
		}
		if list == nil {
			list = &PaymentList{
				SubmitTimeUTC:   string(page.SubmitTimeUTC),
				TotalCount:      int(page.TotalCount),
				CyclesCompleted: make(map[string]int, len(page.CyclesCompleted)),
				Links:           make(map[string]Link, len(page.Links)),
				Payments:        make([]Payment, 0, min(max(int(page.TotalCount), len(page.Payments)), 10000)),
			}
			for k, v := range page.CyclesCompleted {
				list.CyclesCompleted[k] = int(v)
			}
			for _, c := range page.BillingCyclesToSkip {
				list.BillingCyclesToSkip = append(list.BillingCyclesToSkip, int(c))
			}
			for k, l := range page.Links {
				list.Links[k] = Link{Href: string(l.Href), Method: string(l.Method)}
			}
		}
		count.page(int(page.TotalCount))
		fresh := 0
		for _, raw := range page.Payments {
			p, err := decodePayment(raw)
			if err != nil {
				return nil, fmt.Errorf("%s at offset %d: %w", what, offset, err)
			}
			if count.first(p.ID) {
				list.Payments = append(list.Payments, p)
				fresh++
			}
		}
		if fresh == 0 {
			noteNothingNew(ctx)
		}
		offset += len(page.Payments)
		if !continueOffsets(offset, len(page.Payments), int(page.TotalCount), page.hasNext()) {
			break
		}
	}
	if err := count.shortfall("payments"); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return list, nil
}
