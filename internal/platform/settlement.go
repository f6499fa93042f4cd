package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"time"
)

// Settlement and funding reports (docs/platform.md, Reporting). Every field
// is named as the vendor's Node SDK models it; the model file of each is
// given beside it.

// Settlement is one request id of the purchase and refund details, its six
// sections (ReportingV3PurchaseRefundDetailsGet200Response.js) joined by
// requestId. A request with no settlement yet has a Status (such as
// Pending) and no batch.
type Settlement struct {
	RequestID string
	// ...ResponseRequestDetails.js
	MerchantID, GroupName, TransactionReference, MerchantReference string
	// ...ResponseSettlements.js
	TransactionType, SubmissionTime, Amount, Currency, PaymentMethod, PaymentType, AccountSuffix string
	BatchTime, BatchID, CardType                                                                 string
	// ...ResponseAuthorizations.js: the request's time and the
	// authorization it settles.
	RequestTime, AuthorizationRequestID, AuthorizedAmount, AuthorizedCurrency string
	// ...ResponseFeeAndFundingDetails.js
	InterchangeDescription, InterchangePercentage, InterchangePercentageAmount, InterchangePerItemFee string
	DiscountPercentage, DiscountAmount, DiscountPerItemFee, DuesAssessments, TotalFee, FeeCurrency    string
	FundingAmount, FundingCurrency                                                                    string
	// ...ResponseSettlementStatuses.js
	Status, SettlementTime, ReasonCode, ErrorText string
	// Raw is the request's records of every section, as received.
	Raw json.RawMessage
}

type purchaseRefundPage struct {
	Offset         flexInt `json:"offset"`
	Limit          flexInt `json:"limit"`
	PageResults    flexInt `json:"pageResults"`
	RequestDetails []struct {
		RequestID                  flexString `json:"requestId"`
		CybersourceMerchantID      flexString `json:"cybersourceMerchantId"`
		GroupName                  flexString `json:"groupName"`
		TransactionReferenceNumber flexString `json:"transactionReferenceNumber"`
		MerchantReferenceNumber    flexString `json:"merchantReferenceNumber"`
	} `json:"requestDetails"`
	Settlements []struct {
		RequestID            flexString `json:"requestId"`
		TransactionType      flexString `json:"transactionType"`
		SubmissionTime       flexString `json:"submissionTime"`
		Amount               flexString `json:"amount"`
		CurrencyCode         flexString `json:"currencyCode"`
		PaymentMethod        flexString `json:"paymentMethod"`
		PaymentType          flexString `json:"paymentType"`
		AccountSuffix        flexString `json:"accountSuffix"`
		CybersourceBatchTime flexString `json:"cybersourceBatchTime"`
		CybersourceBatchID   flexString `json:"cybersourceBatchId"`
		CardType             flexString `json:"cardType"`
	} `json:"settlements"`
	Authorizations []struct {
		RequestID              flexString `json:"requestId"`
		Time                   flexString `json:"time"`
		AuthorizationRequestID flexString `json:"authorizationRequestId"`
		Amount                 flexString `json:"amount"`
		CurrencyCode           flexString `json:"currencyCode"`
	} `json:"authorizations"`
	FeeAndFundingDetails []struct {
		RequestID                   flexString `json:"requestId"`
		InterchangePerItemFee       flexString `json:"interchangePerItemFee"`
		InterchangeDescription      flexString `json:"interchangeDescription"`
		InterchangePercentage       flexString `json:"interchangePercentage"`
		InterchangePercentageAmount flexString `json:"interchangePercentageAmount"`
		DiscountPercentage          flexString `json:"discountPercentage"`
		DiscountAmount              flexString `json:"discountAmount"`
		DiscountPerItemFee          flexString `json:"discountPerItemFee"`
		TotalFee                    flexString `json:"totalFee"`
		FeeCurrency                 flexString `json:"feeCurrency"`
		DuesAssessments             flexString `json:"duesAssessments"`
		FundingAmount               flexString `json:"fundingAmount"`
		FundingCurrency             flexString `json:"fundingCurrency"`
	} `json:"feeAndFundingDetails"`
	SettlementStatuses []struct {
		RequestID      flexString `json:"requestId"`
		Status         flexString `json:"status"`
		SettlementTime flexString `json:"settlementTime"`
		ReasonCode     flexString `json:"reasonCode"`
		ErrorText      flexString `json:"errorText"`
	} `json:"settlementStatuses"`
}

// rawSections is a page's sections kept as received, to give each request
// its own records (Settlement.Raw).
type rawSections map[string][]json.RawMessage

