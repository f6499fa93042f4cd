package sandbox

import (
	"fmt"
	"testing"
)

// TestSearchStrictAsThePlatform: a search's time zone must be one of the
// Transaction Search guide's "Supported Time Zones" (GMT is, UTC is not) and
// its submitTimeUtc values in a form the guide documents (epoch
// milliseconds, date math; ISO 8601 in UTC kept as plausible); anything else
// answers 400 in the platform's error shape, naming the field.
func TestSearchStrictAsThePlatform(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	mid := memberID(0)
	from, to := testDate.UnixMilli(), testDate.AddDate(0, 0, 1).UnixMilli()
	epoch := fmt.Sprintf("submitTimeUtc:[%d TO %d}", from, to)
	refused := func(body obj, field string) {
		t.Helper()
		var eb testErrorBody
		c.call("POST", "/tss/v2/searches", mid, body, 400, &eb)
		if eb.Status != "INVALID_REQUEST" || eb.Reason != "VALIDATION_ERROR" || len(eb.Details) != 1 || eb.Details[0].Field != field {
			t.Errorf("%v: %+v, want a VALIDATION_ERROR on %s", body, eb, field)
		}
	}
	for _, tz := range []string{"UTC", "Etc/UTC", "Zulu", "CET", "America/New_Yrok", "Africa/Abidjan", "+00:00"} {
		refused(obj{"timezone": tz, "query": epoch, "limit": 10}, "timezone")
	}
	var byEpoch tSearch
	c.call("POST", "/tss/v2/searches", mid, obj{"timezone": "GMT", "query": epoch, "limit": 2500}, 201, &byEpoch)
	if byEpoch.TotalCount == 0 {
		t.Fatal("no transaction on the business day by epoch milliseconds")
	}
	for _, q := range []string{
		"submitTimeUtc:[NOW/DAY-1DAY TO NOW/DAY}", // the business day, by the data clock
		"submitTimeUtc:[2026-11-20T00:00:00Z TO 2026-11-21T00:00:00Z}",
		fmt.Sprintf("submitTimeUtc:[%d TO %d]", from, to-1),
	} {
		for _, tz := range []string{"GMT", "America/Chicago", "Europe/London", ""} {
			var s tSearch
			c.call("POST", "/tss/v2/searches", mid, obj{"timezone": tz, "query": q, "limit": 2500}, 201, &s)
			if s.TotalCount != byEpoch.TotalCount {
				t.Errorf("%s in %q: %d transactions, %d by epoch milliseconds", q, tz, s.TotalCount, byEpoch.TotalCount)
			}
		}
	}
	c.call("POST", "/tss/v2/searches", mid, obj{"timezone": "GMT", "query": "submitTimeUtc:[2026-11-20T10:00:00Z]", "limit": 5}, 201, nil)
	for _, q := range []string{
		"submitTimeUtc:[2026-11-20 TO 2026-11-21}",                               // a bare date
		"submitTimeUtc:[1795132800 TO 1795219200}",                               // seconds, not milliseconds
		"submitTimeUtc:[2026-11-20T00:00:00+01:00 TO 2026-11-21T00:00:00+01:00}", // not UTC
		"submitTimeUtc:[yesterday TO today}",
	} {
		refused(obj{"timezone": "GMT", "query": q, "limit": 10}, "query")
	}
	refused(obj{"timezone": "GMT", "query": epoch, "limit": 2501}, "limit")
}

// TestSummariesAndDetailsInTheSDKShape: a summary carries status at its top
// level and the customer token as paymentInformation.customer.customerId,
// and no instrument identifier (SDK
// TssV2TransactionsPost201ResponseEmbeddedTransactionSummaries); the
// transaction's detail (TssV2TransactionsGet200Response) carries the
// customer (customerId and id) and the instrument identifier.
func TestSummariesAndDetailsInTheSDKShape(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	var tokenized, plain int
	for m := 0; m < 3; m++ {
		mid := memberID(m)
		r := c.j("POST", "/tss/v2/searches", mid, obj{"timezone": "GMT", "query": "submitTimeUtc:[NOW/DAY-7DAYS TO NOW/DAY+1DAY}", "limit": 2500, "sort": "id:asc"}, 201)
		for _, s := range arr(r, "_embedded.transactionSummaries") {
			id := str(s, "id")
			if str(s, "status") == "" || dig(s, "applicationInformation", "status") != nil {
				t.Fatalf("summary %s: status not at the top level: %v", id, s)
			}
			if dig(s, "paymentInformation", "instrumentIdentifier") != nil || dig(s, "paymentInformation", "customer", "id") != nil {
				t.Fatalf("summary %s carries what the SDK's summary has no field for: %v", id, dig(s, "paymentInformation"))
			}
			cust := str(s, "paymentInformation.customer.customerId")
			if cust == "" {
				plain++
				continue
			}
			if tokenized++; tokenized > 5 {
				continue
			}
			d := c.j("GET", "/tss/v2/transactions/"+id, mid, nil, 200)
			if str(d, "paymentInformation.customer.id") != cust || str(d, "paymentInformation.customer.customerId") != cust ||
				str(d, "paymentInformation.instrumentIdentifier.id") == "" || str(d, "status") != str(s, "status") ||
				str(d, "applicationInformation.status") != str(s, "status") || str(d, "submitTimeUTC") == "" {
				t.Errorf("detail of %s: %v", id, d)
			}
		}
	}
	if tokenized == 0 || plain == 0 {
		t.Fatalf("%d tokenized and %d other summaries: the data lacks one kind", tokenized, plain)
	}
}
