package reports

import (
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// libreOffice finds LibreOffice's command-line binary, or "".
func libreOffice() string {
	if p := os.Getenv("RECONCILE_SOFFICE"); p != "" {
		return p
	}
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestWorkbookInLibreOffice opens the fixture workbook in a real
// spreadsheet application, LibreOffice, headless, and has it save every
// sheet as CSV with the cells as shown: what a reader sees, after the
// application parsed the file, applied the number formats and (had there
// been any) evaluated formulas. It proves that the file opens without
// repair, that amounts show in their currency and dates as dates, and that
// formula-like text stays text.
//
// Install LibreOffice to run it (docs/workbook.md): apt-get install -y
// libreoffice-calc-nogui. Without it the test is skipped, saying so, or
// fails with RECONCILE_REQUIRE_SOFFICE=1 (needLibreOffice).
func TestWorkbookInLibreOffice(t *testing.T) {
	t.Parallel() // its own database, files and LibreOffice profile
	soffice := needLibreOffice(t)
	path := writeFixtureWorkbook(t, Scope{})
	sheet, out := convertToCSV(t, soffice, path)
	// rowOf returns the first row whose leading cells are prefix.
	rowOf := func(rows [][]string, prefix ...string) []string {
		for _, r := range rows {
			if len(r) >= len(prefix) && slices.Equal(r[:len(prefix)], prefix) {
				return r
			}
		}
		t.Errorf("no row starting %q\nLibreOffice said:\n%s", prefix, out)
		return nil
	}

	sum := sheet("Summary")
	for _, want := range [][]string{
		{"Business date", "2026-11-20"},
		{"Findings", "42"},
		{"Acknowledged", "1"},
		{"Resolved since previous run", "2"},
		{"Window from (UTC)", "2026-11-17 00:00:00"},
		{"Payment skipped", "EUR", "1"},
		{"Payment skipped", "USD", "1"},
		{"Level III data incomplete", "USD", "1", "0", "0", "1", "0"},
		{"1001", "2", "$1,339.75", "USD"},
		{"1002", "1", "¥1,500", "JPY"},
		{"1001, 1002", "subscription_suspended", "1", "0", "1", "0", "0", "1,234,567.89 CHF", "CHF"},
		{"m4", evilError, "1002"},
	} {
		rowOf(sum, want...)
	}
	if r := rowOf(sum, "1002", evilGroupName); r == nil || !slices.Equal(r, []string{"1002", evilGroupName, "2", "1", "1"}) {
		t.Errorf("Members by group row of 1002 = %q: the group name must show as the text it is, not a link or a result", r)
	}
	sc := sheet(sheetOf("skipped_cycle"))
	rowOf(sc, "Totals by currency (new, open and acknowledged)")
	rowOf(sc, "EUR", "1", "€ 7.50", "0")
	rowOf(sc, "USD", "1", "$12.34", "0")
	if r := rowOf(sc, "2026-11-28 09:00:00", "m2", "Müller GmbH", "€ 7.50", "EUR", "new", "1001, 1002", evilEntity, "s2", "SUB-2", "Silber", "cust-2",
		evilClientRef, "2", "2026-11-20"); r != nil && (len(r) < 17 || !strings.HasPrefix(r[15], "Cycle 2 skipped") || r[16] != "skipped_cycle") {
		t.Errorf("skipped_cycle row %q: the reason, then the kind's ID", r)
	}
	if r := rowOf(sheet(sheetOf("level3_incomplete")), "2026-11-18 10:00:00", "m1"); !slices.Contains(r, evilReason) || !slices.Contains(r, "2026-12-15") {
		t.Errorf("acknowledged row %q: want its reason as the text it is and its end date", r)
	}
	if got := rowOf(sheet("Resolved"), "subscription_delinquent"); len(got) < 7 || got[4] != "$20.00" || got[6] != "2026-11-19" {
		t.Errorf("Resolved row %q, want the USD amount and the date first seen", got)
	}
	if got := rowOf(sheet("Resolved"), "paid_without_transaction"); len(got) < 8 || !strings.HasPrefix(got[7], "note: -2+3;") {
		t.Errorf("Resolved row %q, want the facts as text", got)
	}
	// The retry kinds' columns as a reader sees them: the card, the
	// answer in words, counts as numbers.
	rowOf(sheet(sheetOf("retry_after_do_not_retry")), "2026-11-19 12:00:00", "m2", "Müller GmbH", "€ 29.90", "EUR", "new", "1001, 1002",
		"ORD-MC-2", "mc-2", "sale", "approved", "cust-2", "", "MASTERCARD", "522222", "4444", "2026-11-16 10:00:00", "mc-1",
		"merchant advice code 03 (do not try again)", "03", "05", "", "3")
	rowOf(sheet(sheetOf("reattempts_over_network_limit")), "2026-11-19 10:00:00", "m1", "Acme Books", "$10.00", "USD", "new", "1001",
		"ORD-S1", "t-r21", "subscription payment", "merchant", "cust-1", "s1", "VISA", "411111", "1111", "21", "20", "30 days")
	if got := rowOf(sheet("Acknowledgements"), "level3_incomplete", "m1"); !slices.Contains(got, evilReason) {
		t.Errorf("Acknowledgements row %q, want the reason as the text it is", got)
	}
	if got := rowOf(sheet("Legend"), "Payment skipped"); len(got) < 5 || !strings.HasPrefix(got[2], "Confirm the skip was intended") || got[4] != "skipped_cycle" {
		t.Errorf("Legend row %q, want the kind's action", got)
	}
}

// TestFindingSheetComputesInLibreOffice: a finding sheet's amounts and
// dates are numbers a spreadsheet computes with. Into a copy of the
// fixture workbook go a few plain formulas over the missed_cycle sheet
// (three USD findings dated out of their row order, and one in EUR): a
// =SUM of the USD amounts, its difference from the sheet's own USD total,
// a =COUNT of the When column and =SMALL of it, 1st to 4th. LibreOffice
// opens the copy, recalculates every formula, and saves the cells as
// shown: the SUM is the total, and SMALL lists the dates in date order,
// which text dates (or amounts written as text) would not give.
func TestFindingSheetComputesInLibreOffice(t *testing.T) {
	t.Parallel() // its own database, files and LibreOffice profile
	soffice := needLibreOffice(t)
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mc := sheetOf("missed_cycle")
	tab := kindTable(t, f, mc)
	if tab.rows != 4 {
		t.Fatalf("missed_cycle has %d findings, want the fixture's 4", tab.rows)
	}
	column := func(name string, first, last int) string { // a range of the table's data rows
		return "'" + mc + "'!" + tab.cell(t, name, first) + ":" + tab.cell(t, name, last)
	}
	usdTotal := ""
	for r := 6; usdTotal == ""; r++ { // the totals' USD row
		cur, _ := f.GetCellValue(mc, "A"+strconv.Itoa(r))
		if cur == "" {
			t.Fatal("missed_cycle has no USD total")
		}
		if cur == "USD" {
			usdTotal = "'" + mc + "'!C" + strconv.Itoa(r)
		}
	}
	if _, err := f.NewSheet("Check"); err != nil {
		t.Fatal(err)
	}
	when := "yyyy-mm-dd hh:mm:ss"
	amountStyle, _ := f.NewStyle(&excelize.Style{NumFmt: 4}) // #,##0.00
	dateStyle, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &when})
	formulas := []struct{ cell, formula string }{
		{"A1", "SUM(" + column("Amount", 0, 2) + ")"}, // the three USD findings
		{"A2", usdTotal + "-SUM(" + column("Amount", 0, 2) + ")"},
		{"A3", "COUNT(" + column("When", 0, 3) + ")"},
	}
	for k := 1; k <= 4; k++ {
		formulas = append(formulas, struct{ cell, formula string }{"A" + strconv.Itoa(3+k), "SMALL(" + column("When", 0, 3) + "," + strconv.Itoa(k) + ")"})
	}
	for i, c := range formulas {
		if err := f.SetCellFormula("Check", c.cell, c.formula); err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 2:
			f.SetCellStyle("Check", c.cell, c.cell, amountStyle)
		case i > 2:
			f.SetCellStyle("Check", c.cell, c.cell, dateStyle)
		}
	}
	copyPath := filepath.Join(t.TempDir(), "c.xlsx")
	if err := f.SaveAs(copyPath); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sheet, out := convertToCSV(t, soffice, copyPath)
	var got []string
	for _, r := range sheet("Check") {
		got = append(got, strings.Join(r, ","))
	}
	want := []string{"45.50", "0.00", "4", // 10.00 + 10.00 + 25.50 USD; 4 dates
		"2026-09-01 10:00:00", "2026-10-01 10:00:00", "2026-11-10 09:00:00", "2026-11-15 00:00:00"}
	if !slices.Equal(got, want) {
		t.Errorf("formulas over missed_cycle, recalculated by LibreOffice: %q, want %q\nLibreOffice said:\n%s", got, want, out)
	}
}

