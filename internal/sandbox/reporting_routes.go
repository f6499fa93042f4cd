package sandbox

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"
)

// The Reporting API's settlement and funding reports (docs/sandbox.md,
// Settlement), served strictly as the vendor's Node SDK names them:
// src/api/PurchaseAndRefundDetailsApi.js, NetFundingsApi.js and
// PaymentBatchSummariesApi.js for the parameters, and
// src/model/ReportingV3*Get200Response*.js for the fields. A parameter the
// operation does not take, one given twice, a time that is not ISO 8601, an
// end before its start or a limit outside 1-2000 is 400 VALIDATION_ERROR.

// maxReportLimit is the purchase and refund details' largest page
// (PurchaseAndRefundDetailsApi.js: limit "Range(1-2000)", default 2000).
const maxReportLimit = 2000

// reportTime reads a required ISO 8601 time parameter.
func reportTime(x *exchange, name string, details *[]errorDetail) time.Time {
	v := x.r.URL.Query().Get(name)
	if v == "" {
		*details = append(*details, errorDetail{Field: name, Reason: "required: an ISO 8601 time such as 2018-01-01T00:00:00.000Z"})
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		*details = append(*details, errorDetail{Field: name, Reason: "not an ISO 8601 time such as 2018-01-01T00:00:00.000Z"})
	}
	return t.UTC()
}

// reportWindow reads startTime and endTime and the parameters of the
// operation besides (others); nil and an answer when they are wrong.
func reportWindow(x *exchange, others ...string) (start, end time.Time, details []errorDetail) {
	details = unknownParams(x.r.URL.Query(), append([]string{"startTime", "endTime"}, others...))
	start = reportTime(x, "startTime", &details)
	end = reportTime(x, "endTime", &details)
	if !start.IsZero() && !end.IsZero() && !end.After(start) {
		details = append(details, errorDetail{Field: "endTime", Reason: "must be after startTime"})
	}
	return start, end, details
}

