package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

var disputeKinds = []string{sandbox.KindClearedBelowSentLevel, sandbox.KindSubscriptionChargeback, sandbox.KindChargebackShareExceeded}

// runDisputeScope runs the pipeline over env's sandbox with its own window
// and the dispute reports read with scope (and opts' other settings).
func runDisputeScope(t *testing.T, env *sandboxtest.Env, scope ingest.DisputeScope, set func(*pipeline.Options)) (*store.Store, *pipeline.Result) {
	t.Helper()
	s := storetest.Open(t)
	c := env.Server.Config()
	opts := pipeline.Options{Client: env.Client, OrganizationID: c.OrganizationID, BusinessDate: c.BusinessDate,
		Lookback: c.Lookback, Concurrency: 4, PaymentLists: 2, DisputeScope: scope}
	if set != nil {
		set(&opts)
	}
	res, err := pipeline.Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

// reportsRequests is the requests of the run's reports stage.
func reportsRequests(t *testing.T, res *pipeline.Result) int64 {
	t.Helper()
	for _, st := range res.Stages {
		if st.Name == "reports" {
			return st.Requests
		}
	}
	t.Fatal("the run has no reports stage")
	return 0
}

// storedLines is the rows of query (its columns joined by spaces), sorted.
func storedLines(t *testing.T, s *store.Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.ReadPool().Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(vals, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func disputeFindings(t *testing.T, s *store.Store, runID string) []string {
	return storedLines(t, s, `SELECT kind, merchant_id, entity_id, coalesce(amount_text(amount, currency), ''), coalesce(currency, '') FROM findings
		WHERE run_id = $1 AND state IN ('new', 'open', 'acknowledged') AND list_contains($2, kind)`, runID, disputeKinds)
}

// disputeRows is every row of the three report tables, by member, record
// and time, with the amounts.
func disputeRows(t *testing.T, s *store.Store) []string {
	return storedLines(t, s, `
		SELECT 'clearing', merchant_id, request_id, strftime(transaction_time, '%c'), amount_text(amount, currency), cleared_level FROM interchange_clearing
		UNION ALL SELECT 'chargeback', merchant_id, request_id, strftime(time, '%c'), amount_text(amount, currency), reason_code FROM chargebacks
		UNION ALL SELECT 'retrieval', merchant_id, request_id, strftime(time, '%c'), amount_text(amount, currency), reason_code FROM retrievals`)
}

// TestDisputeReportsOrganizationAtMedium: at scale medium (50 members) the
// dispute reports cost three requests a night for the organization plus
// one for the member that may not read reports (recorded as not enabled),
// where reading them member by member costs three a member; the rows
// loaded and the dispute findings are the same either way, and they are
// the sandbox's ground truth entity by entity.
func TestDisputeReportsOrganizationAtMedium(t *testing.T) {
	env := sandboxtest.Start(t, sandbox.Config{Seed: 11, Scale: sandbox.Scale{Members: 50, Subscriptions: 20, Groups: 5}})
	gt, err := env.Server.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	without := env.Server.MembersWithoutReporting()
	orgStore, orgRes := runDisputeScope(t, env, ingest.DisputeScopeOrganization, nil)
	memberStore, memberRes := runDisputeScope(t, env, ingest.DisputeScopeMember, nil)

	members := len(env.Server.Members())
	if got, most := reportsRequests(t, orgRes), int64(3+len(without)); got > most {
		t.Errorf("organization scope: the reports stage took %d requests for %d members, want at most %d (three, and one for each member without reports)",
			got, members, most)
	}
	if got, want := reportsRequests(t, memberRes), int64(3*(members-len(without))+len(without)); got != want {
		t.Errorf("member scope: the reports stage took %d requests, want %d", got, want)
	}
	for _, r := range []*pipeline.Result{orgRes, memberRes} {
		if len(r.Failed) != 0 || len(r.Problems) != 0 {
			t.Errorf("failed %+v, problems %v; want none", r.Failed, r.Problems)
		}
	}

	var want []string
	for _, k := range disputeKinds {
		if len(gt.Findings[k]) == 0 {
			t.Errorf("the ground truth plants no %s at scale medium", k)
		}
		for _, f := range gt.Findings[k] {
			want = append(want, strings.Join([]string{k, f.MerchantID, f.EntityID, f.Amount, f.Currency}, " "))
		}
	}
	slices.Sort(want)
	if got := disputeFindings(t, orgStore, orgRes.RunID); !slices.Equal(got, want) {
		t.Errorf("organization scope: dispute findings\n got %q\nwant %q", got, want)
	}
	if got := disputeFindings(t, memberStore, memberRes.RunID); !slices.Equal(got, want) {
		t.Errorf("member scope: dispute findings\n got %q\nwant %q", got, want)
	}
	orgRows, memberRows := disputeRows(t, orgStore), disputeRows(t, memberStore)
	if len(orgRows) == 0 || !slices.Equal(orgRows, memberRows) {
		t.Errorf("the report rows differ: %d for the organization, %d member by member", len(orgRows), len(memberRows))
	}
	for _, st := range []*store.Store{orgStore, memberStore} {
		notEnabled := storedLines(t, st, `SELECT merchant_id FROM run_members WHERE products_not_enabled LIKE '%reporting%'`)
		if !slices.Equal(notEnabled, without) {
			t.Errorf("members recorded without reports: %v, want %v", notEnabled, without)
		}
	}
}

// TestDisputeReportUnattributableReadPerMember: a chargeback of the
// organization's report whose processor merchant ID and request id name no
// known member is not lost: the chargebacks are read again member by
// member that night, and the member's own answer loads it.
func TestDisputeReportUnattributableReadPerMember(t *testing.T) {
	var planted string
	var orgID string
	env := startRewritten(t, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path != "/reporting/v3/chargeback-details" || status != http.StatusOK || r.Header.Get("v-c-merchant-id") != orgID {
			return body
		}
		var page struct {
			ChargebackDetails []struct {
				RequestID           string `json:"requestId"`
				ProcessorMerchantID string `json:"processorMerchantId"`
			} `json:"chargebackDetails"`
		}
		if json.Unmarshal(body, &page) != nil || len(page.ChargebackDetails) == 0 {
			return body
		}
		first := page.ChargebackDetails[0]
		planted = first.RequestID
		body = bytes.Replace(body, []byte(`"processorMerchantId":"`+first.ProcessorMerchantID+`"`), []byte(`"processorMerchantId":"PNOBODY"`), 1)
		return bytes.Replace(body, []byte(`"requestId":"`+first.RequestID+`"`), []byte(`"requestId":"nobody-knows-this-request"`), 1)
	})
	orgID = env.Server.Config().OrganizationID
	s, res := runDisputeScope(t, env, ingest.DisputeScopeOrganization, nil)
	if planted == "" {
		t.Fatal("the organization's chargeback report held no chargeback to make unattributable")
	}
	if len(res.Failed) != 0 || len(res.Problems) != 0 {
		t.Errorf("failed %+v, problems %v; want none", res.Failed, res.Problems)
	}
	got := storedLines(t, s, `SELECT merchant_id || ' ' || request_id FROM chargebacks`)
	found := false
	for _, l := range got {
		found = found || strings.HasSuffix(l, " "+planted)
		if strings.Contains(l, "nobody-knows") {
			t.Errorf("the unattributable record was loaded as sent: %s", l)
		}
	}
	if !found {
		t.Errorf("chargeback %s is not loaded (chargebacks %v)", planted, got)
	}
	// Read member by member: one request a member that may read reports
	// for the chargebacks, beyond the organization's three.
	members, without := len(env.Server.Members()), len(env.Server.MembersWithoutReporting())
	if n := reportsRequests(t, res); n < int64(3+members-without) {
		t.Errorf("the reports stage took %d requests: the chargebacks were not read member by member", n)
	}
}

// TestDisputeReportsOrganizationRefused: when the organization's reports
// are refused (a member's reports may not be read: 403) the stage reads
// them member by member, records that member and the one without reports
// as not enabled, and loads the others' as the member scope does.
// Records of merchants outside the run (--merchants) are ignored.
func TestDisputeReportsOrganizationRefused(t *testing.T) {
	env := sandboxtest.Start(t, sandbox.Config{Seed: 5, Scale: sandbox.Scale{Members: 8, Subscriptions: 5, Groups: 2}})
	members := env.Server.Members()
	denied := members[3]
	st, err := env.Server.MerchantSettings(denied)
	if err != nil {
		t.Fatal(err)
	}
	st.ReportingDisabled = true
	if err := env.Server.SetMerchantSettings(denied, st); err != nil {
		t.Fatal(err)
	}
	orgStore, orgRes := runDisputeScope(t, env, ingest.DisputeScopeOrganization, nil)
	memberStore, _ := runDisputeScope(t, env, ingest.DisputeScopeMember, nil)
	notEnabled := storedLines(t, orgStore, `SELECT merchant_id FROM run_members WHERE products_not_enabled LIKE '%reporting%'`)
	want := append([]string{denied}, env.Server.MembersWithoutReporting()...)
	slices.Sort(want)
	if !slices.Equal(notEnabled, want) {
		t.Errorf("members recorded without reports: %v, want %v", notEnabled, want)
	}
	if len(orgRes.Failed) != 0 || len(orgRes.Problems) != 0 {
		t.Errorf("failed %+v, problems %v; want none", orgRes.Failed, orgRes.Problems)
	}
	orgRows := disputeRows(t, orgStore)
	if len(orgRows) == 0 || !slices.Equal(orgRows, disputeRows(t, memberStore)) {
		t.Errorf("the report rows read member by member after the refusal differ from the member scope's")
	}

	// A run of some members only: the organization's report holds the
	// others' records too, which are not loaded.
	st.ReportingDisabled = false
	if err := env.Server.SetMerchantSettings(denied, st); err != nil {
		t.Fatal(err)
	}
	some := members[:4]
	someStore, _ := runDisputeScope(t, env, ingest.DisputeScopeOrganization, func(o *pipeline.Options) { o.Merchants = some })
	someRows := disputeRows(t, someStore)
	if len(someRows) == 0 {
		t.Error("a run of some members loaded no report row")
	}
	for _, l := range someRows {
		if mid := strings.Fields(l)[1]; !slices.Contains(some, mid) {
			t.Errorf("a record of %s, outside the run's members, was loaded: %s", mid, l)
		}
	}
}
