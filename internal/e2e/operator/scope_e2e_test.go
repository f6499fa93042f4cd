package operator

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestDoctorSearchScope: doctor says whether one search may cover every
// member: the sandbox's portfolio key may search its organization as a
// reseller and its merchant account; an account it does not own is "not
// allowed", a problem with its fix only when the run relies on it.
func TestDoctorSearchScope(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	org := f.Srv.Config().OrganizationID
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, doctorArgs(t, f, "--search-scope-id", sandbox.DefaultMerchantAccountID)...)
	if code != cli.ExitOK {
		t.Fatalf("doctor exited %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`(?m)^reseller ` + org + ` +ok +merchantInformation.resellerId:` + org + ` answers`,
		`(?m)^account ` + sandbox.DefaultMerchantAccountID + ` +ok +merchantInformation.accountId:` + sandbox.DefaultMerchantAccountID + ` answers`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("doctor has no line matching %s:\n%s", want, stdout)
		}
	}
	code, stdout, _ = clitest.RunCLI(t, clitest.SandboxEnv, doctorArgs(t, f, "--search-scope", "account", "--search-scope-id", "acct-of-another")...)
	if code != cli.ExitOK { // members are still reconciled, one search each
		t.Errorf("doctor exited %d with an account the key does not own\n%s", code, stdout)
	}
	if !regexp.MustCompile(`(?m)^account acct-of-another +not allowed +403`).MatchString(stdout) ||
		!strings.Contains(stdout, "drop --search-scope account") {
		t.Errorf("an account the key may not search is not told, with its fix:\n%s", stdout)
	}
}

// TestSearchScopeRefusedLosesNothing: a run set to search an account the
// key may not search (the platform answers 403) logs it, searches each
// member on its own, and reports every finding of the ground truth.
func TestSearchScopeRefusedLosesNothing(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db := filepath.Join(work, "r.duckdb")
	args := f.RunArgs(db, filepath.Join(work, "out"), "--search-scope", "account", "--search-scope-id", "acct-of-another")
	code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, args...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\n%s\n%s", code, so, se)
	}
	if !strings.Contains(se, "the search across members failed: each member searches on its own") {
		t.Errorf("the refused search across members is not logged:\n%s", se)
	}
	conn := clitest.OpenReadOnly(t, db)
	clitest.CompareFindings(t, clitest.DBFindings(t, conn, "2026-11-20"), clitest.TruthSet(f.Truth, nil))
}
