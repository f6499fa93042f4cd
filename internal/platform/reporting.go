package platform

import (
	"net/url"
	"strconv"
	"time"
)

// The Reporting API's shared plumbing (docs/platform.md, Reporting): the
// query every report takes, as the vendor's Node SDK builds it
// (src/api/PurchaseAndRefundDetailsApi.js, NetFundingsApi.js,
// PaymentBatchSummariesApi.js and the other src/api/*Api.js of
// /reporting/v3): startTime and endTime in ISO 8601
// ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", e.g. 2018-01-01T00:00:00.000Z), the
// member as organizationId or the group as groupName, offset and limit
// (1-2000) where the report pages, viewBy where it takes one.

// MaxReportLimit is the largest page a paged report answers
// (PurchaseAndRefundDetailsApi.js: limit "Range(1-2000)", default 2000).
const MaxReportLimit = 2000

// reportTimeLayout is the SDK's example format of startTime and endTime.
const reportTimeLayout = "2006-01-02T15:04:05.000Z"

// reportPageLimit bounds one report page: a purchase and refund details
// record is ~1.5 KB over its six sections in the sandbox, so a page of
// 2000 is ~3 MB.
var reportPageLimit = bodyLimit{bytes: 32 << 20, of: "a page of 2000 purchase and refund details or one funding report", timeout: defaultTimeout}

// ReportScope is what a report covers: a group by its name (groupName),
// else one organization (organizationId): a member, or the organization
// itself.
type ReportScope struct {
	GroupName      string
	OrganizationID string
}

// String names the scope in errors and logs.
func (s ReportScope) String() string {
	if s.GroupName != "" {
		return "group " + strconv.Quote(s.GroupName)
	}
	return "organization " + s.OrganizationID
}

// ReportQuery is one report request's query parameters.
type ReportQuery struct {
	Scope    ReportScope
	From, To time.Time  // startTime, endTime
	ViewBy   string     // "" (the report's default), requestDate or submissionDate
	Offset   int        // paged reports only
	Limit    int        // paged reports only; 0 leaves it out
	Extra    url.Values // further parameters of the report (rollUp, breakdown)
}

// Encode writes the query the way the SDK sends it: the parameters it
// names, empty ones left out.
func (q ReportQuery) Encode() string {
	v := url.Values{}
	v.Set("startTime", q.From.UTC().Format(reportTimeLayout))
	v.Set("endTime", q.To.UTC().Format(reportTimeLayout))
	if q.Scope.GroupName != "" {
		v.Set("groupName", q.Scope.GroupName)
	} else if q.Scope.OrganizationID != "" {
		v.Set("organizationId", q.Scope.OrganizationID)
	}
	if q.ViewBy != "" {
		v.Set("viewBy", q.ViewBy)
	}
	if q.Limit > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	for k, vs := range q.Extra {
		for _, x := range vs {
			v.Add(k, x)
		}
	}
	return v.Encode()
}

// ReportsNotReadable reports whether err is the platform's answer that the
// key may not read the reports of the scope asked for: the answers of a
// product not enabled (NotEnabled: 403, or 400 INVALID_MERCHANT_CONFIGURATION,
// NOT_AUTHORIZED, FORBIDDEN_ACCESS or saying "not enabled" / "not
// authorized"). A run records such a member or group and goes on, as it
// does for a product not enabled. No vendor source shows the Reporting
// API's refusal itself: unverified.
func ReportsNotReadable(err error) (*APIError, bool) { return NotEnabled(err) }
