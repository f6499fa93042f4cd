package platform

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/sdkdir"
)

// The field guard: every JSON field the client reads from a platform answer
// must exist under that name in the vendor's SDK model of that answer, so
// that an invented or misspelled field (read as empty for ever, against the
// real platform, while the sandbox, written from the same misreading,
// agrees) fails CI. The fields read are derived from the wire types by
// reflection, not listed by hand, so a field added to a wire type is
// checked as soon as it is added; the SDK's models are read from the
// installed SDK (internal/sdkdir, as the SDK contract test installs it).
// The table it checks is docs/platform-fields.md.

var updateFields = flag.Bool("update", false, "rewrite docs/platform-fields.md from the wire types and the SDK's models")

// fieldsDoc is the generated table, relative to this package.
const fieldsDoc = "../../docs/platform-fields.md"

// answer is one request of the client and how its answer is read.
type answer struct {
	request string // method and path, as the SDK's operation names the path
	op      string // the SDK's operation, Api.method; "" when the SDK has none
	// noModel says why no vendor model is checked (op is then "").
	noModel string
	wire    any      // a value of the wire type the answer's body is decoded into
	only    []string // the top-level keys of wire this request reads (a page type shared by several lists); nil for all
	// records maps the path of each raw record in the body (a
	// json.RawMessage, decoded apart) to a value of its wire type.
	records map[string]any
	// literal are paths the client reads through a map by a literal key
	// (hasNext reads _links["next"]): checked as written, beside the
	// map's wildcard path.
	literal []string
}

// answers are the platform answers the client decodes (platform/*.go).
var answers = []answer{
	{
		request: "GET /rbs/v1/plans",
		op:      "PlansApi.getPlans",
		wire:    rbsPage{},
		only:    []string{"_links", "totalCount", "plans"},
		records: map[string]any{"plans[]": planWire{}},
		literal: []string{"_links.next.href"},
	},
	{
		request: "GET /rbs/v1/subscriptions",
		op:      "SubscriptionsApi.getAllSubscriptions",
		wire:    rbsPage{},
		only:    []string{"_links", "totalCount", "subscriptions"},
		records: map[string]any{"subscriptions[]": subscriptionWire{}},
		literal: []string{"_links.next.href"},
	},
	{
		// decodePaymentPage reads the keys of rbsPageTags by hand, and
		// decodePayment those of paymentTags (TestWireTagsMatchHandDecoders).
		request: "GET /rbs/v1/subscriptions/{id}/payments",
		op:      "SubscriptionsApi.subscriptionsIdPaymentsGet",
		wire:    rbsPage{},
		only:    []string{"_links", "totalCount", "submitTimeUtc", "cyclesCompletedCount", "billingCyclesToSkip", "subscriptionPayment"},
		records: map[string]any{"subscriptionPayment[]": paymentWire{}},
		literal: []string{"_links.next.href"},
	},
	{
		request: "POST /tss/v2/searches",
		op:      "SearchTransactionsApi.createSearch",
		wire:    searchPage{},
		records: map[string]any{"_embedded.transactionSummaries[]": summaryWire{}},
	},
	{
		request: "GET /tss/v2/transactions/{id}",
		op:      "TransactionDetailsApi.getTransaction",
		wire:    detailWire{},
	},
	{
		// A 404 whose body says NO MATCH is decoded the same way (LookupBIN).
		request: "POST /bin/v1/binlookup",
		op:      "BinLookupApi.getAccountInfo",
		wire:    binWire{},
	},
	{
		request: "GET /reporting/v3/interchange-clearing-level-details",
		op:      "InterchangeClearingLevelDetailsApi.getInterchangeClearingLevelDetails",
		wire:    clearingPage{},
		records: map[string]any{"interchangeClearingLevelDetails[]": clearingWire{}},
	},
	{
		request: "GET /reporting/v3/chargeback-details",
		op:      "ChargebackDetailsApi.getChargebackDetails",
		wire:    chargebackPage{},
		records: map[string]any{"chargebackDetails[]": chargebackWire{}},
	},
	{
		request: "GET /reporting/v3/retrieval-details",
		op:      "RetrievalDetailsApi.getRetrievalDetails",
		wire:    retrievalPage{},
		records: map[string]any{"retrievalDetails[]": retrievalWire{}},
	},
	{
		request: "GET /reporting/v3/purchase-refund-details",
		op:      "PurchaseAndRefundDetailsApi.getPurchaseAndRefundDetails",
		wire:    purchaseRefundPage{},
	},
	{
		request: "GET /reporting/v3/net-fundings",
		op:      "NetFundingsApi.getNetFundingDetails",
		wire:    netFundingsWire{},
	},
	{
		request: "GET /reporting/v3/payment-batch-summaries",
		op:      "PaymentBatchSummariesApi.getPaymentBatchSummary",
		wire: struct {
			PaymentBatchSummaries []json.RawMessage `json:"paymentBatchSummaries"`
		}{},
		records: map[string]any{"paymentBatchSummaries[]": batchSummaryWire{}},
	},
	{
		request: "GET /group-management/v1/groups",
		noModel: "the vendor's SDK has no group management operation or model (no src/api file serves a groups " +
			"path, which the test checks); the fields are those of the platform interface spec as docs/dev/wire.md " +
			"gives them, unverified against the vendor",
		wire:    groupPage{},
		records: map[string]any{"_embedded.groups[]": groupWire{}},
	},
}

