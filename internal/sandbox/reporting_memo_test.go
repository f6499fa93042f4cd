package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// memoTestConfig has more members than the member cache holds (64), as
// the 10× scale has, so that a report reading every member would generate
// most of them again.
var memoTestConfig = Config{Scale: Scale{Members: 100, Subscriptions: 10, Groups: 1}}

// countGenerations counts the members s generates from now on.
func countGenerations(s *Server) *atomic.Int64 {
	var n atomic.Int64
	gen := s.cache.gen
	s.cache.gen = func(idx int) *member { n.Add(1); return gen(idx) }
	return &n
}

// detailsPath is the purchase and refund details of group over the
// reporting span of window [w0, end), a page of limit from offset.
func detailsPath(group string, w0, end time.Time, offset, limit int) string {
	return "/reporting/v3/purchase-refund-details?" + reportQuery("startTime", w0.AddDate(0, 0, -ReportingLookbackDays).Format(time.RFC3339),
		"endTime", end.Format(time.RFC3339), "groupName", group, "offset", fmt.Sprint(offset), "limit", fmt.Sprint(limit))
}

// The settlement stage's requests, as a run makes them (the details of the
// group in pages, its net fundings a day at a time, the organization's
// batch summaries), generate each member once however many pages there
// are, and every answer is the one a fresh sandbox gives to that request
// alone.
func TestSettlementReportsGenerateEachMemberOnce(t *testing.T) {
	s, c := newTestServer(t, memoTestConfig)
	gens := countGenerations(s)
	org := s.Config().OrganizationID
	w0, w1 := s.clockWindow()
	group := s.initial[0].Name
	ask := func(path string) []byte {
		t.Helper()
		resp, body, err := c.do("GET", path, org, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v: %s", path, resp, err, body)
		}
		_, fresh := newTestServer(t, memoTestConfig)
		_, want, err := fresh.do("GET", path, org, nil)
		if err != nil {
			t.Fatalf("GET %s of a fresh sandbox: %v", path, err)
		}
		if !bytes.Equal(body, want) {
			t.Fatalf("GET %s: answered\n%s\nwhere a fresh sandbox answers\n%s", path, body, want)
		}
		return body
	}
	const limit = 300
	pages, rows := 0, 0
	for off := 0; ; off += limit {
		var page tPurchaseRefund
		if err := json.Unmarshal(ask(detailsPath(group, w0, w1, off, limit)), &page); err != nil {
			t.Fatal(err)
		}
		pages++
		rows += page.PageResults
		if page.PageResults < limit {
			break
		}
	}
	if pages < 5 {
		t.Fatalf("%d pages of details (%d requests): too few to show the cost of a page", pages, rows)
	}
	for d := w0; d.Before(w1); d = d.AddDate(0, 0, 1) {
		ask("/reporting/v3/net-fundings?" + reportQuery("startTime", d.Format(time.RFC3339), "endTime", d.AddDate(0, 0, 1).Format(time.RFC3339),
			"groupName", group))
	}
	ask("/reporting/v3/payment-batch-summaries?" + reportQuery("startTime", w0.AddDate(0, 0, -ReportingLookbackDays).Format(time.RFC3339),
		"endTime", w1.Format(time.RFC3339), "organizationId", org, "breakdown", "all_merchant", "rollUp", "day"))
	if n, members := gens.Load(), int64(memoTestConfig.Scale.Members); n > members {
		t.Errorf("%d pages of details, net fundings of %d days and the batch summaries generated %d members, want each of the %d at most once",
			pages, int(w1.Sub(w0).Hours()/24), n, members)
	}
}

// A write to a member, and a member's reports made unreadable, show in the
// reports asked after them, whatever was read before.
func TestSettlementReportsSeeWrites(t *testing.T) {
	s, c := newTestServer(t, memoTestConfig)
	org := s.Config().OrganizationID
	w0, _ := s.clockWindow()
	group := s.initial[0].Name
	end := s.Clock().Add(24 * time.Hour) // the requests made at the data clock too
	ids := func() map[string]string {
		out := map[string]string{}
		for off := 0; ; off += maxReportLimit {
			var page tPurchaseRefund
			c.call("GET", detailsPath(group, w0, end, off, maxReportLimit), org, nil, 200, &page)
			for _, r := range page.RequestDetails {
				out[r.RequestID] = r.CybersourceMerchantID
			}
			if page.PageResults < maxReportLimit {
				return out
			}
		}
	}
	before := ids()
	mid := memberID(5)
	sale := str(c.with(t).j("POST", "/pts/v2/payments", mid, cardBody(visaCredit2, "25.00", true), 201), "id")
	if before[sale] != "" {
		t.Fatalf("sale %s listed before it was made", sale)
	}
	if after := ids(); after[sale] != mid || len(after) != len(before)+1 {
		t.Errorf("after a sale of %s: %d requests, the sale's listed under %q; want %d, under %s", mid, len(after), after[sale], len(before)+1, mid)
	}
	st, err := s.MerchantSettings(memberID(7))
	if err != nil {
		t.Fatal(err)
	}
	st.ReportingDisabled = true
	if err := s.SetMerchantSettings(memberID(7), st); err != nil {
		t.Fatal(err)
	}
	c.call("GET", detailsPath(group, w0, end, 0, maxReportLimit), org, nil, 403, nil)
}
