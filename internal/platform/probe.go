package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Family is an endpoint family reconcile reads for each member.
type Family string

// The families a member is probed for (reconcile doctor).
const (
	FamilyRecurringBilling Family = "recurring billing"
	FamilySearch           Family = "transaction search"
	FamilyBIN              Family = "BIN lookup"
)

// Families are the member families, in the order doctor shows them.
var Families = []Family{FamilyRecurringBilling, FamilySearch, FamilyBIN}

// probeBIN is the BIN a BIN lookup probe asks for: the networks' test card
// prefix, which every BIN table knows (its answer is not read).
const probeBIN = "411111"

// Probe makes the smallest read of family for the merchant: one plan (GET
// /rbs/v1/plans?offset=0&limit=1), one transaction of the day before now
// (POST /tss/v2/searches, limit 1), the attributes of a test BIN. It
// returns nil when the platform answered it, and the platform's refusal
// (an *APIError, see NotEnabled) or the failure otherwise. One request, or
// a few when retried: it never reads past the first page.
func (m *Merchant) Probe(ctx context.Context, family Family, now time.Time) error {
	switch family {
	case FamilyRecurringBilling:
		_, err := m.send(ctx, "GET", "/rbs/v1/plans?offset=0&limit=1", nil, true, rbsPageLimit)
		return err
	case FamilySearch:
		body, err := json.Marshal(searchRequest{
			Name:     "reconcile doctor",
			Timezone: searchTimezone,
			Query:    searchRange(m.c.timeForm(), now.Add(-24*time.Hour), now, m.c.now()),
			Limit:    1,
			Sort:     "id:asc,submitTimeUtc:asc",
		})
		if err != nil {
			return err
		}
		_, err = m.send(ctx, "POST", "/tss/v2/searches", body, true, searchPageLimit)
		return err
	case FamilyBIN:
		_, err := m.LookupBIN(ctx, BINQuery{CardPrefix: probeBIN})
		return err
	}
	return fmt.Errorf("probe: unknown family %q", family)
}
