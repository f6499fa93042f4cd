package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

func TestContractGroups(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 2, Scale: Scale{Members: 12, Subscriptions: 2, Groups: 3}})
	org := DefaultOrganizationID
	var id string
	t.Run("POST /groups: required organizationId, name; optional description, selectedOrganizationIds, type; answers the group record", func(t *testing.T) {
		r := c.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org, "name": "West", "description": "d",
			"selectedOrganizationIds": []string{memberID(0), memberID(1), memberID(1)}, "type": "CUSTOM"}, 201)
		id = str(r, "groupId")
		if id == "" || str(r, "organizationId") != org || str(r, "selectedOrganizationCount") != "2" ||
			len(arr(r, "selectedOrganizationIds")) != 2 || len(str(r, "creationDateTime")) != len("2026-11-21 02:00:00") {
			t.Fatalf("group record %v", r)
		}
		eb := c.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org}, 400)
		wantError(t, eb, "INVALID_REQUEST", "MISSING_FIELD", "name", "MISSING_FIELD")
		c.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org, "name": "x", "selectedOrganizationIds": []string{"nobody"}}, 400)
		g := c.with(t).j("GET", "/group-management/v1/groups/"+id, org, nil, 200)
		if str(g, "name") != "West" {
			t.Fatalf("get %v", g)
		}
		l := c.with(t).j("GET", "/group-management/v1/groups?organizationId="+org, org, nil, 200)
		if str(l, "count") != "4" || len(arr(l, "_embedded.groups")) != 4 {
			t.Fatalf("list %v", l)
		}
	})
	t.Run("PATCH /groups/{groupId}: addOrganizationIds and removeOrganizationIds may be combined; status code only, no body", func(t *testing.T) {
		code, body := c.with(t).status("PATCH", "/group-management/v1/groups/"+id, org, obj{"organizationId": org, "description": "new",
			"addOrganizationIds": []string{memberID(5)}, "removeOrganizationIds": []string{memberID(0)}})
		if code != 200 || len(body) != 0 {
			t.Fatalf("patch: %d %q", code, body)
		}
		g := c.with(t).j("GET", "/group-management/v1/groups/"+id, org, nil, 200)
		if fmt.Sprint(g["selectedOrganizationIds"]) != fmt.Sprintf("[%s %s]", memberID(1), memberID(5)) || str(g, "description") != "new" {
			t.Fatalf("after patch %v", g)
		}
	})
	t.Run("Group update or delete: status code only: 400 invalid, 401 credentials, 403 access, 404 missing", func(t *testing.T) {
		cases := []struct {
			name   string
			cl     *tclient
			method string
			path   string
			body   any
			want   int
		}{
			{"missing organizationId", c, "PATCH", "/group-management/v1/groups/" + id, obj{"description": "x"}, 400},
			{"unknown member", c, "PATCH", "/group-management/v1/groups/" + id, obj{"organizationId": org, "addOrganizationIds": []string{"nobody"}}, 400},
			{"wrong secret", c.as(t, DefaultKeyID, "someone-else"), "PATCH", "/group-management/v1/groups/" + id, obj{"organizationId": org}, 401},
			{"transacting user", c.as(t, s.UserKeyID(UserTransacting, ""), memberID(0)), "DELETE", "/group-management/v1/groups/" + id, nil, 403},
			{"missing group", c, "DELETE", "/group-management/v1/groups/99999", nil, 404},
			{"missing group (patch)", c, "PATCH", "/group-management/v1/groups/99999", obj{"organizationId": org}, 404},
		}
		for _, tc := range cases {
			mid := org
			if tc.cl != c && tc.want == 403 {
				mid = memberID(0)
			}
			code, body := tc.cl.with(t).status(tc.method, tc.path, mid, tc.body)
			if code != tc.want || len(body) != 0 {
				t.Errorf("%s: %d %q, want %d and no body", tc.name, code, body, tc.want)
			}
		}
	})
	t.Run("DELETE /groups/{groupId}: irreversible", func(t *testing.T) {
		code, body := c.with(t).status("DELETE", "/group-management/v1/groups/"+id, org, nil)
		if code != 200 || len(body) != 0 {
			t.Fatalf("delete: %d %q", code, body)
		}
		c.with(t).j("GET", "/group-management/v1/groups/"+id, org, nil, 404)
		if code, _ := c.with(t).status("DELETE", "/group-management/v1/groups/"+id, org, nil); code != 404 {
			t.Fatalf("second delete %d", code)
		}
	})
	t.Run("the ground truth keeps the groups as generated", func(t *testing.T) {
		gt, err := s.GroundTruth()
		if err != nil || len(gt.Groups) != 3 {
			t.Fatalf("truth groups %v %v", gt.Groups, err)
		}
	})
}

