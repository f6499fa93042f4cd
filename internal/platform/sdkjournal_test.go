package platform

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The merchants' journals hold copies of the platform's answers to their
// payment calls, which package calls (and level3audit) read by path:
// lookup(response, "processorInformation", "approvalCode"). The guard
// finds those reads in their sources and walks each path through the
// SDK's models of the answers a journal holds (journalOps): a path must be
// in at least one of them, since which call a read serves is decided at
// run time (calls.classify).

// journalSources are the directories, relative to this package, whose
// non-test Go files read journaled answers.
var journalSources = []string{"../calls", "../../level3audit"}

// journalOps are the SDK operations whose answers a journal holds, as
// calls.classify names the calls: payments and sales, buy-now-pay-later
// sessions, captures, refunds, credits, reversals and voids.
var journalOps = []string{
	"PaymentsApi.createPayment",
	"PaymentsApi.createSessionRequest",
	"CaptureApi.capturePayment",
	"RefundApi.refundPayment",
	"RefundApi.refundCapture",
	"CreditApi.createCredit",
	"ReversalApi.authReversal",
	"VoidApi.voidPayment",
}

// journalDynamic gives the paths of the reads whose keys are not all
// literals, by the read's source text: every call site's keys.
var journalDynamic = map[string][]string{
	// answeredAmount(kind, response, "refundAmount", "creditAmount") and
	// (…, "currency", "currency").
	`lookup(response, "refundAmountDetails", refundField)`: {"refundAmountDetails.refundAmount", "refundAmountDetails.currency"},
	`lookup(response, "refundAmountDetails", creditField)`: {"refundAmountDetails.creditAmount", "refundAmountDetails.currency"},
	`lookup(response, "creditAmountDetails", creditField)`: {"creditAmountDetails.creditAmount", "creditAmountDetails.currency"},
}

// journalTolerances are paths read from a journaled answer that no model
// of journalOps has, each with why it is read.
var journalTolerances = map[string]string{
	// The installment calls (POST /fin/v1/plans, /fin/v1/plan-acceptance,
	// /fin/v1/plan-acceptance/cancel) are in the vendor's Installments
	// guide but not in its SDK; a payment's installmentInformation (the
	// SDK's PtsV2PaymentsPost201ResponseInstallmentInformation) has
	// neither key.
	"installmentInformation.id": "an installment plan acceptance's answer (POST /fin/v1/plan-acceptance), which the SDK does not model; " +
		"source: the vendor's Installments guide (" + installmentsGuide + "), field name unverified against a vendor model",
	"installmentInformation.planId": "an installment plan acceptance's answer (POST /fin/v1/plan-acceptance), which the SDK does not model; " +
		"source: the vendor's Installments guide (" + installmentsGuide + "), field name unverified against a vendor model",
}

const installmentsGuide = "https://developer.cybersource.com/docs/cybs/en-us/installment-plans/developer/all/rest/installment-plans.html"

// journalRead is one path read from a journaled answer, and where.
type journalRead struct {
	path  string
	sites []string // file and function
}

// journalReads finds the reads of journaled answers in journalSources.
func journalReads() ([]journalRead, error) {
	var reads []journalRead
	byPath := map[string]int{}
	usedDynamic := map[string]bool{}
	add := func(path, site string) {
		i, ok := byPath[path]
		if !ok {
			i = len(reads)
			byPath[path] = i
			reads = append(reads, journalRead{path: path})
		}
		if !slices.Contains(reads[i].sites, site) {
			reads[i].sites = append(reads[i].sites, site)
		}
	}
	fset := token.NewFileSet()
	for _, dir := range journalSources {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("no Go files in %s (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			var walkErr error
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || walkErr != nil {
					continue
				}
				// A read's site is its file and function, not its line,
				// so that the table changes only when the reads do.
				site := path.Join("internal/platform", filepath.ToSlash(name)) + " " + fn.Name.Name
				ast.Inspect(fn, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok || !isLookup(call.Fun) || len(call.Args) < 2 {
						return true
					}
					if id, ok := call.Args[0].(*ast.Ident); !ok || id.Name != "response" {
						return true
					}
					var keys []string
					for _, a := range call.Args[1:] {
						lit, ok := a.(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							keys = nil
							break
						}
						k, err := strconv.Unquote(lit.Value)
						if err != nil {
							walkErr = fmt.Errorf("%s: %w", site, err)
							return false
						}
						keys = append(keys, k)
					}
					if keys != nil {
						add(strings.Join(keys, "."), site)
						return true
					}
					text := string(src[fset.Position(call.Pos()).Offset:fset.Position(call.End()).Offset])
					paths, ok := journalDynamic[text]
					if !ok {
						walkErr = fmt.Errorf("%s: %s reads keys that are not literals; give its paths in journalDynamic", site, text)
						return false
					}
					usedDynamic[text] = true
					for _, p := range paths {
						add(p, site)
					}
					return true
				})
			}
			if walkErr != nil {
				return nil, walkErr
			}
		}
	}
	for text := range journalDynamic {
		if !usedDynamic[text] {
			return nil, fmt.Errorf("journalDynamic's %s is read nowhere", text)
		}
	}
	return reads, nil
}

// isLookup reports whether fun is lookup or jsonbody.Lookup.
func isLookup(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "lookup"
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		return ok && x.Name == "jsonbody" && f.Sel.Name == "Lookup"
	}
	return false
}

// checkJournal walks every journal read through the models of journalOps
// and writes the journal's table.
func checkJournal(t *testing.T, src string, sdk *sdkModels, doc *strings.Builder) {
	t.Helper()
	var roots []string
	for _, op := range journalOps {
		o, err := sdkOperation(filepath.Join(src, "api"), op)
		if err != nil {
			t.Error(err)
			return
		}
		if !slices.Contains(roots, o.model) {
			roots = append(roots, o.model)
		}
		fmt.Fprintf(doc, "- `%s` (`%s`) answers `%s`\n", op, o.request, o.model)
	}
	reads, err := journalReads()
	if err != nil {
		t.Errorf("journal reads: %v", err)
		return
	}
	doc.WriteString("\n| Field read from a journaled answer | Read at | SDK models having it |\n|---|---|---|\n")
	used := map[string]bool{}
	for _, r := range reads {
		var in, why []string
		for _, root := range roots {
			if w := sdk.walk(root, splitPath(r.path)); w.err == "" {
				in = append(in, root)
			} else {
				why = append(why, w.err)
			}
		}
		sites := strings.Join(r.sites, ", ")
		switch reason, tolerated := journalTolerances[r.path]; {
		case len(in) > 0:
			if tolerated {
				t.Errorf("journalTolerances' %s is not needed: %v have it", r.path, in)
			}
			fmt.Fprintf(doc, "| `%s` | %s | %s |\n", r.path, sites, strings.Join(in, ", "))
		case tolerated:
			used[r.path] = true
			fmt.Fprintf(doc, "| `%s` | %s | tolerated, in none: %s |\n", r.path, sites, reason)
		default:
			t.Errorf("journal: %s reads %s from a journaled answer, which no SDK model of journalOps has: %s",
				sites, r.path, strings.Join(why, "; "))
			fmt.Fprintf(doc, "| `%s` | %s | **in none**: %s |\n", r.path, sites, strings.Join(why, "; "))
		}
	}
	for p := range journalTolerances {
		if !used[p] {
			t.Errorf("journalTolerances' %s is not read from a journaled answer, or an SDK model has it", p)
		}
	}
}
