package outputs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Published files hold customers' names and e-mail addresses, so they get
// the modes the operator's umask gives new files (0666 &^ umask, folders
// 0777 &^ umask), as cp or a shell redirect would: under umask 027 only the
// owner and the group read them. os.CreateTemp and os.MkdirTemp create
// private files (0600, 0700) whatever the umask, so what they create is
// set to these modes before it is renamed into place.
func publishedFileMode() os.FileMode { return 0o666 &^ processUmask }
func publishedDirMode() os.FileMode  { return 0o777 &^ processUmask }

// staleAfter is how old a leftover temp folder or file beside the outputs
// (a crashed run's .NAME.tmp-*) must be before a later publish removes it.
// A run's staging folder is written into from its start to its swap, which
// takes minutes, so a day-old one belongs to no live run, even one of
// another process sharing the folder (a shard, a manual re-run).
const staleAfter = 24 * time.Hour

// Staging builds a folder beside its final place and swaps it in at once, so a
// reader never sees a half-written output folder: until Publish the final path
// holds the previous run's complete folder (or nothing), after it the new one.
//
// Where the kernel can (Linux's RENAME_EXCHANGE), an existing folder is
// exchanged with the new one in one step. Elsewhere the swap is two renames
// (the old folder aside, the new one in): a kill between them leaves the
// final path missing and the old folder aside under .NAME.old.tmp-*, and the
// next NewStaging in the same root puts it back (recoverSwaps) before it
// cleans anything. No reader ever sees a mixture of two runs. Building beside
// the final place, not in the system temp directory, keeps every rename on
// one file system.
type Staging struct {
	// Dir is where the caller writes the folder's contents.
	Dir string

	final string
	done  bool
}

// NewStaging creates root (if needed) and a fresh staging folder
// root/.name.tmp-<random> for the folder that will become root/name. The
// leading dot keeps the half-built folder out of casual listings and globs.
// Leftovers of crashed runs in root are removed first (removeStale).
func NewStaging(root, name string) (*Staging, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("staging: invalid folder name %q", name)
	}
	if err := os.MkdirAll(root, 0o777); err != nil { // the umask applies
		return nil, fmt.Errorf("staging: create %s: %w", root, err)
	}
	recoverSwaps(root)
	removeStale(root, time.Now())
	dir, err := os.MkdirTemp(root, "."+name+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	if err := os.Chmod(dir, publishedDirMode()); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("staging: %w", err)
	}
	return &Staging{Dir: dir, final: filepath.Join(root, name)}, nil
}

// Final is the path the folder gets when published.
func (s *Staging) Final() string { return s.final }

// Publish replaces the final folder with Dir. An existing folder is renamed
// aside first and removed only once the new one is in place, so a failure
// leaves the previous run's output, not nothing. Safe to call when the final
// folder does not exist.
func (s *Staging) Publish() error {
	if s.done {
		return fmt.Errorf("staging %s: already published or aborted", s.final)
	}
	if err := replaceDir(s.Dir, s.final); err != nil {
		return fmt.Errorf("publish %s: %w", s.final, err)
	}
	s.done = true
	return nil
}

// Abort removes Dir and everything in it. After Publish it does nothing, so
// `defer st.Abort()` right after NewStaging is the intended use.
func (s *Staging) Abort() error {
	if s.done {
		return nil
	}
	s.done = true
	if err := os.RemoveAll(s.Dir); err != nil {
		return fmt.Errorf("abort staging %s: %w", s.Dir, err)
	}
	return nil
}

// replaceDir puts the complete folder tmp at final, replacing whatever folder
// is there. The previous folder is renamed aside (not removed first) so that
// a failed rename can put it back.
func replaceDir(tmp, final string) error {
	parent := filepath.Dir(final)
	old := ""
	if _, err := os.Lstat(final); err == nil {
		// One step where the kernel can: tmp then holds the previous folder.
		if ok, err := exchange(tmp, final); err != nil {
			return err
		} else if ok {
			_ = syncDir(parent)
			if err := os.RemoveAll(tmp); err != nil {
				return fmt.Errorf("new folder in place, but removing the previous one (%s): %w", tmp, err)
			}
			return nil
		}
		old = TempName(parent, filepath.Base(final)+oldSuffix)
		if err := os.Rename(final, old); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return err
	}
	_ = syncDir(parent)
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("new folder in place, but removing the previous one (%s): %w", old, err)
		}
	}
	return nil
}

// oldSuffix marks the temp name of a previous folder set aside by a
// two-rename swap (.NAME.old.tmp-*), which recoverSwaps looks for.
const oldSuffix = ".old"

// recoverSwaps finishes undoing swaps that a kill interrupted between their
// two renames: for each previous folder set aside (.NAME.old.tmp-*) whose
// NAME no longer exists, the newest is renamed back to NAME, so the date
// keeps its publication (and the links into it resolve again) instead of
// the folder being deleted as a stale leftover. Best effort, like
// removeStale: what it cannot restore stays for an operator to find.
func recoverSwaps(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	type aside struct {
		path string
		mod  time.Time
	}
	newest := map[string]aside{}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || !isTempName(n) {
			continue
		}
		base := n[1:strings.LastIndex(n, ".tmp-")]
		name, ok := strings.CutSuffix(base, oldSuffix)
		if !ok || name == "" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if cur, seen := newest[name]; !seen || info.ModTime().After(cur.mod) {
			newest[name] = aside{filepath.Join(root, n), info.ModTime()}
		}
	}
	for name, a := range newest {
		final := filepath.Join(root, name)
		if _, err := os.Lstat(final); !errors.Is(err, fs.ErrNotExist) {
			continue // published (the swap completed) or unreadable: leave it
		}
		if os.Rename(a.path, final) == nil {
			_ = syncDir(root)
		}
	}
}

// removeStale removes what crashed runs left in root: the temp folders,
// files and links named .NAME.tmp-* (staging folders, previous folders
// set aside, temp links) untouched for staleAfter. It is best effort: a
// leftover it cannot remove costs disk space, not correctness, so it never
// fails a publish.
func removeStale(root string, now time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !isTempName(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// isTempName reports whether name is one TempName or NewStaging makes.
func isTempName(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	return strings.HasPrefix(name, ".") && i > 1 && i+len(".tmp-") < len(name)
}

// TempName returns a path in dir that does not exist yet, for tools (DuckDB,
// os.Symlink) that must create the file themselves. The random part makes
// two writers of the same file (say, a manual rerun beside cron) never share
// a temp name; a publish removes such names left by a crash (removeStale).
func TempName(dir, base string) string {
	return filepath.Join(dir, "."+base+".tmp-"+randomSuffix())
}

// randomSuffix is 12 random lower-case base32 characters (60 bits).
func randomSuffix() string { return strings.ToLower(rand.Text()[:12]) }

// writeFileAtomic creates path through a temp file in the same directory:
// write fills it, it is synced, given publishedFileMode and renamed in.
// On any error the temp file is removed and path is left as it was.
func writeFileAtomic(path string, write func(f *os.File) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(publishedFileMode()); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	_ = syncDir(dir)
	return nil
}

// syncFile flushes a file written by someone else (DuckDB) to disk before it
// is renamed into place, so a crash cannot publish a name pointing at a file
// whose data never reached the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// syncTree syncs every regular file under dir (a partitioned dataset).
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			return syncFile(p)
		}
		return nil
	})
}

// syncDir makes a rename in dir durable. Best effort: some file systems
// refuse to sync a directory, and the rename itself has already happened.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
