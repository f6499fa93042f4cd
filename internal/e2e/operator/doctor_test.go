package operator

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// doctorArgs are the fixture's run flags given to doctor, as a person
// would run it with the config of their nightly run.
func doctorArgs(t *testing.T, f *clitest.Fixture, extra ...string) []string {
	work := t.TempDir()
	args := f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), extra...)
	args[0] = "doctor"
	return args
}

// TestDoctorOnTheSandbox: on a platform that answers everything, doctor
// says each check passed, lists every member with each family ok, and
// exits 0; --sample probes fewer members. It writes nothing: no database,
// no outputs.
func TestDoctorOnTheSandbox(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	args := doctorArgs(t, f)
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, args...)
	if code != cli.ExitOK {
		t.Fatalf("doctor exited %d\n%s\n%s", code, stdout, stderr)
	}
	org := f.Srv.Config().OrganizationID
	for _, want := range []string{
		"credentials  ok",
		"discovery    ok  GET /group-management/v1/groups?organizationId=" + org + ": 2 groups, 6 members",
		"members: 6 checked of 6",
		"verdict: ready",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, stdout)
		}
	}
	// The sandbox's member without Recurring Billing is "not enabled"
	// there, with the platform's words and the fix, and the verdict is
	// still ready: a run reconciles it without billing.
	without := map[string]bool{}
	for _, mid := range f.Srv.MembersWithoutRecurringBilling() {
		without[mid] = true
	}
	if len(without) == 0 {
		t.Fatal("the sandbox has no member without Recurring Billing: the not-enabled case proves nothing")
	}
	for _, mid := range f.Srv.Members() {
		want := `(?m)^` + mid + ` +ok +ok +ok$`
		if without[mid] {
			want = `(?m)^` + mid + ` +not enabled +ok +ok$`
		}
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("member %s: no line matching %s:\n%s", mid, want, stdout)
		}
	}
	if !strings.Contains(stdout, "not enabled: 400 INVALID_MERCHANT_CONFIGURATION Recurring Billing is not enabled for merchant") ||
		!strings.Contains(stdout, "fix: ask the platform to enable recurring billing") {
		t.Errorf("the member without Recurring Billing is not told with the platform's words and a fix:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^clock +ok`).MatchString(stdout) {
		t.Errorf("the clock check did not pass:\n%s", stdout)
	}
	for _, p := range []string{args[slicesIndex(args, "--db")+1], args[slicesIndex(args, "--out")+1]} {
		if fileExists(p) {
			t.Errorf("doctor wrote %s", p)
		}
	}
	code, stdout, _ = clitest.RunCLI(t, clitest.SandboxEnv, doctorArgs(t, f, "--sample", "2")...)
	if code != cli.ExitOK || !strings.Contains(stdout, "members: 2 checked of 6") {
		t.Errorf("--sample 2: exit %d\n%s", code, stdout)
	}
}

// TestDoctorFindsTheFaults: group management not enabled for the key is a
// failed discovery with the way around (--merchants), and exit 1; with the
// members named, the same platform is ready. A wrong secret is refused
// credentials, with what to check, and exit 1.
func TestDoctorFindsTheFaults(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{Faults: sandbox.Faults{GroupsUnavailable: 403}})
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, doctorArgs(t, f)...)
	if code != cli.ExitFailed || !regexp.MustCompile(`(?m)^discovery +failed +GET /group-management/v1/groups\?organizationId=sbxorg: 403`).MatchString(stdout) ||
		!strings.Contains(stdout, "fix: group management did not answer: name the members with --merchants") ||
		!strings.Contains(stdout, "verdict: not ready") {
		t.Errorf("groups unavailable: exit %d\n%s\n%s", code, stdout, stderr)
	}
	mids := f.Srv.Members()[:2]
	code, stdout, stderr = clitest.RunCLI(t, clitest.SandboxEnv, doctorArgs(t, f, "--merchants", strings.Join(mids, ","))...)
	if code != cli.ExitOK || !strings.Contains(stdout, "members: 2 checked of 2") || !strings.Contains(stdout, "--merchants names 2 members") {
		t.Errorf("groups unavailable, --merchants: exit %d\n%s\n%s", code, stdout, stderr)
	}

	good := clitest.NewFixture(t, sandbox.Config{})
	wrong := map[string]string{"RECONCILE_SECRET": "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldC13cm9uZy0="}
	code, stdout, stderr = clitest.RunCLI(t, wrong, doctorArgs(t, good)...)
	if code != cli.ExitFailed || !regexp.MustCompile(`(?m)^credentials +refused +401 `).MatchString(stdout) ||
		!strings.Contains(stdout, "fix: check --key-id and the secret") {
		t.Errorf("wrong secret: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
