package sandbox

import (
	"net/url"
	"strconv"
	"testing"
	"time"
)

type tClearing struct {
	RequestID, ClearedLevel, MerchantPricedLevel, BillbackReasonCode string
	Amount, CurrencyCode, InterchangeAmount, BillbackAmount          string
}

type tDispute struct {
	RequestID, Amount, CurrencyCode, ReasonCode, Time, ResponseDueTime string
}

func reportPath(path string, w0, w1 time.Time) string {
	return path + "?" + url.Values{"startTime": {msTime(w0)}, "endTime": {msTime(w1)}}.Encode()
}

// disputesThroughHTTP checks the kinds of the Reporting API's reports
// (truth_disputes.go) for one member against what a client reads: the
// clearing records, the chargebacks with the subscription payments behind
// them, and the share of the member's settled captures in Transaction
// Search.
func disputesThroughHTTP(t *testing.T, c *tclient, mid string, w0, w1 time.Time, truth map[string]map[string]Finding, found map[string]int) {
	t.Helper()
	resp, _, err := c.do("GET", reportPath("/reporting/v3/chargeback-details", w0, w1), mid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == 403 { // the member may not read reports: nothing of it is in the truth
		for _, k := range disputeKinds() {
			for key := range truth[k] {
				if key[:len(mid)] == mid {
					t.Errorf("%s: %s in the truth of a member without reports", k, key)
				}
			}
		}
		return
	}
	var clearing struct{ InterchangeClearingLevelDetails []tClearing }
	c.call("GET", reportPath("/reporting/v3/interchange-clearing-level-details", w0, w1), mid, nil, 200, &clearing)
	for _, r := range clearing.InterchangeClearingLevelDetails {
		below := r.ClearedLevel < r.MerchantPricedLevel // "1" < "3"
		f, ok := truth[KindClearedBelowSentLevel][mid+"/"+r.RequestID]
		if ok != below {
			t.Errorf("%s: cleared %s priced %s, in cleared_below_sent_level %v", r.RequestID, r.ClearedLevel, r.MerchantPricedLevel, ok)
			continue
		}
		if ok {
			found[KindClearedBelowSentLevel]++
			if f.Amount != r.Amount || f.Currency != r.CurrencyCode || r.BillbackReasonCode == "" || cents(t, r.BillbackAmount) <= 0 {
				t.Errorf("cleared_below_sent_level %s: truth %+v, record %+v", r.RequestID, f, r)
			}
		} else if cents(t, r.BillbackAmount) != 0 {
			t.Errorf("%s cleared at its level with a billback: %+v", r.RequestID, r)
		}
	}
	var cbs struct{ ChargebackDetails []tDispute }
	c.call("GET", reportPath("/reporting/v3/chargeback-details", w0, w1), mid, nil, 200, &cbs)
	subTxns := map[string]bool{}
	for _, sub := range c.subscriptions(mid) {
		pays, _ := c.payments(mid, sub.ID)
		for _, p := range pays {
			if p.TransactionID != "" {
				subTxns[p.TransactionID] = true
			}
		}
	}
	var sum int64
	currencies := map[string]bool{}
	for _, d := range cbs.ChargebackDetails {
		sum += cents(t, d.Amount)
		currencies[d.CurrencyCode] = true
		f, ok := truth[KindSubscriptionChargeback][mid+"/"+d.RequestID]
		if ok != subTxns[d.RequestID] {
			t.Errorf("chargeback on %s: a subscription payment's %v, in subscription_chargeback %v", d.RequestID, subTxns[d.RequestID], ok)
		} else if ok {
			found[KindSubscriptionChargeback]++
			if f.Amount != d.Amount || f.Currency != d.CurrencyCode {
				t.Errorf("subscription_chargeback %s: truth %+v, chargeback %+v", d.RequestID, f, d)
			}
		}
	}
	captures := 0
	for _, s := range c.searchAll(mid, w0, w1, 2000) {
		for _, a := range s.ApplicationInformation.Applications {
			if (a.Name == "ics_bill" || a.Name == "ics_ap_capture") && a.RCode == "1" {
				captures++
				break
			}
		}
	}
	n := len(cbs.ChargebackDetails)
	exceeds := n > 0 && float64(n) >= DefaultChargebackShare*float64(captures)
	f, ok := truth[KindChargebackShareExceeded][mid+"/"+mid]
	if ok != exceeds {
		t.Errorf("%s: %d chargebacks of %d captures, in chargeback_share_exceeded %v", mid, n, captures, ok)
	} else if ok {
		found[KindChargebackShareExceeded]++
		if len(currencies) == 1 && cents(t, f.Amount) != sum {
			t.Errorf("chargeback_share_exceeded %s: truth %+v, chargebacks sum to %s", mid, f, strconv.FormatInt(sum, 10))
		}
	}
}

// TestReportParameters: the reports take startTime and endTime (required,
// ISO 8601, end after start) and organizationId, nothing else (the SDK's
// *DetailsApi); a member without reports is 403, as is another
// organization's id.
func TestReportParameters(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	mid := s.Members()[1]
	ok := "startTime=2026-11-17T00:00:00.000Z&endTime=2026-11-21T00:00:00.000Z"
	for _, path := range []string{"/reporting/v3/interchange-clearing-level-details", "/reporting/v3/chargeback-details", "/reporting/v3/retrieval-details"} {
		for q, want := range map[string]int{
			ok:                                  200,
			ok + "&organizationId=" + mid:       200,
			ok + "&organizationId=sbxmid000003": 403,
			"startTime=2026-11-17T00:00:00Z":    400,
			"endTime=2026-11-17T00:00:00Z":      400,
			"startTime=2026-11-17&endTime=2026-11-21T00:00:00Z":           400,
			"startTime=2026-11-21T00:00:00Z&endTime=2026-11-17T00:00:00Z": 400,
			ok + "&offset=0":                       400,
			ok + "&startTime=2026-11-18T00:00:00Z": 400,
		} {
			c.call("GET", path+"?"+q, mid, nil, want, nil)
		}
		c.call("GET", path+"?"+ok, s.Members()[len(s.Members())-2], nil, 403, nil)
	}
}