func TestContractGroupLimits(t *testing.T) {
	t.Run("Groups per organization: 5,000", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 2, Scale: Scale{Members: 6, Subscriptions: 1, Groups: 5000}})
		eb := c.with(t).j("POST", "/group-management/v1/groups", DefaultOrganizationID, obj{"organizationId": DefaultOrganizationID, "name": "one too many"}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "organizationId", "LIMIT_EXCEEDED")
	})
	t.Run("MIDs per group: 10,000", func(t *testing.T) {
		_, c := newTestServer(t, Config{Seed: 2, Scale: Scale{Members: 10001, Subscriptions: 0, Groups: 2}})
		mids := make([]string, 10001)
		for i := range mids {
			mids[i] = memberID(i)
		}
		org := DefaultOrganizationID
		eb := c.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org, "name": "big", "selectedOrganizationIds": mids}, 400)
		wantError(t, eb, "INVALID_REQUEST", "INVALID_DATA", "selectedOrganizationIds", "LIMIT_EXCEEDED")
		g := c.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org, "name": "big", "selectedOrganizationIds": mids[:10000]}, 201)
		if code, _ := c.with(t).status("PATCH", "/group-management/v1/groups/"+str(g, "groupId"), org, obj{"organizationId": org, "addOrganizationIds": mids[10000:]}); code != 400 {
			t.Fatalf("the 10,001st MID: %d", code)
		}
	})
}

// TestContractGroupPermissions checks Authentication rule 3, acting as
// each kind of user through its key.
func TestContractGroupPermissions(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 2, Scale: Scale{Members: 12, Subscriptions: 2, Groups: 3}})
	org, acct := DefaultOrganizationID, DefaultMerchantAccountID
	merchant := c.as(t, s.UserKeyID(UserMerchant, ""), acct)
	transacting := c.as(t, s.UserKeyID(UserTransacting, ""), memberID(0))
	noPerm := c.as(t, s.UserKeyID(UserNoGroupsPermission, ""), org)
	assigned := c.as(t, s.UserKeyID(UserGroupAssigned, "1001"), org)
	var merchantGroup string
	t.Run("a user needs the Groups Manage permission to view and edit groups", func(t *testing.T) {
		noPerm.with(t).j("GET", "/group-management/v1/groups?organizationId="+org, org, nil, 403)
		noPerm.with(t).j("POST", "/group-management/v1/groups", org, obj{"organizationId": org, "name": "x"}, 403)
		// Other services are not group management.
		noPerm.with(t).j("GET", "/rbs/v1/plans", memberID(1), nil, 200)
	})
	t.Run("a user assigned to a group is restricted to that group and cannot reach group management", func(t *testing.T) {
		assigned.with(t).j("GET", "/group-management/v1/groups/1001", org, nil, 403)
		assigned.with(t).j("GET", "/rbs/v1/plans", memberID(0), nil, 200) // 1001 holds members 0, 3, 6, 9
		assigned.with(t).j("GET", "/rbs/v1/plans", memberID(1), nil, 403)
		c.as(t, s.UserKeyID(UserGroupAssigned, "4242"), org).with(t).j("GET", "/rbs/v1/plans", memberID(0), nil, 401)
	})
	t.Run("merchant users not assigned to a group manage only groups of their own account", func(t *testing.T) {
		g := merchant.with(t).j("POST", "/group-management/v1/groups", acct, obj{"organizationId": acct, "name": "Mine", "selectedOrganizationIds": []string{memberID(2)}}, 201)
		merchantGroup = str(g, "groupId")
		if str(g, "organizationId") != acct {
			t.Fatalf("owner %v", g)
		}
		merchant.with(t).j("GET", "/group-management/v1/groups/1001", acct, nil, 403)
		merchant.with(t).j("GET", "/group-management/v1/groups?organizationId="+org, acct, nil, 403)
		l := merchant.with(t).j("GET", "/group-management/v1/groups?organizationId="+acct, acct, nil, 200)
		if len(arr(l, "_embedded.groups")) != 1 {
			t.Fatalf("merchant list %v", l)
		}
		if code, _ := merchant.with(t).status("PATCH", "/group-management/v1/groups/1001", acct, obj{"organizationId": org, "description": "x"}); code != 403 {
			t.Fatalf("merchant patches the portfolio's group: %d", code)
		}
		if code, _ := merchant.with(t).status("PATCH", "/group-management/v1/groups/"+merchantGroup, acct, obj{"organizationId": acct, "description": "mine"}); code != 200 {
			t.Fatalf("merchant patches its own group: %d", code)
		}
	})
	t.Run("portfolio users not assigned to a group manage all groups, including those made by merchant account users", func(t *testing.T) {
		c.with(t).j("GET", "/group-management/v1/groups/"+merchantGroup, org, nil, 200)
		c.with(t).j("GET", "/group-management/v1/groups?organizationId="+acct, org, nil, 200)
		if code, _ := c.with(t).status("PATCH", "/group-management/v1/groups/"+merchantGroup, org, obj{"organizationId": acct, "addOrganizationIds": []string{memberID(3)}}); code != 200 {
			t.Fatalf("portfolio patches a merchant group: %d", code)
		}
		if code, _ := c.with(t).status("DELETE", "/group-management/v1/groups/"+merchantGroup, org, nil); code != 200 {
			t.Fatalf("portfolio deletes a merchant group: %d", code)
		}
	})
	t.Run("transacting organization users cannot create, update or delete a group", func(t *testing.T) {
		mid := memberID(0)
		transacting.with(t).j("GET", "/group-management/v1/groups?organizationId="+org, mid, nil, 200)
		transacting.with(t).j("POST", "/group-management/v1/groups", mid, obj{"organizationId": org, "name": "x"}, 403)
		for _, m := range []string{"PATCH", "DELETE"} {
			if code, _ := transacting.with(t).status(m, "/group-management/v1/groups/1001", mid, obj{"organizationId": org}); code != 403 {
				t.Fatalf("%s by a transacting user: %d", m, code)
			}
		}
		// It acts for its own MID only.
		transacting.with(t).j("GET", "/rbs/v1/plans", memberID(1), nil, 403)
	})
}

