// Package sqlguard opens a reconcile DuckDB file so that the SQL run over
// it (`reconcile sql`) can read that file and nothing else, and can write
// nothing anywhere: DB says how. It also runs that command's work over the
// file: a query, --tables, a check's own file (PrepareCheck) and --var,
// writing the rows through package sqlout.
package sqlguard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// DB is a DuckDB file opened for `reconcile sql`: the SQL it runs
// can read that file and nothing else, and can write nothing anywhere.
//
// Two layers hold that promise, because neither does alone in DuckDB 1.4:
//
//   - The database is configured (startupOptions, lockdown): the file is
//     opened read-only, external access is off (no other file, no network,
//     no extension loading or installing) and the configuration is locked,
//     so no SET, RESET or PRAGMA turns any of it back on.
//   - Each statement is checked before it runs (CheckQuery): only queries
//     and SET (whose only working form under the lock is SET VARIABLE) run.
//     DuckDB keeps the database's own file and its .wal in the paths external
//     access may still open, and a COPY ... TO either of them succeeds with
//     external access off: it would overwrite the file, or plant a WAL the
//     next writer replays. EXPLAIN ANALYZE runs the statement it explains,
//     so EXPLAIN is refused too.
//
// Every statement runs on one pinned connection, so SET VARIABLE carries
// over to the statements after it.
type DB struct {
	db     *sql.DB
	conn   *sql.Conn
	tmpDir string
}

// startupOptions configure DuckDB as it opens the file. The driver sets
// them in no fixed order, so the two whose order matters are lockdown's.
func startupOptions(tmpDir string) url.Values {
	return url.Values{
		"access_mode": {"read_only"},
		// Spills go to a private folder removed on close; DuckDB's default
		// (<file>.tmp) would create a folder beside a published snapshot.
		"temp_directory":               {tmpDir},
		"autoinstall_known_extensions": {"false"},
		"autoload_known_extensions":    {"false"},
	}
}

// lockdown runs before any of the user's SQL. External access goes off
// after the temp directory is set (DuckDB refuses to move it then), and
// the lock comes last: it freezes every setting, its own included.
var lockdown = []string{
	"SET enable_external_access = false",
	"SET lock_configuration = true",
}

// Open opens the DuckDB file at path for reconcile sql. The file
// may be a published snapshot while a run writes its own working file.
func Open(ctx context.Context, path string) (_ *DB, err error) {
	// The driver reads options after the first '?' and url.Parse drops
	// everything after a '#': either would lose the options above.
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open %s: a database path with '?' or '#' cannot be opened read-only; rename or link it", path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	r := &DB{}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.tmpDir, err = os.MkdirTemp("", "reconcile-sql-"); err != nil {
		return nil, fmt.Errorf("open %s read-only: temp folder: %w", path, err)
	}
	connector, err := duckdb.NewConnector(path+"?"+startupOptions(r.tmpDir).Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	r.db = sql.OpenDB(connector)
	if r.conn, err = r.db.Conn(ctx); err != nil {
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	for _, stmt := range lockdown {
		if _, err := r.conn.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("open %s read-only: %s: %w", path, stmt, err)
		}
	}
	return r, nil
}

// Close closes the database and removes its temp folder.
func (r *DB) Close() error {
	var errs []error
	if r.conn != nil {
		errs = append(errs, r.conn.Close())
	}
	if r.db != nil {
		errs = append(errs, r.db.Close())
	}
	if r.tmpDir != "" {
		errs = append(errs, os.RemoveAll(r.tmpDir))
	}
	return errors.Join(errs...)
}

// SetVariable sets a DuckDB variable (getvariable(name)) to a text value;
// name must be an identifier: it is written into the statement.
func (r *DB) SetVariable(ctx context.Context, name, value string) error {
	if _, err := r.conn.ExecContext(ctx, "SET VARIABLE "+name+" = ?", value); err != nil {
		return fmt.Errorf("set variable %s: %w", name, err)
	}
	return nil
}

// Query runs the statements of text in order, each checked first, and
// returns the rows of the last one; args bind the last one's parameters.
func (r *DB) Query(ctx context.Context, text string, args ...any) (*sql.Rows, error) {
	stmts := splitStatements(text)
	if len(stmts) == 0 {
		return nil, errors.New("no SQL statement")
	}
	last := len(stmts) - 1
	for i, stmt := range stmts {
		if err := r.CheckQuery(stmt); err != nil {
			return nil, statementError(i, len(stmts), err)
		}
		if i == last {
			break
		}
		if _, err := r.conn.ExecContext(ctx, stmt); err != nil {
			return nil, statementError(i, len(stmts), err)
		}
	}
	rows, err := r.conn.QueryContext(ctx, stmts[last], args...)
	if err != nil {
		return nil, statementError(last, len(stmts), err)
	}
	return rows, nil
}

