package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"time"
)

// SearchScope is how widely one Transaction Search reaches. The
// Transaction Search guide ("Filtering by Query Parameter") lists two query
// fields that reach past one merchant ID: merchantInformation.resellerId
// ("Only for reseller. Query transactions for all merchants under the
// reseller portfolio") and merchantInformation.accountId ("Query
// transactions for one of your merchant accounts"); each summary then
// carries its merchantId (SDK TssV2TransactionsPost201ResponseEmbedded
// TransactionSummaries). One search for a whole portfolio replaces one per
// member: in production the platform's rate limit, not the CPU, sets how
// long a night takes.
type SearchScope string

const (
	// SearchMember searches each member on its own (the default).
	SearchMember SearchScope = "member"
	// SearchAccount searches every merchant of a merchant account at once
	// (merchantInformation.accountId).
	SearchAccount SearchScope = "account"
	// SearchReseller searches every merchant of a reseller portfolio at
	// once (merchantInformation.resellerId).
	SearchReseller SearchScope = "reseller"
)

// ParseSearchScope reads member, account or reseller (case-insensitive;
// empty is member).
func ParseSearchScope(s string) (SearchScope, error) {
	switch sc := SearchScope(strings.ToLower(strings.TrimSpace(s))); sc {
	case SearchMember, SearchAccount, SearchReseller:
		return sc, nil
	case "":
		return SearchMember, nil
	}
	return "", fmt.Errorf("search scope %q: want member, account or reseller", s)
}

// Field is the search query field of the scope; "" for SearchMember.
func (sc SearchScope) Field() string {
	switch sc {
	case SearchAccount:
		return "merchantInformation.accountId"
	case SearchReseller:
		return "merchantInformation.resellerId"
	}
	return ""
}

// SearchAcross yields every transaction submitted in [from, to) of the
// merchants under the account or reseller portfolio id (scope), in one
// search acting for m (the key's owner: the portfolio or the account), in
// pages as SearchTransactions. Each summary names its merchant
// (TransactionSummary.MerchantID); one that does not is an error, since its
// transaction could not be given to a member. The platform answers 400 or
// 403 to a key that may not search so widely (unverified: the guide does
// not say which); reconcile doctor finds out before a run relies on it.
func (m *Merchant) SearchAcross(ctx context.Context, scope SearchScope, id string, from, to time.Time) iter.Seq2[TransactionSummary, error] {
	field := scope.Field()
	return func(yield func(TransactionSummary, error) bool) {
		switch {
		case field == "":
			yield(TransactionSummary{}, fmt.Errorf("search across merchants: scope %q reaches one merchant only", scope))
			return
		case id == "" || strings.ContainsAny(id, ` :\"[]{}()`):
			yield(TransactionSummary{}, fmt.Errorf("search across merchants: %q is not an %s", id, scope))
			return
		}
		for t, err := range m.searchTransactions(ctx, field, id, from, to) {
			if err == nil && strings.TrimSpace(t.MerchantID) == "" {
				err = fmt.Errorf("search transactions of %s %s: transaction %s has no merchantId: it cannot be given to a member", field, id, t.ID)
			}
			if !yield(t, err) || err != nil {
				return
			}
		}
	}
}

// ProbeSearchAcross makes the smallest search across the merchants of the
// account or reseller portfolio id, acting for m: one transaction of the
// day before now (limit 1), as Probe does for one merchant. It returns nil
// when the platform answered it: the key may search so widely.
func (m *Merchant) ProbeSearchAcross(ctx context.Context, scope SearchScope, id string, now time.Time) error {
	field := scope.Field()
	if field == "" {
		return fmt.Errorf("probe search across merchants: scope %q reaches one merchant only", scope)
	}
	body, err := json.Marshal(searchRequest{
		Name:     "reconcile doctor",
		Timezone: searchTimezone,
		Query:    searchRange(m.c.timeForm(), now.Add(-24*time.Hour), now, m.c.now()) + " AND " + field + ":" + id,
		Limit:    1,
		Sort:     "id:asc,submitTimeUtc:asc",
	})
	if err != nil {
		return err
	}
	_, err = m.send(ctx, "POST", "/tss/v2/searches", body, true, searchPageLimit)
	return err
}