// reportScope is the members a report covers: the group groupName names,
// the member organizationId names, else the member acted for, else (the
// organization acting) every member. A member whose reports the key may
// not read, or a group holding one, answers 403; a name that is not the
// key's 404... as the platform's not-found.
func (s *Server) reportScope(x *exchange, allowGroup bool) ([]int, *answer) {
	q := x.r.URL.Query()
	org, groupName := q.Get("organizationId"), q.Get("groupName")
	var mids []string
	switch {
	case allowGroup && groupName != "":
		if x.member != nil {
			return nil, refusal(x.forbidden("a transacting merchant's key cannot read a group's reports"))
		}
		s.groupMu.RLock()
		for _, g := range s.groups {
			if g.name == groupName {
				mids = append([]string{}, g.members...)
				break
			}
		}
		s.groupMu.RUnlock()
		if mids == nil {
			return nil, refusal(x.notFound("group " + groupName + " was not found"))
		}
	case org != "" && org != s.cfg.OrganizationID:
		if x.member != nil && org != x.mid {
			return nil, refusal(x.forbidden("the key of " + x.mid + " cannot read the reports of " + org))
		}
		mids = []string{org}
	case x.member != nil:
		mids = []string{x.mid}
	default:
		for i := 0; i < s.cfg.Scale.Members; i++ {
			mids = append(mids, memberID(i))
		}
	}
	idx := make([]int, 0, len(mids))
	for _, mid := range mids {
		i, ok := s.memberIndex(mid)
		if !ok {
			return nil, refusal(x.notFound("organization " + mid + " was not found"))
		}
		if s.reportingDisabled(i) {
			return nil, refusal(x.forbidden("the key may not read the reports of " + mid))
		}
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return slices.Compact(idx), nil
}

// withLiveMember runs fn on member idx as it is now: cached, caught up with
// the data clock, locked.
func (s *Server) withLiveMember(idx int, fn func(m *member)) {
	m := s.cache.get(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	s.advance(m, s.Clock())
	fn(m)
}

// Wire shapes (src/model/ReportingV3PurchaseRefundDetailsGet200Response*.js).
type purchaseRefundJSON struct {
	Offset              int                    `json:"offset"`
	Limit               int                    `json:"limit"`
	PageResults         int                    `json:"pageResults"`
	RequestDetails      []prRequestDetailJSON  `json:"requestDetails"`
	Settlements         []prSettlementJSON     `json:"settlements"`
	Authorizations      []prAuthorizationJSON  `json:"authorizations"`
	FeeAndFundingDetail []prFeeFundingJSON     `json:"feeAndFundingDetails"`
	Others              []prOtherJSON          `json:"others"`
	SettlementStatuses  []prSettlementStatJSON `json:"settlementStatuses"`
}

type prRequestDetailJSON struct {
	RequestID                  string `json:"requestId"`
	CybersourceMerchantID      string `json:"cybersourceMerchantId"`
	ProcessorMerchantID        string `json:"processorMerchantId,omitempty"`
	GroupName                  string `json:"groupName,omitempty"`
	TransactionReferenceNumber string `json:"transactionReferenceNumber,omitempty"`
	MerchantReferenceNumber    string `json:"merchantReferenceNumber,omitempty"`
}

type prSettlementJSON struct {
	RequestID            string `json:"requestId"`
	TransactionType      string `json:"transactionType"`
	SubmissionTime       string `json:"submissionTime,omitempty"`
	Amount               string `json:"amount"`
	CurrencyCode         string `json:"currencyCode"`
	PaymentMethod        string `json:"paymentMethod"`
	PaymentType          string `json:"paymentType,omitempty"`
	AccountSuffix        string `json:"accountSuffix,omitempty"`
	CybersourceBatchTime string `json:"cybersourceBatchTime,omitempty"`
	CybersourceBatchID   string `json:"cybersourceBatchId,omitempty"`
	CardType             string `json:"cardType,omitempty"`
}

type prAuthorizationJSON struct {
	RequestID                  string `json:"requestId"`
	TransactionReferenceNumber string `json:"transactionReferenceNumber,omitempty"`
	Time                       string `json:"time"`
	AuthorizationRequestID     string `json:"authorizationRequestId,omitempty"`
	Amount                     string `json:"amount"`
	CurrencyCode               string `json:"currencyCode"`
	Code                       string `json:"code,omitempty"`
	RCode                      string `json:"rcode"`
}

type prFeeFundingJSON struct {
	RequestID                   string `json:"requestId"`
	InterchangePerItemFee       string `json:"interchangePerItemFee"`
	InterchangeDescription      string `json:"interchangeDescription"`
	InterchangePercentage       string `json:"interchangePercentage"`
	InterchangePercentageAmount string `json:"interchangePercentageAmount"`
	DiscountPercentage          string `json:"discountPercentage"`
	DiscountAmount              string `json:"discountAmount"`
	DiscountPerItemFee          string `json:"discountPerItemFee"`
	TotalFee                    string `json:"totalFee"`
	FeeCurrency                 string `json:"feeCurrency"`
	DuesAssessments             string `json:"duesAssessments"`
	FundingAmount               string `json:"fundingAmount"`
	FundingCurrency             string `json:"fundingCurrency"`
}

type prOtherJSON struct {
	RequestID string `json:"requestId"`
	FirstName string `json:"firstName,omitempty"`
	LastName  string `json:"lastName,omitempty"`
}

type prSettlementStatJSON struct {
	RequestID      string `json:"requestId"`
	Status         string `json:"status"`
	SettlementTime string `json:"settlementTime"`
	ReasonCode     string `json:"reasonCode,omitempty"`
	ErrorText      string `json:"errorText,omitempty"`
}

// paymentSubtypes are the values of paymentSubtype
// (PurchaseAndRefundDetailsApi.js).
var paymentSubtypes = []string{"ALL", "VI", "MC", "AX", "DI", "DP"}

// basisPoints writes basis points as a percentage: 180 "1.80".
func basisPoints(n int64) string { return money(n) }

// purchaseRefundDetails answers GET /reporting/v3/purchase-refund-details.
func (s *Server) purchaseRefundDetails(x *exchange, _ noBody) answer {
	q := x.r.URL.Query()
	start, end, details := reportWindow(x, "organizationId", "paymentSubtype", "viewBy", "groupName", "offset", "limit")
	offset, d1 := offsetParam.read(q)
	limit, d2 := intParam{"limit", maxReportLimit, 1, maxReportLimit}.read(q)
	for _, d := range []*errorDetail{d1, d2} {
		if d != nil {
			details = append(details, *d)
		}
	}
	subtype := q.Get("paymentSubtype")
	if subtype == "" {
		subtype = "ALL"
	}
	if !slices.Contains(paymentSubtypes, subtype) {
		details = append(details, errorDetail{Field: "paymentSubtype", Reason: "one of ALL, VI, MC, AX, DI, DP"})
	}
	viewBy := q.Get("viewBy")
	if viewBy == "" {
		viewBy = "requestDate"
	}
	if viewBy != "requestDate" && viewBy != "submissionDate" {
		details = append(details, errorDetail{Field: "viewBy", Reason: "one of requestDate, submissionDate"})
	}
	if len(details) > 0 {
		return x.validationError("invalid query parameters", details...)
	}
	idx, refused := s.reportScope(x, true)
	if refused != nil {
		return *refused
	}
	type row struct {
		mid string
		st  settlement
	}
	var page []row // the rows from offset on, limit at most
	n := 0         // the rows before
	w0, w1 := s.clockWindow()
	now := s.Clock()
	if q.Get("groupName") != "" {
		s.reports.grow(len(idx)) // the pages of a group all read from the memo
	}
	s.eachReportSettlements(idx, now, w0, w1, start, func(i int, list []settlement) {
		mid := memberID(i)
		for _, st := range list {
			at := st.requestTime
			if viewBy == "submissionDate" {
				if st.pending {
					continue // not submitted
				}
				at = st.batchTime
			}
			if at.Before(start) || !at.Before(end) {
				continue
			}
			if subtype != "ALL" && feesOf(st.cardType).subtype != subtype {
				continue
			}
			if n >= offset && len(page) < limit {
				page = append(page, row{mid, st})
			}
			n++
		}
	})
	out := purchaseRefundJSON{Offset: offset, Limit: limit, PageResults: len(page),
		RequestDetails: []prRequestDetailJSON{}, Settlements: []prSettlementJSON{}, Authorizations: []prAuthorizationJSON{},
		FeeAndFundingDetail: []prFeeFundingJSON{}, Others: []prOtherJSON{}, SettlementStatuses: []prSettlementStatJSON{}}
	groupName := q.Get("groupName")
	for _, r := range page {
		st := r.st
		cur := st.currency
		typ := "Purchases"
		if st.refund {
			typ = "Refunds"
		}
		code, ref := st.of.code, st.of.reference
		out.RequestDetails = append(out.RequestDetails, prRequestDetailJSON{RequestID: st.requestID, CybersourceMerchantID: r.mid,
			GroupName: groupName, TransactionReferenceNumber: ref, MerchantReferenceNumber: code})
		auth := prAuthorizationJSON{RequestID: st.requestID, TransactionReferenceNumber: ref, Time: ts(st.requestTime),
			Amount: moneyIn(st.amount, cur), CurrencyCode: cur, RCode: "1"}
		if st.of.ok {
			auth.Amount = moneyIn(st.of.amount, cur)
			auth.AuthorizationRequestID = st.of.rootID
			auth.Code = st.of.approvalCode
		}
		out.Authorizations = append(out.Authorizations, auth)
		suffix := st.of.suffix
		se := prSettlementJSON{RequestID: st.requestID, TransactionType: typ, Amount: moneyIn(st.amount, cur), CurrencyCode: cur,
			PaymentMethod: "Credit Card", PaymentType: feesOf(st.cardType).subtype, AccountSuffix: suffix, CardType: st.cardType}
		if !st.pending {
			se.SubmissionTime, se.CybersourceBatchTime, se.CybersourceBatchID = ts(st.batchTime), ts(st.batchTime), st.batchID
		}
		out.Settlements = append(out.Settlements, se)
		if !st.pending { // a pending request has no batch, fee or funding yet
			f := feesOf(st.cardType)
			desc := "Standard"
			if st.level == "LEVEL3" {
				desc = "Level III"
			}
			perItem := f.perItem
			if st.refund {
				perItem, desc = 0, "Refund"
			}
			fundingAmount := moneyIn(st.fundingAmount, cur)
			if st.fundingCurrency != cur {
				fundingAmount = moneyIn(st.fundingAmount, st.fundingCurrency)
			}
			out.FeeAndFundingDetail = append(out.FeeAndFundingDetail, prFeeFundingJSON{RequestID: st.requestID,
				InterchangePerItemFee: moneyIn(perItem, cur), InterchangeDescription: desc,
				InterchangePercentage: basisPoints(st.interchangeBP), InterchangePercentageAmount: moneyIn(st.interchange-perItemIf(st, perItem), cur),
				DiscountPercentage: basisPoints(discountBPIf(st)), DiscountAmount: moneyIn(st.discount, cur), DiscountPerItemFee: moneyIn(0, cur),
				TotalFee: moneyIn(st.totalFee, cur), FeeCurrency: cur, DuesAssessments: moneyIn(st.dues, cur),
				FundingAmount: fundingAmount, FundingCurrency: st.fundingCurrency})
		}
		out.Others = append(out.Others, prOtherJSON{RequestID: st.requestID})
		if st.pending {
			out.SettlementStatuses = append(out.SettlementStatuses, prSettlementStatJSON{RequestID: st.requestID, Status: "Pending"})
		} else {
			out.SettlementStatuses = append(out.SettlementStatuses, prSettlementStatJSON{RequestID: st.requestID, Status: "Settled",
				SettlementTime: ts(st.batchTime), ReasonCode: "100"})
		}
	}
	return reply(http.StatusOK, out)
}

func perItemIf(st settlement, perItem int64) int64 {
	if st.refund {
		return 0
	}
	return perItem
}

func discountBPIf(st settlement) int64 {
	if st.refund {
		return 0
	}
	return discountBP
}

// Wire shapes (src/model/ReportingV3NetFundingsGet200Response*.js).
type netFundingsJSON struct {
	StartTime           string              `json:"startTime"`
	EndTime             string              `json:"endTime"`
	NetFundingSummaries []netFundingSummary `json:"netFundingSummaries"`
	TotalPurchases      []currencyValueJSON `json:"totalPurchases"`
	TotalRefunds        []currencyValueJSON `json:"totalRefunds"`
	TotalFees           []currencyValueJSON `json:"totalFees"`
	TotalChargebacks    []currencyValueJSON `json:"totalChargebacks"`
	NetTotal            []currencyValueJSON `json:"netTotal"`
}

type netFundingSummary struct {
	Type           string `json:"type"`
	PaymentSubType string `json:"paymentSubType"`
	ConveyedCount  int    `json:"conveyedCount"`
	ConveyedAmount string `json:"conveyedAmount"`
	SettledCount   int    `json:"settledCount"`
	FundedCount    int    `json:"fundedCount"`
	FundedAmount   string `json:"fundedAmount"`
	CurrencyCode   string `json:"currencyCode"`
}

type currencyValueJSON struct {
	Currency string `json:"currency"`
	Value    string `json:"value"`
}

// netFundings answers GET /reporting/v3/net-fundings: what was funded on
// the funding days in [startTime, endTime), summed over the scope.
func (s *Server) netFundings(x *exchange, _ noBody) answer {
	start, end, details := reportWindow(x, "organizationId", "groupName")
	if len(details) > 0 {
		return x.validationError("invalid query parameters", details...)
	}
	idx, refused := s.reportScope(x, true)
	if refused != nil {
		return *refused
	}
	type tot struct{ purchases, refunds, fees, chargebacks, funded int64 }
	totals := map[string]*tot{}
	type sk struct{ typ, sub, cur string }
	sums := map[sk]*netFundingSummary{}
	amounts := map[sk]int64{}
	w0, w1 := s.clockWindow()
	now := s.Clock()
	s.eachReportSettlements(idx, now, w0, w1, minTime(start, w0), func(i int, list []settlement) {
		for _, f := range fundingsOf(list, i, now, w0, w1, start, end) {
			t := totals[f.currency]
			if t == nil {
				t = &tot{}
				totals[f.currency] = t
			}
			t.purchases += f.purchases
			t.refunds += f.refunds
			t.fees += f.fees
			t.chargebacks += f.chargebacks
			t.funded += f.funded
			for sub, amt := range f.bySubtype {
				k := sk{"Purchases", sub, f.currency}
				if sums[k] == nil {
					sums[k] = &netFundingSummary{Type: "Purchases", PaymentSubType: sub, CurrencyCode: f.currency}
				}
				amounts[k] += amt
			}
			if f.refundCount > 0 {
				k := sk{"Refunds", "ALL", f.currency}
				if sums[k] == nil {
					sums[k] = &netFundingSummary{Type: "Refunds", PaymentSubType: "ALL", CurrencyCode: f.currency}
				}
				amounts[k] += f.refunds
				sums[k].ConveyedCount += f.refundCount
			}
		}
	})
	out := netFundingsJSON{StartTime: ts(start), EndTime: ts(end), NetFundingSummaries: []netFundingSummary{},
		TotalPurchases: []currencyValueJSON{}, TotalRefunds: []currencyValueJSON{}, TotalFees: []currencyValueJSON{},
		TotalChargebacks: []currencyValueJSON{}, NetTotal: []currencyValueJSON{}}
	keys := make([]sk, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.cur != b.cur {
			return a.cur < b.cur
		}
		if a.typ != b.typ {
			return a.typ < b.typ
		}
		return a.sub < b.sub
	})
	for _, k := range keys {
		n := *sums[k]
		n.ConveyedAmount = moneyIn(amounts[k], k.cur)
		n.FundedAmount = n.ConveyedAmount
		out.NetFundingSummaries = append(out.NetFundingSummaries, n)
	}
	curs := make([]string, 0, len(totals))
	for c := range totals {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	for _, c := range curs {
		t := totals[c]
		out.TotalPurchases = append(out.TotalPurchases, currencyValueJSON{c, moneyIn(t.purchases, c)})
		out.TotalRefunds = append(out.TotalRefunds, currencyValueJSON{c, moneyIn(t.refunds, c)})
		out.TotalFees = append(out.TotalFees, currencyValueJSON{c, moneyIn(t.fees, c)})
		out.TotalChargebacks = append(out.TotalChargebacks, currencyValueJSON{c, moneyIn(t.chargebacks, c)})
		out.NetTotal = append(out.NetTotal, currencyValueJSON{c, moneyIn(t.funded, c)})
	}
	return reply(http.StatusOK, out)
}

// Wire shapes (src/model/ReportingV3PaymentBatchSummariesGet200Response*.js).
type batchSummariesJSON struct {
	StartTime             string             `json:"startTime"`
	EndTime               string             `json:"endTime"`
	PaymentBatchSummaries []batchSummaryJSON `json:"paymentBatchSummaries"`
}

type batchSummaryJSON struct {
	CurrencyCode              string `json:"currencyCode"`
	PaymentSubTypeDescription string `json:"paymentSubTypeDescription"`
	StartTime                 string `json:"startTime"`
	EndTime                   string `json:"endTime"`
	SalesCount                int    `json:"salesCount"`
	SalesAmount               string `json:"salesAmount"`
	CreditCount               int    `json:"creditCount"`
	CreditAmount              string `json:"creditAmount"`
	AccountName               string `json:"accountName,omitempty"`
	AccountID                 string `json:"accountId,omitempty"`
	MerchantID                string `json:"merchantId"`
	MerchantName              string `json:"merchantName,omitempty"`
}

// paymentBatchSummaries answers GET /reporting/v3/payment-batch-summaries:
// batch totals per member, batch period, currency and card type. The SDK
// takes no groupName here: organizationId names the member, or the
// organization with breakdown all_merchant; rollUp (day, week, month) and
// breakdown (account_rollup, all_merchant, selected_merchant) are
// "Conditional - Required while getting breakdown data", so one without the
// other is 400.
func (s *Server) paymentBatchSummaries(x *exchange, _ noBody) answer {
	q := x.r.URL.Query()
	start, end, details := reportWindow(x, "organizationId", "rollUp", "breakdown", "startDayOfWeek")
	rollUp, breakdown := q.Get("rollUp"), q.Get("breakdown")
	if rollUp != "" && !slices.Contains([]string{"day", "week", "month"}, rollUp) {
		details = append(details, errorDetail{Field: "rollUp", Reason: "one of day, week, month"})
	}
	if breakdown != "" && !slices.Contains([]string{"account_rollup", "all_merchant", "selected_merchant"}, breakdown) {
		details = append(details, errorDetail{Field: "breakdown", Reason: "one of account_rollup, all_merchant, selected_merchant"})
	}
	if (rollUp == "") != (breakdown == "") {
		details = append(details, errorDetail{Field: "rollUp", Reason: "rollUp and breakdown go together"})
	}
	if v := q.Get("startDayOfWeek"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 7 {
			details = append(details, errorDetail{Field: "startDayOfWeek", Reason: "an integer between 1 and 7"})
		}
	}
	if len(details) > 0 {
		return x.validationError("invalid query parameters", details...)
	}
	idx, refused := s.reportScope(x, false)
	if refused != nil {
		return *refused
	}
	type key struct {
		mid, cur, sub string
		day           time.Time
	}
	type agg struct {
		sales, credits          int64
		salesCount, creditCount int
	}
	by := map[key]*agg{}
	var keys []key
	w0, w1 := s.clockWindow()
	now := s.Clock()
	s.eachReportSettlements(idx, now, w0, w1, start, func(i int, list []settlement) {
		mid := memberID(i)
		for _, st := range list {
			if st.pending || st.batchTime.Before(start) || !st.batchTime.Before(end) {
				continue
			}
			day := st.batchTime
			if rollUp != "day" {
				day = start // week and month roll up over the whole span asked
			}
			k := key{mid, st.currency, feesOf(st.cardType).subtype, day}
			a := by[k]
			if a == nil {
				a = &agg{}
				by[k] = a
				keys = append(keys, k)
			}
			if st.refund {
				a.credits += st.amount
				a.creditCount++
			} else {
				a.sales += st.amount
				a.salesCount++
			}
		}
	})
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.mid != b.mid:
			return a.mid < b.mid
		case !a.day.Equal(b.day):
			return a.day.Before(b.day)
		case a.cur != b.cur:
			return a.cur < b.cur
		}
		return a.sub < b.sub
	})
	out := batchSummariesJSON{StartTime: ts(start), EndTime: ts(end), PaymentBatchSummaries: []batchSummaryJSON{}}
	for _, k := range keys {
		a := by[k]
		periodEnd := end
		if rollUp == "day" {
			periodEnd = k.day.AddDate(0, 0, 1)
		}
		out.PaymentBatchSummaries = append(out.PaymentBatchSummaries, batchSummaryJSON{CurrencyCode: k.cur,
			PaymentSubTypeDescription: k.sub, StartTime: ts(k.day), EndTime: ts(periodEnd),
			SalesCount: a.salesCount, SalesAmount: moneyIn(a.sales, k.cur), CreditCount: a.creditCount,
			CreditAmount: moneyIn(a.credits, k.cur), AccountID: s.cfg.OrganizationID, MerchantID: k.mid})
	}
	return reply(http.StatusOK, out)
}
