//go:build linux

package outputs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExchangeSwapsFoldersInOneStep: on Linux the publish swap is one
// renameat2(RENAME_EXCHANGE), so neither path is ever missing.
func TestExchangeSwapsFoldersInOneStep(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, filepath.Join(a, "f"), "from a")
	writeFile(t, filepath.Join(b, "f"), "from b")
	ok, err := exchange(a, b)
	if err != nil || !ok {
		t.Fatalf("exchange on a local file system: ok %v, err %v; want an exchange", ok, err)
	}
	for path, want := range map[string]string{a: "from b", b: "from a"} {
		if got, err := os.ReadFile(filepath.Join(path, "f")); err != nil || string(got) != want {
			t.Errorf("%s/f after the exchange: %q, %v; want %q", path, got, err, want)
		}
	}
}
