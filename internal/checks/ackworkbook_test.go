package checks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestReadWorkbookAcknowledgementsHostile: the workbook handed back is
// read as untrusted. A FIFO, a file past the size bound and a file that
// is no workbook are refused with an error naming it; on a readable one
// only a sheet with the finding table's header is read, a formula is never
// taken for its value, an unknown kind and an over-long reason are refused
// with their sheet and row, and a well filled row is taken, its date
// typed or written as text.
func TestReadWorkbookAcknowledgementsHostile(t *testing.T) {
	dir := t.TempDir()
	entity := func(kind string) string { return "Subscription ID" }

	fifo := filepath.Join(dir, "fifo.xlsx")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.xlsx")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxAckWorkbook+1); err != nil {
		t.Fatal(err)
	}
	notXLSX := filepath.Join(dir, "no.xlsx")
	if err := os.WriteFile(notXLSX, []byte("kind,merchant\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "not a regular file", big: "larger than 64 MiB", notXLSX: "not a readable .xlsx"} {
		if _, _, err := ReadWorkbookAcknowledgements(path, entity); err == nil || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error saying %q", filepath.Base(path), err, want)
		}
	}

	f := excelize.NewFile()
	header := []any{"Merchant ID", "Subscription ID", "Reason", "Kind ID", "Acknowledge: reason", "Acknowledge: owner",
		"Acknowledge: until", "Acknowledge: ticket"}
	set := func(sheet string, row int, vals ...any) {
		cell, _ := excelize.CoordinatesToCellName(1, row)
		if err := f.SetSheetRow(sheet, cell, &vals); err != nil {
			t.Fatal(err)
		}
	}
	sheet := "Customer behind on payments"
	f.SetSheetName("Sheet1", sheet)
	set(sheet, 1, "What it means: ...")
	set(sheet, 3, header...)
	set(sheet, 4, "m1", "s1", "x", "subscription_delinquent", "New card promised", "Jane Doe", "2026-12-15", "FIN-1")
	set(sheet, 5, "m1", "s2", "x", "subscription_delinquent", "", "", "", "") // not filled
	set(sheet, 6, "m1", "s3", "x", "subscription_delinquent", "Known", "Jane Doe", 46371.0, "")
	set(sheet, 7, "m1", "s4", "x", "no_such_kind", "Known", "Jane Doe", "2026-12-15", "")
	set(sheet, 8, "m1", "s5", "x", "subscription_delinquent", strings.Repeat("r", 2001), "Jane Doe", "2026-12-15", "")
	set(sheet, 9, "m1", "s6", "x", "subscription_delinquent", "Known", "Jane Doe", "soon", "")
	set(sheet, 10, "m1", "s7", "x", "subscription_delinquent", "placeholder", "Jane Doe", "2026-12-15", "")
	if err := f.SetCellFormula(sheet, "E10", `"Approved"`); err != nil {
		t.Fatal(err)
	}
	// A sheet finance added, without the finding table's header: not read.
	if _, err := f.NewSheet("Notes"); err != nil {
		t.Fatal(err)
	}
	set("Notes", 1, "Kind ID", "Acknowledge: reason")
	set("Notes", 2, "subscription_delinquent", "ignored")
	path := filepath.Join(dir, "filled.xlsx")
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	rows, rejects, err := ReadWorkbookAcknowledgements(path, entity)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Row != 4 || rows[0].Ack.EntityID != "s1" || rows[0].Ack.Until.Format("2006-01-02") != "2026-12-15" ||
		rows[0].Ack.Ticket != "FIN-1" || rows[1].Row != 6 || rows[1].Ack.Until.Format("2006-01-02") != "2026-12-15" {
		t.Errorf("rows taken: %+v, want rows 4 and 6, until 2026-12-15 each", rows)
	}
	want := map[int]string{7: "not a finding kind", 8: "reason: 2001 characters", 9: `"soon" is not a date`, 10: "holds a formula"}
	if len(rejects) != len(want) {
		t.Errorf("refused %v, want rows 7 to 10", rejects)
	}
	for _, r := range rejects {
		if r.Sheet != sheet || !strings.Contains(r.Reason, want[r.Row]) || want[r.Row] == "" {
			t.Errorf("refused %s, want %q", r, want[r.Row])
		}
	}
}
