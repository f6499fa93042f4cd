package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The contract tests check the spec's rules one by one over real HTTP.
// Each subtest is named after the spec line it checks (quoted or
// paraphrased closely), so a failure says which rule broke.

// obj is a decoded JSON object.
type obj = map[string]any

// as is a client signing with another key of the sandbox (users.go).
func (c *tclient) as(t testing.TB, keyID, lineMID string) *tclient {
	cc := *c
	cc.t = t
	cc.sg.KeyID, cc.sg.SignAs = keyID, lineMID
	return &cc
}

// with is the client reporting to another test.
func (c *tclient) with(t testing.TB) *tclient {
	cc := *c
	cc.t = t
	return &cc
}

// j does a request that must answer want and decodes the body as an
// object (nil for an empty body).
func (c *tclient) j(method, path, mid string, body any, want int) obj {
	c.t.Helper()
	resp, b, err := c.do(method, path, mid, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s as %s: status %d, want %d: %s", method, path, mid, resp.StatusCode, want, b)
	}
	if len(b) == 0 {
		return nil
	}
	var out obj
	if err := json.Unmarshal(b, &out); err != nil {
		c.t.Fatalf("%s %s: decode: %v: %s", method, path, err, b)
	}
	return out
}

// str digs a dotted path out of v as a string ("" when absent); numbers
// and booleans are formatted.
func str(v any, path string) string {
	x := dig(v, strings.Split(path, ".")...)
	switch y := x.(type) {
	case nil:
		return ""
	case string:
		return y
	default:
		return fmt.Sprint(y)
	}
}

// arr digs an array.
func arr(v any, path string) []any {
	a, _ := dig(v, strings.Split(path, ".")...).([]any)
	return a
}

// wantError checks an error body: status, reason and, when given, a
// detail with that field and reason prefix.
func wantError(t testing.TB, body obj, status, reason, field, detailPrefix string) {
	t.Helper()
	if str(body, "status") != status || str(body, "reason") != reason {
		t.Fatalf("error body %v, want status %s reason %s", body, status, reason)
	}
	if field == "" {
		return
	}
	for _, d := range arr(body, "details") {
		if str(d, "field") == field && strings.HasPrefix(str(d, "reason"), detailPrefix) {
			return
		}
	}
	t.Fatalf("error body %v: no detail %s %s…", body, field, detailPrefix)
}

// links lists the _links names of a body.
func links(v any) map[string]string {
	out := map[string]string{}
	m, _ := dig(v, "_links").(map[string]any)
	for k, l := range m {
		out[k] = str(l, "method")
	}
	return out
}

func sameLinks(t testing.TB, v any, want map[string]string) {
	t.Helper()
	got := links(v)
	if len(got) != len(want) {
		t.Fatalf("_links %v, want %v", got, want)
	}
	for k, m := range want {
		if gm, ok := got[k]; !ok || gm != m {
			t.Fatalf("_links %v, want %v", got, want)
		}
	}
}

// status answers just the status code of a request.
func (c *tclient) status(method, path, mid string, body any) (int, []byte) {
	c.t.Helper()
	resp, b, err := c.do(method, path, mid, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, b
}
