package reports

import (
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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
// libreoffice-calc. Without it the test is skipped, saying so.
func TestWorkbookInLibreOffice(t *testing.T) {
	soffice := libreOffice()
	if soffice == "" {
		t.Skip("LibreOffice is not installed, so the workbook is not checked in a real spreadsheet application; " +
			"install it with `apt-get install -y libreoffice-calc` (see docs/workbook.md), or set RECONCILE_SOFFICE")
	}
	path := writeFixtureWorkbook(t, Scope{})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A private profile: LibreOffice locks its profile, so a desktop session
	// or a parallel test would otherwise block this conversion.
	// CSV filter options: comma, double quote, UTF-8, from line 1, default
	// column formats, (unused), no quoting of all text, detect special
	// numbers, save cells as shown, export formulas off, no BOM, every
	// sheet (-1) to <name>-<sheet>.csv.
	cmd := exec.CommandContext(ctx, soffice, "--headless", "--norestore", "--nolockcheck",
		"-env:UserInstallation=file://"+filepath.ToSlash(filepath.Join(dir, "profile")),
		"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1",
		"--outdir", dir, path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("LibreOffice could not convert the workbook: %v\n%s", err, out)
	}
	sheet := func(name string) [][]string {
		t.Helper()
		f, err := os.Open(filepath.Join(dir, "w-"+name+".csv"))
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
	}
	// rowOf returns the first row whose leading cells are prefix.
	rowOf := func(rows [][]string, prefix ...string) []string {
		for _, r := range rows {
			if len(r) >= len(prefix) && slices.Equal(r[:len(prefix)], prefix) {
				return r
			}
		}
		t.Errorf("no row starting %q", prefix)
		return nil
	}

	sum := sheet("Summary")
	for _, want := range [][]string{
		{"Business date", "2026-11-20"},
		{"Findings", "6"},
		{"Resolved since previous run", "1"},
		{"Window from (UTC)", "2026-11-17 00:00:00"},
		{"skipped_cycle", "2", "1", "1", "0"},
		{"1001", "2", "$1,339.75", "USD"},
		{"1002", "1", "¥1,500", "JPY"},
		{"1001", "subscription_suspended", "1", "0", "1", "0", "1,234,567.89 CHF", "CHF"},
		{"m4", evilError, "1002"},
	} {
		rowOf(sum, want...)
	}
	if r := rowOf(sum, "1002", evilGroupName); r == nil || !slices.Equal(r, []string{"1002", evilGroupName, "3", "2", "1"}) {
		t.Errorf("Members by group row of 1002 = %q: the group name must show as the text it is, not a link or a result", r)
	}
	sc := sheet("skipped_cycle")
	if len(sc) != 3 {
		t.Fatalf("skipped_cycle: %d rows, want a header and 2 findings: %q", len(sc), sc)
	}
	if want := []string{"m2", "1001, 1002", evilEntity, "€ 7.50", "EUR", "new", "2026-11-20"}; !slices.Equal(sc[2][:7], want) {
		t.Errorf("skipped_cycle row 3 = %q, want %q…", sc[2], want)
	}
	if !strings.Contains(sc[2][7], `"-2+3"`) {
		t.Errorf("detail %q", sc[2][7])
	}
	if got := rowOf(sheet("Resolved"), "subscription_delinquent"); len(got) < 7 || got[4] != "$20.00" || got[6] != "2026-11-19" {
		t.Errorf("Resolved row %q, want the USD amount and the date first seen", got)
	}
	if got := rowOf(sheet("Legend"), "skipped_cycle"); len(got) < 3 || !strings.HasPrefix(got[2], "Confirm the skip was intended") {
		t.Errorf("Legend row %q, want the kind's action", got)
	}
}
