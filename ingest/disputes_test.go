package ingest_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestReportsFewRequestsAndIncremental: the reports stage reads the
// organization's three reports in three requests, and asks only the
// members without any record for their own clearing report (one request
// each: the member that may not read reports answers 403 and is recorded
// in run_members as not enabled while the member is reconciled); with
// --dispute-scope member it reads each member's three reports in three
// requests (one for the member that may not read reports). Either way it
// loads them, and a second run of the day replaces the window's rows
// rather than adding to them. A chargeback whose amount has more decimals
// than its currency is kept aside with why, and the member's other
// records load.
func TestReportsFewRequestsAndIncremental(t *testing.T) {
	for _, scope := range []ingest.DisputeScope{ingest.DisputeScopeOrganization, ingest.DisputeScopeMember} {
		t.Run(string(scope), func(t *testing.T) { reportsFewRequestsAndIncremental(t, scope) })
	}
}

func reportsFewRequestsAndIncremental(t *testing.T, scope ingest.DisputeScope) {
	env := startRewritten(t, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path == "/reporting/v3/chargeback-details" {
			// The one-off chargeback (reason 10.4, one member's at scale
			// small) gets three decimals.
			i := bytes.Index(body, []byte(`"reasonCode":"10.4"`))
			j := bytes.LastIndex(body[:max(i, 0)], []byte(`"amount":"`))
			if i > 0 && j > 0 {
				k := j + len(`"amount":"`) + bytes.IndexByte(body[j+len(`"amount":"`):], '"')
				return append(append(append([]byte{}, body[:k]...), '1'), body[k:]...)
			}
		}
		return body
	})
	members := env.Server.Members()
	without := env.Server.MembersWithoutReporting()
	if len(without) != 1 {
		t.Fatalf("members without reports: %v, want one", without)
	}
	s := storetest.Open(t)
	c := env.Server.Config()
	opts := pipeline.Options{Client: env.Client, OrganizationID: c.OrganizationID, BusinessDate: c.BusinessDate,
		Concurrency: 4, PaymentLists: 2, DisputeScope: scope}
	res, err := pipeline.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	var requests int64 = -1
	for _, st := range res.Stages {
		if st.Name == "reports" {
			requests = st.Requests
		}
	}
	want := int64(3*(len(members)-1) + 1)
	if scope == ingest.DisputeScopeOrganization {
		// The members with no record loaded were each asked once.
		var silent int64
		if err := s.ReadPool().QueryRow(`SELECT count(*) FROM run_members rm WHERE run_id = $1
			AND NOT EXISTS (SELECT 1 FROM interchange_clearing x WHERE x.merchant_id = rm.merchant_id)
			AND NOT EXISTS (SELECT 1 FROM chargebacks x WHERE x.merchant_id = rm.merchant_id)
			AND NOT EXISTS (SELECT 1 FROM retrievals x WHERE x.merchant_id = rm.merchant_id)`, res.RunID).Scan(&silent); err != nil {
			t.Fatal(err)
		}
		if want = 3 + silent; silent >= int64(len(members))/2 {
			t.Errorf("%d of %d members have no record: the organization's reports were not attributed", silent, len(members))
		}
	}
	if requests != want {
		t.Errorf("the reports stage took %d requests for %d members, want %d", requests, len(members), want)
	}
	if len(res.Failed) != 0 || len(res.Problems) != 0 {
		t.Errorf("failed %+v, problems %v; want none", res.Failed, res.Problems)
	}
	var status, products, message string
	if err := s.ReadPool().QueryRow(`SELECT status, coalesce(products_not_enabled, ''), coalesce(not_enabled_message, '')
		FROM run_members WHERE merchant_id = ?`, without[0]).Scan(&status, &products, &message); err != nil {
		t.Fatal(err)
	}
	if status != "ok" || !strings.Contains(products, "reporting") || !strings.Contains(message, "403") {
		t.Errorf("member without reports: status %q, products not enabled %q, message %q; want ok, reporting and the 403", status, products, message)
	}
	count := func() (clearing, chargebacks, retrievals, aside int) {
		t.Helper()
		if err := s.ReadPool().QueryRow(`SELECT (SELECT count(*) FROM interchange_clearing), (SELECT count(*) FROM chargebacks),
			(SELECT count(*) FROM retrievals), (SELECT count(*) FROM kept_aside WHERE record = 'chargeback')`).Scan(&clearing, &chargebacks, &retrievals, &aside); err != nil {
			t.Fatal(err)
		}
		return
	}
	c1, cb1, r1, a1 := count()
	if c1 == 0 || cb1 != 1 || r1 == 0 || a1 != 1 {
		t.Fatalf("loaded %d clearing records, %d chargebacks, %d retrievals, %d kept aside; want some, 1 (the other kept aside), some, 1", c1, cb1, r1, a1)
	}
	var reason, field string
	if err := s.ReadPool().QueryRow(`SELECT reason, field FROM kept_aside WHERE record = 'chargeback'`).Scan(&reason, &field); err != nil {
		t.Fatal(err)
	}
	if field != "amount" || !strings.Contains(reason, "decimal") {
		t.Errorf("kept aside: field %q, reason %q; want amount and its decimals", field, reason)
	}
	opts.Force = true
	if _, err := pipeline.Run(context.Background(), s, opts); err != nil {
		t.Fatal(err)
	}
	if c2, cb2, r2, _ := count(); c2 != c1 || cb2 != cb1 || r2 != r1 {
		t.Errorf("a second run of the day: %d, %d, %d rows, want %d, %d, %d as before", c2, cb2, r2, c1, cb1, r1)
	}
}