// sections are the purchase and refund details' lists of records.
var sections = []string{"requestDetails", "settlements", "authorizations", "feeAndFundingDetails", "others", "settlementStatuses"}

// sectionsOf reads a page's sections as received.
func sectionsOf(body []byte) (rawSections, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	out := rawSections{}
	for _, name := range sections {
		if v, ok := top[name]; ok && string(v) != "null" {
			var list []json.RawMessage
			if err := json.Unmarshal(v, &list); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out[name] = list
		}
	}
	return out, nil
}

// settlements joins a page's sections by requestId, in the order of
// requestDetails; a section's record whose requestId no request detail
// has is an error (the page does not hold together).
func (p *purchaseRefundPage) settlements(raw rawSections) ([]Settlement, error) {
	out := make([]Settlement, 0, len(p.RequestDetails))
	at := map[string]int{}
	for _, r := range p.RequestDetails {
		id := string(r.RequestID)
		if _, dup := at[id]; dup || id == "" {
			continue
		}
		at[id] = len(out)
		out = append(out, Settlement{RequestID: id, MerchantID: string(r.CybersourceMerchantID), GroupName: string(r.GroupName),
			TransactionReference: string(r.TransactionReferenceNumber), MerchantReference: string(r.MerchantReferenceNumber)})
	}
	find := func(section string, id flexString) (*Settlement, error) {
		i, ok := at[string(id)]
		if !ok {
			return nil, fmt.Errorf("%s record of request %q, which no requestDetails record names: %w", section, string(id), ErrInvalidData)
		}
		return &out[i], nil
	}
	for _, r := range p.Settlements {
		s, err := find("settlements", r.RequestID)
		if err != nil {
			return nil, err
		}
		s.TransactionType, s.SubmissionTime, s.Amount, s.Currency = string(r.TransactionType), string(r.SubmissionTime), string(r.Amount), upper(r.CurrencyCode)
		s.PaymentMethod, s.PaymentType, s.AccountSuffix = string(r.PaymentMethod), string(r.PaymentType), string(r.AccountSuffix)
		s.BatchTime, s.BatchID, s.CardType = string(r.CybersourceBatchTime), string(r.CybersourceBatchID), string(r.CardType)
	}
	for _, r := range p.Authorizations {
		s, err := find("authorizations", r.RequestID)
		if err != nil {
			return nil, err
		}
		s.RequestTime, s.AuthorizationRequestID = string(r.Time), string(r.AuthorizationRequestID)
		s.AuthorizedAmount, s.AuthorizedCurrency = string(r.Amount), upper(r.CurrencyCode)
	}
	for _, r := range p.FeeAndFundingDetails {
		s, err := find("feeAndFundingDetails", r.RequestID)
		if err != nil {
			return nil, err
		}
		s.InterchangeDescription, s.InterchangePercentage = string(r.InterchangeDescription), string(r.InterchangePercentage)
		s.InterchangePercentageAmount, s.InterchangePerItemFee = string(r.InterchangePercentageAmount), string(r.InterchangePerItemFee)
		s.DiscountPercentage, s.DiscountAmount, s.DiscountPerItemFee = string(r.DiscountPercentage), string(r.DiscountAmount), string(r.DiscountPerItemFee)
		s.DuesAssessments, s.TotalFee, s.FeeCurrency = string(r.DuesAssessments), string(r.TotalFee), upper(r.FeeCurrency)
		s.FundingAmount, s.FundingCurrency = string(r.FundingAmount), upper(r.FundingCurrency)
	}
	for _, r := range p.SettlementStatuses {
		s, err := find("settlementStatuses", r.RequestID)
		if err != nil {
			return nil, err
		}
		s.Status, s.SettlementTime, s.ReasonCode, s.ErrorText = string(r.Status), string(r.SettlementTime), string(r.ReasonCode), string(r.ErrorText)
	}
	// Each request's own records of every section, for audit.
	recs := make([]map[string]json.RawMessage, len(out))
	for section, list := range raw {
		for _, r := range list {
			var id struct {
				RequestID flexString `json:"requestId"`
			}
			if json.Unmarshal(r, &id) != nil {
				continue
			}
			if i, ok := at[string(id.RequestID)]; ok {
				if recs[i] == nil {
					recs[i] = map[string]json.RawMessage{}
				}
				if _, dup := recs[i][section]; !dup {
					recs[i][section] = r
				}
			}
		}
	}
	for i := range out {
		out[i].Raw, _ = json.Marshal(recs[i])
	}
	return out, nil
}