// TestGroupManagementVersionedOnly: group management answers at
// /group-management/v1/groups only; the unversioned /groups, which no
// vendor source shows, is 404 in the vendor's not-available shape, so a
// client calling it fails here as it would on the platform.
func TestGroupManagementVersionedOnly(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	org := DefaultOrganizationID
	for _, tc := range []struct{ method, path string }{
		{"GET", "/groups?organizationId=" + org + "&offset=0&limit=100"},
		{"GET", "/groups/" + org},
		{"GET", "/groups/1001"},
		{"POST", "/groups"},
	} {
		var body struct {
			Errors []struct{ Type, Message string }
		}
		var b any
		if tc.method == "POST" {
			b = map[string]any{"organizationId": org, "name": "x"}
		}
		c.call(tc.method, tc.path, org, b, 404, &body)
		if len(body.Errors) != 1 || body.Errors[0].Type != "notFound" || body.Errors[0].Message == "" {
			t.Errorf("%s %s: %+v, want {\"errors\":[{\"type\":\"notFound\",\"message\":…}]}", tc.method, tc.path, body)
		}
	}
	c.call("GET", "/group-management/v1/groups?organizationId="+org, org, nil, 200, nil)
	c.call("GET", "/group-management/v1/groups/"+org, org, nil, 200, nil)
	c.call("GET", "/group-management/v1/groups/1001", org, nil, 200, nil)
}

// TestGroupsUnavailableFault: with the GroupsUnavailable fault, every group
// management request answers 403 or 404 saying the product is not
// enabled, and nothing else changes.
func TestGroupsUnavailableFault(t *testing.T) {
	org := DefaultOrganizationID
	for _, status := range []int{403, 404} {
		_, c := newTestServer(t, Config{Seed: 1, Faults: Faults{GroupsUnavailable: status}})
		for _, path := range []string{"/group-management/v1/groups?organizationId=" + org, "/group-management/v1/groups/" + org, "/group-management/v1/groups/1001"} {
			resp, b, err := c.do("GET", path, org, nil)
			if err != nil || resp.StatusCode != status || !strings.Contains(string(b), "Group Management is not enabled") {
				t.Errorf("fault %d: GET %s: %v %v %s", status, path, err, resp, b)
			}
			if status == 404 && !strings.HasPrefix(string(b), `{"errors":[{"type":"notEnabled"`) {
				t.Errorf("fault 404: GET %s: %s, want the not-available shape", path, b)
			}
		}
		c.call("GET", "/rbs/v1/plans", memberID(0), nil, 200, nil)
	}
	if _, err := New(Config{Faults: Faults{GroupsUnavailable: 500}}); err == nil {
		t.Error("GroupsUnavailable 500 accepted")
	}
}
