package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWriteManifest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"reconcile-2026-11-20.xlsx":                                   "xlsx bytes",
		"parquet/findings/kind=skipped_cycle/data_0.parquet":          "parquet 1",
		"parquet/findings/kind=amount_mismatch/data_0.parquet":        "parquet 2",
		"reconcile.duckdb":                                            strings.Repeat("d", 100_000),
		"parquet/transactions.parquet":                                "",
		"parquet/findings/kind=level3_not_transmitted/data_0.parquet": "parquet 3",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	writeFile(t, filepath.Join(dir, ManifestName), "stale manifest of an earlier attempt")
	if err := os.Symlink("reconcile.duckdb", filepath.Join(dir, "link.duckdb")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)

	m := Manifest{
		RunID:          "run-1",
		BusinessDate:   "2026-11-20",
		WindowStart:    "2026-11-17T00:00:00Z",
		WindowEnd:      "2026-11-21T00:00:00Z",
		Status:         "partial",
		Members:        map[string]int{"ok": 9, "failed": 1},
		FindingsByKind: map[string]int64{"skipped_cycle": 3},
	}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	var got Manifest
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.RunID != "run-1" || got.WindowEnd != m.WindowEnd || got.Members["failed"] != 1 || got.FindingsByKind["skipped_cycle"] != 3 {
		t.Errorf("manifest fields not kept: %+v", got)
	}
	var generic map[string]any
	_ = json.Unmarshal(raw, &generic)
	for _, key := range []string{"rowCounts", "versions"} {
		if v, ok := generic[key].(map[string]any); !ok || len(v) != 0 {
			t.Errorf("%s = %#v, want {} for an unset map", key, generic[key])
		}
	}
	if !strings.Contains(string(raw), "\n  \"runId\"") {
		t.Error("manifest is not indented")
	}

	var paths []string
	for _, f := range got.Files {
		paths = append(paths, f.Path)
		content, ok := files[f.Path]
		if !ok {
			t.Errorf("unexpected file %q listed", f.Path)
			continue
		}
		sum := sha256.Sum256([]byte(content))
		if f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: sha256 %s does not match the file", f.Path, f.SHA256)
		}
		if f.Bytes != int64(len(content)) {
			t.Errorf("%s: %d bytes, file has %d", f.Path, f.Bytes, len(content))
		}
	}
	if !slices.IsSorted(paths) {
		t.Errorf("files not sorted: %v", paths)
	}
	if len(paths) != len(files) {
		t.Errorf("listed %v, want the %d regular files (no manifest.json, no symlink)", paths, len(files))
	}
	if names := listDir(t, dir); slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ".tmp-") }) {
		t.Errorf("temp file left: %v", names)
	}
}

func TestStaging(t *testing.T) {
	root := filepath.Join(t.TempDir(), "out")

	// Publish when nothing is there yet.
	s, err := NewStaging(root, "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.Dir) != root || !strings.HasPrefix(filepath.Base(s.Dir), ".2026-11-20.tmp-") {
		t.Errorf("staging dir %s is not a hidden sibling of the final folder", s.Dir)
	}
	if s.Final() != filepath.Join(root, "2026-11-20") {
		t.Errorf("Final = %s", s.Final())
	}
	if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != publishedDirMode() {
		t.Errorf("staging dir mode %v, want %v", fi.Mode().Perm(), publishedDirMode())
	}
	writeFile(t, filepath.Join(s.Dir, "a.txt"), "first")
	if err := s.Publish(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Final(), "a.txt")); string(b) != "first" {
		t.Errorf("published a.txt = %q", b)
	}
	if err := s.Abort(); err != nil {
		t.Errorf("Abort after Publish: %v", err)
	}
	if _, err := os.Stat(s.Final()); err != nil {
		t.Error("Abort after Publish removed the published folder")
	}
	if err := s.Publish(); err == nil {
		t.Error("second Publish did not fail")
	}

	// Publish over an existing folder: replaced whole, old files gone.
	s2, err := NewStaging(root, "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s2.Dir, "b.txt"), "second")
	if err := s2.Publish(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, s2.Final()); !slices.Equal(got, []string{"b.txt"}) {
		t.Errorf("after republish the folder holds %v, want [b.txt]", got)
	}
	if got := listDir(t, root); !slices.Equal(got, []string{"2026-11-20"}) {
		t.Errorf("root holds %v, want only the published folder", got)
	}

	// Abort removes the staging folder and leaves the published one.
	s3, err := NewStaging(root, "2026-11-20")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s3.Dir, "sub", "c.txt"), "third")
	if err := s3.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s3.Dir); !os.IsNotExist(err) {
		t.Errorf("staging dir still there after Abort: %v", err)
	}
	if got := listDir(t, root); !slices.Equal(got, []string{"2026-11-20"}) {
		t.Errorf("root holds %v after Abort", got)
	}
	if got := listDir(t, s3.Final()); !slices.Equal(got, []string{"b.txt"}) {
		t.Errorf("Abort touched the published folder: %v", got)
	}

	for _, bad := range []string{"", ".", "..", "a/b"} {
		if _, err := NewStaging(root, bad); err == nil {
			t.Errorf("NewStaging(%q) did not fail", bad)
		}
	}
}

// ReadManifest reads back what WriteManifest wrote, with the hash of its
// bytes; CheckFile holds a file to its entry, so a copy cut short or
// changed is caught; a file too large to be a manifest is refused
// unread.
func TestReadManifestAndCheckFile(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "reconcile-2026-11-20.duckdb")
	writeFile(t, snap, strings.Repeat("s", 4096))
	want := Manifest{RunID: "2026-11-20", BusinessDate: "2026-11-20", Status: "ok", Shard: "1/4",
		Settings: map[string]string{"lookback": "3"}}
	if err := WriteManifest(dir, want); err != nil {
		t.Fatal(err)
	}
	got, sum, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	if h := sha256.Sum256(raw); sum != hex.EncodeToString(h[:]) {
		t.Errorf("ReadManifest's hash %s is not the file's", sum)
	}
	if got.Shard != "1/4" || got.Settings["lookback"] != "3" || got.RunID != want.RunID {
		t.Errorf("read back %+v", got)
	}
	entry, ok := got.File("reconcile-2026-11-20.duckdb")
	if !ok {
		t.Fatalf("no entry for the snapshot in %+v", got.Files)
	}
	if _, ok := got.File("other.duckdb"); ok {
		t.Error("an entry for a file the folder does not hold")
	}
	if err := CheckFile(snap, entry); err != nil {
		t.Errorf("the file as written: %v", err)
	}
	for name, change := range map[string]string{"cut short": strings.Repeat("s", 4000), "changed": strings.Repeat("t", 4096)} {
		writeFile(t, snap, change)
		if err := CheckFile(snap, entry); err == nil || !strings.Contains(err.Error(), "its manifest says") {
			t.Errorf("a file %s: %v", name, err)
		}
	}

	big := t.TempDir()
	writeFile(t, filepath.Join(big, ManifestName), `{"runId": "`+strings.Repeat("x", maxManifest)+`"}`)
	if _, _, err := ReadManifest(big); err == nil || !strings.Contains(err.Error(), "not a manifest") {
		t.Errorf("an oversized manifest: %v", err)
	}
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, ManifestName), `{"runId": 7}`)
	if _, _, err := ReadManifest(bad); err == nil {
		t.Error("a manifest of the wrong types read")
	}
}
