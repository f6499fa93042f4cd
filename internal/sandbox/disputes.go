package sandbox

import (
	"hash/fnv"
	"time"
)

// The Reporting API's interchange clearing levels, chargebacks and
// retrievals (GET /reporting/v3/interchange-clearing-level-details,
// /chargeback-details, /retrieval-details), as the vendor's Node SDK
// names them (InterchangeClearingLevelDetailsApi, ChargebackDetailsApi,
// RetrievalDetailsApi and their ReportingV3*Get200Response models).
//
// Each endpoint takes startTime and endTime (required, ISO 8601) and an
// optional organizationId, nothing else: the SDK offers no paging and no
// group, so a member's report for a window is one answer, and the
// organization's (signed for it) every member's records in one answer,
// each record naming its member's processorMerchantId and a clearing
// record its organizationId too (disputeMembers). The records are
// derived from a member's data as it stands (disputesOf), so the ground
// truth (disputeFindings) reads them from the data as generated.
//
// What is planted, with its near-misses (docs/sandbox.md):
//   - a capture or sale on a commercial card that sent Level III
//     (merchantPricedLevel 3) and cleared at standard (clearedLevel 1),
//     billed back (cleared_below_sent_level): every Level III call whose
//     transmission failed, and one in four of the others (by the hash of
//     its id); the rest clear at Level III, the near-miss;
//   - on every eighth member from the second (index 1, 9, …), at the
//     business date's 10:00, a chargeback on the member's latest paid
//     subscription payment (subscription_chargeback) and one on its
//     latest one-off capture or sale (the near-miss), with a retrieval:
//     the member's chargebacks exceed the share (chargeback_share_exceeded);
//   - on the member after it (index 2, 10, …), a chargeback 40 days before
//     the business date and a retrieval in the window: retrievals are no
//     chargebacks, and an old chargeback is out of the window, so its
//     share is under the threshold (the near-miss);
//   - the member before the last of an organization of five or more
//     (withoutReporting) may not read reports: 403 NOT_AUTHORIZED, and
//     the organization's reports leave it out.

// Interchange levels as the sandbox writes merchantPricedLevel and
// clearedLevel (unverified: the SDK gives no values; docs/platform.md).
const (
	levelStandard = "1"
	levelTwo      = "2"
	levelThree    = "3"
)

// interchangeBP is the sandbox's interchange rate per level, in basis
// points of the amount, plus interchangeFixed minor units per transaction.
var interchangeBP = map[string]int64{levelStandard: 265, levelTwo: 205, levelThree: 190}

const interchangeFixed = 10

// Chargeback reason codes planted (Visa's dispute conditions).
const (
	reasonCancelledRecurring = "13.2" // Cancelled Recurring Transaction
	reasonNoAuthorization    = "10.4" // Other Fraud – Card-Absent Environment
	reasonRetrievalRequest   = "RR"
	// chargebackResponseDays is how long the merchant has to answer.
	chargebackResponseDays = 20
)

// clearing is a transaction's interchange clearing record.
type clearing struct {
	txn             *transaction
	priced, cleared string
	billbackCode    string
	billbackDesc    string
	interchange     int64 // at the cleared level, minor units
	billback        int64 // interchange at the cleared level less that at the priced level
}

// dispute is a chargeback or a retrieval request.
type dispute struct {
	txn        *transaction
	retrieval  bool
	time, due  time.Time
	reasonCode string
	amount     int64
	currency   string
}

// withoutReporting reports whether member idx of an organization of
// members may not read reports: the member before the last of five or more
// (the last lacks Recurring Billing).
func withoutReporting(idx, members int) bool { return members >= 5 && idx == members-2 }

// disputedMember and shareNearMiss: the members with planted chargebacks
// exceeding the share, and those just under it.
func disputedMember(idx int) bool { return idx%8 == 1 }
func shareNearMiss(idx int) bool  { return idx%8 == 2 }

