package ack

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/reports"
)

// TestAcknowledgeFromWorkbookRoundTrip: finance acknowledges findings in
// the workbook itself (whose delinquent and suspended rows name the
// customer). A sandbox run publishes the workbook; finance fills
// the Acknowledge columns of rows on two finding sheets (an end date
// typed as a date, one as text) and a few rows that cannot be taken (no
// owner, a formula, an end date before the run's); reconcile ack --from
// makes the good ones in one go, each audited as coming from the
// workbook, lists each refused row with its sheet, row and reason and
// exits 1; the next night's run reports the good ones acknowledged, with
// their owner, and the refused ones not.
func TestAcknowledgeFromWorkbookRoundTrip(t *testing.T) {
	t.Parallel()
	f := clitest.NewFixture(t, sandbox.Config{})
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	runDate(t, f, db, out, "2026-11-20")

	book, err := excelize.OpenFile(filepath.Join(out, "2026-11-20", "reconcile-2026-11-20.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	// filled is a finding whose row was filled in, and what with.
	type filled struct {
		finding
		owner string
		good  bool
		sheet string
		row   int
	}
	var rows []filled
	names := reports.KindSheetNames()
	for _, kind := range []string{"subscription_delinquent", "subscription_suspended"} {
		sheet := names[kind]
		all, err := book.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		head := -1
		for i, r := range all {
			if slices.Contains(r, "Acknowledge: reason") {
				head = i
				break
			}
		}
		if head < 0 || len(all) < head+3 {
			t.Fatalf("sheet %s: no finding table with two rows and Acknowledge columns: %q", sheet, all)
		}
		col := func(h string) int {
			i := slices.Index(all[head], h)
			if i < 0 {
				t.Fatalf("sheet %s has no column %q: %q", sheet, h, all[head])
			}
			return i + 1
		}
		set := func(r int, h string, v any) {
			ref, _ := excelize.CoordinatesToCellName(col(h), r)
			if err := book.SetCellValue(sheet, ref, v); err != nil {
				t.Fatal(err)
			}
		}
		// The sandbox bills its subscriptions to named customers, as the
		// platform does (orderInformation.billTo): each row says who.
		for _, data := range all[head+1:] {
			if c := col("Customer") - 1; c >= len(data) || strings.TrimSpace(data[c]) == "" {
				t.Errorf("sheet %s: a row without its customer's name: %q", sheet, data)
			}
		}
		entity := reports.KindSheetEntityHeader(kind)
		for n := 0; n < 2; n++ {
			r := head + 2 + n // 1-based row of the n-th finding
			data := all[head+1+n]
			fd := filled{finding: finding{kind, data[col("Merchant ID")-1], data[col(entity)-1]}, sheet: sheet, row: r}
			switch {
			case kind == "subscription_delinquent" && n == 0: // an end date typed as a date
				fd.owner, fd.good = "Jane Doe", true
				set(r, "Acknowledge: reason", "Customer promised a new card")
				set(r, "Acknowledge: owner", fd.owner)
				set(r, "Acknowledge: until", time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
				set(r, "Acknowledge: ticket", "FIN-7")
			case kind == "subscription_suspended" && n == 0: // typed as text
				fd.owner, fd.good = "Ann Lee", true
				set(r, "Acknowledge: reason", "Cancelling with the customer")
				set(r, "Acknowledge: owner", fd.owner)
				set(r, "Acknowledge: until", "2026-12-01")
			case kind == "subscription_delinquent": // no owner
				set(r, "Acknowledge: reason", "Known")
				set(r, "Acknowledge: until", "2026-12-01")
			default: // a formula, and an end date before the run's
				ref, _ := excelize.CoordinatesToCellName(col("Acknowledge: reason"), r)
				if err := book.SetCellFormula(sheet, ref, `"Approved"&A1`); err != nil {
					t.Fatal(err)
				}
				set(r, "Acknowledge: owner", "Mallory")
				set(r, "Acknowledge: until", "2026-11-01")
			}
			rows = append(rows, fd)
		}
	}
	filledPath := filepath.Join(work, "filled.xlsx")
	if err := book.SaveAs(filledPath); err != nil {
		t.Fatal(err)
	}
	book.Close()

	code, so, se := clitest.RunCLI(t, nil, "ack", "--from", filledPath, "--by", "jdoe", "--db", db)
	if code != cli.ExitFailed || !strings.Contains(so, "acknowledged 2, unchanged 0, refused 2 (of 4 filled rows") ||
		!strings.Contains(se, "2 row(s) refused") {
		t.Fatalf("ack --from: exit %d\n%s\n%s", code, so, se)
	}
	for _, r := range rows {
		if r.good {
			continue
		}
		want := "refused: sheet \"" + r.sheet + "\" row " + strconv.Itoa(r.row) + ": "
		if !strings.Contains(so, want) {
			t.Errorf("ack --from does not list the refused row %s row %d:\n%s", r.sheet, r.row, so)
		}
	}
	if !strings.Contains(so, "owner: missing") || !strings.Contains(so, "holds a formula") {
		t.Errorf("ack --from: the reasons of the refused rows are missing:\n%s", so)
	}
	audit := clitest.QueryDB(t, db, `SELECT count(*) FROM acknowledgement_audit WHERE action = 'acknowledge' AND changed_by = 'jdoe'
		AND source = 'workbook ' || ?`, filledPath)
	if audit[0][0] != "2" {
		t.Errorf("audit rows from the workbook: %s, want 2", audit[0][0])
	}
	got := clitest.QueryDB(t, db, `SELECT until::VARCHAR, ticket FROM acknowledgements WHERE owner = 'Jane Doe'`)
	if len(got) != 1 || got[0][0] != "2026-12-15" || got[0][1] != "FIN-7" {
		t.Errorf("Jane Doe's acknowledgement %q, want until 2026-12-15 and ticket FIN-7", got)
	}
	// The same file again changes nothing it took.
	if _, so, _ := clitest.RunCLI(t, nil, "ack", "--from", filledPath, "--by", "jdoe", "--db", db); !strings.Contains(so, "acknowledged 0, unchanged 2, refused 2") {
		t.Errorf("ack --from a second time:\n%s", so)
	}

	runDate(t, f, db, out, "2026-11-21")
	for _, r := range rows {
		state := stateOf(t, db, "2026-11-21", r.finding)
		if r.good && state != "acknowledged "+r.owner || !r.good && strings.HasPrefix(state, "acknowledged") {
			t.Errorf("%s %s on 2026-11-21: %q (filled well: %v)", r.kind, r.entity, state, r.good)
		}
	}
}
