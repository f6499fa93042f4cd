package sandbox

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// TestSearchAcrossMembers: a search naming merchantInformation.resellerId
// or merchantInformation.accountId finds every member's transactions of the
// window, each naming its merchantId, exactly as the members' own searches
// do; and only for a key that owns the portfolio or account named, acting
// for its own organization (403 otherwise), never combined with OR (400).
func TestSearchAcrossMembers(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 3, Scale: Scale{Members: 4, Subscriptions: 30, Groups: 2}})
	from, to := testDate.AddDate(0, 0, -3), testDate.AddDate(0, 0, 1)
	window := fmt.Sprintf("submitTimeUtc:[%s TO %s}", from.Format(time.RFC3339), to.Format(time.RFC3339))
	want := map[string]string{} // transaction ID → merchant ID
	for _, mid := range s.Members() {
		for _, sum := range c.searchAll(mid, from, to, 2500) {
			want[sum.ID] = mid
		}
	}
	if len(want) == 0 {
		t.Fatal("the members have no transaction in the window")
	}
	type summary struct{ ID, MerchantID, SubmitTimeUtc string }
	type page struct {
		TotalCount int
		Embedded   *struct {
			TransactionSummaries []summary `json:"transactionSummaries"`
		} `json:"_embedded"`
	}
	across := func(c *tclient, actFor, scope string) map[string]string {
		t.Helper()
		got := map[string]string{}
		var ids []string
		for off := 0; ; {
			var p page
			c.call("POST", "/tss/v2/searches", actFor, map[string]any{"name": "all", "timezone": "GMT",
				"query": window + " AND " + scope, "offset": off, "limit": 7, "sort": "id:asc"}, 201, &p)
			if p.Embedded == nil {
				if off != p.TotalCount {
					t.Fatalf("%s: %d found of totalCount %d", scope, off, p.TotalCount)
				}
				break
			}
			for _, sum := range p.Embedded.TransactionSummaries {
				got[sum.ID] = sum.MerchantID
				ids = append(ids, sum.ID)
			}
			off += len(p.Embedded.TransactionSummaries)
		}
		if !sort.StringsAreSorted(ids) {
			t.Errorf("%s: pages not sorted by id across members", scope)
		}
		return got
	}
	same := func(scope string, got map[string]string) {
		t.Helper()
		for id, mid := range want {
			if got[id] != mid {
				t.Errorf("%s: transaction %s of %s came as merchant %q", scope, id, mid, got[id])
			}
		}
		for id := range got {
			if _, ok := want[id]; !ok {
				t.Errorf("%s: transaction %s is in no member's own search", scope, id)
			}
		}
	}
	org := s.Config().OrganizationID
	same("reseller", across(c, org, "merchantInformation.resellerId:"+org))
	same("account", across(c, org, "merchantInformation.accountId:"+DefaultMerchantAccountID))

	merchantKey := *c
	merchantKey.sg = signer{KeyID: s.UserKeyID(UserMerchant, ""), Secret: s.Config().Secret, SignAs: DefaultMerchantAccountID}
	same("account, merchant account key", across(&merchantKey, DefaultMerchantAccountID,
		"merchantInformation.accountId:"+DefaultMerchantAccountID))

	refused := []struct {
		name          string
		c             *tclient
		actFor, query string
		status        int
	}{
		{"another reseller", c, org, window + " AND merchantInformation.resellerId:other", 403},
		{"another account", c, org, window + " AND merchantInformation.accountId:other", 403},
		{"acting for a member", c, memberID(0), window + " AND merchantInformation.resellerId:" + org, 403},
		{"a merchant account key, the portfolio", &merchantKey, DefaultMerchantAccountID, window + " AND merchantInformation.resellerId:" + org, 403},
		{"with OR", c, org, window + " OR merchantInformation.resellerId:" + org, 400},
	}
	for _, r := range refused {
		var eb testErrorBody
		r.c.call("POST", "/tss/v2/searches", r.actFor, map[string]any{"name": "x", "timezone": "GMT", "query": r.query, "limit": 10}, r.status, &eb)
	}
}