func idHash(id string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// interchangeFee is the interchange of amount at level.
func interchangeFee(amount int64, level string) int64 {
	return (amount*interchangeBP[level]+5000)/10000 + interchangeFixed
}

// levelRank orders the levels: a lower rank cleared below a higher one.
func levelRank(l string) int {
	switch l {
	case levelThree:
		return 3
	case levelTwo:
		return 2
	default:
		return 1
	}
}

// clearingsOf is a member's interchange clearing records: one per
// successful capture or sale of its own calls on a commercial card.
func clearingsOf(m *member) []clearing {
	var out []clearing
	for _, c := range m.calls {
		if c.txn == nil || (c.kind != callCapture && c.kind != callSale) || !c.commercial {
			continue
		}
		if c.x != nil && c.x.decline != nil {
			continue
		}
		priced := levelStandard
		switch {
		case c.level3:
			priced = levelThree
		case c.po != "":
			priced = levelTwo
		}
		cl := clearing{txn: c.txn, priced: priced, cleared: priced}
		if priced == levelThree {
			switch {
			case c.l3Status == "N" || c.l3Status == false:
				cl.cleared, cl.billbackCode, cl.billbackDesc = levelStandard, "X", "Did not qualify at merchant price level"
			case idHash(c.respID)%4 == 0:
				cl.cleared, cl.billbackCode, cl.billbackDesc = levelStandard, "1", "Transaction exceeded timeliness"
			}
		}
		cl.interchange = interchangeFee(c.txn.amount, cl.cleared)
		if levelRank(cl.cleared) < levelRank(cl.priced) {
			cl.billback = cl.interchange - interchangeFee(c.txn.amount, cl.priced)
		}
		out = append(out, cl)
	}
	return out
}

// oneOff reports whether t is a settled one-off capture or sale (not a
// subscription payment).
func (t *transaction) oneOff() bool {
	return t.sub == nil && (t.kind == kindCapture || t.kind == kindSale) && (t.api == nil || t.api.decline == "")
}

// disputesOf is a member's chargebacks and retrievals (see above); business
// is the business date.
func disputesOf(m *member, business time.Time) []dispute {
	at := business.Add(10 * time.Hour)
	var sub, single, other *transaction
	for _, t := range m.txns { // by time: the latest of each wins
		switch {
		case t.kind == kindSubPaid && t.pay != nil && t.time.Before(at):
			sub = t
		case t.oneOff() && t.time.Before(at):
			if single != nil {
				other = single
			}
			single = t
		}
	}
	mk := func(t *transaction, when time.Time, retrieval bool, reason string) dispute {
		return dispute{txn: t, retrieval: retrieval, time: when, due: when.AddDate(0, 0, chargebackResponseDays),
			reasonCode: reason, amount: t.amount, currency: t.currency}
	}
	var out []dispute
	switch {
	case disputedMember(m.index):
		if sub != nil {
			out = append(out, mk(sub, at, false, reasonCancelledRecurring))
		}
		if single != nil {
			out = append(out, mk(single, at.Add(time.Minute), false, reasonNoAuthorization))
		}
		if other != nil {
			out = append(out, mk(other, at.Add(2*time.Minute), true, reasonRetrievalRequest))
		}
	case shareNearMiss(m.index):
		if single != nil {
			out = append(out, mk(single, at.AddDate(0, 0, -40), false, reasonNoAuthorization))
		}
		if other != nil {
			out = append(out, mk(other, at, true, reasonRetrievalRequest))
		}
	}
	return out
}

// settledCapture reports whether t counts in a chargeback share's
// denominator, as the funding_sources view counts a capture: rCode 1 and
// an ics_bill or ics_ap_capture application.
func (t *transaction) settledCapture() bool {
	_, rcode, apps := t.applications()
	if rcode != "1" {
		return false
	}
	for _, a := range apps {
		if a.Name == "ics_bill" || a.Name == "ics_ap_capture" {
			return true
		}
	}
	return false
}

// reportWindow reads a report's startTime and endTime (required, ISO 8601)
// and organizationId; anything else, or a parameter given twice, is 400.
// whole is true when the organization asks for itself (organizationId
// absent or the organization's own, signed for the organization): the
// organization-wide report of every member (disputeMembers).
func (x *exchange) reportWindow() (start, end time.Time, whole bool, refused *answer) {
	q := x.r.URL.Query()
	details := unknownParams(q, []string{"startTime", "endTime", "organizationId"})
	read := func(name string) time.Time {
		v := q.Get(name)
		if v == "" {
			details = append(details, errorDetail{Field: name, Reason: "required"})
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			details = append(details, errorDetail{Field: name, Reason: "must be an ISO 8601 date-time, e.g. 2018-01-01T00:00:00.000Z"})
		}
		return t
	}
	start, end = read("startTime"), read("endTime")
	if len(details) == 0 && !end.After(start) {
		details = append(details, errorDetail{Field: "endTime", Reason: "must be after startTime"})
	}
	if len(details) > 0 {
		return start, end, false, refusal(x.validationError("invalid query parameters", details...))
	}
	org := q.Get("organizationId")
	if x.member == nil && x.mid == x.s.cfg.OrganizationID && (org == "" || org == x.mid) {
		return start, end, true, nil
	}
	if org != "" && org != x.mid {
		return start, end, false, refusal(x.forbidden("the key may not read reports of organization " + org))
	}
	if idx, ok := x.s.memberIndex(x.mid); ok && withoutReporting(idx, x.s.cfg.Scale.Members) {
		return start, end, false, refusal(x.forbidden("the Reporting API is not enabled for " + x.mid))
	}
	if x.member != nil && x.member.settings.ReportingDisabled {
		return start, end, false, refusal(x.forbidden("the key may not read the reports of " + x.mid))
	}
	return start, end, false, nil
}

// disputeMembers runs fn on each member whose records a report holds: the
// member asking, or for the organization-wide report every member but
// those that may not read reports (withoutReporting: left out, as the
// platform's own answer for them is unverified, docs/platform.md). A
// member whose reports the key may not read (ReportingDisabled) refuses
// the organization-wide report as a whole, 403, as reportScope refuses a
// group holding one.
func (s *Server) disputeMembers(x *exchange, whole bool, fn func(m *member)) *answer {
	if !whole {
		if x.member != nil {
			fn(x.member)
		}
		return nil
	}
	for i := 0; i < s.cfg.Scale.Members; i++ {
		if s.reportingDisabled(i) {
			return refusal(x.forbidden("the key may not read the reports of " + memberID(i)))
		}
	}
	for i := 0; i < s.cfg.Scale.Members; i++ {
		if !withoutReporting(i, s.cfg.Scale.Members) {
			s.withLiveMember(i, fn)
		}
	}
	return nil
}

// processorMerchantID is the sandbox's processor merchant ID of member
// mid (processorMerchantId on its clearing, chargeback and retrieval
// records): one per member, as a processor account is.
func processorMerchantID(mid string) string { return "P" + mid }

// interchangeClearingJSON is ReportingV3InterchangeClearingLevelDetails
// Get200ResponseInterchangeClearingLevelDetails (the fields the sandbox
// fills).
type interchangeClearingJSON struct {
	RequestID                 string `json:"requestId"`
	OrganizationID            string `json:"organizationId"`
	ProcessorMerchantID       string `json:"processorMerchantId"`
	MerchantReferenceNumber   string `json:"merchantReferenceNumber,omitempty"`
	AccountSuffix             string `json:"accountSuffix,omitempty"`
	TransactionTime           string `json:"transactionTime"`
	SettlementTime            string `json:"settlementTime"`
	TransactionType           string `json:"transactionType"`
	Amount                    string `json:"amount"`
	CurrencyCode              string `json:"currencyCode"`
	ClearedLevel              string `json:"clearedLevel"`
	MerchantPricedLevel       string `json:"merchantPricedLevel"`
	BillbackReasonCode        string `json:"billbackReasonCode,omitempty"`
	BillbackReasonDescription string `json:"billbackReasonDescription,omitempty"`
	DowngradeReasonCode       string `json:"downgradeReasonCode,omitempty"`
	InterchangeAmount         string `json:"interchangeAmount"`
	BillbackAmount            string `json:"billbackAmount"`
	ClearingRateCurrencyCode  string `json:"clearingRateCurrencyCode"`
	CardIndicator             string `json:"cardIndicator,omitempty"`
}

type interchangeClearingAnswer struct {
	StartDate string                    `json:"startDate"`
	EndDate   string                    `json:"endDate"`
	Details   []interchangeClearingJSON `json:"interchangeClearingLevelDetails"`
}

// disputeJSON is ReportingV3ChargebackDetailsGet200ResponseChargebackDetails,
// and without preDisputeFlag ReportingV3RetrievalDetailsGet200Response
// RetrievalDetails (the fields the sandbox fills).
type disputeJSON struct {
	ProcessorMerchantID     string `json:"processorMerchantId"`
	MerchantReferenceNumber string `json:"merchantReferenceNumber,omitempty"`
	NatureOfDispute         string `json:"natureOfDispute"`
	Amount                  string `json:"amount"`
	Sign                    string `json:"sign"`
	Action                  string `json:"action"`
	CardType                string `json:"cardType,omitempty"`
	OriginalSettlementTime  string `json:"originalSettlementTime"`
	CurrencyCode            string `json:"currencyCode"`
	RequestID               string `json:"requestId"`
	ResponseDueTime         string `json:"responseDueTime"`
	Time                    string `json:"time"`
	ActionDescription       string `json:"actionDescription"`
	CustomerID              string `json:"customerId,omitempty"`
	ReasonCode              string `json:"reasonCode"`
	Applications            string `json:"applications,omitempty"`
	PreDisputeFlag          string `json:"preDisputeFlag,omitempty"`
}

type disputeAnswer struct {
	OrganizationID string        `json:"organizationId"`
	StartTime      string        `json:"startTime"`
	EndTime        string        `json:"endTime"`
	Chargebacks    []disputeJSON `json:"chargebackDetails,omitempty"`
	Retrievals     []disputeJSON `json:"retrievalDetails,omitempty"`
}

func msTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// interchangeClearingDetails serves GET /reporting/v3/interchange-clearing-level-details:
// the member's clearing records whose transaction time is in the window,
// or every member's for the organization (reportWindow), each naming its
// member in organizationId.
func (s *Server) interchangeClearingDetails(x *exchange, _ noBody) answer {
	start, end, whole, refused := x.reportWindow()
	if refused != nil {
		return *refused
	}
	out := interchangeClearingAnswer{StartDate: msTime(start), EndDate: msTime(end), Details: []interchangeClearingJSON{}}
	refused = s.disputeMembers(x, whole, func(m *member) {
		for _, c := range clearingsOf(m) {
			t := c.txn
			if t.time.Before(start) || !t.time.Before(end) {
				continue
			}
			typ := "CAPTURE"
			if t.kind == kindSale {
				typ = "SALE"
			}
			rec := interchangeClearingJSON{RequestID: t.id, OrganizationID: m.id, ProcessorMerchantID: processorMerchantID(m.id),
				MerchantReferenceNumber: t.code, TransactionTime: msTime(t.time), SettlementTime: msTime(t.time.Add(6 * time.Hour)),
				TransactionType: typ, Amount: moneyIn(t.amount, t.currency), CurrencyCode: t.currency, ClearedLevel: c.cleared,
				MerchantPricedLevel: c.priced, BillbackReasonCode: c.billbackCode, BillbackReasonDescription: c.billbackDesc,
				DowngradeReasonCode: c.billbackCode, InterchangeAmount: moneyIn(c.interchange, t.currency),
				BillbackAmount: moneyIn(c.billback, t.currency), ClearingRateCurrencyCode: t.currency, CardIndicator: "C"}
			if t.card != nil {
				rec.AccountSuffix = t.card.suffix()
			}
			out.Details = append(out.Details, rec)
		}
	})
	if refused != nil {
		return *refused
	}
	return reply(200, out)
}

// disputeDetails serves GET /reporting/v3/chargeback-details (retrievals
// false) and /retrieval-details: the member's records whose time is in
// the window, or every member's for the organization (reportWindow). A
// record names its member only by processorMerchantId (the SDK's models
// have no organizationId per record).
func (s *Server) disputeDetails(retrievals bool) func(x *exchange, _ noBody) answer {
	return func(x *exchange, _ noBody) answer {
		start, end, whole, refused := x.reportWindow()
		if refused != nil {
			return *refused
		}
		out := disputeAnswer{OrganizationID: x.mid, StartTime: msTime(start), EndTime: msTime(end)}
		list := []disputeJSON{}
		refused = s.disputeMembers(x, whole, func(m *member) {
			for _, d := range disputesOf(m, s.gen.business) {
				if d.retrieval != retrievals || d.time.Before(start) || !d.time.Before(end) {
					continue
				}
				list = append(list, d.json(m.id))
			}
		})
		if refused != nil {
			return *refused
		}
		if retrievals {
			out.Retrievals = list
		} else {
			out.Chargebacks = list
		}
		return reply(200, out)
	}
}

func (d dispute) json(mid string) disputeJSON {
	t := d.txn
	j := disputeJSON{ProcessorMerchantID: processorMerchantID(mid), MerchantReferenceNumber: t.code, NatureOfDispute: "Chargeback",
		Amount: moneyIn(d.amount, d.currency), Sign: "-", Action: "CB", OriginalSettlementTime: msTime(t.time.Add(6 * time.Hour)),
		CurrencyCode: d.currency, RequestID: t.id, ResponseDueTime: msTime(d.due), Time: msTime(d.time),
		ActionDescription: "First chargeback", ReasonCode: d.reasonCode, Applications: "ics_bill", PreDisputeFlag: "N"}
	if d.retrieval {
		j.NatureOfDispute, j.Action, j.ActionDescription, j.PreDisputeFlag = "Retrieval", "RR", "Retrieval request", ""
	}
	if t.card != nil {
		j.CardType = t.card.cardType()
	}
	return j
}

// MembersWithoutReporting lists the members that may not read reports
// (withoutReporting): the Reporting API answers them 403.
func (s *Server) MembersWithoutReporting() []string {
	var out []string
	for i := 0; i < s.cfg.Scale.Members; i++ {
		if withoutReporting(i, s.cfg.Scale.Members) {
			out = append(out, memberID(i))
		}
	}
	return out
}