func statementError(i, n int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("statement %d of %d: %w", i+1, n, err)
}

// errNotAQuery is what a statement that would do more than read gets.
var errNotAQuery = errors.New("reconcile sql is read-only: it runs queries (SELECT, FROM, WITH, SHOW, DESCRIBE, SUMMARIZE) and SET VARIABLE, nothing else")

// CheckQuery prepares stmt (DuckDB parses and binds it, nothing runs) and
// refuses it unless it is a query or a SET. A piece DuckDB reads as more
// than one statement is refused too: it could not be checked as a whole.
func (r *DB) CheckQuery(stmt string) error {
	return r.conn.Raw(func(dc any) error {
		// driver.Conn.Prepare, unlike database/sql's PrepareContext, does not
		// run the statements before the last of a multi-statement text.
		st, err := dc.(driver.Conn).Prepare(stmt)
		if err != nil {
			if strings.Contains(err.Error(), "multi-statement") {
				return fmt.Errorf("DuckDB reads %q as more than one statement, so it cannot be checked: end each with ';' (a PIVOT needs an explicit IN list here)", excerpt(stmt))
			}
			return err
		}
		defer st.Close()
		ds, ok := st.(*duckdb.Stmt)
		if !ok {
			return fmt.Errorf("unexpected driver statement %T", st)
		}
		kind, err := ds.StatementType()
		if err != nil {
			return err
		}
		switch kind {
		case duckdb.STATEMENT_TYPE_SELECT, duckdb.STATEMENT_TYPE_SET:
			return nil
		}
		return fmt.Errorf("%w; refused: %q", errNotAQuery, excerpt(stmt))
	})
}

// excerpt is the start of a statement, for an error message.
func excerpt(stmt string) string {
	s := strings.Join(strings.Fields(stmt), " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// splitStatements cuts SQL text into statements at the semicolons outside
// quotes, dollar-quoted strings and comments, and drops the pieces that
// hold only space and comments. It need not be perfect: DuckDB parses each
// piece again and CheckQuery refuses one that holds more than one
// statement, so a piece cut wrongly fails to run; it never runs unchecked.
func splitStatements(text string) []string {
	var out []string
	start, blank := 0, true
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'':
			backslash := i > 0 && (text[i-1] == 'E' || text[i-1] == 'e') && (i == 1 || !IsIdentByte(text[i-2]))
			i, blank = skipQuoted(text, i, '\'', backslash), false
		case c == '"':
			i, blank = skipQuoted(text, i, '"', false), false
		case strings.HasPrefix(text[i:], "--"):
			if end := strings.IndexByte(text[i:], '\n'); end >= 0 {
				i += end + 1
			} else {
				i = len(text)
			}
		case strings.HasPrefix(text[i:], "/*"):
			i = skipBlockComment(text, i)
		case c == '$' && (i == 0 || !IsIdentByte(text[i-1])): // foo$1 is an identifier
			i, blank = skipDollarQuoted(text, i), false
		case c == ';':
			if !blank {
				out = append(out, strings.TrimSpace(text[start:i]))
			}
			i++
			start, blank = i, true
		default:
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
				blank = false
			}
			i++
		}
	}
	if !blank {
		out = append(out, strings.TrimSpace(text[start:]))
	}
	return out
}

// skipQuoted returns the index after the quoted string opening at i: a
// doubled quote stands for one, and with backslash (E'...') so does \'.
func skipQuoted(text string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(text); j++ {
		switch {
		case backslash && text[j] == '\\':
			j++
		case text[j] == quote && j+1 < len(text) && text[j+1] == quote:
			j++
		case text[j] == quote:
			return j + 1
		}
	}
	return len(text)
}

// skipBlockComment returns the index after the /* comment */ opening at i;
// such comments nest.
func skipBlockComment(text string, i int) int {
	depth := 0
	for j := i; j < len(text)-1; j++ {
		switch {
		case text[j] == '/' && text[j+1] == '*':
			depth++
			j++
		case text[j] == '*' && text[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(text)
}

// skipDollarQuoted returns the index after the $tag$...$tag$ string opening
// at i, or i+1 when the '$' opens none (a parameter such as $1).
func skipDollarQuoted(text string, i int) int {
	j := i + 1
	for j < len(text) && IsIdentByte(text[j]) && !(j == i+1 && text[j] >= '0' && text[j] <= '9') {
		j++
	}
	if j >= len(text) || text[j] != '$' {
		return i + 1
	}
	tag := text[i : j+1]
	if end := strings.Index(text[j+1:], tag); end >= 0 {
		return j + 1 + end + len(tag)
	}
	return len(text)
}

// IsIdentByte says whether c may be part of an identifier (ASCII letters,
// digits, _, and any byte of a non-ASCII character).
func IsIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