// PurchaseRefundDetails lists the purchase and refund details of scope
// requested in [from, to) (viewBy requestDate): GET
// /reporting/v3/purchase-refund-details, pages of MaxReportLimit until a
// page brings fewer than its limit. A page whose pageResults differs from
// the requests it holds, or whose sections name a request it does not
// hold, is an error: a partial page is never passed off as whole.
func (m *Merchant) PurchaseRefundDetails(ctx context.Context, scope ReportScope, from, to time.Time) iter.Seq2[Settlement, error] {
	return func(yield func(Settlement, error) bool) {
		var count tally
		for offset := 0; ; {
			q := ReportQuery{Scope: scope, From: from, To: to, ViewBy: "requestDate", Offset: offset, Limit: MaxReportLimit}
			what := fmt.Sprintf("purchase and refund details of %s at offset %d", scope, offset)
			body, err := m.send(ctx, "GET", "/reporting/v3/purchase-refund-details?"+q.Encode(), nil, true, reportPageLimit)
			if err != nil {
				yield(Settlement{}, fmt.Errorf("%s: %w", what, err))
				return
			}
			page, err := decodePage[purchaseRefundPage](what, body)
			if err == nil {
				var raw rawSections
				raw, err = sectionsOf(body)
				if err != nil {
					err = pageError(what, err)
				}
				var list []Settlement
				if err == nil {
					list, err = page.settlements(raw)
				}
				if err == nil && int(page.PageResults) != len(list) {
					err = fmt.Errorf("pageResults %d but %d requests on the page: %w", int(page.PageResults), len(list), ErrInvalidData)
				}
				if err != nil {
					yield(Settlement{}, fmt.Errorf("%s: %w", what, err))
					return
				}
				for _, s := range list {
					if !count.first(s.RequestID) {
						continue
					}
					if !yield(s, nil) {
						return
					}
				}
				if len(list) == 0 || len(list) < MaxReportLimit {
					return
				}
				offset += len(list)
				continue
			}
			yield(Settlement{}, err)
			return
		}
	}
}

// CurrencyValue is an amount of a funding total
// (ReportingV3NetFundingsGet200ResponseTotalPurchases.js).
type CurrencyValue struct{ Currency, Value string }

// NetFunding is one currency of a net-fundings answer
// (ReportingV3NetFundingsGet200Response.js): totalPurchases,
// totalRefunds, totalFees, totalChargebacks and netTotal of that
// currency ("" when the answer lists none).
type NetFunding struct {
	Currency                                        string
	Purchases, Refunds, Fees, Chargebacks, NetTotal string
}

type netFundingsWire struct {
	StartTime        flexString     `json:"startTime"`
	EndTime          flexString     `json:"endTime"`
	TotalPurchases   []currencyWire `json:"totalPurchases"`
	TotalRefunds     []currencyWire `json:"totalRefunds"`
	TotalFees        []currencyWire `json:"totalFees"`
	TotalChargebacks []currencyWire `json:"totalChargebacks"`
	NetTotal         []currencyWire `json:"netTotal"`
}

type currencyWire struct {
	Currency flexString `json:"currency"`
	Value    flexString `json:"value"`
}

// NetFundings reads what was funded to scope in [from, to): GET
// /reporting/v3/net-fundings. The answer has no day of its own, so a run
// asks one day at a time. It returns the totals per currency, sorted as
// the answer first names them, and the body as received.
func (m *Merchant) NetFundings(ctx context.Context, scope ReportScope, from, to time.Time) ([]NetFunding, json.RawMessage, error) {
	q := ReportQuery{Scope: scope, From: from, To: to}
	what := fmt.Sprintf("net fundings of %s from %s", scope, from.UTC().Format(reportTimeLayout))
	body, err := m.send(ctx, "GET", "/reporting/v3/net-fundings?"+q.Encode(), nil, true, reportPageLimit)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	w, err := decodePage[netFundingsWire](what, body)
	if err != nil {
		return nil, nil, err
	}
	var out []NetFunding
	at := map[string]int{}
	get := func(cur flexString) *NetFunding {
		c := upper(cur)
		if i, ok := at[c]; ok {
			return &out[i]
		}
		at[c] = len(out)
		out = append(out, NetFunding{Currency: c})
		return &out[len(out)-1]
	}
	for _, l := range []struct {
		list []currencyWire
		set  func(*NetFunding, string)
	}{
		{w.TotalPurchases, func(n *NetFunding, v string) { n.Purchases = v }},
		{w.TotalRefunds, func(n *NetFunding, v string) { n.Refunds = v }},
		{w.TotalFees, func(n *NetFunding, v string) { n.Fees = v }},
		{w.TotalChargebacks, func(n *NetFunding, v string) { n.Chargebacks = v }},
		{w.NetTotal, func(n *NetFunding, v string) { n.NetTotal = v }},
	} {
		for _, cv := range l.list {
			l.set(get(cv.Currency), string(cv.Value))
		}
	}
	return out, json.RawMessage(body), nil
}

