package operator

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sqlguard"
)

func TestSQLFormats(t *testing.T) {
	_, db, _ := analystDB(t)
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv",
		"SELECT kind, amount, detail, seen_at FROM f ORDER BY kind DESC")
	want := "kind,amount,detail,seen_at\nskipped_cycle,12.30,\"{\"\"a\"\":1}\",2026-11-20T10:00:00Z\n" +
		"\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\",-0.05,,\n"
	if code != cli.ExitOK || stdout != want {
		t.Errorf("csv: exit %d %s\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	code, stdout, stderr = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "json", "SELECT kind, amount FROM f ORDER BY kind DESC")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); code != cli.ExitOK || err != nil {
		t.Fatalf("json: exit %d %s, %v\n%s", code, stderr, err, stdout)
	}
	if len(rows) != 2 || rows[0]["kind"] != "skipped_cycle" || rows[0]["amount"] != 12.3 {
		t.Errorf("json rows: %v", rows)
	}
	code, stdout, _ = clitest.RunCLI(t, nil, "sql", "--db", db, "SELECT kind, amount FROM f ORDER BY kind DESC")
	if code != cli.ExitOK || !regexp.MustCompile(`(?m)^skipped_cycle +12\.30$`).MatchString(stdout) {
		t.Errorf("table output:\n%s", stdout)
	}
}

// TestCSVNeverWritesAFormula: a text cell a spreadsheet would run (=, +,
// -, @, tab, carriage return first) gets a leading quote; numbers, even
// negative ones, stay numbers; --raw writes text as it is.
func TestCSVNeverWritesAFormula(t *testing.T) {
	_, db, _ := analystDB(t)
	cells := []struct{ sql, text, neutral string }{
		{"'=1+1'", "=1+1", "'=1+1"},
		{"'+1'", "+1", "'+1"},
		{"'-1'", "-1", "'-1"},
		{"'@SUM(A1)'", "@SUM(A1)", "'@SUM(A1)"},
		{"chr(9) || '=1'", "\t=1", "'\t=1"},
		{"chr(13) || '=1'", "\r=1", "'\r=1"},
		{"'a=1'", "a=1", "a=1"},
		{"''", "", ""},
	}
	var values []string
	for i, c := range cells {
		values = append(values, fmt.Sprintf("(%d, %s)", i, c.sql))
	}
	query := "SELECT i, cell FROM (VALUES " + strings.Join(values, ", ") + ") AS v(i, cell) ORDER BY i"
	csvRows := func(args ...string) [][]string {
		t.Helper()
		code, stdout, stderr := clitest.RunCLI(t, nil, append([]string{"sql", "--db", db, "--format", "csv"}, args...)...)
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil {
			t.Fatalf("csv: %v\n%s", err, stdout)
		}
		return rows[1:]
	}
	neutral, raw := csvRows(query), csvRows("--raw", query)
	if len(neutral) != len(cells) || len(raw) != len(cells) {
		t.Fatalf("%d and %d rows, want %d", len(neutral), len(raw), len(cells))
	}
	for i, c := range cells {
		if neutral[i][1] != c.neutral {
			t.Errorf("%s written as %q, want %q", c.sql, neutral[i][1], c.neutral)
		}
		if raw[i][1] != c.text {
			t.Errorf("--raw: %s written as %q, want %q", c.sql, raw[i][1], c.text)
		}
	}
	got := csvRows("SELECT -7::INTEGER AS i, -0.05::DECIMAL(18,2) AS d, -1.5::DOUBLE AS f, -9223372036854775807::HUGEINT AS h, n, amount, note, '=1'::BLOB AS b FROM f WHERE n < 0")
	if want := []string{"-7", "-0.05", "-1.5", "-9223372036854775807", "-7", "-0.05", "'-2+3", "'=1"}; len(got) != 1 || !slices.Equal(got[0], want) {
		t.Errorf("numbers: %q, want %q (numbers as they are, text and blob cells neutralised)", got, want)
	}
}

