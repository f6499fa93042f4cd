package sandbox

import (
	"sort"
	"strings"
)

// One Transaction Search across many merchants. The Transaction Search
// guide ("Filtering by Query Parameter") lists two query fields that reach
// past the merchant acted for:
//
//	merchantInformation.resellerId  "Only for reseller. Query transactions for all merchants under the reseller portfolio."
//	merchantInformation.accountId   "Query transactions for one of your merchant accounts."
//
// In the sandbox the portfolio is the organization (its ID is the reseller
// ID) and its one merchant account is DefaultMerchantAccountID, which holds
// every generated member. A search naming either must act for the key's own
// organization (v-c-merchant-id), and the key must own what it names: the
// portfolio key its organization and its account, the merchant account key
// its account. Anything else is 403, as the platform refuses a key access
// to merchants it does not own; a scope field in a query with OR is 400
// (the sandbox reads a scope field as a filter on the whole query). Which
// status the platform answers, and whether it accepts these fields from a
// key acting for one member, are not documented (docs/platform.md marks
// them unverified).
const (
	resellerField = "merchantInformation.resellerId"
	accountField  = "merchantInformation.accountId"
)

func init() {
	searchFields[resellerField] = true
	searchFields[accountField] = true
}

// scopeTerm is the scope field of q, if it names one.
func (q query) scopeTerm() (*term, bool) {
	for _, conj := range q {
		for i := range conj {
			if conj[i].field == resellerField || conj[i].field == accountField {
				return &conj[i], true
			}
		}
	}
	return nil, false
}

// mayScope says why x may not search the merchants its scope term names,
// or nil when it may.
func (s *Server) mayScope(x *exchange, q query, tm *term) *answer {
	if len(q) > 1 {
		a := x.validationError("invalid search request", errorDetail{Field: "query",
			Reason: tm.field + " cannot be combined with OR"})
		return &a
	}
	if tm.isRange {
		a := x.validationError("invalid search request", errorDetail{Field: "query", Reason: tm.field + " takes one value"})
		return &a
	}
	owns := false
	switch tm.field {
	case resellerField:
		owns = (x.user.Kind == UserPortfolio || x.user.Kind == UserNoGroupsPermission) && tm.value == s.cfg.OrganizationID
	case accountField:
		owns = (x.user.Kind == UserPortfolio || x.user.Kind == UserNoGroupsPermission || x.user.Kind == UserMerchant) &&
			tm.value == DefaultMerchantAccountID
	}
	if !owns {
		a := x.forbidden("the key may not search " + tm.field + ":" + tm.value)
		return &a
	}
	if x.mid != x.user.Account {
		a := x.forbidden(tm.field + " searches act for the key's own organization (v-c-merchant-id " + x.user.Account + "), not " + x.mid)
		return &a
	}
	return nil
}

// scopedHit is one transaction a scoped search found, with what it sorts
// on, its summary made while its member was locked.
type scopedHit struct {
	id  string
	sum summaryJSON
	t   int64 // submit time, Unix nanoseconds
}

// searchAcross runs q over every member: each is locked, caught up with the
// data clock, and its matching transactions summarised, in turn. It returns
// the page and the total count.
func (s *Server) searchAcross(q query, keys []sortKey, offset, limit int) ([]summaryJSON, int) {
	clock := s.Clock()
	var hits []scopedHit
	for idx := range s.cfg.Scale.Members {
		m := s.cache.get(idx)
		m.mu.Lock()
		s.advance(m, clock)
		for _, t := range m.txns {
			if q.match(t, m.id) {
				hits = append(hits, scopedHit{id: t.id, sum: t.summary(m.id), t: t.time.UnixNano()})
			}
		}
		m.mu.Unlock()
	}
	sort.SliceStable(hits, func(i, j int) bool {
		for _, k := range keys {
			var c int
			if k.field == "id" {
				c = strings.Compare(hits[i].id, hits[j].id)
			} else {
				c = cmpInt64(hits[i].t, hits[j].t)
			}
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return hits[i].id < hits[j].id
	})
	page := window(hits, offset, limit)
	sums := make([]summaryJSON, len(page))
	for i, h := range page {
		sums[i] = h.sum
	}
	return sums, len(hits)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
