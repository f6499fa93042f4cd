package sqlguard

import (
	"slices"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	cases := map[string][]string{
		"SELECT 1":                             {"SELECT 1"},
		"SELECT 1; SELECT 2;":                  {"SELECT 1", "SELECT 2"},
		" ; -- only a comment ;\n /* ; */ ; ":  nil,
		"SELECT 'a;''b'; SELECT 2":             {"SELECT 'a;''b'", "SELECT 2"},
		`SELECT "x;""y" FROM t; SELECT 2`:      {`SELECT "x;""y" FROM t`, "SELECT 2"},
		"SELECT 1 -- c;\n; SELECT 2":           {"SELECT 1 -- c;", "SELECT 2"},
		"SELECT /* a /* ; */ ; */ 1; SELECT 2": {"SELECT /* a /* ; */ ; */ 1", "SELECT 2"},
		"SELECT $tag$ ; $$ ; $tag$; SELECT $1": {"SELECT $tag$ ; $$ ; $tag$", "SELECT $1"},
		"SELECT 1 AS foo$a$; SELECT 2":         {"SELECT 1 AS foo$a$", "SELECT 2"},
		`SELECT E'\'; x'; SELECT 2`:            {`SELECT E'\'; x'`, "SELECT 2"},
		`SELECT e'\\'; SELECT 2`:               {`SELECT e'\\'`, "SELECT 2"},
		`SELECT 'unterminated; SELECT 2`:       {`SELECT 'unterminated; SELECT 2`},
	}
	for in, want := range cases {
		if got := splitStatements(in); !slices.Equal(got, want) {
			t.Errorf("splitStatements(%q) = %q, want %q", in, got, want)
		}
	}
}
