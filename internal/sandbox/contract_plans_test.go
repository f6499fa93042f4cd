package sandbox

import (
	"net/url"
	"testing"
)

func planBody(name, code string) obj {
	pi := obj{"name": name, "description": "test plan", "billingPeriod": obj{"length": "1", "unit": "m"},
		"billingCycles": obj{"total": "12"}}
	if code != "" {
		pi["code"] = code
	}
	return obj{"planInformation": pi,
		"orderInformation": obj{"amountDetails": obj{"billingAmount": "10.5", "currency": "USD", "setupFee": "2.00"}}}
}

func TestContractPlans(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 3})
	mid := memberID(1)
	create := func(t *testing.T, body obj) obj {
		return c.with(t).j("POST", "/rbs/v1/plans", mid, body, 201)
	}

	t.Run("Create-plan response: _links, id, status (value COMPLETED), planInformation.code, planInformation.status", func(t *testing.T) {
		got := create(t, planBody("Gold", "GOLD-1"))
		if str(got, "status") != "COMPLETED" || str(got, "id") == "" || str(got, "planInformation.code") != "GOLD-1" ||
			str(got, "planInformation.status") != "ACTIVE" {
			t.Fatalf("create answer %v", got)
		}
		detail := c.with(t).j("GET", "/rbs/v1/plans/"+str(got, "id"), mid, nil, 200)
		// "Response shows two decimals."
		if str(detail, "orderInformation.amountDetails.billingAmount") != "10.50" || str(detail, "planInformation.billingPeriod.unit") != "M" ||
			str(detail, "planInformation.billingCycles.total") != "12" || str(detail, "orderInformation.amountDetails.setupFee") != "2.00" {
			t.Fatalf("detail %v", detail)
		}
	})
	t.Run("planInformation.code: a duplicate is rejected with detail reason DUPLICATE", func(t *testing.T) {
		eb := c.with(t).j("POST", "/rbs/v1/plans", mid, planBody("Dup", "GOLD-1"), 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.code", "DUPLICATE")
	})
	t.Run("planInformation.code: digits or letters with dash and dot, max 10 characters", func(t *testing.T) {
		for _, bad := range []string{"ELEVENCHARS", "A_B", "a b"} {
			eb := c.with(t).j("POST", "/rbs/v1/plans", mid, planBody("Bad", bad), 400)
			wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.code", "INVALID_DATA")
		}
		create(t, planBody("Ok", "a.b-C.9"))
	})
	t.Run("Optional on create. System generates one when absent; GET plans/code: next consecutive code after the last merchant-specified code", func(t *testing.T) {
		create(t, planBody("Seq", "SEQ-0099"))
		var code struct{ Code string }
		c.with(t).call("GET", "/rbs/v1/plans/code", mid, nil, 200, &code)
		if code.Code != "SEQ-0100" {
			t.Fatalf("next code %q, want SEQ-0100", code.Code)
		}
		got := create(t, planBody("Generated", ""))
		if str(got, "planInformation.code") != "SEQ-0100" {
			t.Fatalf("generated code %q", str(got, "planInformation.code"))
		}
		c.with(t).call("GET", "/rbs/v1/plans/code", mid, nil, 200, &code)
		if code.Code != "SEQ-0101" {
			t.Fatalf("after a generated code, next %q", code.Code)
		}
	})
	t.Run("Required on create: name, billingAmount, currency, billingCycles.total, billingPeriod", func(t *testing.T) {
		eb := c.with(t).j("POST", "/rbs/v1/plans", mid, obj{"planInformation": obj{"description": "x"}}, 400)
		for _, f := range []string{"planInformation.name", "planInformation.billingCycles.total", "orderInformation.amountDetails.billingAmount",
			"orderInformation.amountDetails.currency", "planInformation.billingPeriod.length"} {
			wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", f, "MISSING_FIELD")
		}
	})
	t.Run("The interval between subscription payments cannot exceed 12 months", func(t *testing.T) {
		for _, p := range [][2]string{{"13", "M"}, {"2", "Y"}, {"53", "W"}, {"367", "D"}} {
			b := planBody("Long", "")
			b["planInformation"].(obj)["billingPeriod"] = obj{"length": p[0], "unit": p[1]}
			eb := c.with(t).j("POST", "/rbs/v1/plans", mid, b, 400)
			wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.billingPeriod.length", "INVALID_DATA")
		}
		for _, p := range [][2]string{{"12", "M"}, {"1", "Y"}, {"52", "W"}} {
			b := planBody("Max", "")
			b["planInformation"].(obj)["billingPeriod"] = obj{"length": p[0], "unit": p[1]}
			create(t, b)
		}
	})

	t.Run("an active plan offers self (GET), update (PATCH) and deactivate (POST); a draft plan offers self, update and activate (POST)", func(t *testing.T) {
		a := create(t, planBody("Links", ""))
		sameLinks(t, a, map[string]string{"self": "GET", "update": "PATCH", "deactivate": "POST"})
		b := planBody("Draft", "")
		b["planInformation"].(obj)["status"] = "draft"
		d := create(t, b)
		if str(d, "planInformation.status") != "DRAFT" {
			t.Fatalf("request value lower case, response upper case: %v", d)
		}
		sameLinks(t, c.with(t).j("GET", "/rbs/v1/plans/"+str(d, "id"), mid, nil, 200),
			map[string]string{"self": "GET", "update": "PATCH", "activate": "POST"})
	})

	t.Run("Plan list: top-level _links with self and next, totalCount plus plans[]; limit max 100, default 20", func(t *testing.T) {
		all := c.with(t).j("GET", "/rbs/v1/plans?limit=100", mid, nil, 200)
		total := int(dig(all, "totalCount").(float64))
		if len(arr(all, "plans")) != total || total < 10 {
			t.Fatalf("totalCount %d, plans %d", total, len(arr(all, "plans")))
		}
		first := c.with(t).j("GET", "/rbs/v1/plans", mid, nil, 200)
		if n := len(arr(first, "plans")); n != min(20, total) {
			t.Fatalf("default page %d", n)
		}
		page := c.with(t).j("GET", "/rbs/v1/plans?offset=2&limit=3", mid, nil, 200)
		if str(page, "_links.next.href") == "" || str(page, "_links.self.href") == "" || len(arr(page, "plans")) != 3 {
			t.Fatalf("page %v", page)
		}
		eb := c.with(t).j("GET", "/rbs/v1/plans?limit=101", mid, nil, 400)
		wantError(t, eb, "INVALID_REQUEST", "VALIDATION_ERROR", "limit", "")
	})
	t.Run("filters (Lucene syntax; only keyword matching and AND)", func(t *testing.T) {
		q := func(f string) []any {
			return arr(c.with(t).j("GET", "/rbs/v1/plans?limit=100&filters="+url.QueryEscape(f), mid, nil, 200), "plans")
		}
		if got := q(`planInformation.code:GOLD-1`); len(got) != 1 || str(got[0], "planInformation.name") != "Gold" {
			t.Fatalf("by code: %v", got)
		}
		drafts := q("planInformation.status:DRAFT")
		for _, p := range drafts {
			if str(p, "planInformation.status") != "DRAFT" {
				t.Fatalf("status filter gave %v", p)
			}
		}
		if got := q("status:draft AND name:Draft"); len(got) != 1 {
			t.Fatalf("AND: %v", got)
		}
		if got := q("status:ACTIVE AND status:DRAFT"); len(got) != 0 {
			t.Fatalf("contradiction: %v", got)
		}
		if got := q(`name:"Gold"`); len(got) < 1 {
			t.Fatalf("quoted value: %v", got)
		}
		// "Field validation failure on plan list: status INVALID_REQUEST,
		// reason VALIDATION_ERROR, details field and reason text."
		for _, bad := range []string{"status:ACTIVE OR status:DRAFT", "status:ACT*", "name:[A TO C]", "NOT status:ACTIVE",
			"(status:ACTIVE)", "status:ACTIVE name:Gold", "colour:red", "status:ACTIVE AND"} {
			eb := c.with(t).j("GET", "/rbs/v1/plans?filters="+url.QueryEscape(bad), mid, nil, 400)
			wantError(t, eb, "INVALID_REQUEST", "VALIDATION_ERROR", "filters", "")
		}
	})
	t.Run("Unknown plan ID or plan code: status NOT_FOUND, reason INVALID_DATA", func(t *testing.T) {
		for _, p := range []string{"/rbs/v1/plans/1234567890123456789012", "/rbs/v1/plans/1234567890123456789012/activate"} {
			method := "GET"
			if p != "/rbs/v1/plans/1234567890123456789012" {
				method = "POST"
			}
			wantError(t, c.with(t).j(method, p, mid, nil, 404), "NOT_FOUND", "INVALID_DATA", "", "")
		}
	})
}

