package reports

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports/reportstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from this run")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -run %s -update to create it)", err, t.Name())
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from the workbook at line %d:\n got: %s\nwant: %s\n(if the change is intended: go test ./reports -run %s -update, and review the diff)",
				path, i+1, g, w, t.Name())
		}
	}
}

func writeFixtureWorkbook(t *testing.T, scope Scope) string {
	t.Helper()
	db := fixtureDB(t)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, Workbook(fixtureRun, scope)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWorkbookGolden compares the whole workbook of the fixture run with
// testdata/workbook.golden: sheet names, headers, values, number formats,
// frozen rows, filters, widths and charts.
func TestWorkbookGolden(t *testing.T) {
	golden(t, "workbook.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{})))
}

// TestGroupWorkbookGolden: the workbook of group 1002 holds its members
// only (m2 is also in 1001 and appears in both), and its Summary names it.
func TestGroupWorkbookGolden(t *testing.T) {
	golden(t, "workbook-group-1002.golden", reportstest.DumpWorkbook(t, writeFixtureWorkbook(t, Scope{GroupID: "1002"})))
}

// The properties users rely on, asserted directly (the golden file would
// also catch a change, but only as a diff someone might accept).
func TestWorkbookContract(t *testing.T) {
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// A kind longer than Excel's 31 characters names its sheet cut.
	names := KindSheetNames()
	if got := names["installment_not_cancelled_after_refund"]; got != "installment_not_cancelled_after" {
		t.Errorf("sheet of installment_not_cancelled_after_refund: %q", got)
	}
	want := []string{"Summary"}
	for _, kind := range queries.Kinds() {
		want = append(want, names[kind])
	}
	want = append(append(append(want, BillingSheets...), PaymentSheets...), "Resolved", "Legend")
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets %v, want %v", got, want)
	}
	head, _ := f.GetRows("skipped_cycle")
	if want := []string{"Merchant ID", "Group", "Entity ID", "Amount", "Currency", "State", "First seen", "Detail"}; !slices.Equal(head[0], want) {
		t.Errorf("finding sheet header %q, want %q", head[0], want)
	}
	// Amounts keep their value and show in their currency; dates are dates.
	for _, c := range []struct{ sheet, ref, raw, shown string }{
		{"skipped_cycle", "D2", "12.34", "$12.34"},
		{"skipped_cycle", "D3", "7.5", "€ 7.50"},
		{"amount_mismatch", "D2", "1500", "¥1,500"},
		{"subscription_suspended", "D2", "1234567.89", "1,234,567.89 CHF"},
		{"subscription_delinquent", "D2", "15", "£15.00"},
		{"skipped_cycle", "G2", "46345", "2026-11-19"},
	} {
		raw, _ := f.GetCellValue(c.sheet, c.ref, excelize.Options{RawCellValue: true})
		shown, _ := f.GetCellValue(c.sheet, c.ref)
		if raw != c.raw || shown != c.shown {
			t.Errorf("%s!%s = %q shown %q, want %q shown %q", c.sheet, c.ref, raw, shown, c.raw, c.shown)
		}
	}
	if panes, _ := f.GetPanes("skipped_cycle"); !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("finding sheet panes %+v: the header must stay frozen", panes)
	}
	filtered := false
	for _, d := range f.GetDefinedName() {
		filtered = filtered || d.Name == "_xlnm._FilterDatabase" && d.Scope == "skipped_cycle"
	}
	if !filtered {
		t.Error("finding sheet has no autofilter")
	}
	// Formula injection: the texts are there, verbatim, as strings, and no
	// sheet of the file holds a formula.
	found := map[string]bool{}
	for _, sheet := range f.GetSheetList() {
		rows, _ := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		for _, r := range rows {
			for _, v := range r {
				for _, evil := range []string{evilGroupName, evilEntity, evilError, `"-2+3"`} {
					if strings.Contains(v, evil) {
						found[evil] = true
					}
				}
			}
		}
	}
	if len(found) != 4 {
		t.Errorf("injection texts found as text: %v, want all 4", found)
	}
	for name, x := range reportstest.ZipFiles(t, path, "xl/worksheets/") {
		if strings.Contains(x, "<f>") || strings.Contains(x, "<f ") {
			t.Errorf("%s holds a formula", name)
		}
	}
	if n := len(reportstest.ZipFiles(t, path, "xl/charts/chart")); n != 3 {
		t.Errorf("%d charts, want 3 (findings by kind, funding mix, payments by status)", n)
	}
}

func TestKindSheetNames(t *testing.T) {
	checks := []queries.Check{
		{Kind: "skipped_cycle"},
		{Kind: "summary"},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3)},
		{Kind: strings.Repeat("a_very_long_kind_name_", 3) + "2"},
	}
	got := kindSheetNames(checks)
	want := map[string]string{
		"skipped_cycle": "skipped_cycle",
		"summary":       "summary 2",
		checks[2].Kind:  "a_very_long_kind_name_a_very_lo",
		checks[3].Kind:  "a_very_long_kind_name_a_very_ 2",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("sheet of %q = %q, want %q", k, got[k], w)
		}
	}
}

func TestGroupWorkbookName(t *testing.T) {
	for id, want := range map[string]string{
		"1001":        "reconcile-2026-11-20-group-1001.xlsx",
		"EU_west-2":   "reconcile-2026-11-20-group-EU_west-2.xlsx",
		"../../etc":   "reconcile-2026-11-20-group-______etc-",
		"a/b":         "reconcile-2026-11-20-group-a_b-",
		"a_b":         "reconcile-2026-11-20-group-a_b.xlsx",
		"Région Süd":  "reconcile-2026-11-20-group-R_gion_S_d-",
		"":            "reconcile-2026-11-20-group--",
		"with.dot.id": "reconcile-2026-11-20-group-with_dot_id-",
	} {
		got := GroupWorkbookName("2026-11-20", id)
		if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, ".xlsx") || strings.ContainsAny(got, `/\`) {
			t.Errorf("GroupWorkbookName(%q) = %q, want %s…", id, got, want)
		}
	}
	if GroupWorkbookName("d", "a/b") == GroupWorkbookName("d", "a_b") {
		t.Error("two group IDs share a file name")
	}
}
