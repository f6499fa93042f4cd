package queries

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Named statements. Go code never holds SQL of more than one line: every
// statement it runs lives in a .sql file under queries/, either alone (a
// check of findings/, a billing report of billing/) or as one block of a
// file of named statements, in the style of sqlc:
//
//	-- name: FindingsByKind
//	-- The findings of a run per kind ($1 = run id).
//	SELECT kind, count(*) FROM findings WHERE run_id = $1 GROUP BY kind
//
// A block runs from its "-- name:" line to the next one (or the end of the
// file); the comment lines right after the name are its documentation and
// are kept in the SQL, where DuckDB ignores them. Go code takes a statement
// with Must in a package-level variable, so a name that does not exist
// fails the program (and every test) at start, not a run at night.

var named struct {
	once  sync.Once
	stmts map[string]string // "file#Name" -> SQL
	err   error
}

// Named returns the statement called name in the .sql file (a path under
// queries/, e.g. "reports/summary.sql").
func Named(file, name string) (string, error) {
	named.once.Do(loadNamed)
	if named.err != nil {
		return "", named.err
	}
	sql, ok := named.stmts[file+"#"+name]
	if !ok {
		return "", fmt.Errorf("queries: no statement %q in %s", name, file)
	}
	return sql, nil
}

// Must is Named for package-level variables: it panics when the statement
// does not exist, which is a mistake in the program, not in its input.
func Must(file, name string) string {
	sql, err := Named(file, name)
	if err != nil {
		panic(err)
	}
	return sql
}

// loadNamed parses every embedded .sql file that holds "-- name:" blocks.
func loadNamed() {
	named.stmts = map[string]string{}
	named.err = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".sql" {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		blocks, err := parseNamed(string(b))
		if err != nil {
			return fmt.Errorf("queries: %s: %w", p, err)
		}
		for name, sql := range blocks {
			named.stmts[p+"#"+name] = sql
		}
		return nil
	})
}

// namePrefix starts a named block.
const namePrefix = "-- name:"

// parseNamed splits a file into its named blocks. A file without any has
// none; text before the first name (a file's own header comment) belongs
// to no block.
func parseNamed(text string) (map[string]string, error) {
	out := map[string]string{}
	var name string
	var body []string
	flush := func() error {
		if name == "" {
			return nil
		}
		sql := strings.TrimSpace(strings.Join(body, "\n"))
		if !hasStatement(sql) {
			return fmt.Errorf("statement %q is empty", name)
		}
		if _, dup := out[name]; dup {
			return fmt.Errorf("statement %q named twice", name)
		}
		out[name] = sql
		return nil
	}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), namePrefix); ok {
			if err := flush(); err != nil {
				return nil, err
			}
			name, body = strings.TrimSpace(rest), nil
			if name == "" || strings.ContainsAny(name, " \t") {
				return nil, fmt.Errorf("bad statement name %q", rest)
			}
			continue
		}
		if name != "" {
			body = append(body, line)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// hasStatement reports whether sql holds more than comments and blanks.
func hasStatement(sql string) bool {
	for _, line := range strings.Split(sql, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "--") {
			return true
		}
	}
	return false
}
