package sandbox

import (
	"net/http"
	"strings"
	"testing"
)

// Every endpoint meets a request in the same order (exchange.go): the
// permission, the body, the merchant, the resource the path names, then
// the endpoint's own rules; and each reads its body as it always has
// (decodeRequest).
func TestRequestOrderAndBodies(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 5})
	mid := memberID(1)
	var plans struct{ Plans []struct{ ID string } }
	c.call("GET", "/rbs/v1/plans", mid, nil, http.StatusOK, &plans)
	planID := plans.Plans[0].ID
	noGroups := c.as(t, s.UserKeyID(UserNoGroupsPermission, ""), DefaultOrganizationID)
	for _, tc := range []struct {
		name              string
		c                 *tclient
		method, path, mid string
		body              any
		status            int
		reason, message   string
	}{
		{"a malformed body is 400", c, "POST", "/rbs/v1/plans", mid, rawBody(`{"planInformation":`), 400,
			"INVALID_DATA", "malformed request body: unexpected EOF"},
		{"the body is read before the merchant is checked", c, "POST", "/rbs/v1/plans", DefaultOrganizationID, rawBody("{"), 400,
			"INVALID_DATA", "malformed request body:"},
		{"a write acting for the organization is 403", c, "POST", "/rbs/v1/plans", DefaultOrganizationID, map[string]any{}, 403,
			"NOT_AUTHORIZED", DefaultOrganizationID + " is not a transacting merchant"},
		{"the merchant is checked before the resource", c, "PATCH", "/rbs/v1/plans/123", DefaultOrganizationID, map[string]any{}, 403,
			"NOT_AUTHORIZED", DefaultOrganizationID + " is not a transacting merchant"},
		{"a resource the path names and the merchant lacks is 404", c, "PATCH", "/rbs/v1/plans/123", mid, map[string]any{}, 404,
			"INVALID_DATA", "plan 123 was not found"},
		{"the resource is found before the body's fields are checked", c, "PATCH", "/rbs/v1/plans/123", mid,
			map[string]any{"planInformation": map[string]any{"code": "far too long a code"}}, 404, "INVALID_DATA", "plan 123 was not found"},
		{"an empty body is an empty request", c, "POST", "/rbs/v1/plans", mid, rawBody(""), 400,
			"MISSING_FIELD", "Declined - The request is missing one or more fields"},
		{"a BIN lookup is nothing but its body: empty is malformed", c, "POST", "/bin/v1/binlookup", mid, rawBody(""), 400,
			"INVALID_DATA", "malformed request body: EOF"},
		{"so is a search", c, "POST", "/tss/v2/searches", mid, rawBody(""), 400, "INVALID_DATA", "malformed request body: EOF"},
		{"an endpoint that reads no body ignores the one sent", c, "POST", "/rbs/v1/plans/" + planID + "/activate", mid, rawBody("{"), 400,
			"INVALID_DATA", "a ACTIVE plan cannot move to ACTIVE"},
		{"the skip list's body is checked before the merchant", c, "PUT", "/rbs/v1/subscriptions/123/payments", DefaultOrganizationID,
			map[string]any{}, 400, "MISSING_FIELD", "Declined - The request is missing one or more fields"},
		{"group management refuses a user without the permission before reading the body", noGroups, "POST", "/group-management/v1/groups",
			DefaultOrganizationID, rawBody("{"), 403, "NOT_AUTHORIZED", "the Groups Manage permission is required"},
		{"a control's empty body is no change", c, "POST", "/sandbox/v1/clock", mid, rawBody(""), 400,
			"INVALID_DATA", "advance (a Go duration such as 36h) or to (RFC 3339) is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cc := tc.c.with(t)
			body := cc.j(tc.method, tc.path, tc.mid, tc.body, tc.status)
			if str(body, "reason") != tc.reason || !strings.HasPrefix(str(body, "message"), tc.message) {
				t.Fatalf("answer %v, want reason %s and a message starting %q", body, tc.reason, tc.message)
			}
		})
	}
}
