package sandbox

import (
	"encoding/json"
	"slices"
	"testing"
)

type orgRecord struct {
	RequestID           string `json:"requestId"`
	OrganizationID      string `json:"organizationId"`
	ProcessorMerchantID string `json:"processorMerchantId"`
	Amount              string `json:"amount"`
}

// TestOrganizationDisputeReports: signed for the organization, with
// organizationId the organization's or none, each dispute report is every
// member's own report together (the member without reports left out),
// clearing records naming their member in organizationId and every record
// its member's processorMerchantId; another organization's id is 403, and
// so is the organization's report while a member's reports may not be
// read (as the settlement reports refuse a group holding it), whose own
// reports are then 403 too.
func TestOrganizationDisputeReports(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	org := s.Config().OrganizationID
	w0, w1 := s.windowBounds()
	without := s.MembersWithoutReporting()
	for _, r := range []struct{ path, list string }{
		{"/reporting/v3/interchange-clearing-level-details", "interchangeClearingLevelDetails"},
		{"/reporting/v3/chargeback-details", "chargebackDetails"},
		{"/reporting/v3/retrieval-details", "retrievalDetails"},
	} {
		read := func(mid, query string) []orgRecord {
			t.Helper()
			var page map[string]json.RawMessage
			c.call("GET", reportPath(r.path, w0, w1)+query, mid, nil, 200, &page)
			var recs []orgRecord
			if raw, ok := page[r.list]; ok {
				if err := json.Unmarshal(raw, &recs); err != nil {
					t.Fatal(err)
				}
			}
			return recs
		}
		var want []orgRecord
		for _, mid := range s.Members() {
			if slices.Contains(without, mid) {
				continue
			}
			for _, rec := range read(mid, "") {
				if rec.ProcessorMerchantID != processorMerchantID(mid) {
					t.Errorf("%s of %s: processorMerchantId %q, want %q", r.list, mid, rec.ProcessorMerchantID, processorMerchantID(mid))
				}
				if r.list == "interchangeClearingLevelDetails" && rec.OrganizationID != mid {
					t.Errorf("%s of %s: organizationId %q", r.list, mid, rec.OrganizationID)
				}
				want = append(want, rec)
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: no member has a record: the test would prove nothing", r.path)
		}
		key := func(a, b orgRecord) int {
			if a.RequestID != b.RequestID {
				return cmpString(a.RequestID, b.RequestID)
			}
			return cmpString(a.ProcessorMerchantID, b.ProcessorMerchantID)
		}
		slices.SortFunc(want, key)
		for _, q := range []string{"", "&organizationId=" + org} {
			got := read(org, q)
			slices.SortFunc(got, key)
			if !slices.Equal(got, want) {
				t.Errorf("%s%s for the organization: %d records, want the members' %d", r.path, q, len(got), len(want))
			}
		}
		c.call("GET", reportPath(r.path, w0, w1)+"&organizationId=someotherorg", org, nil, 403, nil)
	}

	denied := s.Members()[2]
	st, err := s.MerchantSettings(denied)
	if err != nil {
		t.Fatal(err)
	}
	st.ReportingDisabled = true
	if err := s.SetMerchantSettings(denied, st); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/reporting/v3/interchange-clearing-level-details", "/reporting/v3/chargeback-details", "/reporting/v3/retrieval-details"} {
		c.call("GET", reportPath(path, w0, w1), org, nil, 403, nil)
		c.call("GET", reportPath(path, w0, w1), denied, nil, 403, nil)
		c.call("GET", reportPath(path, w0, w1), s.Members()[1], nil, 200, nil)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
