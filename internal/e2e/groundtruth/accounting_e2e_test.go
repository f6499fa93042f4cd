package groundtruth

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/outputs"
)

// TestRunAccountsForItsRequests: a run against a platform that limits the
// key to 20 requests a second, with --rate far above it, loses no member
// (its findings are the ground truth's) and has under 1 % of its requests
// answered 429; its request accounting is the same in the manifest, the
// metrics file, the summary line and the runs table, and agrees with what
// the sandbox itself served, family by family.
//
// The run is 16 members at --concurrency 1 (~450 requests): the requests in
// flight when the limit is first met are all answered 429 before the first
// answer can slow the rest (up to the members at once × 4 payment lists),
// and a 429 share under 1 % needs a run of some length to mean anything
// (24 subscriptions a member: the dispute reports read for the
// organization take three requests, not three a member).
//
// It does not run in parallel with the package's other tests: the 429s
// it counts are timing (the client's pacing against the sandbox's window,
// in one process), and a second test's whole run beside it on a busy
// machine clumped the requests the sandbox saw into a fifth 429 (1.12 %).
func TestRunAccountsForItsRequests(t *testing.T) {
	scale, err := sandbox.ParseScale("members=16,subscriptions=24,groups=2")
	if err != nil {
		t.Fatal(err)
	}
	f := clitest.NewFixture(t, sandbox.Config{Scale: scale, RateLimit: sandbox.RateLimit{PerSecond: 20}})
	work := t.TempDir()
	db, out, prom := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), filepath.Join(work, "reconcile.prom")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--rate", "2000", "--concurrency", "1", "--metrics-file", prom)...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\n%s\n%s", code, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, nil))

	// The run's folder, not the "manifest:" line: the paths a run prints are
	// masked, and t.TempDir's digits joined to the date pass for a card
	// number about one time in ten (TestNoCardNumberInOperatorPaths).
	m, _, err := outputs.ReadManifest(filepath.Join(out, "2026-11-20"))
	if err != nil {
		t.Fatal(err)
	}
	a := m.Requests
	if a == nil {
		t.Fatal("the manifest has no request accounting")
	}
	served := f.Srv.Served()
	t.Logf("manifest requests %+v; sandbox served %+v", *a, served)

	// The sandbox's own count.
	if a.Total != served.Requests || a.RateLimited != served.RateLimited {
		t.Errorf("manifest: %d requests, %d answered 429; the sandbox served %d, %d answered 429",
			a.Total, a.RateLimited, served.Requests, served.RateLimited)
	}
	for fam, area := range map[platform.Family]string{platform.FamilyRecurringBilling: "/rbs/v1",
		platform.FamilySearch: "/tss/v2", platform.FamilyBIN: "/bin/v1", platform.FamilyGroups: "/group-management/v1",
		platform.FamilyReporting: "/reporting/v3"} {
		if a.ByFamily[string(fam)] != served.ByArea[area] {
			t.Errorf("%s: %d requests in the manifest, the sandbox served %d under %s", fam, a.ByFamily[string(fam)], served.ByArea[area], area)
		}
	}
	var sum int64
	for _, n := range a.ByFamily {
		sum += n
	}
	if sum != a.Total {
		t.Errorf("families sum to %d, total %d", sum, a.Total)
	}
	// The limit was met, and adapted to.
	if served.RateLimited == 0 || a.Rate.Lowest >= 20 || a.Rate.Ceiling != 2000 {
		t.Errorf("rate %+v with %d 429s: want the limit reached and the rate brought under 20/s from 2000", a.Rate, served.RateLimited)
	}
	if a.RateLimitedShare >= 0.01 {
		t.Errorf("%.2f %% of the requests answered 429, want under 1 %%", a.RateLimitedShare*100)
	}
	// The measures follow from the counts.
	if a.MembersPulled != len(f.Srv.Members()) || a.PerMember != round(float64(a.Total)/float64(a.MembersPulled), 2) {
		t.Errorf("per member %v over %d members pulled, total %d", a.PerMember, a.MembersPulled, a.Total)
	}
	if a.RecordsLoaded == 0 || a.Per1000Records != round(float64(a.Total)*1000/float64(a.RecordsLoaded), 2) {
		t.Errorf("per 1,000 records %v over %d records, total %d", a.Per1000Records, a.RecordsLoaded, a.Total)
	}
	if a.NothingNew < 0 || a.NothingNew >= a.Total || a.NothingNewShare != round(float64(a.NothingNew)/float64(a.Total), 4) || a.LatencyP95Ms <= 0 {
		t.Errorf("nothing new %d of %d (share %v), p95 %v ms", a.NothingNew, a.Total, a.NothingNewShare, a.LatencyP95Ms)
	}

	// The runs table.
	var requests int64
	if err := conn.QueryRow(`SELECT requests FROM runs WHERE run_id = '2026-11-20'`).Scan(&requests); err != nil {
		t.Fatal(err)
	}
	if requests != a.Total {
		t.Errorf("runs.requests %d, manifest %d", requests, a.Total)
	}

	// The metrics file.
	metrics := readProm(t, prom)
	want := map[string]float64{
		`reconcile_run_requests{shard="0/1"}`:                       float64(a.Total),
		`reconcile_requests_per_member{shard="0/1"}`:                a.PerMember,
		`reconcile_requests_per_1000_records{shard="0/1"}`:          a.Per1000Records,
		`reconcile_requests_nothing_new_ratio{shard="0/1"}`:         a.NothingNewShare,
		`reconcile_requests_rate_limited_total{shard="0/1"}`:        float64(a.RateLimited),
		`reconcile_requests_rate_limited_ratio{shard="0/1"}`:        a.RateLimitedShare,
		`reconcile_request_duration_p95_seconds{shard="0/1"}`:       a.LatencyP95Ms / 1000,
		`reconcile_request_rate{shard="0/1",bound="lowest"}`:        a.Rate.Lowest,
		`reconcile_request_rate{shard="0/1",bound="ceiling"}`:       a.Rate.Ceiling,
		`reconcile_requests_total{shard="0/1",family="BIN lookup"}`: float64(a.ByFamily[string(platform.FamilyBIN)]),
	}
	for _, fam := range platform.AccountedFamilies {
		want[`reconcile_requests_total{shard="0/1",family="`+string(fam)+`"}`] = float64(a.ByFamily[string(fam)])
	}
	for series, v := range want {
		if got, ok := metrics[series]; !ok || got != v {
			t.Errorf("metrics: %s = %v (present %v), manifest says %v", series, got, ok, v)
		}
	}

	// The summary line.
	line := ""
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "requests: ") {
			line = l
		}
	}
	if line != pipeline.RequestsLine(a) {
		t.Errorf("summary line %q, want %q", line, pipeline.RequestsLine(a))
	}
	nums := regexp.MustCompile(`requests: ([0-9.]+) a member, ([0-9.]+) per 1,000 records; ([0-9.]+) % brought nothing new, ([0-9.]+) % answered 429; p95 ([0-9.]+) ms`).FindStringSubmatch(line)
	if nums == nil {
		t.Fatalf("summary line %q: not in the documented form", line)
	}
	for i, v := range []float64{a.PerMember, a.Per1000Records, a.NothingNewShare * 100, a.RateLimitedShare * 100, a.LatencyP95Ms} {
		got, _ := strconv.ParseFloat(nums[i+1], 64)
		if diff := got - v; diff > 0.006 || diff < -0.006 {
			t.Errorf("summary line field %d: %v, manifest %v", i+1, got, v)
		}
	}
}

// readProm reads a metrics file's samples by series (name and labels as
// written).
func readProm(t *testing.T, path string) map[string]float64 {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", l, err)
		}
		out[l[:i]] = v
	}
	return out
}

// round is v rounded to decimals places, as the accounting rounds
// (pipeline.Result.RequestAccount).
func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}
