package cliflags

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aSecret is a base64 shared secret as an operator could paste it by
// mistake where a path belongs.
const aSecret = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVk"

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
	if err := ApplyLayers(fs, func(k string) string { return env[k] }, cfg); err != nil {
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
	if err := ApplyLayers(fs, func(string) string { return "" }, cfg); err == nil || !strings.Contains(err.Error(), "lookbak") {
		t.Errorf("a misspelt setting must be an error naming it, got %v", err)
	}
}

// TestLayeredSecretsAreNeverEchoed: an error about a setting names the
// setting and where its value came from; it shows the value unless the
// setting may hold a secret or say where one is.
func TestLayeredSecretsAreNeverEchoed(t *testing.T) {
	newFlags := func() *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.String("secret-file", "", "")
		fs.Bool("p12-password-required", false, "") // secret-bearing by its name, and typed: its value can fail to parse
		fs.Func("db-key-file", "", func(string) error { return errors.New("not a key file") })
		fs.Float64("rate", 20, "")
		return fs
	}
	cfg := filepath.Join(t.TempDir(), "reconcile.yaml")
	cases := []struct {
		name, env, file, want string
	}{
		{"a typed secret from the environment", "RECONCILE_P12_PASSWORD_REQUIRED=" + aSecret, "", "environment RECONCILE_P12_PASSWORD_REQUIRED: invalid value"},
		{"a typed secret from the config file", "", "p12-password-required: " + aSecret, "config " + cfg + ": p12-password-required: invalid value"},
		{"a key file from the environment", "RECONCILE_DB_KEY_FILE=" + aSecret, "", "environment RECONCILE_DB_KEY_FILE: invalid value"},
		{"a key file from the config file", "", "db-key-file: " + aSecret, "config " + cfg + ": db-key-file: invalid value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(cfg, []byte(c.file+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			k, v, _ := strings.Cut(c.env, "=")
			err := ApplyLayers(newFlags(), func(name string) string { return map[string]string{k: v}[name] }, cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), aSecret) {
				t.Errorf("got %v; want an error with %q and without the value", err, c.want)
			}
		})
	}
	err := ApplyLayers(newFlags(), func(name string) string { return map[string]string{"RECONCILE_RATE": "fast"}[name] }, "")
	if err == nil || !strings.Contains(err.Error(), `RECONCILE_RATE="fast"`) {
		t.Errorf("a harmless setting's bad value is shown: %v", err)
	}
	fs := newFlags()
	if err := ApplyLayers(fs, func(name string) string { return map[string]string{"RECONCILE_SECRET_FILE": aSecret}[name] }, ""); err != nil || fs.Lookup("secret-file").Value.String() != aSecret {
		t.Errorf("a string setting takes any value (the file is read later): %v", err)
	}
	for name, want := range map[string]bool{"secret-file": true, "p12-file": true, "p12-password-file": true, "key-file": true,
		"api-token": true, "key-id": false, "rate": false, "journal": false, "metrics-file": false} {
		if IsSecretSetting(name) != want {
			t.Errorf("IsSecretSetting(%q) = %v", name, !want)
		}
	}
}
