package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ManifestName is the manifest's file name inside an output folder.
const ManifestName = "manifest.json"

// ManifestFile is one published file: its path relative to the output folder
// (slash-separated on every OS, so a manifest reads the same everywhere), its
// size and its SHA-256 in lower-case hex, so a consumer can check a copy.
type ManifestFile struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ManifestShard is one shard of a merged publication (`reconcile merge`):
// which part of the members it was (i/n), its status ("ok", "partial", or
// "missing" for one the merge was allowed to leave out, with the reason),
// where its publication was read, and what it said of itself.
type ManifestShard struct {
	Shard       string         `json:"shard"`
	Status      string         `json:"status"`
	Reason      string         `json:"reason,omitempty"`
	Folder      string         `json:"folder,omitempty"`
	Members     map[string]int `json:"members,omitempty"`
	FinishedAt  string         `json:"finishedAt,omitempty"`
	PreviousRun string         `json:"previousRun,omitempty"`
	Version     string         `json:"version,omitempty"`
	// ManifestSHA256 is the SHA-256 of the shard's manifest.json as the
	// merge read it, which in turn holds its snapshot's.
	ManifestSHA256 string `json:"manifestSha256,omitempty"`
}

// ManifestAlarm is an alarm a run raised: the rule's name, the finding kind
// and currency it concerns (none for the run's own rules), the value
// measured, the limit it passed, and the message people read.
type ManifestAlarm struct {
	Name     string  `json:"name"`
	Kind     string  `json:"kind,omitempty"`
	Currency string  `json:"currency,omitempty"`
	Value    float64 `json:"value"`
	Limit    float64 `json:"limit"`
	Message  string  `json:"message"`
}

// ManifestKey is a key the run used, by its id and expiry (RFC 3339 UTC;
// DaysLeft whole days at the run's start, negative once expired): never
// any of its material. NotAfter is empty when the key came without a
// certificate.
type ManifestKey struct {
	KeyID    string `json:"kid"`
	NotAfter string `json:"notAfter,omitempty"`
	DaysLeft *int   `json:"daysLeft,omitempty"`
}

// Manifest describes one published run. Consumers (warehouse loaders, the
// next run, an auditor) read it instead of listing the folder, so it is the
// contract of what the folder holds.
type Manifest struct {
	RunID        string `json:"runId"`
	BusinessDate string `json:"businessDate"`
	WindowStart  string `json:"windowStart"`
	WindowEnd    string `json:"windowEnd"` // the cut-off
	StartedAt    string `json:"startedAt"`
	FinishedAt   string `json:"finishedAt"`
	Status       string `json:"status"` // ok, partial
	// Shard is the part of the members the run took (--shard i/n; 0/1 for
	// all of them). A merged publication has none: it lists its Shards.
	Shard string `json:"shard,omitempty"`
	// Settings are the run's settings that the shards of a date must share
	// for `reconcile merge` to combine them, by flag name (a rate table by
	// its content's hash).
	Settings map[string]string `json:"settings,omitempty"`
	// Shards are, in a merged publication, every shard of the date and its
	// status.
	Shards []ManifestShard `json:"shards,omitempty"`
	// Source is where the data came from: "platform", or "sandbox" for
	// the embedded sandbox's simulated data.
	Source         string           `json:"source"`
	Members        map[string]int   `json:"members"`        // ok (reconciled for the date) / failed; already_done: of ok, by an earlier attempt
	RowCounts      map[string]int64 `json:"rowCounts"`      // per table
	FindingsByKind map[string]int64 `json:"findingsByKind"` // the run's findings (new and open) per kind
	// FindingsByState splits them by state against the previous run:
	// "new", "open" and "resolved" (gone since PreviousRun), each per kind.
	FindingsByState map[string]map[string]int64 `json:"findingsByState"`
	PreviousRun     string                      `json:"previousRun,omitempty"` // the run compared with
	// Alarms are the alarms the run raised (--alarms); empty when none was.
	Alarms []ManifestAlarm `json:"alarms"`
	// ResponseMLEKey is the response MLE key the run read encrypted
	// answers with (--response-mle-key): its kid and expiry, so that a
	// monitor sees it coming; absent without one.
	ResponseMLEKey *ManifestKey `json:"responseMleKey,omitempty"`
	// Requests is the run's request accounting (requests.go); a merged
	// publication has none (each shard's manifest has its own).
	Requests *ManifestRequests `json:"requests,omitempty"`
	Versions map[string]string `json:"versions"` // reconcile, duckdb, go
	Files    []ManifestFile    `json:"files"`    // filled by WriteManifest
}