// needLibreOffice returns LibreOffice's binary. Without one the test is
// skipped, saying how to install it, unless RECONCILE_REQUIRE_SOFFICE=1
// (as CI sets it, .ci/run): then it fails, so that a CI machine that lost
// LibreOffice cannot pass without checking the workbook.
func needLibreOffice(t *testing.T) string {
	t.Helper()
	soffice := libreOffice()
	if soffice != "" {
		return soffice
	}
	const how = "install it with `apt-get install -y libreoffice-calc-nogui` (see docs/workbook.md), or set RECONCILE_SOFFICE"
	if os.Getenv("RECONCILE_REQUIRE_SOFFICE") == "1" {
		t.Fatal("LibreOffice is not installed and RECONCILE_REQUIRE_SOFFICE=1 requires it: " + how)
	}
	t.Skip("LibreOffice is not installed, so the workbook is not checked in a real spreadsheet application; " + how)
	return ""
}

// recalcAlways is a LibreOffice profile setting: recalculate every formula
// of an Excel file on load (the default keeps the results the file holds,
// and a file written by another program holds none).
const recalcAlways = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`

// convertToCSV has LibreOffice, headless, save every sheet of the workbook
// at path as CSV with the cells as shown. It returns a reader of one
// sheet's rows (trailing empty cells cut) and what LibreOffice said.
func convertToCSV(t *testing.T, soffice, path string) (sheet func(name string) [][]string, said string) {
	t.Helper()
	dir := t.TempDir()
	// A private profile: LibreOffice locks its profile, so a desktop session
	// or a parallel test would otherwise block this conversion.
	profile := filepath.Join(dir, "profile")
	if err := os.MkdirAll(filepath.Join(profile, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(profile, "user", "registrymodifications.xcu"), []byte(recalcAlways), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// CSV filter options: comma, double quote, UTF-8, from line 1, default
	// column formats, (unused), no quoting of all text, detect special
	// numbers, save cells as shown, export formulas off, no BOM, every
	// sheet (-1) to <name>-<sheet>.csv.
	cmd := exec.CommandContext(ctx, soffice, "--headless", "--norestore", "--nolockcheck",
		"-env:UserInstallation=file://"+filepath.ToSlash(profile),
		"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1",
		"--outdir", dir, path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("LibreOffice could not convert the workbook: %v\n%s", err, out)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return func(name string) [][]string {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, base+"-"+name+".csv"))
		if err != nil {
			t.Fatalf("sheet %s was not converted: %v\nLibreOffice said:\n%s", name, err, out)
		}
		defer f.Close()
		r := csv.NewReader(f)
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("sheet %s: %v", name, err)
		}
		for i, row := range rows { // trailing empty cells vary with the sheet's width
			for len(row) > 0 && row[len(row)-1] == "" {
				row = row[:len(row)-1]
			}
			rows[i] = row
		}
		return rows
	}, string(out)
}
