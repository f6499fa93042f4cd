package sandbox

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A link the sandbox offers must work. TestEveryLinkWorks walks the
// answers of every endpoint that answers with _links and follows each link
// with its method (and, for a write, the body its relation takes): none
// may answer 4xx or 5xx.
//
// A link holds for the representation it came in: once another link has
// changed the resource (captured the authorization, cancelled the
// subscription), the first answer's other links may no longer apply. So a
// write is always followed on a fresh representation: the walk replays the
// path that led to it, from its seed, every step of which must work too,
// and follows the link only if the replayed representation still offers
// it. GET links are followed wherever they appear, once per href.
func TestEveryLinkWorks(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 9})
	mid := memberID(0) // topped up with every kind of anomaly: suspended and delinquent subscriptions too
	cust := newCustomerToken(t, c, mid)
	healthcare := func(capture bool) obj {
		b := cardBody(visaHealth2, "40.00", capture)
		b["paymentInformation"].(obj)["card"].(obj)["productSubtype"] = "HC"
		b["healthCareInformation"] = obj{"amountDetails": []obj{{"amountType": "healthcare", "amount": "40.00"}}}
		return b
	}
	post := func(path string, body obj) func(t *testing.T) obj {
		return func(t *testing.T) obj { return c.with(t).j("POST", path, mid, body, 201) }
	}
	get := func(path string) func(t *testing.T) obj {
		return func(t *testing.T) obj { return c.with(t).j("GET", path, mid, nil, 200) }
	}
	// A subscription of each state that offers links of its own.
	subOf := func(status string) string {
		b := c.j("GET", "/rbs/v1/subscriptions?limit=1&status="+status, mid, nil, 200)
		list := arr(b, "subscriptions")
		if len(list) == 0 {
			t.Fatalf("no %s subscription to walk", status)
		}
		return str(list[0], "id")
	}
	plan := str(c.j("POST", "/rbs/v1/plans", mid, planBody("Walk", "WALK-1"), 201), "id")
	sub := str(c.j("POST", "/rbs/v1/subscriptions", mid, obj{"subscriptionInformation": obj{"planId": plan, "name": "Walk"},
		"paymentInformation": obj{"customer": obj{"id": cust}}}, 201), "id")
	seeds := map[string]func(t *testing.T) obj{
		"plan list":                 get("/rbs/v1/plans?limit=3"),
		"active plan":               post("/rbs/v1/plans", planBody("Walk", "")),
		"draft plan":                post("/rbs/v1/plans", obj{"planInformation": obj{"name": "Draft", "status": "draft", "billingPeriod": obj{"length": "1", "unit": "W"}, "billingCycles": obj{"total": "4"}}, "orderInformation": obj{"amountDetails": obj{"billingAmount": "3.00", "currency": "USD"}}}),
		"subscription list":         get("/rbs/v1/subscriptions?limit=3"),
		"subscription":              get("/rbs/v1/subscriptions/" + sub),
		"suspended subscription":    get("/rbs/v1/subscriptions/" + subOf("SUSPENDED")),
		"delinquent subscription":   get("/rbs/v1/subscriptions/" + subOf("DELINQUENT")),
		"payment list":              get("/rbs/v1/subscriptions/" + subOf("ACTIVE") + "/payments?limit=2"),
		"authorization":             post("/pts/v2/payments", cardBody(visaCredit2, "25.00", false)),
		"sale":                      post("/pts/v2/payments", cardBody(visaCredit2, "26.00", true)),
		"healthcare authorization":  post("/pts/v2/payments", healthcare(false)),
		"healthcare sale":           post("/pts/v2/payments", healthcare(true)),
		"credit":                    post("/pts/v2/credits", cardBody(visaCredit2, "5.00", false)),
		"buy-now-pay-later session": post("/pts/v2/payment-references", session("60.00")),
		"buy-now-pay-later authorization": func(t *testing.T) obj {
			sess := c.with(t).j("POST", "/pts/v2/payment-references", mid, session("70.00"), 201)
			if err := s.Checkout(str(sess, "processorInformation.token"), true); err != nil {
				t.Fatal(err)
			}
			return c.with(t).j("POST", "/pts/v2/payments", mid, bnplAuthBody("70.00", str(sess, "processorInformation.token")), 201)
		},
		"transaction search": post("/tss/v2/searches", obj{"query": "submitTimeUtc:[NOW/DAY-1DAY TO NOW/DAY+1DAY}", "limit": 3, "sort": "id:asc"}),
		"group list":         get("/group-management/v1/groups?organizationId=" + DefaultOrganizationID + "&limit=1"),
	}
	w := &linkWalker{c: c, mid: mid, gets: map[string]bool{}, seeds: seeds}
	names := make([]string, 0, len(seeds))
	for n := range seeds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) { w.walk(t, n, nil) })
	}
	t.Logf("followed %d write links (each on a fresh replay) and %d GET links", w.writes, len(w.gets))
	if w.writes < 25 || len(w.gets) < 30 {
		t.Errorf("walked %d writes and %d GET links: the walk reached too little", w.writes, len(w.gets))
	}
}

// linkWalker follows links; a path is the steps from a seed.
type linkWalker struct {
	c      *tclient
	mid    string
	seeds  map[string]func(t *testing.T) obj
	gets   map[string]bool // GET hrefs followed
	writes int
}

