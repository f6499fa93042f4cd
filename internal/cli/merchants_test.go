package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/groups"
)

// TestMerchantsSetting: --merchants from the config file, as a list or as
// a string, reads as from the command line; MIDs are trimmed, taken once
// and otherwise kept as written; a file's comments and blank lines are
// skipped; a line holding two MIDs is refused.
func TestMerchantsSetting(t *testing.T) {
	dir := t.TempDir()
	for name, yaml := range map[string]string{
		"list":   "merchants:\n  - sbxmid000002\n  - \" sbxmid000005\"\n  - sbxmid000002\n",
		"string": "merchants: sbxmid000002, sbxmid000005\n",
	} {
		cfg := filepath.Join(dir, name+".yaml")
		os.WriteFile(cfg, []byte(yaml), 0o600)
		o, err := parseRunFlags("run", "", "", "", []string{"--config", cfg}, Env{Getenv: func(string) string { return "" }}, nil)
		if err != nil {
			t.Fatal(err)
		}
		mids, err := groups.ReadMerchants(o.merchants)
		if err != nil || fmt.Sprint(mids) != "[sbxmid000002 sbxmid000005]" {
			t.Errorf("%s: %v %v", name, mids, err)
		}
	}
	file := filepath.Join(dir, "mids.txt")
	os.WriteFile(file, []byte("# header\r\n00123 \r\n\n  # indented comment\nAbC-9 # trailing comment\n00123\n"), 0o600)
	if mids, err := groups.ReadMerchants("@" + file); err != nil || fmt.Sprint(mids) != "[00123 AbC-9]" {
		t.Errorf("file: %v %v", mids, err)
	}
	os.WriteFile(file, []byte("m1\nm2 m3\n"), 0o600)
	if _, err := groups.ReadMerchants("@" + file); err == nil || !strings.Contains(err.Error(), `line 2: "m2 m3" is not one merchant ID`) {
		t.Errorf("two MIDs on a line: %v", err)
	}
	if _, err := groups.ReadMerchants("@" + filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("a missing file accepted")
	}
}
