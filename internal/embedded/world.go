package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/store"
)

// The embedded sandbox keeps one simulated world per database. Its first
// night generates the world for that date; a later date on the same
// database reads the same world further on (its data clock at the later
// night, the billing engine having run up to it: internal/sandbox/nights.go), so a
// second night finds what changed since the first rather than a world
// generated afresh, whose every finding would be new and none of the
// first night's resolved. What identifies the world (seed, scale and
// first night) is kept beside the database, in <db>.sandbox.json.

// keptWorld is the content of <db>.sandbox.json.
type keptWorld struct {
	Seed int64 `json:"seed"`
	// Scale as sandbox.ParseScale reads it (small, or members=N,subscriptions=N).
	Scale string `json:"scale"`
	// BusinessDate is the night the world was generated for, YYYY-MM-DD.
	BusinessDate string `json:"businessDate"`
}

// worldPath is where the world of the database at dbPath is kept.
func worldPath(dbPath string) string { return dbPath + ".sandbox.json" }

// worldFor is the world a run of date on db reads: the one kept
// beside the database when the database has runs already, else a new one
// generated for date (a fresh database, or one whose file was removed
// while the world's stayed, starts a world of its own). It refuses a seed
// or scale other than the kept world's, and a date before its first night
// (the world's data as of an earlier night is not known): either needs a
// new --db. keep writes the world beside the database, once the sandbox
// has started. With no database (doctor) the world is date's, kept
// nowhere.
func worldFor(ctx context.Context, db *store.Store, dbPath string, seed int64, scale sandbox.Scale, date time.Time) (origin time.Time, keep func() error, err error) {
	if db == nil { // doctor: no database, a world of its own, kept nowhere
		return date, func() error { return nil }, nil
	}
	path := worldPath(dbPath)
	world := keptWorld{Seed: seed, Scale: scale.String(), BusinessDate: date.Format(time.DateOnly)}
	keep = func() error {
		b, err := json.MarshalIndent(world, "", "  ")
		if err != nil {
			return fmt.Errorf("embedded sandbox: %s: %w", path, err)
		}
		if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("embedded sandbox: %s is a symbolic link; the world is kept only in a regular file (remove the link)", path)
		}
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
		if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("embedded sandbox: keep its world: %w", err)
		}
		if err := os.Rename(tmp, path); err != nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("embedded sandbox: keep its world: %w", err)
		}
		return nil
	}
	var runs int
	if err := db.Conn().QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: read the database's runs: %w", err)
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || runs == 0:
		return date, keep, nil
	case err != nil:
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: %w", err)
	}
	var kept keptWorld
	if err := json.Unmarshal(b, &kept); err != nil {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: %s: %w (remove it, and the next run starts a new world at its --date)", path, err)
	}
	first, err := time.Parse(time.DateOnly, kept.BusinessDate)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: %s: businessDate: %w", path, err)
	}
	keptScale, err := sandbox.ParseScale(kept.Scale)
	if err != nil {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: %s: scale: %w", path, err)
	}
	if kept.Seed != seed || keptScale.Members != scale.Members || keptScale.Subscriptions != scale.Subscriptions || keptScale.Groups != scale.Groups {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: this database's simulated world is --sandbox-seed %d --sandbox-scale %s (since %s); another seed or scale is another world: give a new --db",
			kept.Seed, kept.Scale, kept.BusinessDate)
	}
	if date.Before(first) {
		return time.Time{}, nil, fmt.Errorf("embedded sandbox: --date %s is before %s, the first night of this database's simulated world; an earlier date needs a new --db",
			date.Format(time.DateOnly), kept.BusinessDate)
	}
	world = kept
	return first, keep, nil
}