// step is one link followed: where its object sits in the answer (a
// dotted path, "" for the top) and the link's relation.
type step struct{ at, rel string }

// maxWrites bounds the writes in a row on one path.
const maxWrites = 3

type found struct {
	at, rel, href, method string
	owner                 obj
}

// walk replays path from its seed, then follows every GET link of the
// answer and, for each write link, walks the path one step longer.
func (w *linkWalker) walk(t *testing.T, seed string, path []step) {
	t.Helper()
	resp := w.replay(t, seed, path)
	if resp == nil {
		return // the link is no longer offered: nothing to follow
	}
	for _, l := range collectLinks(resp, "") {
		if l.method == "" || l.method == "GET" {
			w.get(t, l.href, 2)
			continue
		}
		if len(path) < maxWrites {
			w.walk(t, seed, append(append([]step{}, path...), step{l.at, l.rel}))
		}
	}
}

// replay builds the representation at the end of path afresh: nil when a
// link on the way is not offered any more.
func (w *linkWalker) replay(t *testing.T, seed string, path []step) obj {
	t.Helper()
	resp := w.seeds[seed](t)
	for i, st := range path {
		var l *found
		for _, f := range collectLinks(resp, "") {
			if f.at == st.at && f.rel == st.rel {
				l = &f
			}
		}
		if l == nil {
			return nil
		}
		body := linkBody(t, l.rel, l.owner)
		code, b := w.c.with(t).status(l.method, l.href, w.mid, body)
		if code >= 400 {
			t.Fatalf("%s: %s after %v: %s %s answered %d: %s", seed, l.rel, path[:i], l.method, l.href, code, b)
		}
		if i == len(path)-1 {
			w.writes++
		}
		resp = decodeObj(t, b)
	}
	return resp
}

// get follows a GET link once per href, and the GET links of its answer
// down to depth more levels.
func (w *linkWalker) get(t *testing.T, href string, depth int) {
	t.Helper()
	if w.gets[href] {
		return
	}
	w.gets[href] = true
	code, b := w.c.with(t).status("GET", href, w.mid, nil)
	if code >= 400 {
		t.Errorf("GET %s answered %d: %s", href, code, b)
		return
	}
	if depth == 0 || len(b) == 0 {
		return
	}
	for _, l := range collectLinks(decodeObj(t, b), "") {
		if l.method == "" || l.method == "GET" {
			w.get(t, l.href, depth-1)
		}
	}
}

// collectLinks finds every _links object in v, with the dotted path of
// the object that holds it.
func collectLinks(v any, at string) []found {
	var out []found
	switch x := v.(type) {
	case map[string]any:
		if ls, ok := x["_links"].(map[string]any); ok {
			for rel, l := range ls {
				if lm, ok := l.(map[string]any); ok {
					out = append(out, found{at: at, rel: rel, href: str(lm, "href"), method: strings.ToUpper(str(lm, "method")), owner: x})
				}
			}
		}
		for k, e := range x {
			if k != "_links" {
				out = append(out, collectLinks(e, join(at, k))...)
			}
		}
	case []any:
		for i, e := range x {
			if i < 3 { // a few items of a list stand for the rest
				out = append(out, collectLinks(e, join(at, strconv.Itoa(i)))...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].at+" "+out[i].rel < out[j].at+" "+out[j].rel })
	return out
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// linkBody is the body a write link's relation takes, made from the
// object that offered it.
func linkBody(t *testing.T, rel string, owner obj) obj {
	amount := func() obj {
		total := str(owner, "orderInformation.amountDetails.authorizedAmount")
		if total == "" {
			total = str(owner, "orderInformation.amountDetails.totalAmount")
		}
		cur := str(owner, "orderInformation.amountDetails.currency")
		if total == "" || cur == "" {
			t.Fatalf("%s: no amount in %v", rel, owner)
		}
		return obj{"orderInformation": obj{"amountDetails": obj{"totalAmount": total, "currency": cur}}}
	}
	switch rel {
	case "capture", "refund":
		return amount()
	case "update":
		switch {
		case owner["planInformation"] != nil && owner["subscriptionInformation"] == nil:
			if str(owner, "planInformation.status") == "ACTIVE" {
				// An active plan's schedule may change, its name and price not.
				total := str(owner, "planInformation.billingCycles.total")
				if total == "" {
					total = "0"
				}
				return obj{"planInformation": obj{"billingCycles": obj{"total": total}}}
			}
			return obj{"planInformation": obj{"description": "walked"}}
		case owner["subscriptionInformation"] != nil:
			return obj{"subscriptionInformation": obj{"name": "Walked"}}
		case owner["billingCyclesToSkip"] != nil:
			skip := []int{}
			for _, v := range arr(owner, "billingCyclesToSkip") {
				skip = append(skip, int(v.(float64)))
			}
			return obj{"billingCyclesToSkip": skip}
		}
		t.Fatalf("update link of %v", owner)
	}
	return obj{} // the state changes (activate, cancel, void, ...) take no fields
}

// decodeObj decodes an answer's body (nil when empty).
func decodeObj(t *testing.T, b []byte) obj {
	t.Helper()
	if len(b) == 0 {
		return nil
	}
	var o obj
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return o
}
