package operator

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/store"
)

// A working file as a run leaves it: the schema, its comments, no data.
func schemaDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.duckdb")
	s, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSQLTables(t *testing.T) {
	db := schemaDB(t)
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--tables")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"findings  ", "table", "current_findings", "view", "What the checks found", "finding_kinds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--tables: no %q in\n%s", want, stdout)
		}
	}
	code, stdout, stderr = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "json", "--tables", "findings")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var cols []map[string]string
	if err := json.Unmarshal([]byte(stdout), &cols); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	byName := map[string]map[string]string{}
	for _, c := range cols {
		byName[c["column"]] = c
		if c["description"] == "" {
			t.Errorf("findings.%s has no description", c["column"])
		}
	}
	if c := byName["state"]; c == nil || !strings.Contains(c["description"], "resolved") || c["type"] != "VARCHAR" {
		t.Errorf("findings.state: %v", c)
	}
	if c := byName["amount"]; c == nil || c["type"] != "DECIMAL(18,3)" {
		t.Errorf("findings.amount: %v", c)
	}
	code, _, stderr = clitest.RunCLI(t, nil, "sql", "--db", db, "--tables", "nosuch")
	if code != cli.ExitFailed || !strings.Contains(stderr, `no table or view "nosuch"`) {
		t.Errorf("unknown table: exit %d, %q", code, stderr)
	}
	code, stdout, _ = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv", "--tables")
	if code != cli.ExitOK || !strings.HasPrefix(stdout, "name,type,description\n") {
		t.Errorf("csv: exit %d\n%s", code, stdout)
	}
}