// WriteManifest fills m.Files with every regular file under dir (paths
// relative to dir, slash-separated, sorted; dir/manifest.json itself
// excluded, since it cannot hold its own hash), each with its size and
// SHA-256, and writes dir/manifest.json, indented, through a temp file.
//
// Call it last, once every other file of the folder is complete. Nil maps
// are written as {} and no files as [], so consumers need not tell null from
// empty.
func WriteManifest(dir string, m Manifest) error {
	files, err := hashFiles(dir)
	if err != nil {
		return fmt.Errorf("manifest of %s: %w", dir, err)
	}
	m.Files = files
	if m.Members == nil {
		m.Members = map[string]int{}
	}
	if m.RowCounts == nil {
		m.RowCounts = map[string]int64{}
	}
	if m.FindingsByKind == nil {
		m.FindingsByKind = map[string]int64{}
	}
	if m.FindingsByState == nil {
		m.FindingsByState = map[string]map[string]int64{}
	}
	if m.Alarms == nil {
		m.Alarms = []ManifestAlarm{}
	}
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest of %s: %w", dir, err)
	}
	b = append(b, '\n')
	err = writeFileAtomic(filepath.Join(dir, ManifestName), func(f *os.File) error {
		_, err := f.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("write manifest of %s: %w", dir, err)
	}
	return nil
}

// hashFiles lists and hashes the regular files under dir. Symbolic links and
// other special files are skipped: the manifest vouches only for bytes that
// are in the folder itself.
func hashFiles(dir string) ([]ManifestFile, error) {
	files := []ManifestFile{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		size, sum, err := hashFile(p)
		if err != nil {
			return err
		}
		files = append(files, ManifestFile{Path: rel, Bytes: size, SHA256: sum})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// maxManifest bounds what ReadManifest reads: a manifest lists a folder's
// few dozen files, so anything near this is not one.
const maxManifest = 16 << 20

// ReadManifest reads dir/manifest.json as published (by another process,
// on shared storage: it is checked, not trusted), and returns it with the
// SHA-256 of its bytes.
func ReadManifest(dir string) (Manifest, string, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestName)
	f, err := os.Open(path)
	if err != nil {
		return m, "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return m, "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxManifest {
		return m, "", fmt.Errorf("read %s: larger than %d MiB, not a manifest", path, maxManifest>>20)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, "", fmt.Errorf("read %s: %w", path, err)
	}
	sum := sha256.Sum256(b)
	return m, hex.EncodeToString(sum[:]), nil
}

// File is the manifest's entry for path (slash-separated, relative to
// the folder), if it lists one.
func (m Manifest) File(path string) (ManifestFile, bool) {
	for _, f := range m.Files {
		if f.Path == path {
			return f, true
		}
	}
	return ManifestFile{}, false
}

// CheckFile tells whether the file at path has the size and SHA-256 the
// manifest's entry says: a copy cut short or replaced is caught here.
func CheckFile(path string, want ManifestFile) error {
	size, sum, err := hashFile(path)
	if err != nil {
		return err
	}
	if size != want.Bytes || sum != want.SHA256 {
		return fmt.Errorf("%s is %d bytes with SHA-256 %s; its manifest says %d bytes, %s", path, size, sum, want.Bytes, want.SHA256)
	}
	return nil
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("hash %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
