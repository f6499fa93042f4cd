package cards

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// responsePlanter rewrites the sandbox's responses to carry card numbers
// where a platform's free text or IDs are: the first value of each field it
// plants in (field) of each response of a kind, every card number its own
// and in one of several disguises. It also answers one member's
// transaction searches and the first BIN lookup with an error whose
// message quotes a card number.
type responsePlanter struct {
	mu      sync.Mutex
	target  string // the member whose responses carry card numbers
	failing string // the member whose search fails, quoting one
	planted []plantedCard
	kinds   map[string]int // card numbers planted per response kind
	n       int
}

// plantFields is where each kind of response (method and path pattern)
// gets card numbers: fields the run stores as text columns, raw JSON, IDs
// that join (a payment's transactionId, a transaction's id) or values
// whose conversion fails (an amount).
var plantFields = []struct {
	kind, method string
	path         *regexp.Regexp
	fields       []string
	inside       []string // arrays and objects that get a card number as a number or a key
}{
	{"groups", "GET", regexp.MustCompile(`^/group-management/v1/groups`), []string{"id", "name", "description"}, nil},
	{"plans", "GET", regexp.MustCompile(`^/rbs/v1/plans$`), []string{"name", "description", "code"}, nil},
	{"subscriptions", "GET", regexp.MustCompile(`^/rbs/v1/subscriptions$`), []string{"name", "code"}, nil},
	{"payments", "GET", regexp.MustCompile(`^/rbs/v1/subscriptions/[^/]+/payments$`), []string{"transactionID", "id"},
		[]string{"billingCyclesToSkip", "cyclesCompletedCount"}},
	{"transactions", "POST", regexp.MustCompile(`^/tss/v2/searches$`), []string{"id", "code", "suffix"}, nil},
	{"bins", "POST", regexp.MustCompile(`^/bin/v1/binlookup$`), []string{"name"}, nil},
	{"clearing", "GET", regexp.MustCompile(`^/reporting/v3/interchange-clearing-level-details$`),
		[]string{"requestId", "merchantReferenceNumber", "billbackReasonDescription"}, nil},
}

// disguise writes a card number as a response might carry it.
func disguise(pan string, n int) string {
	grouped := func(sep string) string {
		var parts []string
		for i := 0; i < len(pan); i += 4 {
			parts = append(parts, pan[i:min(i+4, len(pan))])
		}
		return strings.Join(parts, sep)
	}
	var b strings.Builder
	digitsFrom := func(zero rune, escaped bool) string {
		for _, c := range pan {
			if escaped {
				fmt.Fprintf(&b, `\u%04x`, zero+c-'0')
			} else {
				b.WriteRune(zero + c - '0')
			}
		}
		return `"` + b.String() + `"`
	}
	switch n % 12 {
	case 6: // pasted from a web page or a PDF
		return `"` + grouped("\u00a0") + `"`
	case 7: // an input method's full-width digits
		return digitsFrom('\uff10', false)
	case 8: // French number formatting, JSON-escaped
		return `"` + grouped(`\u202f`) + `"`
	case 9:
		return `"order ` + grouped("\u2013") + `"`
	case 10: // Arabic-Indic digits, JSON-escaped
		return digitsFrom('\u0660', true)
	case 11: // zero-width spaces and a line break
		return `"` + strings.Replace(grouped("\u200b"), "\u200b", `\n`, 1) + `"`
	case 0:
		return `"` + pan + `"`
	case 1:
		return `"` + grouped(" ") + `"`
	case 2:
		return `"order ` + grouped("-") + `"`
	case 3:
		for _, c := range pan {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return `"` + b.String() + `"`
	case 4:
		for _, c := range pan {
			fmt.Fprintf(&b, "%%%02X", c)
		}
		return `"ref=` + b.String() + `"`
	default:
		return pan // a JSON number
	}
}

func (p *responsePlanter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		target, failing, binErrors := p.target, p.failing, p.kinds["bins.error"]
		p.mu.Unlock()
		mid := r.Header.Get("v-c-merchant-id")
		search := mid == failing && r.Method == "POST" && r.URL.Path == "/tss/v2/searches"
		if search || r.URL.Path == "/bin/v1/binlookup" && binErrors == 0 {
			kind := "search.error"
			if !search {
				kind = "bins.error"
			}
			pan, _ := p.plant(kind)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"status":"INVALID_REQUEST","reason":"INVALID_DATA","message":"card %s is not valid here"}`, pan)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code < 300 && rec.Header().Get("Content-Encoding") == "" {
			for _, k := range plantFields {
				// Groups, BIN lookups and the organization's clearing
				// report (every member's records) are planted whoever asks.
				if k.method != r.Method || !k.path.MatchString(r.URL.Path) ||
					k.kind != "groups" && k.kind != "bins" && k.kind != "clearing" && mid != target {
					continue
				}
				for _, field := range k.fields {
					body = p.plantField(k.kind, body, field)
				}
				for _, field := range k.inside {
					body = p.plantInside(k.kind, body, field)
				}
			}
		}
		for key, v := range rec.Header() {
			w.Header()[key] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// plant records a new card number of kind and returns it, digits only,
// with its number among those planted.
func (p *responsePlanter) plant(kind string) (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	pan := testCardNumber([]string{"4", "51", "37", "6011", "35", "2221"}[p.n%6], 900+p.n, 16)
	p.planted = append(p.planted, plantedCard{pan: pan, line: kind})
	p.kinds[kind]++
	return pan, p.n
}

// plantField replaces the first string value of field in body with a card
// number in the next disguise.
func (p *responsePlanter) plantField(kind string, body []byte, field string) []byte {
	re := regexp.MustCompile(`"` + field + `":"[^"\\]*"`)
	loc := re.FindIndex(body)
	if loc == nil {
		return body
	}
	pan, n := p.plant(kind + "." + field)
	value := fmt.Sprintf(`"%s":%s`, field, disguise(pan, n))
	return bytes.Join([][]byte{body[:loc[0]], []byte(value), body[loc[1]:]}, nil)
}

