package ingest_test

import (
	"context"
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

// TestRefusedRecordsFailTheirMemberAlone: a member whose page is complete
// JSON to the client's decoder but whose record the database refuses (an
// escape JSON does not have, "\q", in a field the decoder skips, which it
// lets through and DuckDB's JSON cast does not) fails with the database's
// reason, and loads nothing; the members loaded beside it in the same
// transaction are loaded again one by one, completely.
func TestRefusedRecordsFailTheirMemberAlone(t *testing.T) {
	var bad string
	// Five members: the fifth lacks Recurring Billing (no plans to refuse).
	env := sandboxtest.Start(t, sandbox.Config{Seed: 3, Scale: sandbox.Scale{Members: 5, Subscriptions: 5, Groups: 1}},
		sandboxtest.WithHandler(ingest.RefusedPlans(&bad, nil)))
	members := env.Server.Members()
	bad = members[1]
	s, res := runOnSandbox(t, env)
	if len(res.Failed) != 1 || res.Failed[0].MerchantID != bad || !strings.Contains(res.Failed[0].Error, "load into database") ||
		!strings.Contains(res.Failed[0].Error, "JSON") {
		t.Fatalf("failed members %+v; want %s alone, refused by the database's JSON cast", res.Failed, bad)
	}
	for _, mid := range members {
		var plans, subs int
		if err := s.ReadPool().QueryRow(`SELECT (SELECT count(*) FROM plans WHERE merchant_id = $1), (SELECT count(*) FROM subscriptions WHERE merchant_id = $1)`, mid).Scan(&plans, &subs); err != nil {
			t.Fatal(err)
		}
		switch {
		case slices.Contains(env.Server.MembersWithoutRecurringBilling(), mid):
			if plans != 0 || subs != 0 {
				t.Errorf("member %s without Recurring Billing has %d plans and %d subscriptions stored; want none", mid, plans, subs)
			}
		case mid == bad && (plans != 0 || subs != 0):
			t.Errorf("the refused member %s has %d plans and %d subscriptions stored; want none", mid, plans, subs)
		case mid != bad && (plans == 0 || subs != 5):
			t.Errorf("member %s has %d plans and %d subscriptions stored; want its plans and 5", mid, plans, subs)
		}
	}
}

// runOnSandbox runs the pipeline once over env's sandbox into a new
// database, closed with the test.
func runOnSandbox(t *testing.T, env *sandboxtest.Env) (*store.Store, *pipeline.Result) {
	t.Helper()
	s := storetest.Open(t)
	c := env.Server.Config()
	res, err := pipeline.Run(context.Background(), s, pipeline.Options{Client: env.Client, OrganizationID: c.OrganizationID,
		BusinessDate: c.BusinessDate, Concurrency: 4, PaymentLists: 2})
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}
