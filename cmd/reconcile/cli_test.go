package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

func TestConfigLayers(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "reconcile.yaml")
	os.WriteFile(cfg, []byte("lookback: 5\nrate: 7\ngroups: [1001, 1002]\ndate: 2026-11-20\n"), 0o600)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	lookback := fs.Int("lookback", 3, "")
	rate := fs.Float64("rate", 20, "")
	groups := fs.String("groups", "", "")
	date := fs.String("date", "", "")
	conc := fs.Int("concurrency", 8, "")
	if err := fs.Parse([]string{"--rate", "9"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RECONCILE_LOOKBACK": "4", "RECONCILE_RATE": "8"}
	if err := applyLayers(fs, func(k string) string { return env[k] }, cfg); err != nil {
		t.Fatal(err)
	}
	if *rate != 9 {
		t.Errorf("rate = %v: the flag must win over env and file", *rate)
	}
	if *lookback != 4 {
		t.Errorf("lookback = %v: env must win over the file", *lookback)
	}
	if *groups != "1001,1002" || *date != "2026-11-20" {
		t.Errorf("from the file: groups %q, date %q", *groups, *date)
	}
	if *conc != 8 {
		t.Errorf("concurrency = %v: the default must stay", *conc)
	}
	os.WriteFile(cfg, []byte("lookbak: 5\n"), 0o600)
	if err := applyLayers(fs, func(string) string { return "" }, cfg); err == nil || !strings.Contains(err.Error(), "lookbak") {
		t.Errorf("a misspelt setting must be an error naming it, got %v", err)
	}
}

func testDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE TABLE f (kind VARCHAR, amount DECIMAL(18,2), detail JSON, seen_at TIMESTAMPTZ);
		INSERT INTO f VALUES ('skipped_cycle', 12.30, '{"a": 1}', TIMESTAMPTZ '2026-11-20 10:00:00+00'),
		                     ('=cmd|x', -0.05, NULL, NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

func TestSQLFormats(t *testing.T) {
	path := testDB(t)
	var out bytes.Buffer
	if err := runSQL(context.Background(), path, "csv", "SELECT kind, amount, detail, seen_at FROM f ORDER BY kind DESC", &out); err != nil {
		t.Fatal(err)
	}
	want := "kind,amount,detail,seen_at\nskipped_cycle,12.30,\"{\"\"a\"\":1}\",2026-11-20T10:00:00Z\n=cmd|x,-0.05,,\n"
	if out.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := runSQL(context.Background(), path, "json", "SELECT kind, amount FROM f ORDER BY kind DESC", &out); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("json output does not parse: %v\n%s", err, out.String())
	}
	if len(rows) != 2 || rows[0]["kind"] != "skipped_cycle" || rows[0]["amount"] != 12.3 {
		t.Errorf("json rows: %v", rows)
	}
	out.Reset()
	if err := runSQL(context.Background(), path, "table", "SELECT kind, amount FROM f ORDER BY kind DESC", &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "skipped_cycle  12.30") {
		t.Errorf("table output:\n%s", out.String())
	}
}

func TestSQLIsReadOnly(t *testing.T) {
	path := testDB(t)
	err := runSQL(context.Background(), path, "table", "DELETE FROM f", io.Discard)
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write must fail with a read-only error, got %v", err)
	}
	var n int
	db, _ := sql.Open("duckdb", path+"?access_mode=read_only")
	defer db.Close()
	db.QueryRow("SELECT count(*) FROM f").Scan(&n)
	if n != 2 {
		t.Errorf("%d rows left after a refused DELETE", n)
	}
}

func TestRunNeedsCredentialsForARealPlatform(t *testing.T) {
	code, _, stderr := runCLI(t, nil, "run", "--base-url", "http://127.0.0.1:1", "--organization-id", "o",
		"--db", filepath.Join(t.TempDir(), "x.duckdb"))
	if code != exitFailed || !strings.Contains(stderr, "no credentials") {
		t.Errorf("exit %d, stderr %q: want 1 and a message about credentials", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	if code, _, stderr := runCLI(t, nil, "frobnicate"); code != exitFailed || !strings.Contains(stderr, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := runCLI(t, nil, "version"); code != exitOK || !strings.HasPrefix(stdout, "reconcile ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}