// TestSQLOutputsOfControlCharacters: the table format (a terminal display)
// escapes them; JSON escapes them by its own rules (C1 included); CSV is
// data and keeps them.
func TestSQLOutputsOfControlCharacters(t *testing.T) {
	_, db, _ := analystDB(t)
	const query = `SELECT 'a' || chr(27) || ']0;owned' || chr(7) || chr(27) || '[2J' || chr(13) || 'b' || chr(155) || 'c' || chr(10) || 'd' AS "x` + "\x1b" + `[31m"`
	const value = "a\x1b]0;owned\x07\x1b[2J\rb\u009bc\nd"
	code, stdout, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, query)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertNoControls(t, "table", stdout, true)
	if !strings.Contains(stdout, `a\x1b]0;owned\x07\x1b[2J\x0db\u009bc\x0ad`) || !strings.Contains(stdout, `x\x1b[31m`) {
		t.Errorf("table: the escapes are not shown:\n%s", stdout)
	}
	code, stdout, _ = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "json", query)
	assertNoControls(t, "json", stdout, true)
	var rows []map[string]string
	if err := json.Unmarshal([]byte(stdout), &rows); code != cli.ExitOK || err != nil || len(rows) != 1 || rows[0]["x\x1b[31m"] != value {
		t.Errorf("json: exit %d, %v, %q: the data must decode as it was", code, err, rows)
	}
	code, stdout, _ = clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv", query)
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if code != cli.ExitOK || err != nil || len(recs) != 2 || recs[1][0] != value {
		t.Errorf("csv: exit %d, %v, %q: CSV keeps the data as it is", code, err, recs)
	}
}

// assertNoControls fails if out holds a control character other than the
// line feeds that end lines (and tabs, with tabs).
func assertNoControls(t *testing.T, what, out string, tabsToo bool) {
	t.Helper()
	for _, r := range out {
		if (r < 0x20 && r != '\n' && (tabsToo || r != '\t')) || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Errorf("%s: a control character %U reaches the terminal:\n%q", what, r, out)
			return
		}
	}
}

// TestSQLReadsOnlyBoundedRegularFiles: --var NAME=@FILE and --file read a
// regular file only, and only up to a bound. A device ran the process to
// gigabytes; a FIFO with no writer blocked in open(2), where SIGTERM could
// not reach it. Each is refused at once, naming the file.
func TestSQLReadsOnlyBoundedRegularFiles(t *testing.T) {
	_, db, _ := analystDB(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"a device as --var":  {"sql", "--db", db, "--var", "x=@/dev/zero", "SELECT 1"},
		"a FIFO as --var":    {"sql", "--db", db, "--var", "x=@" + fifo, "SELECT 1"},
		"a FIFO as --file":   {"sql", "--db", db, "--file", fifo},
		"a folder as --file": {"sql", "--db", db, "--file", filepath.Dir(fifo)},
	} {
		done := make(chan struct{})
		var code int
		var stderr string
		go func() {
			defer close(done)
			code, _, stderr = clitest.RunCLI(t, nil, args...)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: reconcile sql still reading after a minute", name)
		}
		if code != cli.ExitFailed || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and the file refused as not a regular file", name, code, stderr)
		}
	}
	big := filepath.Join(t.TempDir(), "big.sql")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, sqlguard.MaxQueryFile+1); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := clitest.RunCLI(t, nil, "sql", "--db", db, "--file", big); code != cli.ExitFailed || !strings.Contains(stderr, "more than the 16 MiB") {
		t.Errorf("a query file over the bound: exit %d, stderr %q", code, stderr)
	}
}

// TestMerchantsFileOnlyARegularFile: --merchants @FILE reads as the sql
// command's files are read: a FIFO with no writer (which blocked the run
// in open(2)) or a device is refused at once, naming the setting.
func TestMerchantsFileOnlyARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "mids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan struct{})
		var err error
		go func() {
			defer close(done)
			_, err = groups.ReadMerchants("@" + path)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("--merchants @%s still reading after a minute", path)
		}
		if err == nil || !strings.Contains(err.Error(), "--merchants @"+path) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("--merchants @%s: %v; want it refused as not a regular file", path, err)
		}
	}
}
