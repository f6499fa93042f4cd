package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// The Reporting API's interchange clearing levels, chargebacks and
// retrievals, as the vendor's Node SDK models them
// (InterchangeClearingLevelDetailsApi, ChargebackDetailsApi,
// RetrievalDetailsApi; ReportingV3InterchangeClearingLevelDetailsGet200Response,
// ReportingV3ChargebackDetailsGet200Response,
// ReportingV3RetrievalDetailsGet200Response). Each is one GET with
// startTime, endTime and organizationId: the SDK offers no paging and no
// group parameter. Read through the Merchant of a member, organizationId is
// the member: its own report; read through the Merchant of the
// organization, it is the organization's report of every member, one
// request a night whatever the number of members (ingest/disputes_org.go
// attributes its records). A clearing record names its member
// (organizationId, processorMerchantId); a chargeback or retrieval only its
// processorMerchantId (docs/platform.md, "Interchange clearing levels,
// chargebacks and retrievals").

// reportLimit bounds one report's body: an organization's night of
// clearing records at about 1.5 KB each (a member's month is far less).
var reportLimit = bodyLimit{bytes: 128 << 20, of: "a report for a window", timeout: searchTimeout}

// ClearingRecord is one transaction's interchange clearing record
// (ReportingV3InterchangeClearingLevelDetailsGet200ResponseInterchangeClearingLevelDetails),
// the fields reconcile reads; Raw is the record as received.
type ClearingRecord struct {
	RequestID, OrganizationID, ProcessorMerchantID   string
	MerchantReferenceNumber                          string
	TransactionTime, SettlementTime, TransactionType string
	Amount, CurrencyCode                             string
	MerchantPricedLevel, ClearedLevel                string
	BillbackReasonCode, BillbackReasonDescription    string
	DowngradeReasonCode                              string
	InterchangeAmount, BillbackAmount                string
	ClearingRateCurrencyCode                         string
	Raw                                              json.RawMessage
}

type clearingWire struct {
	RequestID                 flexString `json:"requestId"`
	OrganizationID            flexString `json:"organizationId"`
	ProcessorMerchantID       flexString `json:"processorMerchantId"`
	MerchantReferenceNumber   flexString `json:"merchantReferenceNumber"`
	TransactionTime           flexString `json:"transactionTime"`
	SettlementTime            flexString `json:"settlementTime"`
	TransactionType           flexString `json:"transactionType"`
	Amount                    flexString `json:"amount"`
	CurrencyCode              flexString `json:"currencyCode"`
	MerchantPricedLevel       flexString `json:"merchantPricedLevel"`
	ClearedLevel              flexString `json:"clearedLevel"`
	BillbackReasonCode        flexString `json:"billbackReasonCode"`
	BillbackReasonDescription flexString `json:"billbackReasonDescription"`
	DowngradeReasonCode       flexString `json:"downgradeReasonCode"`
	InterchangeAmount         flexString `json:"interchangeAmount"`
	BillbackAmount            flexString `json:"billbackAmount"`
	ClearingRateCurrencyCode  flexString `json:"clearingRateCurrencyCode"`
}

// Dispute is a chargeback
// (ReportingV3ChargebackDetailsGet200ResponseChargebackDetails) or a
// retrieval request (ReportingV3RetrievalDetailsGet200ResponseRetrievalDetails,
// which has no preDisputeFlag); Raw is the record as received.
type Dispute struct {
	RequestID, Time, ResponseDueTime, OriginalSettlementTime string
	ReasonCode, Amount, CurrencyCode, Sign                   string
	NatureOfDispute, Action, ActionDescription               string
	CardType, MerchantReferenceNumber, ProcessorMerchantID   string
	PreDisputeFlag                                           string
	Raw                                                      json.RawMessage
}

type chargebackWire struct {
	RequestID               flexString `json:"requestId"`
	Time                    flexString `json:"time"`
	ResponseDueTime         flexString `json:"responseDueTime"`
	OriginalSettlementTime  flexString `json:"originalSettlementTime"`
	ReasonCode              flexString `json:"reasonCode"`
	Amount                  flexString `json:"amount"`
	CurrencyCode            flexString `json:"currencyCode"`
	Sign                    flexString `json:"sign"`
	NatureOfDispute         flexString `json:"natureOfDispute"`
	Action                  flexString `json:"action"`
	ActionDescription       flexString `json:"actionDescription"`
	CardType                flexString `json:"cardType"`
	MerchantReferenceNumber flexString `json:"merchantReferenceNumber"`
	ProcessorMerchantID     flexString `json:"processorMerchantId"`
	PreDisputeFlag          flexString `json:"preDisputeFlag"`
}

// retrievalWire is chargebackWire without preDisputeFlag, which the SDK's
// retrieval model does not have (the same fields, so one converts to the
// other).
type retrievalWire struct {
	RequestID               flexString `json:"requestId"`
	Time                    flexString `json:"time"`
	ResponseDueTime         flexString `json:"responseDueTime"`
	OriginalSettlementTime  flexString `json:"originalSettlementTime"`
	ReasonCode              flexString `json:"reasonCode"`
	Amount                  flexString `json:"amount"`
	CurrencyCode            flexString `json:"currencyCode"`
	Sign                    flexString `json:"sign"`
	NatureOfDispute         flexString `json:"natureOfDispute"`
	Action                  flexString `json:"action"`
	ActionDescription       flexString `json:"actionDescription"`
	CardType                flexString `json:"cardType"`
	MerchantReferenceNumber flexString `json:"merchantReferenceNumber"`
	ProcessorMerchantID     flexString `json:"processorMerchantId"`
	PreDisputeFlag          flexString `json:"-"`
}

