package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
