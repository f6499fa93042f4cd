package clitest

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports"
	"github.com/xuri/excelize/v2"
)

// TestDate is the business day the fixtures and shared runs reconcile
// (2026-11-20), the run ID of their first run.
var TestDate = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// Fixture is a sandbox on real loopback HTTP with its journals and ground truth on disk.
type Fixture struct {
	Srv      *sandbox.Server
	URL      string
	Client   *platform.Client // signed as the portfolio user
	Env      *sandboxtest.Env // Do: the sandbox's write endpoints
	Dir      string
	Journals string
	Truth    *sandbox.GroundTruth
}

// NewFixture starts a sandbox of cfg (scale small, TestDate and seed 7
// where cfg leaves them zero) on loopback HTTP for the test, and writes its
// journals and ground truth under the test's temporary folder.
func NewFixture(t *testing.T, cfg sandbox.Config, opts ...sandboxtest.Option) *Fixture {
	t.Helper()
	if cfg.Scale.Members == 0 { // a custom scale has no name, but members
		var err error
		if cfg.Scale, err = sandbox.ParseScale("small"); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.BusinessDate.IsZero() {
		cfg.BusinessDate = TestDate
	}
	if cfg.Seed == 0 {
		cfg.Seed = 7
	}
	env := sandboxtest.Start(t, cfg, opts...)
	srv := env.Server
	dir := t.TempDir()
	journals := filepath.Join(dir, "journals")
	if _, err := srv.WriteJournals(journals); err != nil {
		t.Fatal(err)
	}
	truth, err := srv.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	return &Fixture{Srv: srv, URL: env.URL, Client: env.Client, Env: env, Dir: dir, Journals: journals, Truth: truth}
}

// RunCLI runs the CLI in-process and returns its exit code, stdout and stderr.
func RunCLI(t *testing.T, extraEnv map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string { return extraEnv[k] }
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: getenv})
	return code, stdout.String(), stderr.String()
}

// DelinquencyAcknowledged is an acknowledgements file of one entry: the
// subscription_delinquent finding of the merchant's entity.
func DelinquencyAcknowledged(merchantID, entityID string) string {
	return fmt.Sprintf(`acknowledgements:
  - kind: subscription_delinquent
    merchant: %q
    entity: %q
    reason: Dunning by phone
    owner: AR
    until: 2026-12-31
`, merchantID, entityID)
}

func (f *Fixture) RunArgs(db, out string, extra ...string) []string {
	cfg := f.Srv.Config()
	args := []string{"run", "--base-url", f.URL, "--organization-id", cfg.OrganizationID,
		"--key-id", cfg.KeyID, "--date", cfg.BusinessDate.Format("2006-01-02"),
		"--lookback", fmt.Sprint(cfg.Lookback), "--journal", filepath.Join(f.Journals, "*.ndjson"),
		"--db", db, "--out", out, "--rate", "5000", "--concurrency", "4"}
	return append(args, extra...)
}

// SandboxEnv is the environment a run against a Fixture needs: the
// sandbox's shared secret.
var SandboxEnv = map[string]string{"RECONCILE_SECRET": sandbox.DefaultSecret}

// FindingKey is one finding as the ground truth and a run both say it:
// kind, member, entity, amount and currency.
type FindingKey struct{ Kind, MerchantID, EntityID, Amount, Currency string }

// TruthSet is the ground truth's findings, less those of the members
// skip names (nil: none).
func TruthSet(gt *sandbox.GroundTruth, skip func(merchantID string) bool) map[FindingKey]bool {
	out := map[FindingKey]bool{}
	for kind, fs := range gt.Findings {
		for _, f := range fs {
			if skip != nil && skip(f.MerchantID) {
				continue
			}
			out[FindingKey{kind, f.MerchantID, f.EntityID, f.Amount, f.Currency}] = true
		}
	}
	return out
}

// OpenReadOnly opens a DuckDB file read-only for the test; it is closed
// when the test ends.
func OpenReadOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	c, err := duckdb.NewConnector(path+"?access_mode=read_only", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db
}

