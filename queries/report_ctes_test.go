package queries

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestReportCTEsAgree: the statements of queries/reports/ each repeat the
// CTEs they use (scope, member_groups, ...), so that each runs as written;
// the kinds' sheets (reports/kinds/) get theirs from one prelude,
// reports/kind_prelude.sql, and are read here as KindSheet assembles them.
// A CTE of one name must then say the same in every statement: a sheet
// whose scope differed from the others' would count other members.
func TestReportCTEsAgree(t *testing.T) {
	paths, err := fs.Glob(files, "reports/*.sql")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no reports/*.sql embedded: %v", err)
	}
	kindSheets, err := fs.Glob(files, "reports/kinds/*.sql")
	if err != nil || len(kindSheets) == 0 {
		t.Fatalf("no reports/kinds/*.sql embedded: %v", err)
	}
	type def struct{ where, body string }
	first := map[string]def{}
	uses := map[string]int{}
	for _, p := range append(paths, kindSheets...) {
		blocks, err := parseNamed(mustRead(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if kind, ok := strings.CutPrefix(p, "reports/kinds/"); ok { // a kind's sheet, after the prelude
			sheet, _ := KindSheet(strings.TrimSuffix(kind, ".sql"))
			blocks = map[string]string{"": sheet}
		}
		if len(blocks) == 0 { // a file that is one statement (or the kinds' prelude)
			blocks = map[string]string{"": mustRead(p)}
		}
		names := make([]string, 0, len(blocks))
		for name := range blocks {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			where := p + " " + name
			ctes, err := leadingCTEs(blocks[name])
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			for _, c := range ctes {
				uses[c.name]++
				d, seen := first[c.name]
				switch {
				case !seen:
					first[c.name] = def{where, c.body}
				case d.body != c.body:
					t.Errorf("CTE %s of %s differs from the one of %s: copy it from there\n got: %s\nwant: %s",
						c.name, where, d.where, c.body, d.body)
				}
			}
		}
	}
	for _, shared := range []string{"scope", "member_groups", "run", "scoped_findings", "kind_findings", "kinds", "groups_of", "member_list"} {
		if uses[shared] < 2 {
			t.Errorf("CTE %s found in %d statement(s), want it shared by several: is leadingCTEs still reading them?", shared, uses[shared])
		}
	}
}

// TestLeadingCTEs: the reader of a WITH clause sees through quotes and
// comments, and stops at the statement's body.
func TestLeadingCTEs(t *testing.T) {
	ctes, err := leadingCTEs("-- a comment (\nWITH a AS (SELECT ')' AS x -- )\n), b AS (SELECT (1)) SELECT * FROM a, b")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ctes {
		got = append(got, c.name+"="+c.body)
	}
	if want := []string{"a=SELECT ')' AS x -- )", "b=SELECT (1)"}; !slices.Equal(got, want) {
		t.Errorf("leadingCTEs = %q, want %q", got, want)
	}
	if ctes, err := leadingCTEs("SELECT 1"); err != nil || len(ctes) != 0 {
		t.Errorf("a statement without WITH: %v, %v", ctes, err)
	}
	if _, err := leadingCTEs("WITH a AS (SELECT 1"); err == nil {
		t.Error("an unclosed CTE was read without error")
	}
}

type cte struct{ name, body string }

// leadingCTEs reads the CTEs of a statement's WITH clause, each body with
// its white space collapsed, so that two copies compare by their words.
func leadingCTEs(sql string) ([]cte, error) {
	rest := skipSpaceAndComments(sql)
	if !strings.HasPrefix(strings.ToUpper(rest), "WITH ") {
		return nil, nil
	}
	rest = skipSpaceAndComments(rest[len("WITH "):])
	var out []cte
	for {
		name, after, ok := strings.Cut(rest, " ")
		if !ok || !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(after)), "AS (") {
			return nil, fmt.Errorf("want NAME AS ( at %.40q", rest)
		}
		body := strings.TrimSpace(after)[len("AS "):]
		end := closingParen(body)
		if end < 0 {
			return nil, fmt.Errorf("CTE %s: no closing parenthesis", name)
		}
		out = append(out, cte{name, strings.Join(strings.Fields(body[1:end]), " ")})
		rest = skipSpaceAndComments(body[end+1:])
		if !strings.HasPrefix(rest, ",") {
			return out, nil
		}
		rest = skipSpaceAndComments(rest[1:])
	}
}

// closingParen is the index of the parenthesis closing the one s opens
// with, outside quotes and -- comments, or -1.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'' || s[i] == '"':
			j := strings.IndexByte(s[i+1:], s[i])
			if j < 0 {
				return -1
			}
			i += j + 1 // a doubled quote reads as two strings: same depth
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return -1
			}
			i += j
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "--") {
			return s
		}
		_, s, _ = strings.Cut(s, "\n")
	}
}

// TestKindSheetsTakeThePrelude: a kind's sheet is the prelude's CTEs and
// then the kind's own, in one WITH clause, and no kind's file copies the
// prelude: a copy would be a second definition of the same CTE, and the
// scope would again live in thirty places.
func TestKindSheetsTakeThePrelude(t *testing.T) {
	prelude, err := leadingCTEs(mustRead("reports/kind_prelude.sql"))
	if err != nil || len(prelude) == 0 {
		t.Fatalf("reports/kind_prelude.sql: no CTEs (%v)", err)
	}
	for _, kind := range KindSheets() {
		own, err := leadingCTEs(mustRead("reports/kinds/" + kind + ".sql"))
		if err != nil {
			t.Errorf("reports/kinds/%s.sql: %v", kind, err)
			continue
		}
		for _, c := range own {
			for _, p := range prelude {
				if c.name == p.name {
					t.Errorf("reports/kinds/%s.sql defines %s, which the prelude (reports/kind_prelude.sql) defines: remove it", kind, c.name)
				}
			}
		}
		sheet, _ := KindSheet(kind)
		all, err := leadingCTEs(sheet)
		if err != nil {
			t.Errorf("%s: the assembled sheet: %v", kind, err)
			continue
		}
		if len(all) != len(prelude)+len(own) {
			t.Errorf("%s: the assembled sheet has %d CTEs, want the prelude's %d and the kind's %d", kind, len(all), len(prelude), len(own))
		}
		for i, p := range prelude {
			if i < len(all) && all[i] != p {
				t.Errorf("%s: CTE %d is %s, want the prelude's %s", kind, i+1, all[i].name, p.name)
			}
		}
	}
	got := withKindPrelude("-- head\nWITH x AS (SELECT 1)\nSELECT * FROM x, run")
	if !strings.Contains(got, "run AS (SELECT * FROM runs WHERE run_id = $1)\n-- head\n, x AS (SELECT 1)\nSELECT * FROM x, run") {
		t.Errorf("withKindPrelude joined the WITH clauses as\n%s", got)
	}
}
