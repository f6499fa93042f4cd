package process

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/outputs"
)

// TestPublishedFilesFollowTheUmask runs reconcile under umask 027 (in a
// process of its own: the umask is the process's): every file it publishes
// (workbook, Parquet, manifest, snapshot, the one current.duckdb points at)
// is 0640 and every folder 0750, so other users read none of the customers'
// names and e-mail addresses they hold.
func TestPublishedFilesFollowTheUmask(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: skipped with -short")
	}
	work := t.TempDir()
	out := filepath.Join(work, "out")
	cmd := exec.Command("/bin/sh", "-c", `umask 027 && exec "$0" "$@"`, clitest.ReconcileBinary(t),
		"run", "--db", filepath.Join(work, "r.duckdb"), "--out", out, "--date", "2026-11-20", "--progress", "never")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	day := filepath.Join(out, "2026-11-20")
	var files, dirs int
	err := filepath.WalkDir(day, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o640)
		if d.IsDir() {
			want, dirs = 0o750, dirs+1
		} else {
			files++
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 || dirs < 5 {
		t.Errorf("only %d files and %d folders published: the test checked too little", files, dirs)
	}
	for p, want := range map[string]os.FileMode{out: 0o750, filepath.Join(out, outputs.CurrentName): 0o640} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %v", p, info.Mode().Perm(), err, want)
		}
	}
}