// tolerance is a field the client reads that the SDK's model of the answer
// does not have, accepted for a stated reason. Only a spelling the
// platform plausibly sends belongs here; a field the vendor does not have
// is a bug to fix, not to tolerate.
type tolerance struct {
	request, path string
	// insteadOf is the SDK's spelling of the same value, which the client
	// reads as well; the test checks that the SDK has it.
	insteadOf string
	// source is "Model:path" where the vendor's SDK has this spelling
	// (another answer's model); the test checks that it does. "" when no
	// vendor source shows it.
	source string
	reason string
}

// tolerances: every entry is checked to be needed (the path is read and
// is not in the SDK's model), and its insteadOf and source to hold.
var tolerances = []tolerance{
	{
		// The SDK spells it transactionID; the rest of the platform's
		// answers say transactionId (e.g. a payment's
		// processorInformation.transactionId), which a platform serving
		// many services plausibly sends here too.
		request:   "GET /rbs/v1/subscriptions/{id}/payments",
		path:      "subscriptionPayment[].transactionId",
		insteadOf: "subscriptionPayment[].transactionID",
		source:    "PtsV2PaymentsPost201Response:processorInformation.transactionId",
		reason:    "the platform's usual camel case (the SDK's payment answers say transactionId); unverified for this list",
	},
	{
		// reactivationInformation is on GET /rbs/v1/subscriptions/{id}
		// only (the SDK's GetSubscriptionResponse); a list's records
		// (GetAllSubscriptionsResponseSubscriptions) do not carry it, so
		// from a list these are empty. The decoder is shared with a
		// record of the GET-by-id shape (DecodeSubscription of a stored
		// record).
		request: "GET /rbs/v1/subscriptions",
		path:    "subscriptions[].reactivationInformation.missedPaymentsCount",
		source:  "GetSubscriptionResponse:reactivationInformation.missedPaymentsCount",
		reason:  "on a subscription fetched by id only (GetSubscriptionResponse); empty from a list",
	},
	{
		request: "GET /rbs/v1/subscriptions",
		path:    "subscriptions[].reactivationInformation.missedPaymentsTotalAmount",
		source:  "GetSubscriptionResponse:reactivationInformation.missedPaymentsTotalAmount",
		reason:  "on a subscription fetched by id only (GetSubscriptionResponse); empty from a list",
	},
	{
		// No insteadOf: missedPaymentsCount is itself tolerated above.
		request: "GET /rbs/v1/subscriptions",
		path:    "subscriptions[].reactivationInformation.skippedPaymentsCount",
		reason: "an older spelling of missedPaymentsCount (with processSkippedPayments) that a platform not yet " +
			"upgraded plausibly sends: unverified",
	},
	{
		request: "GET /rbs/v1/subscriptions",
		path:    "subscriptions[].reactivationInformation.skippedPaymentsTotalAmount",
		reason:  "an older spelling of missedPaymentsTotalAmount that a platform not yet upgraded plausibly sends: unverified",
	},
}