// plantInside puts a card number first in the array (as a JSON number) or
// the object (as a key) that is field's first value in body.
func (p *responsePlanter) plantInside(kind string, body []byte, field string) []byte {
	key := []byte(`"` + field + `":`)
	at := bytes.Index(body, key)
	if at < 0 || at+len(key) >= len(body) {
		return body
	}
	open := at + len(key)
	pan, _ := p.plant(kind + "." + field)
	var item string
	switch body[open] {
	case '[':
		item = pan
	case '{':
		item = `"` + pan + `":1`
	default:
		return body
	}
	if c := body[open+1]; c != ']' && c != '}' {
		item += ","
	}
	return bytes.Join([][]byte{body[:open+1], []byte(item), body[open+1:]}, nil)
}

// TestNoCardDataFromPlatformResponses runs the CLI on a sandbox whose
// responses carry card numbers in every field the run stores (names,
// descriptions, order numbers, customer IDs, card suffixes, the IDs that
// join a payment with its transaction, a payment list's cycles to skip and
// cycles completed), written in several disguises, and
// whose answers to one member's search and to one BIN lookup quote a card
// number in their errors: none of them survives in any output, and the run
// still loads every member but the failing one.
func TestNoCardDataFromPlatformResponses(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	p := &responsePlanter{kinds: map[string]int{}}
	f := clitest.NewFixture(t, sandbox.Config{}, sandboxtest.WithHandler(p.wrap))
	members := f.Srv.Members()
	p.mu.Lock()
	p.target, p.failing = members[0], members[1]
	p.mu.Unlock()

	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	metricsFile := filepath.Join(work, "reconcile.prom")
	// One workbook per group: a group's file name is built from its ID,
	// which carries a card number too.
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--metrics-file", metricsFile, "--log-level", "debug", "--split-by", "group")...)
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d (one member failed)\nstdout:\n%s\nstderr:\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	for _, k := range plantFields {
		for _, field := range append(k.fields, k.inside...) {
			if p.kinds[k.kind+"."+field] == 0 {
				t.Errorf("no card number was planted in %s.%s: the sandbox's responses changed shape", k.kind, field)
			}
		}
	}
	if p.kinds["search.error"] == 0 || p.kinds["bins.error"] == 0 {
		t.Errorf("errors planted: %d in searches, %d in BIN lookups; want both", p.kinds["search.error"], p.kinds["bins.error"])
	}

	conn := clitest.OpenReadOnly(t, db)
	var failed, loaded, plans int
	if err := conn.QueryRow(`SELECT count(*) FILTER (status = 'failed'), count(*) FILTER (status = 'ok'),
		(SELECT count(*) FROM plans WHERE merchant_id = $1) FROM run_members`, members[0]).Scan(&failed, &loaded, &plans); err != nil {
		t.Fatal(err)
	}
	if failed != 1 || loaded != len(members)-1 || plans == 0 {
		t.Errorf("%d members failed and %d loaded (%d plans of the planted member); want 1, %d and its plans",
			failed, loaded, plans, len(members)-1)
	}
	var masked int
	if err := conn.QueryRow(`SELECT count(*) FROM transactions WHERE merchant_id = $1 AND transaction_id LIKE '%XXXXXX%'`,
		members[0]).Scan(&masked); err != nil || masked != 1 {
		t.Errorf("%d transactions of the planted member have a masked ID (%v), want 1", masked, err)
	}

	day := filepath.Join(out, "2026-11-20")
	readOutputs(t, runOutputs(t, conn, day, metricsFile, stdout, stderr), func(t *testing.T, _ string, forms []string) {
		for _, c := range p.planted {
			for _, form := range forms {
				if strings.Contains(form, c.pan) {
					t.Errorf("card %s… planted in %s survives", c.pan[:6], c.line)
					break
				}
			}
		}
	})
}
