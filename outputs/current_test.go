package outputs

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPointCurrentConcurrently: runs that publish into the same output
// folder at once each make their link under a name of their own, so none
// fails on or replaces another's half-made link, and none is left behind.
func TestPointCurrentConcurrently(t *testing.T) {
	out := t.TempDir()
	dates := []string{"2026-11-18", "2026-11-19", "2026-11-20"}
	snapshot := func(d string) string { return filepath.Join(out, d, "reconcile-"+d+".duckdb") }
	for _, d := range dates {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(snapshot(d), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for i := range 300 {
		wg.Go(func() {
			if _, err := PointCurrent(out, snapshot(dates[i%len(dates)])); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := PointCurrent(out, snapshot("2026-11-20")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, CurrentName)); err != nil || string(b) != "2026-11-20" {
		t.Errorf("current.duckdb reads %q, %v; want the latest snapshot", b, err)
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp link left behind: %s", e.Name())
		}
	}
}

// TestPointCurrentKeepsTheLatestDate: re-publishing an earlier business
// date leaves current.duckdb on the later one, and a snapshot outside the
// output folder is refused (the link is relative to it).
func TestPointCurrentKeepsTheLatestDate(t *testing.T) {
	out := t.TempDir()
	for _, d := range []string{"2026-11-19", "2026-11-20"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, d, "reconcile-"+d+".duckdb"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"2026-11-20", "2026-11-19"} {
		link, err := PointCurrent(out, filepath.Join(out, d, "reconcile-"+d+".duckdb"))
		if err != nil || link != filepath.Join(out, CurrentName) {
			t.Fatalf("PointCurrent(%s) = %q, %v", d, link, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, CurrentName)); err != nil || string(b) != "2026-11-20" {
		t.Errorf("current.duckdb reads %q, %v after re-publishing 2026-11-19; want 2026-11-20's snapshot", b, err)
	}
	if _, err := PointCurrent(out, filepath.Join(t.TempDir(), "2026-11-21", "x.duckdb")); err == nil {
		t.Error("a snapshot outside the output folder was linked")
	}
}
