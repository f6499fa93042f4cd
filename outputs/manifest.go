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
	// Source is where the data came from: "platform", or "sandbox" for
	// the embedded sandbox's simulated data.
	Source         string           `json:"source"`
	Members        map[string]int   `json:"members"`        // ok / failed / skipped counts
	RowCounts      map[string]int64 `json:"rowCounts"`      // per table
	FindingsByKind map[string]int64 `json:"findingsByKind"` // the run's findings (new and open) per kind
	// FindingsByState splits them by state against the previous run:
	// "new", "open" and "resolved" (gone since PreviousRun), each per kind.
	FindingsByState map[string]map[string]int64 `json:"findingsByState"`
	PreviousRun     string                      `json:"previousRun,omitempty"` // the run compared with
	// Alarms are the alarms the run raised (--alarms); empty when none was.
	Alarms   []ManifestAlarm   `json:"alarms"`
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
