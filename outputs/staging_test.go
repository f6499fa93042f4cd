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
	// The previous folder of 2026-11-19 set aside, with no 2026-11-19 in
	// place, is an interrupted swap: it is put back, not removed
	// (TestStagingRecoversAnInterruptedSwap).
	want := []string{".2026-11-21.tmp-654321", ".keep.tmp-", "2026-11-17", "2026-11-19", "notes.tmp-1", filepath.Base(s.Dir)}
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

// TestStagingRecoversAnInterruptedSwap: a kill between the two renames of a
// swap (the previous folder set aside, the new one not yet in) leaves no
// folder for the date; the next publish in the same root, of any date, puts
// the previous folder back before it cleans anything, so the date keeps its
// publication and the links into it resolve again. Aside folders of a date
// that is in place (a completed swap) are left to removeStale.
func TestStagingRecoversAnInterruptedSwap(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Join(root, ".2026-11-19.old.tmp-aaaaaaaaaaaa", "workbook.xlsx"), "older")
	writeFile(t, filepath.Join(root, ".2026-11-19.old.tmp-bbbbbbbbbbbb", "workbook.xlsx"), "newest")
	older := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, ".2026-11-19.old.tmp-aaaaaaaaaaaa"), older, older); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "2026-11-20", "workbook.xlsx"), "published")
	writeFile(t, filepath.Join(root, ".2026-11-20.old.tmp-cccccccccccc", "workbook.xlsx"), "replaced")
	// A day later, the next night's run publishes another date.
	s, err := NewStaging(root, "2026-11-21")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	if b, err := os.ReadFile(filepath.Join(root, "2026-11-19", "workbook.xlsx")); err != nil || string(b) != "newest" {
		t.Errorf("2026-11-19 after an interrupted swap: %q, %v; want the newest folder set aside put back", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "2026-11-20", "workbook.xlsx")); err != nil || string(b) != "published" {
		t.Errorf("2026-11-20 (swap completed): %q, %v; want it untouched", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, ".2026-11-20.old.tmp-cccccccccccc")); err != nil {
		t.Errorf("the aside folder of a completed swap should be left for removeStale: %v", err)
	}
}

// TestPublishReplacesAFolderWholly: publishing over an existing folder
// leaves exactly the new folder's contents and nothing set aside, by the
// one-step exchange where the kernel has it.
func TestPublishReplacesAFolderWholly(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out")
	writeFile(t, filepath.Join(root, "2026-11-20", "old.xlsx"), "old")
	s, err := NewStaging(root, "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.Dir, "new.xlsx"), "new")
	if err := s.Publish(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, filepath.Join(root, "2026-11-20")); !slices.Equal(got, []string{"new.xlsx"}) {
		t.Errorf("published folder holds %v, want [new.xlsx]", got)
	}
	if got := listDir(t, root); !slices.Equal(got, []string{"2026-11-20"}) {
		t.Errorf("root holds %v after the publish, want only the published folder", got)
	}
}
