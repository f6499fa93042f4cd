package operator

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sqlguard"
)

// analystDB writes a DuckDB file the way reconcile sql meets one: a table
// with text as a hostile platform could send it and numbers of every kind,
// and a view. Beside it, other.duckdb is a database reconcile sql must never
// touch. Both live in dir, which the tests compare before and after.
func analystDB(t *testing.T) (dir, db, other string) {
	t.Helper()
	dir = t.TempDir()
	db, other = filepath.Join(dir, "snapshot.duckdb"), filepath.Join(dir, "other.duckdb")
	execDuckDB(t, db, `CREATE TABLE f (kind VARCHAR, amount DECIMAL(18,2), n INTEGER, ratio DOUBLE, detail JSON, seen_at TIMESTAMPTZ, note VARCHAR);
		INSERT INTO f VALUES
		  ('skipped_cycle', 12.30, 3, 0.5, '{"a": 1}', TIMESTAMPTZ '2026-11-20 10:00:00+00', 'fine'),
		  ('=HYPERLINK("http://evil.example","click")', -0.05, -7, -1.5, NULL, NULL, '-2+3');
		CREATE VIEW kinds AS SELECT kind, count(*) AS n FROM f GROUP BY kind`)
	execDuckDB(t, other, `CREATE TABLE t AS SELECT 1 AS x`)
	return dir, db, other
}

func execDuckDB(t *testing.T, path, stmts string) {
	t.Helper()
	c, err := duckdb.NewConnector(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}

// sandboxed points TMPDIR and HOME at empty folders of the test (DuckDB
// installs extensions under HOME; reconcile sql's temp folder goes under
// TMPDIR) and returns them, so a test can check they stay empty.
func sandboxed(t *testing.T) (tmp, home string) {
	t.Helper()
	tmp, home = t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("HOME", home)
	return tmp, home
}

// TestSQLRefusesWhatWouldWriteOrReachOut runs, one by one, every way a
// statement could write a file, change a database or read beyond the one
// file: each fails with an error that says why, and nothing on disk moves.
func TestSQLRefusesWhatWouldWriteOrReachOut(t *testing.T) {
	dir, db, other := analystDB(t)
	const (
		notAQuery = "reconcile sql is read-only: it runs queries"
		fileOnly  = "reads its database file only"
		locked    = "settings are fixed"
	)
	cases := []struct{ name, sql, want string }{
		{"COPY to a new file", "COPY f TO '" + dir + "/out.csv'", fileOnly},
		{"COPY over another DuckDB file", "COPY f TO '" + other + "' (FORMAT csv, USE_TMP_FILE false)", fileOnly},
		// DuckDB lets external access reach the database's own file and WAL:
		// only the statement check stops these two.
		{"COPY over the database itself", "COPY f TO '" + db + "' (FORMAT csv, USE_TMP_FILE false)", notAQuery},
		{"COPY into the database's WAL", "COPY f TO '" + db + ".wal'", notAQuery},
		{"COPY to a relative path", "COPY f TO 'out.csv'", fileOnly},
		{"EXPLAIN ANALYZE of a COPY", "EXPLAIN ANALYZE COPY f TO '" + db + ".wal'", notAQuery},
		{"PREPARE and EXECUTE a COPY", "PREPARE p AS COPY f TO '" + db + ".wal'; EXECUTE p", notAQuery},
		{"ATTACH READ_WRITE then DELETE", "ATTACH '" + other + "' AS o (READ_WRITE); DELETE FROM o.t", notAQuery},
		{"ATTACH read-only", "ATTACH '" + other + "' AS o (READ_ONLY)", notAQuery},
		{"ATTACH a new file", "ATTACH '" + dir + "/new.duckdb' AS n", notAQuery},
		{"EXPORT DATABASE", "EXPORT DATABASE '" + dir + "/export'", fileOnly},
		{"read_text of /etc/passwd", "SELECT * FROM read_text('/etc/passwd')", fileOnly},
		{"read_csv of /etc/passwd", "SELECT * FROM read_csv('/etc/passwd')", fileOnly},
		{"read_blob of /etc/passwd", "SELECT * FROM read_blob('/etc/passwd')", fileOnly},
		{"read_blob of another DuckDB file", "SELECT * FROM read_blob('" + other + "')", fileOnly},
		{"glob", "SELECT * FROM glob('/etc/*')", fileOnly},
		{"a URL", "SELECT * FROM read_csv('http://127.0.0.1:1/x.csv')", fileOnly},
		{"INSTALL", "INSTALL httpfs", notAQuery},
		{"INSTALL from a URL", "INSTALL httpfs FROM 'http://127.0.0.1:1'", notAQuery},
		{"LOAD", "LOAD httpfs", notAQuery},
		{"SET external access back on", "SET enable_external_access = true", locked},
		{"RESET external access", "RESET enable_external_access", locked},
		{"SET the lock off", "SET lock_configuration = false", locked},
		{"SET allowed directories", "SET allowed_directories = ['/']", locked},
		{"SET the temp directory", "SET temp_directory = '" + dir + "'", locked},
		{"SET profiling output", "SET profiling_output = '" + dir + "/profile.json'", locked},
		{"PRAGMA profiling output", "PRAGMA profiling_output = '" + dir + "/profile.json'", locked}, // DuckDB reads it as a SET
		{"PRAGMA enable_profiling", "PRAGMA enable_profiling", notAQuery},
		{"CALL enable_logging to a file", "CALL enable_logging(storage = 'file', storage_path = '" + dir + "/logs')", notAQuery},
		{"CHECKPOINT", "CHECKPOINT", notAQuery},
		{"CREATE TABLE", "CREATE TABLE z (a INTEGER)", notAQuery},
		{"CREATE TEMP TABLE", "CREATE TEMP TABLE z AS SELECT 1", notAQuery},
		{"INSERT", "INSERT INTO f (kind) VALUES ('x')", notAQuery},
		{"UPDATE", "UPDATE f SET note = 'x'", notAQuery},
		{"DELETE", "DELETE FROM f", notAQuery},
		{"DROP", "DROP VIEW kinds", notAQuery},
		{"a query, then a COPY", "SELECT 1; COPY f TO '" + db + ".wal'", notAQuery},
		{"a COPY behind a semicolon in a comment and a string", "SELECT 'a;b' /* ; */ -- ;\n; COPY f TO '" + db + ".wal'", notAQuery},
		{"a COPY behind a dollar-quoted string", "SELECT $$ ; $$; COPY f TO '" + db + ".wal'", notAQuery},
		{"a COPY inside an E-string is text", `SELECT E'\'; COPY f TO '` + db + `.wal'; --'`, "Catalog Error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp, home := sandboxed(t)
			before := clitest.Tree(t, dir)
			code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, c.sql)
			if code != cli.ExitFailed || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, c.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if d := clitest.DiffTrees(before, clitest.Tree(t, dir)); len(d) > 0 {
				t.Errorf("the statement changed the disk:\n  %s", strings.Join(d, "\n  "))
			}
			for _, empty := range []string{tmp, home} {
				if names, _ := os.ReadDir(empty); len(names) > 0 {
					t.Errorf("%s is not empty: %v", empty, names)
				}
			}
			if _, err := os.Stat("out.csv"); err == nil {
				os.Remove("out.csv")
				t.Error("a COPY wrote out.csv in the working directory")
			}
		})
	}
}

