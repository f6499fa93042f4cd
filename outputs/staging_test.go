package outputs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestStagingRemovesStaleLeftovers: a publish removes what crashed runs
// left beside the outputs (staging folders, a previous folder set aside,
// a temp link) once untouched for a day, and leaves alone a live run's
// staging folder (another process sharing the folder), the published
// folders and anything not named like a temp of ours.
func TestStagingRemovesStaleLeftovers(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out")
	old := time.Now().Add(-staleAfter - time.Hour)
	age := func(name string) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(root, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".2026-11-18.tmp-123456", ".2026-11-19.old.tmp-abcdefghijkl", ".2026-11-21.tmp-654321", "2026-11-17", ".keep.tmp-", "notes.tmp-1"} {
		writeFile(t, filepath.Join(root, name, "data_0.parquet"), "x")
	}
	writeFile(t, filepath.Join(root, ".current.duckdb.tmp-abcdefghijkl"), "a temp link's stand-in")
	for _, name := range []string{".2026-11-18.tmp-123456", ".2026-11-19.old.tmp-abcdefghijkl", ".current.duckdb.tmp-abcdefghijkl", "2026-11-17", ".keep.tmp-", "notes.tmp-1"} {
		age(name)
	}
	s, err := NewStaging(root, "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	want := []string{".2026-11-21.tmp-654321", ".keep.tmp-", "2026-11-17", "notes.tmp-1", filepath.Base(s.Dir)}
	slices.Sort(want)
	if got := listDir(t, root); !slices.Equal(got, want) {
		t.Errorf("after NewStaging the folder holds %v, want %v", got, want)
	}
}

func TestTempNamesAreUnique(t *testing.T) {
	dir := t.TempDir()
	seen := map[string]bool{}
	for range 1000 {
		n := TempName(dir, "current.duckdb")
		if seen[n] || !isTempName(filepath.Base(n)) || filepath.Dir(n) != dir {
			t.Fatalf("TempName gave %s (seen before: %v)", n, seen[n])
		}
		seen[n] = true
	}
}
