package queries

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlWord finds a statement's keyword at the start of a line of a literal.
var sqlWord = regexp.MustCompile(`(?m)^\s*(SELECT|INSERT|DELETE|UPDATE|CREATE|WITH|COPY|ATTACH|FROM|JOIN|WHERE|ALTER|DROP)\b`)

// TestNoMultilineSQLInGo keeps SQL where analysts read it: no string
// literal of the program's Go code (tests aside) holds SQL over more than
// one line; such a statement belongs in a .sql file under queries/ (see
// Named). One-line statements (SET, CHECKPOINT, a short lookup) may stay.
// Tests are _test.go files and the files of test helper packages, which
// import "testing" (internal/cli/clitest's end-to-end readers query a
// run's outputs as a test does); the program never imports it.
func TestNoMultilineSQLInGo(t *testing.T) {
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"testing"` {
				return nil // test support, not the program
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if strings.Contains(strings.TrimSpace(s), "\n") && sqlWord.MatchString(s) {
				t.Errorf("%s: a SQL statement over several lines in Go; move it to a .sql file under queries/ (queries.Must)",
					fset.Position(lit.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