// TestSQLSettingsTakeEffect reads DuckDB's settings through reconcile sql:
// each one the lockdown sets is in force, and the only folder external
// access may reach is reconcile sql's own temp folder, which is gone after.
func TestSQLSettingsTakeEffect(t *testing.T) {
	_, db, _ := analystDB(t)
	tmp, _ := sandboxed(t)
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "json",
		`SELECT current_setting('access_mode') AS access_mode,
		        current_setting('enable_external_access') AS external_access,
		        current_setting('lock_configuration') AS locked,
		        current_setting('autoinstall_known_extensions') AS autoinstall,
		        current_setting('autoload_known_extensions') AS autoload,
		        current_setting('temp_directory') AS temp_directory,
		        current_setting('allowed_directories') AS allowed_directories`)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		AccessMode         string   `json:"access_mode"`
		ExternalAccess     bool     `json:"external_access"`
		Locked             bool     `json:"locked"`
		Autoinstall        bool     `json:"autoinstall"`
		Autoload           bool     `json:"autoload"`
		TempDirectory      string   `json:"temp_directory"`
		AllowedDirectories []string `json:"allowed_directories"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("%v: %s", err, stdout)
	}
	s := rows[0]
	if s.AccessMode != "read_only" || s.ExternalAccess || !s.Locked || s.Autoinstall || s.Autoload {
		t.Errorf("settings: %+v", s)
	}
	if filepath.Dir(s.TempDirectory) != tmp || len(s.AllowedDirectories) != 1 ||
		filepath.Clean(s.AllowedDirectories[0]) != s.TempDirectory {
		t.Errorf("temp directory %q, allowed directories %q: want only a folder of its own under %s",
			s.TempDirectory, s.AllowedDirectories, tmp)
	}
	if _, err := os.Stat(s.TempDirectory); !os.IsNotExist(err) {
		t.Errorf("the temp folder %s outlived the command: %v", s.TempDirectory, err)
	}
}

// TestSQLAnalystQueries: what analysts run still works under the lockdown.
func TestSQLAnalystQueries(t *testing.T) {
	dir, db, _ := analystDB(t)
	before := clitest.Tree(t, dir)
	truth := filepath.Join(t.TempDir(), "truth.json")
	if err := os.WriteFile(truth, []byte(`{"businessDate": "2026-11-20", "n": 2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	queryFile := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(queryFile, []byte("-- a file of two statements\nSET VARIABLE k = 'skipped_cycle';\nSELECT n FROM kinds WHERE kind = getvariable('k');\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a table", []string{"SELECT kind, amount FROM f ORDER BY amount DESC"}, "skipped_cycle"},
		{"a view", []string{"SELECT n FROM kinds WHERE kind = 'skipped_cycle'"}, "1"},
		{"FROM first", []string{"FROM f SELECT count(*) AS rows"}, "2"},
		{"SHOW TABLES", []string{"SHOW TABLES"}, "kinds"},
		{"DESCRIBE", []string{"DESCRIBE f"}, "DECIMAL(18,2)"},
		{"SUMMARIZE", []string{"SUMMARIZE f"}, "amount"},
		{"PRAGMA show_tables", []string{"PRAGMA show_tables"}, "kinds"},
		{"PIVOT with its IN list", []string{"PIVOT f ON kind IN ('skipped_cycle') USING count(*)"}, "skipped_cycle"},
		{"SET VARIABLE, then a query using it", []string{"SET VARIABLE d = DATE '2026-11-20'; SELECT count(*) AS c FROM f WHERE seen_at::DATE = getvariable('d')"}, "c"},
		{"semicolons in strings and comments", []string{"SELECT 'a;b' AS s /* ; */; -- last;\n"}, "a;b"},
		{"--file with two statements", []string{"--file", queryFile}, "1"},
		{"--var from a file", []string{"--var", "truth=@" + truth, "SELECT getvariable('truth')::JSON ->> 'businessDate' AS d"}, "2026-11-20"},
		{"--var with a value", []string{"--var", "k=skipped_cycle", "SELECT count(*) AS c FROM f WHERE kind = getvariable('k')"}, "1"},
		{"--tables", []string{"--tables"}, "kinds"},
		{"--tables TABLE", []string{"--tables", "f"}, "amount"},
		{"csv", []string{"--format", "csv", "SELECT kind FROM f ORDER BY kind"}, "kind\n"},
		{"json", []string{"--format", "json", "SELECT kind FROM f ORDER BY kind"}, `"kind": "skipped_cycle"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := clitest.RunCLI(t, nil, append([]string{"sql", "--db", db}, c.args...)...)
			if code != cli.ExitOK || !strings.Contains(stdout, c.want) {
				t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant %q", code, stdout, stderr, c.want)
			}
		})
	}
	if d := clitest.DiffTrees(before, clitest.Tree(t, dir)); len(d) > 0 {
		t.Errorf("queries changed the disk:\n  %s", strings.Join(d, "\n  "))
	}
	for _, bad := range []string{"1x=2", "x", "a-b=1", "x=@" + filepath.Join(dir, "nosuch")} {
		if code, _, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--var", bad, "SELECT 1"); code != cli.ExitFailed || !strings.Contains(stderr, "--var") {
			t.Errorf("--var %s: exit %d, %q", bad, code, stderr)
		}
	}
	if code, _, stderr := clitest.RunCLI(t, nil, "sql", "--db", filepath.Join(dir, "a#b.duckdb"), "SELECT 1"); code != cli.ExitFailed || !strings.Contains(stderr, "'#'") {
		t.Errorf("a path with #: exit %d, %q", code, stderr)
	}
}

// TestSQLCheckRefusesTwoStatementsInOnePiece: were the splitter to leave
// two statements in one piece, DuckDB's parser sees both and the piece is
// refused whole, so a statement never runs unchecked.
func TestSQLCheckRefusesTwoStatementsInOnePiece(t *testing.T) {
	dir, db, _ := analystDB(t)
	sandboxed(t)
	before := clitest.Tree(t, dir)
	conn, err := sqlguard.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.CheckQuery("SELECT 1; COPY f TO '" + db + ".wal'")
	if err == nil || !strings.Contains(err.Error(), "more than one statement") {
		t.Errorf("got %v, want a refusal naming more than one statement", err)
	}
	if d := clitest.DiffTrees(before, clitest.Tree(t, dir)); len(d) > 0 {
		t.Errorf("the check changed the disk:\n  %s", strings.Join(d, "\n  "))
	}
}
