package outputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CurrentName is the stable path, under the output folder, of the latest
// published DuckDB snapshot: analysts and BI tools point at out/current.duckdb
// and always read the newest business date, read-only, while the next run
// writes its own working file.
const CurrentName = "current.duckdb"

// PointCurrent makes outRoot/current.duckdb a symbolic link to snapshot
// (a path inside outRoot), unless it already points at a later business
// date: re-running an old date does not move "current" back in time. The
// link is replaced by renaming a new link over it, so a reader sees the old
// target or the new one, never none. A link left by a crash between the
// two steps is removed by a later publish (NewStaging). It returns the
// link's path.
func PointCurrent(outRoot, snapshot string) (string, error) {
	rel, err := filepath.Rel(outRoot, snapshot)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("snapshot %s is not under %s", snapshot, outRoot)
	}
	link := filepath.Join(outRoot, CurrentName)
	if old, err := os.Readlink(link); err == nil && dateOf(old) > dateOf(rel) {
		return link, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
		return "", fmt.Errorf("read %s: %w", link, err)
	}
	// A temp name of its own: two runs writing the same output folder never
	// replace each other's half-made link.
	tmp := TempName(outRoot, CurrentName)
	if err := os.Symlink(rel, tmp); err != nil {
		return "", fmt.Errorf("link %s: %w", link, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("link %s: %w", link, err)
	}
	return link, nil
}

// dateOf is the business-date folder of a snapshot path (its first
// element, YYYY-MM-DD, which sorts as text).
func dateOf(rel string) string {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first
}