// notAnswers are the types of this package with JSON tags that are not
// read from a platform answer checked here, each with why. A new wire type
// must be added to answers (or here, with its reason).
var notAnswers = map[string]string{
	"searchRequest": "the body of POST /tss/v2/searches, sent, not read",
	"binRequest":    "the body of POST /bin/v1/binlookup, sent, not read",
	"idWire":        "a part of binRequest",
	"jwtHeader":     "the JWT header the client signs (jwt.go), sent, not read",
	"jwtClaims":     "the JWT claims the client signs (jwt.go), sent, not read",
	"errorBody":     "the platform's error bodies (errors.go): not yet checked against the SDK's error models (follow-up)",
	"errorDetail":   "a part of errorBody",
	"ErrorDetail":   "an error's details as the client exposes them, not decoded from a body",
}

// TestFieldsExistInSDK walks every field the client reads from each
// platform answer (answers) through the SDK's model of that answer, and
// fails for each one that is not there under that name, or that is an
// object in the SDK where the client reads a value (or the reverse), unless
// tolerances accepts it with its reason. It also checks that each
// answer's SDK operation serves the request and returns the model walked,
// that every wire type of the package is accounted for, and that
// docs/platform-fields.md is this table (-update rewrites it).
func TestFieldsExistInSDK(t *testing.T) {
	src := sdkdir.Source(t)
	sdk := &sdkModels{dir: filepath.Join(src, "model"), models: map[string]*sdkModel{}}
	version, err := sdkVersion(filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}

	used := map[tolerance]bool{}
	reached := map[string]bool{}
	var doc strings.Builder
	writeDocHead(&doc, version)
	for _, a := range answers {
		paths, err := answerPaths(a, reached)
		if err != nil {
			t.Errorf("%s: %v", a.request, err)
			continue
		}
		if a.op == "" {
			if a.noModel == "" {
				t.Errorf("%s: neither an SDK operation nor why there is none", a.request)
			}
			if ops, err := sdkPathsWith(filepath.Join(src, "api"), lastSegment(a.request)); err != nil || len(ops) > 0 {
				t.Errorf("%s is checked against no vendor model, but the SDK serves %v (%v): check it against that", a.request, ops, err)
			}
			writeNoModel(&doc, a, paths)
			continue
		}
		root, err := sdkOperation(filepath.Join(src, "api"), a.op)
		if err != nil {
			t.Errorf("%s: %v", a.request, err)
			continue
		}
		if root.request != a.request {
			t.Errorf("%s: the SDK's %s is %s", a.request, a.op, root.request)
		}
		fmt.Fprintf(&doc, "\n## `%s`\n\nSDK: `%s` (src/api/%s.js) answers `%s` (src/model/%s.js).\n\n",
			a.request, a.op, strings.Split(a.op, ".")[0], root.model, root.model)
		doc.WriteString("| Field the client reads | Go wire field | SDK model of the field (src/model/…) | SDK type |\n|---|---|---|---|\n")
		found := map[string]bool{}
		var results []walkResult
		for _, p := range paths {
			r := sdk.walk(root.model, p.segs)
			results = append(results, r)
			if r.err == "" {
				found[p.String()] = true
			}
		}
		for i, p := range paths {
			r := results[i]
			if r.err == "" {
				fmt.Fprintf(&doc, "| `%s` | %s | %s.js | %s |\n", p, p.goPath, r.model, r.typ)
				continue
			}
			tol, ok := findTolerance(a.request, p.String())
			if !ok {
				t.Errorf("%s: the client reads %s (%s), which the vendor's SDK does not have: %s",
					a.request, p, p.goPath, r.err)
				fmt.Fprintf(&doc, "| `%s` | %s | **not in the SDK**: %s | |\n", p, p.goPath, r.err)
				continue
			}
			used[tol] = true
			if tol.insteadOf != "" && !found[tol.insteadOf] {
				t.Errorf("%s: %s is tolerated instead of %s, which is not read or not in the SDK", a.request, p, tol.insteadOf)
			}
			note := "no vendor source"
			if tol.source != "" {
				model, path, _ := strings.Cut(tol.source, ":")
				if r := sdk.walk(model, splitPath(path)); r.err != "" {
					t.Errorf("%s: the vendor source of tolerated %s, %s, does not hold: %s", a.request, p, tol.source, r.err)
				}
				note = "vendor source: " + model + ".js `" + path + "`"
			}
			if tol.insteadOf != "" {
				note += "; the SDK's spelling `" + tol.insteadOf + "` is read as well"
			}
			fmt.Fprintf(&doc, "| `%s` | %s | tolerated, not in %s.js: %s (%s) | |\n", p, p.goPath, r.stop, tol.reason, note)
		}
	}
	for _, tol := range tolerances {
		if !used[tol] {
			t.Errorf("tolerance of %s %s is not needed: the client does not read it, or the SDK has it", tol.request, tol.path)
		}
	}
	checkWireTypesCovered(t, reached)
	doc.WriteString("\n## Journaled answers\n\nThe merchants' journals hold copies of the platform's answers to their payment calls; " +
		"package calls and level3audit read them by path (their `lookup(response, …)` calls, found in their sources by " +
		"internal/platform/sdkjournal_test.go). Which call a read serves is decided at run time, so each path must be in at least " +
		"one model of these answers:\n\n")
	checkJournal(t, src, sdk, &doc)
	writeDocTail(&doc)

	if *updateFields {
		if err := os.WriteFile(fieldsDoc, []byte(doc.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(fieldsDoc)
	if err != nil || string(got) != doc.String() {
		t.Errorf("%s is not the table of the fields read (%v; %s): run go test ./internal/platform -run TestFieldsExistInSDK -update",
			fieldsDoc, err, firstDifference(string(got), doc.String()))
	}
}

// TestWireTagsMatchHandDecoders checks that the keys the hand-written
// decoders read (paymentTags, rbsPageTags) are the JSON tags of the wire
// types the field guard reflects on, in order, so that the guard sees what
// they read.
func TestWireTagsMatchHandDecoders(t *testing.T) {
	for _, c := range []struct {
		wire any
		tags []string
	}{{paymentWire{}, paymentTags}, {rbsPage{}, rbsPageTags}} {
		typ := reflect.TypeOf(c.wire)
		var got []string
		for f := range typ.Fields() {
			got = append(got, jsonName(f))
		}
		if !slices.Equal(got, c.tags) {
			t.Errorf("%s's JSON tags are %v, its hand decoder reads %v", typ.Name(), got, c.tags)
		}
	}
}

// clientPath is one JSON path the client reads: its keys, "[]" for an
// array's elements and "*" for any key of a map.
type clientPath struct {
	segs   []string
	goPath string
}

func (p clientPath) String() string { return joinPath(p.segs) }

func joinPath(segs []string) string {
	var b strings.Builder
	for i, s := range segs {
		if s != "[]" && i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

func splitPath(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, ".") {
		n := 0
		for strings.HasSuffix(s, "[]") {
			s, n = s[:len(s)-2], n+1
		}
		segs = append(segs, s)
		for range n {
			segs = append(segs, "[]")
		}
	}
	return segs
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// answerPaths derives the paths a's wire type reads, following raw
// records into their wire types; reached collects the named types of this
// package met on the way.
func answerPaths(a answer, reached map[string]bool) ([]clientPath, error) {
	root := reflect.TypeOf(a.wire)
	records := map[string]reflect.Type{}
	for p, w := range a.records {
		records[p] = reflect.TypeOf(w)
	}
	c := collector{records: records, used: map[string]bool{}, reached: reached}
	reached[root.Name()] = true
	var only map[string]bool
	if a.only != nil {
		only = map[string]bool{}
		for _, k := range a.only {
			only[k] = true
		}
	}
	for f := range root.Fields() {
		name := jsonName(f)
		if name == "-" || !f.IsExported() || (only != nil && !only[name]) {
			continue
		}
		delete(only, name)
		if err := c.typ(f.Type, []string{name}, root.Name()+"."+f.Name); err != nil {
			return nil, err
		}
	}
	if len(only) > 0 {
		return nil, fmt.Errorf("%s has no fields %v", root.Name(), slices.Sorted(maps.Keys(only)))
	}
	for p := range records {
		if !c.used[p] {
			return nil, fmt.Errorf("no raw record at %s in %s", p, root.Name())
		}
	}
	for _, l := range a.literal {
		segs := splitPath(l)
		i := slices.IndexFunc(c.paths, func(p clientPath) bool { return matchWildcard(p.segs, segs) })
		if i < 0 {
			return nil, fmt.Errorf("the literal path %s matches no map the client reads", l)
		}
		c.paths = append(c.paths, clientPath{segs: segs, goPath: c.paths[i].goPath + " (key `" + literalKey(c.paths[i].segs, segs) + "`)"})
	}
	return c.paths, nil
}

func matchWildcard(pattern, segs []string) bool {
	if len(pattern) != len(segs) || !slices.Contains(pattern, "*") {
		return false
	}
	for i := range pattern {
		if pattern[i] != "*" && pattern[i] != segs[i] {
			return false
		}
	}
	return true
}

func literalKey(pattern, segs []string) string {
	return segs[slices.Index(pattern, "*")]
}

// jsonName is the key encoding/json matches f with; the wire types tag
// every field they read ("-" for none).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

type collector struct {
	records map[string]reflect.Type
	used    map[string]bool
	reached map[string]bool
	paths   []clientPath
}

// typ collects the paths a value of t at segs reads.
func (c *collector) typ(t reflect.Type, segs []string, goPath string) error {
	segs = slices.Clip(segs)
	if t.Name() != "" && t.PkgPath() == reflect.TypeFor[answer]().PkgPath() {
		c.reached[t.Name()] = true
	}
	switch {
	case t == rawMessageType:
		key := joinPath(segs)
		rt, ok := c.records[key]
		if !ok {
			return fmt.Errorf("%s (%s) is kept raw, and answers does not say which wire type decodes it", key, goPath)
		}
		c.used[key] = true
		c.reached[rt.Name()] = true
		return c.typ(rt, segs, rt.Name())
	case t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType):
		c.paths = append(c.paths, clientPath{segs: segs, goPath: goPath})
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		for f := range t.Fields() {
			name := jsonName(f)
			switch {
			case name == "-" || !f.IsExported():
				continue
			case f.Anonymous:
				return fmt.Errorf("%s.%s: embedded fields are not followed", goPath, f.Name)
			case name == "":
				return fmt.Errorf("%s.%s has no JSON tag (it would match any case of its Go name)", goPath, f.Name)
			}
			if err := c.typ(f.Type, append(segs, name), goPath+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		return c.typ(t.Elem(), segs, goPath)
	case reflect.Slice, reflect.Array:
		return c.typ(t.Elem(), append(segs, "[]"), goPath+"[]")
	case reflect.Map:
		return c.typ(t.Elem(), append(segs, "*"), goPath+"[*]")
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		c.paths = append(c.paths, clientPath{segs: segs, goPath: goPath})
		return nil
	}
	return fmt.Errorf("%s: a %s is not followed", goPath, t)
}

// The SDK's models: src/model/<Model>.js, whose constructFromObject has one
// line per field, e.g.
//
//	obj['status'] = ApiClient.convertToType(data['status'], 'String');
//	obj['_links'] = GetAllPlansResponseLinks.constructFromObject(data['_links']);
//	obj['plans'] = ApiClient.convertToType(data['plans'], [GetAllPlansResponsePlans]);
type sdkModels struct {
	dir    string
	models map[string]*sdkModel
}

type sdkModel struct {
	name   string
	order  []string
	fields map[string]sdkType
}

// sdkType is a field's type: a scalar ('String', 'Number', 'Boolean',
// 'Date'), a model, an array or a map of a type, or free-form JSON
// (Object).
type sdkType struct {
	kind string // scalar, model, array, map, any
	name string // the scalar's or the model's name
	elem *sdkType
}

func (t sdkType) String() string {
	switch t.kind {
	case "array":
		return "[" + t.elem.String() + "]"
	case "map":
		return "{String: " + t.elem.String() + "}"
	case "any":
		return "Object"
	}
	return t.name
}

var (
	fieldLine = regexp.MustCompile(`^obj\['([^']+)'\] = (.+);$`)
	modelRef  = regexp.MustCompile(`^([A-Za-z0-9_]+)\.constructFromObject\(data\['[^']+'\]\)$`)
	convertTo = regexp.MustCompile(`^ApiClient\.convertToType\(data\['[^']+'\], (.+)\)$`)
	ident     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

func (s *sdkModels) model(name string) (*sdkModel, error) {
	if m, ok := s.models[name]; ok {
		return m, nil
	}
	b, err := os.ReadFile(filepath.Join(s.dir, name+".js"))
	if err != nil {
		return nil, fmt.Errorf("read the SDK's model %s: %w", name, err)
	}
	m := &sdkModel{name: name, fields: map[string]sdkType{}}
	for _, line := range strings.Split(string(b), "\n") {
		f := fieldLine.FindStringSubmatch(strings.TrimSpace(line))
		if f == nil {
			continue
		}
		var typ sdkType
		if r := modelRef.FindStringSubmatch(f[2]); r != nil {
			typ = sdkType{kind: "model", name: r[1]}
		} else if c := convertTo.FindStringSubmatch(f[2]); c != nil {
			if typ, err = parseSDKType(c[1]); err != nil {
				return nil, fmt.Errorf("model %s, field %s: %w", name, f[1], err)
			}
		} else {
			return nil, fmt.Errorf("model %s, field %s: unknown form %q", name, f[1], f[2])
		}
		if _, dup := m.fields[f[1]]; !dup {
			m.order = append(m.order, f[1])
		}
		m.fields[f[1]] = typ
	}
	s.models[name] = m
	return m, nil
}

// parseSDKType parses the type argument of ApiClient.convertToType.
func parseSDKType(s string) (sdkType, error) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) > 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return sdkType{kind: "scalar", name: s[1 : len(s)-1]}, nil
	case s == "Object":
		return sdkType{kind: "any"}, nil
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		e, err := parseSDKType(s[1 : len(s)-1])
		return sdkType{kind: "array", elem: &e}, err
	case strings.HasPrefix(s, "{'String':") && strings.HasSuffix(s, "}"):
		e, err := parseSDKType(s[len("{'String':") : len(s)-1])
		return sdkType{kind: "map", elem: &e}, err
	case ident.MatchString(s):
		return sdkType{kind: "model", name: s}, nil
	}
	return sdkType{}, fmt.Errorf("unknown SDK type %q", s)
}

// walkResult is where a path ends in the SDK: the model holding its last
// key and the key's type, or why it is not there and the model the walk
// stopped in.
type walkResult struct {
	model, typ string
	err, stop  string
}

// walk follows segs from the model root.
func (s *sdkModels) walk(root string, segs []string) walkResult {
	return s.walkFrom(sdkType{kind: "model", name: root}, root, segs)
}

func (s *sdkModels) walkFrom(cur sdkType, holder string, segs []string) walkResult {
	if len(segs) == 0 {
		switch cur.kind {
		case "scalar", "any":
			return walkResult{model: holder, typ: cur.String()}
		}
		return walkResult{err: fmt.Sprintf("the client reads a value where the SDK has %s (in %s)", cur, holder), stop: holder}
	}
	seg, rest := segs[0], segs[1:]
	switch {
	case seg == "[]":
		if cur.kind != "array" {
			return walkResult{err: fmt.Sprintf("the client reads an array where the SDK has %s (in %s)", cur, holder), stop: holder}
		}
		return s.walkFrom(*cur.elem, holder, rest)
	case cur.kind == "map":
		return s.walkFrom(*cur.elem, holder, rest)
	case cur.kind != "model":
		return walkResult{err: fmt.Sprintf("the client reads key %q where the SDK has %s (in %s)", seg, cur, holder), stop: holder}
	}
	m, err := s.model(cur.name)
	if err != nil {
		return walkResult{err: err.Error(), stop: cur.name}
	}
	if seg == "*" { // any key of a map the client keeps: at least one of the model's
		var last walkResult
		for _, k := range m.order {
			if r := s.walkFrom(m.fields[k], m.name, rest); r.err == "" {
				return r
			} else {
				last = r
			}
		}
		if last.err == "" {
			last = walkResult{err: "no fields in " + m.name, stop: m.name}
		}
		return last
	}
	f, ok := m.fields[seg]
	if !ok {
		return walkResult{err: fmt.Sprintf("no field %q in %s", seg, m.name), stop: m.name}
	}
	return s.walkFrom(f, m.name, rest)
}

// sdkOp is what an SDK operation (src/api/<Api>.js) requests and answers.
type sdkOp struct {
	request string // method and path
	model   string // its returnType
}

// sdkOperation reads op ("Api.method") from the SDK's src/api.
func sdkOperation(apiDir, op string) (sdkOp, error) {
	api, method, ok := strings.Cut(op, ".")
	if !ok {
		return sdkOp{}, fmt.Errorf("operation %q is not Api.method", op)
	}
	b, err := os.ReadFile(filepath.Join(apiDir, api+".js"))
	if err != nil {
		return sdkOp{}, fmt.Errorf("read the SDK's %s: %w", api, err)
	}
	text := string(b)
	i := strings.Index(text, "this."+method+" = function(")
	if i < 0 {
		return sdkOp{}, fmt.Errorf("the SDK's %s has no operation %s", api, method)
	}
	text = text[i:]
	if j := strings.Index(text[1:], "\n    this."); j >= 0 {
		text = text[:j+1]
	}
	ret := regexp.MustCompile(`var returnType = ([A-Za-z0-9_]+);`).FindStringSubmatch(text)
	call := regexp.MustCompile(`callApi\(\s*'([^']+)', '([A-Z]+)'`).FindStringSubmatch(text)
	if ret == nil || call == nil {
		return sdkOp{}, fmt.Errorf("the SDK's %s: no returnType or path found", op)
	}
	return sdkOp{request: call[2] + " " + call[1], model: ret[1]}, nil
}

// sdkPathsWith lists the SDK's operations (src/api/*.js) whose path has
// the segment seg.
func sdkPathsWith(apiDir, seg string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(apiDir, "*.js"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("list the SDK's operations in %s: %v", apiDir, err)
	}
	call := regexp.MustCompile(`callApi\(\s*'([^']+)', '([A-Z]+)'`)
	var ops []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			if slices.Contains(strings.Split(m[1], "/"), seg) && !slices.Contains(ops, m[2]+" "+m[1]) {
				ops = append(ops, m[2]+" "+m[1])
			}
		}
	}
	return ops, nil
}

func lastSegment(request string) string {
	path, _, _ := strings.Cut(request, "?")
	return path[strings.LastIndexByte(path, '/')+1:]
}

func sdkVersion(pkgDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return "", fmt.Errorf("read the SDK's package.json: %w", err)
	}
	var p struct {
		Name, Version string
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("the SDK's package.json: %w", err)
	}
	return p.Name + " " + p.Version, nil
}

func findTolerance(request, path string) (tolerance, bool) {
	for _, t := range tolerances {
		if t.request == request && t.path == path {
			return t, true
		}
	}
	return tolerance{}, false
}

// checkWireTypesCovered fails for a type declared in this package's
// sources with a JSON tag that no answer reached and notAnswers does not
// name: a new wire type joins the guard when it is written.
func checkWireTypesCovered(t *testing.T, reached map[string]bool) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !hasJSONTag(st) {
				return true
			}
			if !reached[ts.Name.Name] && notAnswers[ts.Name.Name] == "" {
				t.Errorf("%s (%s) has JSON tags but is neither read from an answer in answers nor listed in notAnswers",
					ts.Name.Name, fset.Position(ts.Pos()))
			}
			return true
		})
	}
	for name := range notAnswers {
		if reached[name] {
			t.Errorf("%s is listed in notAnswers but read from an answer", name)
		}
	}
}

