package sqlguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile/reconcile/internal/secretfile"
	"github.com/reconcile/reconcile/internal/sqlout"
	"github.com/reconcile/reconcile/queries"
)

// Run runs query (its statements checked one by one, see DB) and writes
// the last statement's rows to out.
func (r *DB) Run(ctx context.Context, query string, out sqlout.Writer, args ...any) error {
	rows, err := r.Query(ctx, query, args...)
	if err != nil {
		return sqlError(err)
	}
	defer rows.Close()
	if err := sqlout.WriteRows(rows, out); err != nil {
		return sqlError(err)
	}
	return nil
}

// The statements of --tables (queries/cli/sql.sql): the file's tables and
// views, and one's columns, with the comment every one of them carries.
var (
	listTablesSQL  = queries.Must("cli/sql.sql", "Tables")
	columnCountSQL = queries.Must("cli/sql.sql", "ColumnCount")
	columnsSQL     = queries.Must("cli/sql.sql", "Columns")
)

// Tables writes the file's tables and views with their comments to out.
func (r *DB) Tables(ctx context.Context, out sqlout.Writer) error {
	return r.Run(ctx, listTablesSQL, out)
}

// Describe writes the columns of one table or view of the file at path
// with their comments to out.
func (r *DB) Describe(ctx context.Context, path, table string, out sqlout.Writer) error {
	var n int
	rows, err := r.Query(ctx, columnCountSQL, table)
	if err == nil {
		for rows.Next() {
			err = rows.Scan(&n)
		}
		err = errors.Join(err, rows.Err(), rows.Close())
	}
	if err != nil {
		return fmt.Errorf("sql: describe %s: %w", table, err)
	}
	if n == 0 {
		return fmt.Errorf("sql: no table or view %q in %s (reconcile sql --tables lists them)", table, path)
	}
	return r.Run(ctx, columnsSQL, out, table)
}

// sqlError says which of reconcile sql's limits a DuckDB error comes from.
func sqlError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "disabled by configuration"):
		return fmt.Errorf("sql: reconcile sql reads its database file only: no other file, URL or extension "+
			"(for the Parquet datasets use DuckDB's own CLI or another Parquet reader): %w", err)
	case strings.Contains(msg, "configuration has been locked"):
		return fmt.Errorf("sql: reconcile sql's settings are fixed: %w", err)
	}
	return fmt.Errorf("sql: %w", err)
}

// Bounds of what `reconcile sql` reads from files: far above any query or
// ground-truth file (a large sandbox's ground truth is tens of MiB), far
// below what would exhaust a laptop's memory.
const (
	MaxQueryFile = 16 << 20  // --file, or standard input
	maxVarFile   = 512 << 20 // --var NAME=@FILE
)

// ReadQueryFile reads the SQL of --file: path, or stdin for "-", at most
// MaxQueryFile bytes.
func ReadQueryFile(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		if stdin == nil {
			return nil, fmt.Errorf("sql: no standard input")
		}
		b, err := io.ReadAll(io.LimitReader(stdin, MaxQueryFile+1))
		if err == nil && len(b) > MaxQueryFile {
			err = fmt.Errorf("standard input holds more than %d MiB of SQL", MaxQueryFile>>20)
		}
		if err != nil {
			return nil, fmt.Errorf("sql: %w", err)
		}
		return b, nil
	}
	b, err := secretfile.ReadBounded(path, MaxQueryFile)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return b, nil
}

// Vars are the --var flags, in order (a flag.Value).
type Vars []struct{ name, value string }

func (v *Vars) String() string { return "" }

// Set takes NAME=VALUE, or NAME=@FILE for the file's content: a query can
// use a file's data (e.g. JSON) that its SQL cannot open itself, since only
// the person running the command names the file.
func (v *Vars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || !isIdentifier(name) {
		return fmt.Errorf("want NAME=VALUE or NAME=@FILE, NAME a letter or _ then letters, digits or _")
	}
	if path, isFile := strings.CutPrefix(value, "@"); isFile {
		b, err := secretfile.ReadBounded(path, maxVarFile)
		if err != nil {
			return err
		}
		value = string(b)
	}
	*v = append(*v, struct{ name, value string }{name, value})
	return nil
}

// SetVariables sets each of vars, in order (SetVariable).
func (r *DB) SetVariables(ctx context.Context, vars Vars) error {
	for _, v := range vars {
		if err := r.SetVariable(ctx, v.name, v.value); err != nil {
			return fmt.Errorf("sql: --var: %w", err)
		}
	}
	return nil
}

// isIdentifier reports whether s is a plain ASCII SQL identifier, safe to
// write into a statement unquoted.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || !IsIdentByte(c) || i == 0 && c >= '0' && c <= '9' {
			return false
		}
	}
	return s != ""
}
