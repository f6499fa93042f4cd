package clitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// SharedRun is one run made once per test binary for the tests that
// start from exactly that run: each would otherwise pay a whole run of its
// own for the same result. The small run (SharedSmallRun) is of the
// default small sandbox (NewFixture with sandbox.Config{} and RunArgs with
// nothing added); the medium run (SharedMediumRun) is of scale medium. A
// test never reads or writes the run's own files: Copy gives it its
// database and output folder as the run left them, in its own temporary
// folder, so nothing a test does (a re-run, an acknowledgement, a view
// opened in another configuration) is seen by another. The sandbox serves
// that one run; tests may run again against it (RunArgs, or args with the
// run's own flags), as after their own run.
type SharedRun struct {
	F              *Fixture // Client and Env are nil: the run needs neither
	DB, Out        string   // the run's own files: copy them, never use them
	Flags          []string // given after RunArgs' own (Args)
	Rates, Limits  string   // the medium run's files (mediumRates, mediumLimits)
	Code           int
	Stdout, Stderr string
}

var (
	smallRunOnce sync.Once
	smallRun     *SharedRun
	smallRunErr  error
	smallRunDone func() // stops the sandbox and removes the run's folder
)

// SharedSmallRun is the run, made by the first test that asks for it.
func SharedSmallRun(t *testing.T) *SharedRun {
	t.Helper()
	smallRunOnce.Do(func() { smallRun, smallRunErr = makeSmallRun() })
	if smallRunErr != nil {
		t.Fatalf("the shared small run: %v", smallRunErr)
	}
	return smallRun
}

// makeSmallRun builds what NewFixture builds for sandbox.Config{} (scale
// small, TestDate, seed 7, journals and ground truth on disk) and runs
// reconcile on it once, as RunCLI does. It outlives any one test, so it
// takes no *testing.T: the package's TestMain ends it (Main).
func makeSmallRun() (*SharedRun, error) {
	f, err := sharedFixture("small", "reconcile-shared-run", &smallRunDone)
	if err != nil {
		return nil, err
	}
	r := &SharedRun{F: f, DB: filepath.Join(f.Dir, "r.duckdb"), Out: filepath.Join(f.Dir, "out")}
	r.Code, r.Stdout, r.Stderr = runShared(f.RunArgs(r.DB, r.Out))
	return r, nil
}

// The shared medium run: one run of scale medium (TestDate, seed 7, journals
// on disk) with the flags makeMediumRun gives it (SharedRun.Flags), made
// once per test binary for the tests that read such a run: TestBillingMatchesGroundTruthMedium,
// TestPaymentsAuditAtMediumScale and TestIncrementalRequests. Each would
// otherwise pay ~10 CPU-s for its own. As with the small run, a test works
// on its copy (Copy) and may run again against the run's sandbox, with
// the run's own flags (Args).
var (
	mediumRunOnce sync.Once
	mediumRun     *SharedRun
	mediumRunErr  error
	mediumRunDone func()
)

// Files the medium run is given: an interchange rate table of the test's
// own rates, and the networks' reattempt limits as documented
// (TestPaymentsAuditAtMediumScale checks what each did).
const (
	mediumRates  = "network,level2,level3\nVISA,0.004,0.01\nMASTERCARD,0.005,0.02\n*,0,0\n"
	mediumLimits = "network,reattempts,window,cit_mit_apart\nVISA,20,30d,true\nMASTERCARD,10,24h,false\nMASTERCARD,35,720h,false\n"
)

// SharedMediumRun is the medium run, made by the first test that asks.
func SharedMediumRun(t *testing.T) *SharedRun {
	t.Helper()
	mediumRunOnce.Do(func() { mediumRun, mediumRunErr = makeMediumRun() })
	if mediumRunErr != nil {
		t.Fatalf("the shared medium run: %v", mediumRunErr)
	}
	return mediumRun
}

func makeMediumRun() (*SharedRun, error) {
	f, err := sharedFixture("medium", "reconcile-shared-medium", &mediumRunDone)
	if err != nil {
		return nil, err
	}
	r := &SharedRun{F: f, DB: filepath.Join(f.Dir, "r.duckdb"), Out: filepath.Join(f.Dir, "out"),
		Rates: filepath.Join(f.Dir, "rates.csv"), Limits: filepath.Join(f.Dir, "limits.csv")}
	if err := os.WriteFile(r.Rates, []byte(mediumRates), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(r.Limits, []byte(mediumLimits), 0o644); err != nil {
		return nil, err
	}
	r.Flags = []string{"--rate", "100000", "--concurrency", "8", "--interchange-rates", r.Rates, "--retry-limits", r.Limits}
	r.Code, r.Stdout, r.Stderr = runShared(r.Args(r.DB, r.Out))
	return r, nil
}

// Args are the run's arguments for db and out, then more.
func (r *SharedRun) Args(db, out string, more ...string) []string {
	return r.F.RunArgs(db, out, append(slices.Clone(r.Flags), more...)...)
}

// sharedFixture is NewFixture's sandbox of scale (TestDate, seed 7) on
// loopback HTTP, with its journals and ground truth on disk in a new
// temporary folder; *done is set to what stops it and removes the folder.
func sharedFixture(scale, prefix string, done *func()) (*Fixture, error) {
	sc, err := sandbox.ParseScale(scale)
	if err != nil {
		return nil, err
	}
	srv, err := sandbox.New(sandbox.Config{Scale: sc, BusinessDate: TestDate, Seed: 7})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	hs := httptest.NewServer(srv.Handler())
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		hs.Close()
		return nil, err
	}
	*done = func() { hs.Close(); os.RemoveAll(dir) }
	journals := filepath.Join(dir, "journals")
	if _, err := srv.WriteJournals(journals); err != nil {
		return nil, fmt.Errorf("journals: %w", err)
	}
	truth, err := srv.GroundTruth()
	if err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	return &Fixture{Srv: srv, URL: hs.URL, Dir: dir, Journals: journals, Truth: truth}, nil
}

