package reports

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
)

// summaryColumnA is column A of the Summary sheet of run's workbook for
// scope, written from the fixture database.
func summaryColumnA(t *testing.T, run Publication, scope Scope) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), fixtureDB(t), path, Workbook(run, scope)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SummarySheet)
	if err != nil {
		t.Fatal(err)
	}
	var col []string
	for _, r := range rows {
		if len(r) > 0 {
			col = append(col, r[0])
		}
	}
	return col
}

// The Summary's Alarms table: the raised alarms (the golden file shows
// them), one row saying none was raised when all are clear, no table for
// a run checked against no alarm, and none in a group's workbook.
func TestSummaryAlarmsTable(t *testing.T) {
	t.Parallel() // its own database and files
	clear := fixtureRun
	clear.Alarms = []Alarm{{Name: "failed_share", Value: 0.25, Limit: 0.5, Message: "25% failed"}}
	if col := summaryColumnA(t, clear, Scope{}); !slices.Contains(col, "Alarms") || !slices.Contains(col, "(none raised)") {
		t.Errorf("all alarms clear: the Summary should say none was raised; column A %q", col)
	}
	none := fixtureRun
	none.Alarms = nil
	if col := summaryColumnA(t, none, Scope{}); slices.Contains(col, "Alarms") {
		t.Error("a run checked against no alarm has an Alarms table")
	}
	if col := summaryColumnA(t, fixtureRun, Scope{GroupID: "1001"}); slices.Contains(col, "Alarms") {
		t.Error("a group's workbook shows the run's alarms")
	}
}

func TestManifestAlarmsAreTheRaisedOnes(t *testing.T) {
	t.Parallel() // its own database and files
	if got := manifestAlarms(nil); got == nil || len(got) != 0 {
		t.Errorf("no alarms: %#v, want an empty list", got)
	}
	got := manifestAlarms(fixtureRun.Alarms)
	if len(got) != 2 || got[0].Name != "members_lost" || got[1].Name != "kind_amount" || got[1].Currency != "CHF" {
		t.Errorf("manifest alarms %+v", got)
	}
}

func TestAlarmLabel(t *testing.T) {
	t.Parallel() // its own database and files
	if got := fixtureRun.Alarms[2].Label(); got != "kind_amount subscription_suspended CHF" {
		t.Errorf("Label = %q", got)
	}
	if got := fixtureRun.Alarms[0].Label(); got != "members_lost" {
		t.Errorf("Label = %q", got)
	}
}