// BatchSummary is one row of the payment batch summaries
// (ReportingV3PaymentBatchSummariesGet200ResponsePaymentBatchSummaries.js).
type BatchSummary struct {
	MerchantID, AccountID, Currency, PaymentSubType string
	StartTime, EndTime                              string
	SalesCount, CreditCount                         int
	SalesAmount, CreditAmount                       string
	Raw                                             json.RawMessage
}

type batchSummaryWire struct {
	CurrencyCode              flexString `json:"currencyCode"`
	PaymentSubTypeDescription flexString `json:"paymentSubTypeDescription"`
	StartTime                 flexString `json:"startTime"`
	EndTime                   flexString `json:"endTime"`
	SalesCount                flexInt    `json:"salesCount"`
	SalesAmount               flexString `json:"salesAmount"`
	CreditCount               flexInt    `json:"creditCount"`
	CreditAmount              flexString `json:"creditAmount"`
	AccountID                 flexString `json:"accountId"`
	MerchantID                flexString `json:"merchantId"`
}

// PaymentBatchSummaries reads the batch totals per member, day, currency
// and card type of organization in [from, to): GET
// /reporting/v3/payment-batch-summaries with breakdown all_merchant and
// rollUp day. The SDK takes no groupName here, and no offset or limit: one
// request covers every member of the organization and every day of the
// span, a row each member, day, currency and card type (at 5,000 members
// over 25 days, 33 MB from the sandbox). An answer over its limit
// (batchSummaryLimit) is asked again as two spans of whole days, each half
// as long, until each fits or a single day does not.
func (m *Merchant) PaymentBatchSummaries(ctx context.Context, organizationID string, from, to time.Time) ([]BatchSummary, error) {
	sums, err := m.paymentBatchSummaries(ctx, organizationID, from, to)
	days := int(to.Sub(from) / (24 * time.Hour))
	if !errors.Is(err, ErrTooLarge) || days < 2 {
		return sums, err
	}
	mid := from.AddDate(0, 0, days/2)
	first, err := m.PaymentBatchSummaries(ctx, organizationID, from, mid)
	if err != nil {
		return nil, err
	}
	rest, err := m.PaymentBatchSummaries(ctx, organizationID, mid, to)
	if err != nil {
		return nil, err
	}
	return append(first, rest...), nil
}

// batchSummaryLimit bounds one answer of payment-batch-summaries (see
// PaymentBatchSummaries); a variable so that a test can make it small.
var batchSummaryLimit = bodyLimit{bytes: reportPageLimit.bytes, of: "one answer of payment batch summaries", timeout: defaultTimeout}

// paymentBatchSummaries is one request of PaymentBatchSummaries.
func (m *Merchant) paymentBatchSummaries(ctx context.Context, organizationID string, from, to time.Time) ([]BatchSummary, error) {
	q := ReportQuery{Scope: ReportScope{OrganizationID: organizationID}, From: from, To: to,
		Extra: url.Values{"breakdown": {"all_merchant"}, "rollUp": {"day"}}}
	what := fmt.Sprintf("payment batch summaries of %s from %s", organizationID, from.UTC().Format(reportTimeLayout))
	body, err := m.send(ctx, "GET", "/reporting/v3/payment-batch-summaries?"+q.Encode(), nil, true, batchSummaryLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	page, err := decodePage[struct {
		PaymentBatchSummaries []json.RawMessage `json:"paymentBatchSummaries"`
	}](what, body)
	if err != nil {
		return nil, err
	}
	out := make([]BatchSummary, 0, len(page.PaymentBatchSummaries))
	for _, raw := range page.PaymentBatchSummaries {
		w, err := decodeRecord[batchSummaryWire]("payment batch summary", raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, BatchSummary{MerchantID: string(w.MerchantID), AccountID: string(w.AccountID), Currency: upper(w.CurrencyCode),
			PaymentSubType: string(w.PaymentSubTypeDescription), StartTime: string(w.StartTime), EndTime: string(w.EndTime),
			SalesCount: int(w.SalesCount), CreditCount: int(w.CreditCount), SalesAmount: string(w.SalesAmount),
			CreditAmount: string(w.CreditAmount), Raw: raw})
	}
	return out, nil
}