// runShared runs the CLI in-process with the sandbox's secret, as RunCLI
// does, for a fixture no one test owns.
func runShared(args []string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return SandboxEnv[k] }})
	return code, stdout.String(), stderr.String()
}

// SharedShards is the four shards of TestDate run against a sandbox of
// MergeScale, each as a pod would (RunShard: work/db/shard=<i>.duckdb and
// the folder work/shard=<i>), made once per test binary: TestShardsMergeToOneRun
// reads them, and TestMergeEqualsFullRun starts its first day from them.
// Tests take copies (CopyTo); the sandbox is TestMergeEqualsFullRun's to
// run against and move on (TestShardsMergeToOneRun reads only its members
// and ground truth, fixed when it was made).
type SharedShards struct {
	F     *Fixture // Client and Env are nil
	Work  string   // the shards' own files: copy them, never use them
	Codes [4]int
	Out   [4]string // each shard's stdout and stderr
}

var (
	shardsOnce sync.Once
	shards     *SharedShards
	shardsErr  error
	shardsDone func()
)

// SharedMergeShards is the shards, made by the first test that asks.
func SharedMergeShards(t *testing.T) *SharedShards {
	t.Helper()
	shardsOnce.Do(func() { shards, shardsErr = makeMergeShards() })
	if shardsErr != nil {
		t.Fatalf("the shared shards: %v", shardsErr)
	}
	return shards
}

func makeMergeShards() (*SharedShards, error) {
	f, err := sharedFixture(MergeScale, "reconcile-shared-shards", &shardsDone)
	if err != nil {
		return nil, err
	}
	s := &SharedShards{F: f, Work: filepath.Join(f.Dir, "work")}
	if err := os.MkdirAll(filepath.Join(s.Work, "db"), 0o755); err != nil {
		return nil, err
	}
	date := TestDate.Format("2006-01-02")
	for i := range 4 {
		name := fmt.Sprintf("shard=%d", i)
		db, out := filepath.Join(s.Work, "db", name+".duckdb"), filepath.Join(s.Work, name)
		code, so, se := runShared(f.RunArgs(db, out, "--date", date, "--shard", fmt.Sprintf("%d/4", i)))
		s.Codes[i], s.Out[i] = code, so+se
	}
	return s, nil
}

// CopyTo copies the shards' databases and folders into work, as RunShards
// would have left them there, and returns the glob of their folders.
func (s *SharedShards) CopyTo(t *testing.T, work string) string {
	t.Helper()
	if err := copyTree(s.Work, work); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(work, "shard=*")
}

// Main runs a package's tests (m.Run) and then ends what they shared:
// the shared runs that were made (their sandboxes and folders) and the
// binary ReconcileBinary built. A package that uses either calls it from
// its TestMain.
func Main(m *testing.M) int {
	code := m.Run()
	for _, done := range []func(){smallRunDone, mediumRunDone, shardsDone} {
		if done != nil {
			done()
		}
	}
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

// Copy gives the test its own copy of the run's database and output
// folder (files and links as they are), and returns their paths.
func (r *SharedRun) Copy(t *testing.T) (db, out string) {
	t.Helper()
	work := t.TempDir()
	db, out = filepath.Join(work, filepath.Base(r.DB)), filepath.Join(work, filepath.Base(r.Out))
	CopyRunFiles(t, r.DB, r.Out, db, out)
	return db, out
}

// CopyRunFiles copies a run's database (with its write-ahead log, if a
// run left one) and output folder to db and out, as the run left them.
func CopyRunFiles(t *testing.T, fromDB, fromOut, db, out string) {
	t.Helper()
	if err := copyFile(fromDB, db); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fromDB + ".wal"); err == nil { // none after a clean close; copied if there is
		if err := copyFile(fromDB+".wal", db+".wal"); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyTree(fromOut, out); err != nil {
		t.Fatal(err)
	}
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
