package pipeline

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers ranks reconcile's packages in the order of the package doc: a
// package imports only packages of a lower rank, so no stage imports one
// that runs after it, and nothing below the pipeline imports it.
var layers = map[string]int{
	"internal/jsonbody": 0, "internal/schedule": 0, "internal/buildinfo": 0, "internal/testcert": 0, "internal/testsign": 0, "internal/sdkdir": 0,
	"internal/jemalloc": 0, "internal/glibc": 0, "internal/secretfile": 0,
	"queries": 0, "internal/platform": 0, "outputs": 0, "internal/cardmask": 0, "deploy": 0,
	"internal/sandbox": 0,
	"level3audit":      1, "internal/store": 1, "internal/safetext": 1, "internal/memstat": 1, "internal/cliflags": 1, "internal/runtimetune": 1, "internal/cardmask/cardmasktest": 1, "internal/sandbox/sandboxtest": 1, "internal/credentials": 1,
	"groups": 2, "subscriptions": 2, "internal/calls": 2, "internal/store/storetest": 2, "internal/sqlout": 2, "internal/embedded": 2,
	"ingest": 3, "internal/doctor": 3, "internal/sqlguard": 3,
	"internal/checks": 4, "reports": 4,
	"internal/pipeline": 5, "internal/merge": 5, "internal/alarms": 5, "internal/notify": 5, "reports/reportstest": 5, "internal/shardset": 5,
	"internal/metrics": 6, "internal/progress": 6, "internal/pipeline/pipelinetest": 6, "internal/notify/notifytest": 6,
	"internal/finish": 7, "bench": 7,
	"internal/cli": 8, "internal/cli/clitest": 9,
	"internal/e2e/groundtruth": 10, "internal/e2e/nights": 10, "internal/e2e/merge": 10, "internal/e2e/cards": 10,
	"internal/e2e/faults": 10, "internal/e2e/process": 10, "internal/e2e/ack": 10, "internal/e2e/operator": 10,
	"cmd/reconcile": 9,
}

const module = "github.com/reconcile/reconcile/"

// TestNoPackageImportsUpTheFlow reads the imports of every package's
// program files (tests aside) and fails on one that imports a package of
// its own rank or above, or a package missing from layers.
func TestNoPackageImportsUpTheFlow(t *testing.T) {
	root := "../.."
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		seen[pkg] = true
		rank, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s has no rank in layers: give it one (and a row in README's Layout)", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(path, module)
			if !ok {
				continue
			}
			if r, known := layers[dep]; !known || r >= rank {
				t.Errorf("%s imports %s (rank %d, %v), not below its own rank %d", p, dep, r, known, rank)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range layers {
		if !seen[pkg] {
			t.Errorf("layers names %s, which has no program files", pkg)
		}
	}
}