func hasJSONTag(st *ast.StructType) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && f.Tag != nil {
			tag := reflect.StructTag(strings.Trim(f.Tag.Value, "`"))
			if name, _, _ := strings.Cut(tag.Get("json"), ","); name != "" && name != "-" {
				found = true
			}
		}
		return !found
	})
	return found
}

func writeDocHead(b *strings.Builder, version string) {
	fmt.Fprintf(b, `# Fields the client reads from the platform's answers, and their vendor source

Generated: do not edit. `+"`go test ./internal/platform -run TestFieldsExistInSDK -update`"+` writes this file from the
client's wire types (platform/*.go, by reflection on their JSON tags) and the vendor's Node.js SDK (npm
%s, its src/api and src/model, installed by internal/sdkdir as the SDK contract test installs it).
TestFieldsExistInSDK fails when a field the client reads is not in the SDK's model of that answer under that
name, unless it is tolerated (internal/platform/sdkfields_test.go, `+"`tolerances`"+`, each with its reason), and when this
file is not what it would write.

For each request: the SDK operation and the model it answers, then each JSON path the client reads (`+"`[]`"+` an
array's elements, `+"`*`"+` any key of a map the client keeps whole, checked against at least one of the model's
fields), the Go field it is decoded into, the SDK model file holding it and its type there. docs/platform.md
explains what each field means to reconcile.
`, version)
}

func writeNoModel(b *strings.Builder, a answer, paths []clientPath) {
	fmt.Fprintf(b, "\n## `%s`\n\nNo vendor model; source: the interface spec. %s.\n\n", a.request, upperFirst(a.noModel))
	b.WriteString("| Field the client reads | Go wire field | Source |\n|---|---|---|\n")
	for _, p := range paths {
		fmt.Fprintf(b, "| `%s` | %s | no vendor source: the interface spec |\n", p, p.goPath)
	}
}

func writeDocTail(b *strings.Builder) {
	b.WriteString("\n## Not read from an answer\n\nTypes of package platform with JSON tags that the guard does not check, and why:\n\n")
	names := make([]string, 0, len(notAnswers))
	for n := range notAnswers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(b, "- `%s`: %s.\n", n, notAnswers[n])
	}
}

// firstDifference describes the first line where the file, got, differs
// from what the test would write, want.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, want %q", i+1, gl, wl)
		}
	}
	return "no difference"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