// DBFindings is the findings run runID reported in db: new, still open or
// acknowledged (not the ones it resolved).
func DBFindings(t *testing.T, db *sql.DB, runID string) map[FindingKey]bool {
	t.Helper()
	rows, err := db.Query(`SELECT kind, merchant_id, entity_id, coalesce(amount_text(amount, currency), ''), coalesce(currency, '')
		FROM findings WHERE run_id = ? AND state IN ('new', 'open', 'acknowledged')`, runID) // a run's findings, not the ones it resolved
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[FindingKey]bool{}
	for rows.Next() {
		var k FindingKey
		if err := rows.Scan(&k.Kind, &k.MerchantID, &k.EntityID, &k.Amount, &k.Currency); err != nil {
			t.Fatal(err)
		}
		out[k] = true
	}
	return out
}

// CompareFindings reports every finding missing from or extra to the ground truth.
func CompareFindings(t *testing.T, got, want map[FindingKey]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, fmt.Sprintf("%+v", k))
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, fmt.Sprintf("%+v", k))
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("findings differ from ground truth: %d missing, %d extra\nmissing:\n  %s\nextra:\n  %s",
			len(missing), len(extra), strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
	}
}

// RunRequests is the requests the run of TestDate recorded (runs.requests).
func RunRequests(t *testing.T, path string) int64 {
	t.Helper()
	db := OpenReadOnly(t, path)
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT requests FROM runs WHERE run_id = '2026-11-20'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// MemberRequests are the requests of the last attempt's members stage
// (run_members.requests), without the BIN stage's.
func MemberRequests(t *testing.T, path string) int64 {
	t.Helper()
	db := OpenReadOnly(t, path)
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT sum(requests) FROM run_members WHERE run_id = '2026-11-20'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TableKeys names, per table of a run's database, the columns that key a
// row: what the tests that compare two databases join on.
var TableKeys = map[string]string{
	"groups":                "group_id",
	"group_members":         "group_id, merchant_id",
	"plans":                 "merchant_id, plan_id",
	"subscriptions":         "merchant_id, subscription_id",
	"subscription_payments": "merchant_id, payment_id",
	"transactions":          "merchant_id, transaction_id",
	"journal":               "merchant_id, file, line",
	"journal_rejects":       "file, line",
	"journal_files":         "sha256",
	"bin_attributes":        "bin",
	// the Reporting API's reports (ingest/disputes.go)
	"interchange_clearing": "merchant_id, request_id",
	"chargebacks":          "merchant_id, request_id, time",
	"retrievals":           "merchant_id, request_id, time",
	"findings":             "run_id, kind, merchant_id, entity_id",
	"runs":                 "run_id",
	"run_members":          "run_id, merchant_id",
	// recurring billing (docs/billing.md)
	"subscription_schedules":  "merchant_id, subscription_id",
	"expected_cycles":         "merchant_id, subscription_id, cycle",
	"subscription_status_log": "merchant_id, subscription_id, run_id",
	"delinquency_ageing":      "run_id, merchant_id, subscription_id",
	"subscription_metrics":    "run_id, merchant_id, currency",
	"billing_match":           "run_id, merchant_id, payment_id, leg",
	"merchant_names":          "run_id, merchant_id",
	// acknowledgements (docs/workbook.md)
	"acknowledgements":      "kind, merchant_id, entity_id",
	"acknowledgement_audit": "seq",
	// once-only changes to an older file (ingest.MaskOlderRecords)
	"upgrades": "name",
}

// TableCounts is the rows of each table of TableKeys in the database at
// path.
func TableCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	c, err := duckdb.NewConnector(path+"?access_mode=read_only", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	out := map[string]int{}
	for table := range TableKeys {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// LuhnRuns lists the card numbers in b: maximal runs of 13-19 digits that
// pass the Luhn check. A SHA-256 digest as reconcile writes it
// (journal_files.sha256, the manifest: 64 lowercase hex digits standing as
// a word of their own, as the regexp \b[0-9a-f]{64}\b finds them) is left
// out: one in a few dozen holds a run of 13+ decimal digits that passes
// the check, and a digest is no card number. It scans b once, word by
// word, by hand: the two regular expressions it replaces took a second
// of CPU for one run's database, and the tests scan dozens of outputs.
func LuhnRuns(b []byte) []string {
	var out []string
	for i := 0; i < len(b); {
		if !isWordByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isWordByte(b[j]) {
			j++
		}
		if word := b[i:j]; !isSHA256Hex(word) {
			for k := 0; k < len(word); {
				if word[k] < '0' || word[k] > '9' {
					k++
					continue
				}
				l := k
				for l < len(word) && word[l] >= '0' && word[l] <= '9' {
					l++
				}
				if d := word[k:l]; len(d) >= 13 && len(d) <= 19 && LuhnValid(d) {
					out = append(out, string(d))
				}
				k = l
			}
		}
		i = j
	}
	return out
}

// isWordByte is a byte of a word as a regexp's \b sees it: [0-9A-Za-z_].
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isSHA256Hex says whether a whole word is 64 lowercase hex digits.
func isSHA256Hex(word []byte) bool {
	if len(word) != 64 {
		return false
	}
	for _, c := range word {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// LuhnValid says whether the digits d pass the Luhn check.
func LuhnValid(d []byte) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// Printed is s as reconcile prints it inside an error or a log: masked
// with the whole message (cardmask.MaskText). A test's temporary path may
// read as a card number there: t.TempDir's digits and its /00N suffix
// ("…Refusals1651000536/002/…") are 13 digits joined by a separator, which
// pass the Luhn check one time in ten.
func Printed(s string) string { return cardmask.MaskText(s) }

// AssertNoPANs fails the test on any card number (LuhnRuns) in b, read
// from where.
func AssertNoPANs(t *testing.T, where string, b []byte) {
	t.Helper()
	if runs := LuhnRuns(b); len(runs) > 0 {
		t.Errorf("%s holds %d card number(s), e.g. %s…", where, len(runs), runs[0][:6])
	}
}

// LuhnRunsInDir is every Luhn-valid run of digits in the files under dir.
func LuhnRunsInDir(t *testing.T, dir string) []string {
	t.Helper()
	var runs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			runs = append(runs, LuhnRuns(b)...)
		}
		return nil
	})
	return runs
}

// AssertNoneOf checks a file's raw bytes for any of the given card numbers.
// (Raw bytes of a DuckDB or Parquet file hold compressed fragments of long
// identifiers, so a Luhn scan of them would report noise; the values read
// back through SQL are scanned for every card-like run instead.)
func AssertNoneOf(t *testing.T, path string, pans []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pans {
		if bytes.Contains(b, []byte(p)) {
			t.Errorf("%s holds a full card number from a journal (%s…)", path, p[:6])
			return
		}
	}
}

// AssertNoPANsInDB reads every text value of every table.
func AssertNoPANsInDB(t *testing.T, db *sql.DB) {
	t.Helper()
	cols := TextColumns(t, db)
	if len(cols) < 20 {
		t.Fatalf("only %d text columns found", len(cols))
	}
	for _, c := range cols {
		if !strings.HasSuffix(c.Name, "sha256") { // a hex digest may hold a Luhn-valid run of digits by chance
			AssertNoPANs(t, c.Name, []byte(c.Text))
		}
	}
}

// AssertNoPANsInWorkbook reads every cell of every sheet of the workbook
// at path for a card number.
func AssertNoPANsInWorkbook(t *testing.T, path string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		AssertNoPANs(t, path+":"+f.Name, b)
	}
}

// AssertNoPANsInParquet reads every value of every Parquet file under
// dir, through db, for a card number.
func AssertNoPANsInParquet(t *testing.T, db *sql.DB, dir string) {
	t.Helper()
	for p, text := range ParquetTexts(t, db, dir) {
		AssertNoPANs(t, p, []byte(text))
	}
}

// CheckWorkbook reads the published workbook back: a Summary sheet, one
// sheet per kind with one row per finding, amounts as numbers.
func CheckWorkbook(t *testing.T, path string, gt *sandbox.GroundTruth) {
	t.Helper()
	wb, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	names := reports.KindSheetNames()
	// The kinds' sheets come by money at stake, without exchange rates:
	// the ground truth's amounts in the principal currency (that of most
	// findings), then in the others added up, then the count, then the
	// catalog's order.
	kinds := queries.Kinds()
	perCurrency := map[string]int{}
	for _, kind := range kinds {
		for _, f := range gt.Findings[kind] {
			if f.Currency != "" {
				perCurrency[f.Currency]++
			}
		}
	}
	principal := ""
	for c, n := range perCurrency {
		if n > perCurrency[principal] || n == perCurrency[principal] && c < principal {
			principal = c
		}
	}
	main, other := map[string]float64{}, map[string]float64{}
	for _, kind := range kinds {
		for _, f := range gt.Findings[kind] {
			a, _ := strconv.ParseFloat(f.Amount, 64)
			if f.Currency == principal {
				main[kind] += math.Abs(a)
			} else {
				other[kind] += math.Abs(a)
			}
		}
	}
	slices.SortStableFunc(kinds, func(a, b string) int {
		if main[a] != main[b] {
			return cmp.Compare(main[b], main[a])
		}
		if other[a] != other[b] {
			return cmp.Compare(other[b], other[a])
		}
		return cmp.Compare(len(gt.Findings[b]), len(gt.Findings[a]))
	})
	want := []string{"Summary"}
	for _, kind := range kinds {
		want = append(want, names[kind])
	}
	want = append(append(append(append(want, reports.BillingSheets...), reports.PaymentSheets...), reports.SettlementSheets...),
		"Resolved", "Acknowledgements", "Legend")
	if got := wb.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %v, want %v", got, want)
	}
	for _, kind := range queries.Kinds() {
		sheet := names[kind]
		tab := FindingTable(t, wb, sheet)
		if len(tab.Rows) != len(gt.Findings[kind]) {
			t.Errorf("sheet %s: %d findings, want %d", kind, len(tab.Rows), len(gt.Findings[kind]))
			continue
		}
		merchant, amount := slices.Index(tab.Header, "Merchant ID"), slices.Index(tab.Header, "Amount")
		if merchant < 0 {
			t.Errorf("sheet %s header: %v", kind, tab.Header)
			continue
		}
		// Each finding of the ground truth is a row of its merchant that
		// shows its entity (in the kind's ID column, docs/workbook.md),
		// with its amount as a number.
		for _, f := range gt.Findings[kind] {
			row := slices.IndexFunc(tab.Rows, func(r []string) bool {
				return merchant < len(r) && r[merchant] == f.MerchantID && slices.Contains(r, f.EntityID)
			})
			if row < 0 {
				t.Errorf("sheet %s has no row of %s %s", kind, f.MerchantID, f.EntityID)
				continue
			}
			if f.Amount == "" {
				continue
			}
			if amount < 0 {
				t.Errorf("sheet %s has no Amount column for %s %s's %s", kind, f.MerchantID, f.EntityID, f.Amount)
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(amount+1, tab.HeaderRow+1+row)
			raw, _ := wb.GetCellValue(sheet, ref, excelize.Options{RawCellValue: true})
			typ, _ := wb.GetCellType(sheet, ref)
			// The amount is written with its currency's decimals (12.34 USD,
			// 12.345 KWD, 1000 JPY): the cell holds the double of that text.
			want, _ := strconv.ParseFloat(f.Amount, 64)
			if v, err := strconv.ParseFloat(raw, 64); err != nil || v != want || typ == excelize.CellTypeInlineString {
				t.Errorf("sheet %s %s: %q (type %v), want the number %s", kind, ref, raw, typ, f.Amount)
			}
		}
	}
}

// KindTable is the findings table of a kind's sheet, as shown: its header
// (the row below the "Findings" title, after the totals per currency) and
// its rows.
type KindTable struct {
	HeaderRow int // 1-based
	Header    []string
	Rows      [][]string
}

// FindingTable is a kind sheet's findings table: its header row and the
// rows under it.
func FindingTable(t *testing.T, wb *excelize.File, sheet string) KindTable {
	t.Helper()
	rows, err := wb.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) == 1 && r[0] == "Findings" && i+1 < len(rows) {
			return KindTable{HeaderRow: i + 2, Header: rows[i+1], Rows: rows[i+2:]}
		}
	}
	t.Fatalf("sheet %s has no Findings table", sheet)
	return KindTable{}
}