// TestContractPlanStates checks the plan state table and the amend rules.
func TestContractPlanStates(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 3})
	mid := memberID(2)
	newPlan := func(t *testing.T, status string) string {
		b := planBody("State "+status, "")
		b["planInformation"].(obj)["status"] = status
		return str(c.with(t).j("POST", "/rbs/v1/plans", mid, b, 201), "id")
	}
	state := func(t *testing.T, id string) string {
		return str(c.with(t).j("GET", "/rbs/v1/plans/"+id, mid, nil, 200), "planInformation.status")
	}
	post := func(t *testing.T, id, op string, want int) obj {
		return c.with(t).j("POST", "/rbs/v1/plans/"+id+"/"+op, mid, nil, want)
	}
	t.Run("Draft, activate: Active; Active, deactivate: Inactive; Inactive, activate: Active", func(t *testing.T) {
		id := newPlan(t, "draft")
		post(t, id, "activate", 200)
		if state(t, id) != planActive {
			t.Fatal("not active")
		}
		post(t, id, "deactivate", 200)
		if state(t, id) != planInactive {
			t.Fatal("not inactive")
		}
		post(t, id, "activate", 200)
		if state(t, id) != planActive {
			t.Fatal("not active again")
		}
		eb := post(t, id, "activate", 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.status", "INVALID_STATE")
		d := newPlan(t, "draft")
		post(t, d, "deactivate", 400)
	})
	t.Run("Draft, delete: Deleted, plan removed", func(t *testing.T) {
		id := newPlan(t, "draft")
		c.with(t).j("DELETE", "/rbs/v1/plans/"+id, mid, nil, 200)
		c.with(t).j("GET", "/rbs/v1/plans/"+id, mid, nil, 404)
	})
	t.Run("Active or Inactive, delete: only if the plan has never been assigned to any subscription", func(t *testing.T) {
		id := newPlan(t, "active")
		post(t, id, "deactivate", 200)
		c.with(t).j("DELETE", "/rbs/v1/plans/"+id, mid, nil, 200)
		// A generated plan with subscriptions.
		var assigned string
		for _, sub := range c.with(t).subscriptions(mid) {
			p := c.with(t).j("GET", "/rbs/v1/subscriptions/"+sub.ID, mid, nil, 200)
			assigned = str(p, "subscriptionInformation.planId")
			break
		}
		eb := c.with(t).j("DELETE", "/rbs/v1/plans/"+assigned, mid, nil, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "id", "PLAN_ASSIGNED")
		c.with(t).j("GET", "/rbs/v1/plans/"+assigned, mid, nil, 200)
	})
	t.Run("a draft plan allows all plan information to change", func(t *testing.T) {
		id := newPlan(t, "draft")
		c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"name": "Renamed", "code": "NEWCODE"},
			"orderInformation": obj{"amountDetails": obj{"billingAmount": "99.00", "setupFee": "0.50"}}}, 200)
		p := c.with(t).j("GET", "/rbs/v1/plans/"+id, mid, nil, 200)
		if str(p, "planInformation.name") != "Renamed" || str(p, "planInformation.code") != "NEWCODE" ||
			str(p, "orderInformation.amountDetails.billingAmount") != "99.00" {
			t.Fatalf("draft amend: %v", p)
		}
	})
	t.Run("an active plan allows only billingPeriod, billingCycles and currency", func(t *testing.T) {
		id := newPlan(t, "active")
		eb := c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"name": "No"}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.name", "NOT_AMENDABLE")
		eb = c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"orderInformation": obj{"amountDetails": obj{"billingAmount": "1.00"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "orderInformation.amountDetails.billingAmount", "NOT_AMENDABLE")
		c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"billingPeriod": obj{"length": "2", "unit": "W"},
			"billingCycles": obj{"total": "5"}}, "orderInformation": obj{"amountDetails": obj{"currency": "EUR"}}}, 200)
		p := c.with(t).j("GET", "/rbs/v1/plans/"+id, mid, nil, 200)
		if str(p, "planInformation.billingPeriod.unit") != "W" || str(p, "planInformation.billingCycles.total") != "5" ||
			str(p, "orderInformation.amountDetails.currency") != "EUR" {
			t.Fatalf("active amend: %v", p)
		}
	})
	t.Run("an inactive plan cannot be amended (move it to active or draft first)", func(t *testing.T) {
		id := newPlan(t, "active")
		post(t, id, "deactivate", 200)
		eb := c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"billingCycles": obj{"total": "3"}}}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "planInformation.status", "INVALID_STATE:INACTIVE")
	})
	t.Run("applyTo ALL applies the change to existing and new subscriptions; NEW (default) to new ones only", func(t *testing.T) {
		id := newPlan(t, "active")
		cust := newCustomerToken(t, c, mid)
		sub := func() string {
			return str(c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{
				"subscriptionInformation": obj{"planId": id, "name": "S", "startDate": "2026-12-15"},
				"paymentInformation":      obj{"customer": obj{"id": cust}}}, 201), "id")
		}
		total := func(sid string) string {
			return str(c.with(t).j("GET", "/rbs/v1/subscriptions/"+sid, mid, nil, 200), "planInformation.billingCycles.total")
		}
		a := sub()
		c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"billingCycles": obj{"total": "6"}}}, 200)
		b := sub()
		if total(a) != "12" || total(b) != "6" {
			t.Fatalf("NEW: existing %s, new %s", total(a), total(b))
		}
		c.with(t).j("PATCH", "/rbs/v1/plans/"+id, mid, obj{"planInformation": obj{"billingCycles": obj{"total": "4"}},
			"processingInformation": obj{"subscriptionBillingOptions": obj{"applyTo": "ALL"}}}, 200)
		if total(a) != "4" || total(b) != "4" {
			t.Fatalf("ALL: %s %s", total(a), total(b))
		}
		pays, _ := c.with(t).payments(mid, a)
		if len(pays) != 4 {
			t.Fatalf("ALL: %d payments, want the 4 cycles", len(pays))
		}
	})
	t.Run("Draft plan cannot be assigned to subscriptions until active; inactive plans cannot create new subscriptions", func(t *testing.T) {
		cust := newCustomerToken(t, c, mid)
		for _, st := range []string{"draft", "inactive"} {
			id := newPlan(t, map[string]string{"draft": "draft", "inactive": "active"}[st])
			if st == "inactive" {
				post(t, id, "deactivate", 200)
			}
			eb := c.with(t).j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"planId": id, "name": "S"},
				"paymentInformation": obj{"customer": obj{"id": cust}}}, 400)
			wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "subscriptionInformation.planId", "INVALID_DATA")
		}
	})
}
