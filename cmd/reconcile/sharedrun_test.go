package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reconcile/reconcile/internal/sandbox"
)

// sharedRun is one run of the default small sandbox (newFixture with
// sandbox.Config{} and runArgs with nothing added), made once per test
// binary for the tests that start from exactly that run: each would
// otherwise pay a whole run of its own for the same result. A test never
// reads or writes the run's own files: copy gives it its database and
// output folder as the run left them, in its own temporary folder, so
// nothing a test does (a re-run, an acknowledgement, a view opened in
// another configuration) is seen by another. The sandbox serves that one
// run; tests may run again against it (runArgs), as after their own run.
type sharedRun struct {
	f              *fixture // client and env are nil: the run needs neither
	db, out        string   // the run's own files: copy them, never use them
	code           int
	stdout, stderr string
}

var (
	smallRunOnce sync.Once
	smallRun     *sharedRun
	smallRunErr  error
	smallRunDone func() // stops the sandbox and removes the run's folder
)

// sharedSmallRun is the run, made by the first test that asks for it.
func sharedSmallRun(t *testing.T) *sharedRun {
	t.Helper()
	smallRunOnce.Do(func() { smallRun, smallRunErr = makeSmallRun() })
	if smallRunErr != nil {
		t.Fatalf("the shared small run: %v", smallRunErr)
	}
	return smallRun
}

// makeSmallRun builds what newFixture builds for sandbox.Config{} (scale
// small, testDate, seed 7, journals and ground truth on disk) and runs
// reconcile on it once, as runCLI does. It outlives any one test, so it
// takes no *testing.T: TestMain ends it (closeSharedRuns).
func makeSmallRun() (*sharedRun, error) {
	scale, err := sandbox.ParseScale("small")
	if err != nil {
		return nil, err
	}
	srv, err := sandbox.New(sandbox.Config{Scale: scale, BusinessDate: testDate, Seed: 7})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	hs := httptest.NewServer(srv.Handler())
	dir, err := os.MkdirTemp("", "reconcile-shared-run")
	if err != nil {
		hs.Close()
		return nil, err
	}
	smallRunDone = func() { hs.Close(); os.RemoveAll(dir) }
	journals := filepath.Join(dir, "journals")
	if _, err := srv.WriteJournals(journals); err != nil {
		return nil, fmt.Errorf("journals: %w", err)
	}
	truth, err := srv.GroundTruth()
	if err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	f := &fixture{srv: srv, url: hs.URL, dir: dir, journals: journals, truth: truth}
	r := &sharedRun{f: f, db: filepath.Join(dir, "r.duckdb"), out: filepath.Join(dir, "out")}
	var stdout, stderr bytes.Buffer
	r.code = run(context.Background(), f.runArgs(r.db, r.out), env{stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return sandboxEnv[k] }})
	r.stdout, r.stderr = stdout.String(), stderr.String()
	return r, nil
}

// closeSharedRuns ends the shared run, if one was made.
func closeSharedRuns() {
	if smallRunDone != nil {
		smallRunDone()
	}
}

// copy gives the test its own copy of the run's database and output
// folder (files and links as they are), and returns their paths.
func (r *sharedRun) copy(t *testing.T) (db, out string) {
	t.Helper()
	work := t.TempDir()
	db, out = filepath.Join(work, filepath.Base(r.db)), filepath.Join(work, filepath.Base(r.out))
	if err := copyFile(r.db, db); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.db + ".wal"); err == nil { // none after a clean close; copied if there is
		if err := copyFile(r.db+".wal", db+".wal"); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyTree(r.out, out); err != nil {
		t.Fatal(err)
	}
	return db, out
}

// copyTree copies the folder src to dst: folders, regular files (with
// their modes) and symbolic links (their targets as they are).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			return copyFile(p, to)
		}
		return fmt.Errorf("copy %s: neither a folder, a file nor a link", p)
	})
}

// copyFile copies the regular file src to dst with src's permissions.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