// The reports' envelopes, their records kept raw (decoded apart).
type clearingPage struct {
	StartDate flexString        `json:"startDate"`
	EndDate   flexString        `json:"endDate"`
	Details   []json.RawMessage `json:"interchangeClearingLevelDetails"`
}

type chargebackPage struct {
	OrganizationID flexString        `json:"organizationId"`
	StartTime      flexString        `json:"startTime"`
	EndTime        flexString        `json:"endTime"`
	Details        []json.RawMessage `json:"chargebackDetails"`
}

type retrievalPage struct {
	OrganizationID flexString        `json:"organizationId"`
	StartTime      flexString        `json:"startTime"`
	EndTime        flexString        `json:"endTime"`
	Details        []json.RawMessage `json:"retrievalDetails"`
}

// report reads one report of the member over [start, end) into its
// envelope P.
func report[P any](ctx context.Context, m *Merchant, what, path string, start, end time.Time) (P, error) {
	var page P
	q := ReportQuery{Scope: ReportScope{OrganizationID: m.id}, From: start, To: end}
	body, err := m.send(ctx, "GET", path+"?"+q.Encode(), nil, true, reportLimit)
	if err != nil {
		return page, fmt.Errorf("%s of merchant %s: %w", what, m.id, err)
	}
	if len(body) == 0 {
		return page, nil
	}
	if page, err = decodePage[P](what, body); err != nil {
		return page, fmt.Errorf("%s of merchant %s: %w", what, m.id, err)
	}
	return page, nil
}

// InterchangeClearingLevels reads the member's interchange clearing records
// over [start, end): GET /reporting/v3/interchange-clearing-level-details.
func (m *Merchant) InterchangeClearingLevels(ctx context.Context, start, end time.Time) ([]ClearingRecord, error) {
	const what = "interchange clearing level details"
	page, err := report[clearingPage](ctx, m, what, "/reporting/v3/interchange-clearing-level-details", start, end)
	if err != nil {
		return nil, err
	}
	out := make([]ClearingRecord, 0, len(page.Details))
	for _, raw := range page.Details {
		var w clearingWire
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("%s of merchant %s: %w", what, m.id, pageError(what, err))
		}
		out = append(out, ClearingRecord{RequestID: string(w.RequestID), OrganizationID: string(w.OrganizationID),
			ProcessorMerchantID: string(w.ProcessorMerchantID), MerchantReferenceNumber: string(w.MerchantReferenceNumber), TransactionTime: string(w.TransactionTime),
			SettlementTime: string(w.SettlementTime), TransactionType: string(w.TransactionType), Amount: string(w.Amount),
			CurrencyCode: string(w.CurrencyCode), MerchantPricedLevel: string(w.MerchantPricedLevel),
			ClearedLevel: string(w.ClearedLevel), BillbackReasonCode: string(w.BillbackReasonCode),
			BillbackReasonDescription: string(w.BillbackReasonDescription), DowngradeReasonCode: string(w.DowngradeReasonCode),
			InterchangeAmount: string(w.InterchangeAmount), BillbackAmount: string(w.BillbackAmount),
			ClearingRateCurrencyCode: string(w.ClearingRateCurrencyCode), Raw: raw})
	}
	return out, nil
}

// Chargebacks reads the member's chargebacks over [start, end): GET
// /reporting/v3/chargeback-details.
func (m *Merchant) Chargebacks(ctx context.Context, start, end time.Time) ([]Dispute, error) {
	const what = "chargeback details"
	page, err := report[chargebackPage](ctx, m, what, "/reporting/v3/chargeback-details", start, end)
	if err != nil {
		return nil, err
	}
	return decodeDisputes(m, what, page.Details, func(raw json.RawMessage) (chargebackWire, error) {
		var w chargebackWire
		err := json.Unmarshal(raw, &w)
		return w, err
	})
}

// Retrievals reads the member's retrieval requests over [start, end): GET
// /reporting/v3/retrieval-details.
func (m *Merchant) Retrievals(ctx context.Context, start, end time.Time) ([]Dispute, error) {
	const what = "retrieval details"
	page, err := report[retrievalPage](ctx, m, what, "/reporting/v3/retrieval-details", start, end)
	if err != nil {
		return nil, err
	}
	return decodeDisputes(m, what, page.Details, func(raw json.RawMessage) (chargebackWire, error) {
		var w retrievalWire
		err := json.Unmarshal(raw, &w)
		return chargebackWire(w), err
	})
}

func decodeDisputes(m *Merchant, what string, recs []json.RawMessage, decode func(json.RawMessage) (chargebackWire, error)) ([]Dispute, error) {
	out := make([]Dispute, 0, len(recs))
	for _, raw := range recs {
		w, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("%s of merchant %s: %w", what, m.id, pageError(what, err))
		}
		out = append(out, Dispute{RequestID: string(w.RequestID), Time: string(w.Time), ResponseDueTime: string(w.ResponseDueTime),
			OriginalSettlementTime: string(w.OriginalSettlementTime), ReasonCode: string(w.ReasonCode), Amount: string(w.Amount),
			CurrencyCode: string(w.CurrencyCode), Sign: string(w.Sign), NatureOfDispute: string(w.NatureOfDispute),
			Action: string(w.Action), ActionDescription: string(w.ActionDescription), CardType: string(w.CardType),
			MerchantReferenceNumber: string(w.MerchantReferenceNumber), ProcessorMerchantID: string(w.ProcessorMerchantID),
			PreDisputeFlag: string(w.PreDisputeFlag), Raw: raw})
	}
	return out, nil
}
