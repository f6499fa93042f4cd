package sandbox

import (
	"fmt"
	"math/big"
	"net/url"
	"testing"
	"time"
)

// tPurchaseRefund is the purchase and refund details' page as a test reads it.
type tPurchaseRefund struct {
	Offset, Limit, PageResults int
	RequestDetails             []struct{ RequestID, CybersourceMerchantID string }
	Settlements                []struct {
		RequestID, TransactionType, Amount, CurrencyCode, CybersourceBatchID string
	}
	Authorizations     []struct{ RequestID, Time string }
	SettlementStatuses []struct{ RequestID, Status string }
}

type tNetFundings struct {
	TotalPurchases, TotalRefunds, TotalFees, TotalChargebacks, NetTotal []struct{ Currency, Value string }
}

func reportQuery(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}

// rat reads a decimal amount.
func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("amount %q", s)
	}
	return r
}

// settlementThroughHTTP recomputes the settlement kinds from what the
// Reporting API and Transaction Search answer, per group, and checks them
// against the ground truth entity by entity.
func settlementThroughHTTP(t *testing.T, c *tclient, gt *GroundTruth, w0, w1 time.Time, truth map[string]map[string]Finding, found map[string]int) {
	org := gt.OrganizationID
	seen := map[string]bool{}
	bd := w1.AddDate(0, 0, -1)
	captured := map[string]tSummary{}
	for _, g := range gt.Groups {
		for _, mid := range g.Members {
			for _, s := range c.searchAll(mid, w0, w1, 2000) {
				captured[mid+"/"+s.ID] = s
			}
		}
	}
	check := func(kind, key string, want bool) {
		t.Helper()
		_, ok := truth[kind][key]
		if ok != want {
			t.Errorf("%s %s: through HTTP %v, in the ground truth %v", kind, key, want, ok)
		}
		if want && !seen[kind+key] {
			seen[kind+key] = true
			found[kind]++
		}
	}
	for _, g := range gt.Groups {
		for off := 0; ; {
			var page tPurchaseRefund
			c.call("GET", "/reporting/v3/purchase-refund-details?"+reportQuery("startTime", w0.AddDate(0, 0, -ReportingLookbackDays).Format(time.RFC3339),
				"endTime", w1.Format(time.RFC3339), "groupName", g.Name, "offset", fmt.Sprint(off), "limit", "300"), org, nil, 200, &page)
			status := map[string]string{}
			for _, s := range page.SettlementStatuses {
				status[s.RequestID] = s.Status
			}
			when := map[string]time.Time{}
			for _, a := range page.Authorizations {
				when[a.RequestID], _ = time.Parse(time.RFC3339, a.Time)
			}
			mids := map[string]string{}
			for _, r := range page.RequestDetails {
				mids[r.RequestID] = r.CybersourceMerchantID
			}
			for _, s := range page.Settlements {
				key := mids[s.RequestID] + "/" + s.RequestID
				at := when[s.RequestID]
				if status[s.RequestID] == "Pending" {
					check(KindCaptureNotSettled, key, s.TransactionType == "Purchases" && BusinessDaysBetween(at, bd) > DefaultSettlementDays)
					continue
				}
				if at.Before(w0) || !at.Before(w1) {
					continue
				}
				tx, ok := captured[key]
				check(KindSettlementWithoutCapture, key, !ok)
				if ok {
					am := tx.OrderInformation.AmountDetails
					check(KindSettledAmountMismatch, key, rat(t, am.TotalAmount).Cmp(rat(t, s.Amount)) != 0 || am.Currency != s.CurrencyCode)
				}
			}
			if page.PageResults < page.Limit {
				break
			}
			off += page.PageResults
		}
		first := g.Members[0]
		for _, mid := range g.Members {
			first = min(first, mid)
		}
		for d := w0; d.Before(w1); d = d.AddDate(0, 0, 1) {
			var nf tNetFundings
			c.call("GET", "/reporting/v3/net-fundings?"+reportQuery("startTime", d.Format(time.RFC3339), "endTime", d.AddDate(0, 0, 1).Format(time.RFC3339),
				"groupName", g.Name), org, nil, 200, &nf)
			get := func(list []struct{ Currency, Value string }, cur string) *big.Rat {
				for _, v := range list {
					if v.Currency == cur {
						return rat(t, v.Value)
					}
				}
				return new(big.Rat)
			}
			for _, n := range nf.NetTotal {
				want := new(big.Rat).Sub(get(nf.TotalPurchases, n.Currency), get(nf.TotalRefunds, n.Currency))
				want.Sub(want, get(nf.TotalFees, n.Currency)).Sub(want, get(nf.TotalChargebacks, n.Currency))
				check(KindFundingTieoutMismatch, first+"/"+FundingEntity(g.ID, d, n.Currency), rat(t, n.Value).Cmp(want) != 0)
			}
		}
	}
}
