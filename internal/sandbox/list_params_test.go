package sandbox

import (
	"net/url"
	"strings"
	"testing"
)

// The plan list honours the SDK's code, status and name parameters (seven
// plans came back for one code while they were ignored), and every list
// refuses a query parameter it does not take, or one given twice, rather
// than answer more than was asked for.
func TestListQueryParameters(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 3})
	mid := memberID(1)
	for _, p := range []obj{planBody("Gold monthly", "SDKF-1"), planBody("Gold yearly", "SDKF-2"), planBody("Silver", "SDKF-3")} {
		c.with(t).j("POST", "/rbs/v1/plans", mid, p, 201)
	}
	all := c.with(t).j("GET", "/rbs/v1/plans?limit=100", mid, nil, 200)
	if n := len(arr(all, "plans")); n < 7 {
		t.Fatalf("only %d plans to filter", n)
	}
	codes := func(path string) []string {
		b := c.with(t).j("GET", path, mid, nil, 200)
		var out []string
		for _, p := range arr(b, "plans") {
			out = append(out, str(p, "planInformation.code"))
		}
		if n := int(b["totalCount"].(float64)); n != len(out) {
			t.Errorf("%s: totalCount %d, %d plans", path, n, len(out))
		}
		return out
	}
	for path, want := range map[string]string{
		"/rbs/v1/plans?code=SDKF-1":                      "SDKF-1",
		"/rbs/v1/plans?code=sdkf-2&limit=5":              "SDKF-2",
		"/rbs/v1/plans?name=gold":                        "", // below: every Gold plan, generated ones too
		"/rbs/v1/plans?name=Gold+y&status=ACTIVE":        "SDKF-2",
		"/rbs/v1/plans?name=Silver&code=SDKF-3&offset=0": "SDKF-3",
		"/rbs/v1/plans?code=SDKF-1&status=draft":         "-",
		"/rbs/v1/plans?filters=" + url.QueryEscape("planInformation.name:Gold") + "&code=SDKF-1": "SDKF-1",
	} {
		got := codes(path)
		switch want {
		case "":
			if len(got) < 2 || !strings.Contains(strings.Join(got, ","), "SDKF-1") || !strings.Contains(strings.Join(got, ","), "SDKF-2") ||
				strings.Contains(strings.Join(got, ","), "SDKF-3") {
				t.Errorf("%s: %v", path, got)
			}
		case "-":
			if len(got) != 0 {
				t.Errorf("%s: %v, want none", path, got)
			}
		default:
			if len(got) != 1 || got[0] != want {
				t.Errorf("%s: %v, want [%s]", path, got, want)
			}
		}
	}
	// The next link carries the filters.
	page := c.with(t).j("GET", "/rbs/v1/plans?name=Gold&limit=1", mid, nil, 200)
	if next := str(page, "_links.next.href"); !strings.Contains(next, "name=Gold") || !strings.Contains(next, "offset=1") {
		t.Errorf("next link %q", next)
	}

	subs := arr(c.with(t).j("GET", "/rbs/v1/subscriptions?limit=1", mid, nil, 200), "subscriptions")
	if len(subs) != 1 {
		t.Fatal("no subscription")
	}
	ref := str(subs[0], "clientReferenceInformation.code")
	got := arr(c.with(t).j("GET", "/rbs/v1/subscriptions?clientReferenceInformationCode="+url.QueryEscape(ref), mid, nil, 200), "subscriptions")
	if len(got) == 0 {
		t.Errorf("clientReferenceInformationCode=%s: nothing", ref)
	}
	for _, s := range got {
		if str(s, "clientReferenceInformation.code") != ref {
			t.Errorf("clientReferenceInformationCode=%s: %v", ref, s)
		}
	}

	for _, tc := range []struct{ path, field string }{
		{"/rbs/v1/plans?planCode=SDKF-1", "planCode"},
		{"/rbs/v1/plans?code=SDKF-1&code=SDKF-2", "code"},
		{"/rbs/v1/plans?_=1700000000000", "_"},
		{"/rbs/v1/subscriptions?planId=123", "planId"},
		{"/rbs/v1/subscriptions?limit=5&limit=6", "limit"},
		{"/rbs/v1/subscriptions/" + str(subs[0], "id") + "/payments?status=PAID", "status"},
		{"/group-management/v1/groups?organizationId=" + DefaultOrganizationID + "&name=Region", "name"},
		{"/group-management/v1/groups/" + DefaultOrganizationID + "?filter=x", "filter"},
	} {
		eb := c.with(t).j("GET", tc.path, mid, nil, 400)
		wantError(t, eb, "INVALID_REQUEST", "VALIDATION_ERROR", tc.field, "")
	}
}
