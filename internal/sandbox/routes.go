package sandbox

import (
	"fmt"
	"net/http"
)

// routes is the sandbox's route table: each endpoint with what it reads
// and may change (access, exchange.go), the resource its path names, and
// its handler.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	// Group management (groups.go), at the versioned path only: the
	// spec's group records link to /group-management/v1/groups/{id}, and
	// the unversioned /groups, which no vendor source shows, answers 404
	// in the vendor's not-available shape.
	mux.HandleFunc("GET "+groupsPath, handle(s, readGroups, s.listGroups))
	mux.HandleFunc("POST "+groupsPath, handle(s, createGroups, s.createGroup))
	mux.HandleFunc("GET "+groupsPath+"/{id}", handle(s, readGroups, s.getGroupOrList))
	mux.HandleFunc("PATCH "+groupsPath+"/{id}", handle(s, writeGroups, s.patchGroup))
	mux.HandleFunc("DELETE "+groupsPath+"/{id}", handle(s, writeGroups, s.deleteGroup))
	mux.HandleFunc("/groups", handle(s, unlocked, s.unversionedGroups))
	mux.HandleFunc("/groups/", handle(s, unlocked, s.unversionedGroups))
	// Recurring billing: plans (plans.go), subscriptions
	// (subscriptions.go) and their payments (subpayments.go).
	mux.HandleFunc("GET /rbs/v1/plans", handle(s, readMember, s.listPlans))
	mux.HandleFunc("POST /rbs/v1/plans", handle(s, writeMember, s.createPlan))
	mux.HandleFunc("GET /rbs/v1/plans/code", handle(s, readMember, s.planCode))
	mux.HandleFunc("GET /rbs/v1/plans/{id}", handleOn(s, readMember, planTarget, s.getPlan))
	mux.HandleFunc("PATCH /rbs/v1/plans/{id}", handleOn(s, writeMember, planTarget, s.patchPlan))
	mux.HandleFunc("DELETE /rbs/v1/plans/{id}", handleOn(s, writeMember, planTarget, s.deletePlan))
	mux.HandleFunc("POST /rbs/v1/plans/{id}/activate", handleOn(s, writeMember, planTarget, s.planState(planActive)))
	mux.HandleFunc("POST /rbs/v1/plans/{id}/deactivate", handleOn(s, writeMember, planTarget, s.planState(planInactive)))
	mux.HandleFunc("GET /rbs/v1/subscriptions", handle(s, readMember, s.listSubscriptions))
	mux.HandleFunc("POST /rbs/v1/subscriptions", handle(s, writeMember, s.createSubscription))
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}", handleOn(s, readMember, subTarget, s.getSubscription))
	mux.HandleFunc("PATCH /rbs/v1/subscriptions/{id}", handleOn(s, writeMember, subTarget, s.patchSubscription))
	for _, op := range []string{"cancel", "suspend", "activate"} {
		mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/"+op, handleOn(s, writeMember, subTarget, s.subLifecycle(op)))
	}
	mux.HandleFunc("GET /rbs/v1/subscriptions/{id}/payments", handle(s, readMember, s.listPayments))
	// The body is checked before the member is (skipPayments).
	mux.HandleFunc("POST /rbs/v1/subscriptions/{id}/payments", handle(s, unlocked, s.skipPayments))
	mux.HandleFunc("PUT /rbs/v1/subscriptions/{id}/payments", handle(s, unlocked, s.skipPayments))
	// Payments (payments.go), follow-ons (followons.go) and
	// buy-now-pay-later (bnpl.go).
	mux.HandleFunc("POST /pts/v2/payments", handle(s, writeMember, s.pay))
	mux.HandleFunc("POST /pts/v2/payments/{$}", handle(s, writeMember, s.pay))
	mux.HandleFunc("POST /pts/v2/payments/{id}/captures", handleOn(s, writeMember, txnTarget, s.capture))
	mux.HandleFunc("POST /pts/v2/payments/{id}/reversals", handleOn(s, writeMember, txnTarget, s.reverse))
	mux.HandleFunc("POST /pts/v2/payments/{id}/refunds", handleOn(s, writeMember, txnTarget, s.refund))
	mux.HandleFunc("POST /pts/v2/captures/{id}/refunds", handleOn(s, writeMember, txnTarget, s.refund))
	mux.HandleFunc("POST /pts/v2/payments/{id}/voids", handleOn(s, writeMember, txnTarget, s.void(kindSale)))
	mux.HandleFunc("POST /pts/v2/captures/{id}/voids", handleOn(s, writeMember, txnTarget, s.void(kindCapture)))
	mux.HandleFunc("POST /pts/v2/credits/{id}/voids", handleOn(s, writeMember, txnTarget, s.void(kindCredit)))
	mux.HandleFunc("POST /pts/v2/refunds/{id}/voids", handleOn(s, writeMember, txnTarget, s.void(kindRefund)))
	mux.HandleFunc("POST /pts/v2/credits", handle(s, writeMember, s.credit))
	mux.HandleFunc("POST /pts/v2/credits/{$}", handle(s, writeMember, s.credit))
	for _, kind := range []string{"payments", "captures", "credits", "refunds", "reversals", "voids"} {
		mux.HandleFunc("GET /pts/v2/"+kind+"/{id}", handle(s, readMember, s.getPayment))
	}
	mux.HandleFunc("POST /pts/v2/payment-references", handle(s, writeMember, s.createSession))
	mux.HandleFunc("GET /pts/v2/payment-references/{id}", handleOn(s, writeMember, sessionTarget, s.getSession))
	mux.HandleFunc("PATCH /pts/v2/payment-references/{id}", handleOn(s, writeMember, sessionTarget, s.updateSession))
	mux.HandleFunc("POST /pts/v2/refresh-payment-status/{id}", handle(s, writeMember, s.refreshStatus))
	mux.HandleFunc("POST /pts/v2/status/{id}/refresh", handle(s, writeMember, s.refreshStatus))
	mux.HandleFunc("POST /pts/v2/payments/{id}/intents", handleOn(s, writeMember, sessionTarget, s.createIntent))
	// Installments (installments.go), BIN lookup (binlookup.go), key
	// generation (keys.go).
	mux.HandleFunc("POST /fin/v1/plans/{$}", handle(s, writeMember, s.getInstallmentPlans))
	mux.HandleFunc("POST /fin/v1/plans", handle(s, writeMember, s.getInstallmentPlans))
	mux.HandleFunc("POST /fin/v1/plan-acceptance/{$}", handle(s, writeMember, s.selectPlan))
	mux.HandleFunc("POST /fin/v1/plan-acceptance", handle(s, writeMember, s.selectPlan))
	mux.HandleFunc("POST /fin/v1/plan-acceptance/cancel/{$}", handle(s, writeMember, s.cancelPlan))
	mux.HandleFunc("POST /fin/v1/plan-acceptance/cancel", handle(s, writeMember, s.cancelPlan))
	mux.HandleFunc("POST /bin/v1/binlookup", handle(s, unlocked, s.binLookup))
	mux.HandleFunc("POST /kms/v2/keys-sym-pos", handle(s, unlocked, s.generateKeys))
	// Transaction data (tss.go).
	mux.HandleFunc("POST /tss/v2/searches", handle(s, readMember, s.search))
	mux.HandleFunc("GET /tss/v2/searches/{id}", handle(s, readMember, s.getSearch))
	mux.HandleFunc("GET /tss/v2/transactions/{id}", handleOn(s, readMember, txnTarget, s.getTransaction))
	// Reporting: interchange clearing levels, chargebacks, retrievals (disputes.go).
	mux.HandleFunc("GET /reporting/v3/interchange-clearing-level-details", handle(s, readMember, s.interchangeClearingDetails))
	mux.HandleFunc("GET /reporting/v3/chargeback-details", handle(s, readMember, s.disputeDetails(false)))
	mux.HandleFunc("GET /reporting/v3/retrieval-details", handle(s, readMember, s.disputeDetails(true)))
	// Settlement and funding reports (reporting_routes.go, settlement.go).
	mux.HandleFunc("GET /reporting/v3/purchase-refund-details", handle(s, unlocked, s.purchaseRefundDetails))
	mux.HandleFunc("GET /reporting/v3/net-fundings", handle(s, unlocked, s.netFundings))
	mux.HandleFunc("GET /reporting/v3/payment-batch-summaries", handle(s, unlocked, s.paymentBatchSummaries))
	// The sandbox's own controls (control.go).
	mux.HandleFunc("GET /sandbox/v1/clock", handle(s, control, s.getClock))
	mux.HandleFunc("POST /sandbox/v1/clock", handle(s, control, s.setClock))
	mux.HandleFunc("GET /sandbox/v1/merchants/{mid}/settings", handle(s, control, s.getSettings))
	mux.HandleFunc("PUT /sandbox/v1/merchants/{mid}/settings", handle(s, control, s.putSettings))
	mux.HandleFunc("GET /sandbox/v1/merchants/{mid}/notifications", handle(s, control, s.getNotifications))
	mux.HandleFunc("/", handle(s, unlocked, func(x *exchange, _ noBody) answer {
		return x.notFound(fmt.Sprintf("no resource at %s %s", x.r.Method, x.r.URL.Path))
	}))
	return mux
}
