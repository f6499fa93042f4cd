package outputs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Published files and folders are for analysts and other tools running as
// other users: os.CreateTemp and os.MkdirTemp create them private (0600,
// 0700), so they are opened up before they are renamed into place.
const (
	publicFileMode = 0o644
	publicDirMode  = 0o755
)

// Staging builds a folder beside its final place and swaps it in at once, so a
// reader never sees a half-written output folder: until Publish the final path
// holds the previous run's complete folder (or nothing), after it the new one.
//
// The swap is two renames (the old folder aside, the new one in), so there is
// a window of a few microseconds in which the final path does not exist; no
// reader ever sees a mixture of two runs. Building beside the final place,
// not in the system temp directory, keeps both renames on one file system.
type Staging struct {
	// Dir is where the caller writes the folder's contents.
	Dir string

	final string
	done  bool
}

// NewStaging creates root (if needed) and a fresh staging folder
// root/.name.tmp-<random> for the folder that will become root/name. The
// leading dot keeps the half-built folder out of casual listings and globs.
func NewStaging(root, name string) (*Staging, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("staging: invalid folder name %q", name)
	}
	if err := os.MkdirAll(root, publicDirMode); err != nil {
		return nil, fmt.Errorf("staging: create %s: %w", root, err)
	}
	dir, err := os.MkdirTemp(root, "."+name+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	if err := os.Chmod(dir, publicDirMode); err != nil {
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
		old = tempName(parent, filepath.Base(final)+".old")
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

// tempName returns a path in dir that does not exist yet, for tools (DuckDB)
// that must create the file themselves. The random part makes two writers of
// the same file (say, a manual rerun beside cron) never share a temp name.
func tempName(dir, base string) string {
	return filepath.Join(dir, "."+base+".tmp-"+randomSuffix())
}

// randomSuffix is 12 random lower-case base32 characters (60 bits).
func randomSuffix() string { return strings.ToLower(rand.Text()[:12]) }

// writeFileAtomic creates path through a temp file in the same directory:
// write fills it, it is synced, opened up to publicFileMode and renamed in.
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
	if err = f.Chmod(publicFileMode); err != nil {
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
