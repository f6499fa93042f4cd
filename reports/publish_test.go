package reports

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

func TestPublishLayout(t *testing.T) {
	t.Parallel() // its own database and files
	db := fixtureDB(t)
	out := t.TempDir()
	run := fixtureRun
	run.SplitBy = "group"
	pub, err := Publish(context.Background(), db, out, run)
	if err != nil {
		t.Fatal(err)
	}
	day := filepath.Join(out, "2026-11-20")
	for _, p := range []string{
		"reconcile-2026-11-20.xlsx",
		"reconcile-2026-11-20-group-1001.xlsx",
		"reconcile-2026-11-20-group-1002.xlsx",
		"reconcile-2026-11-20.duckdb",
		"manifest.json",
		"parquet/findings/date=2026-11-20/kind=skipped_cycle/data_0.parquet",
		"parquet/findings/date=2026-11-20/kind=subscription_delinquent/data_0.parquet",
		"parquet/transactions/date=2026-11-20/data_0.parquet",
		"parquet/journal_rejects/date=2026-11-20/data_0.parquet", // empty, with its schema
		"parquet/finding_kinds/date=2026-11-20/data_0.parquet",
	} {
		if _, err := os.Stat(filepath.Join(day, p)); err != nil {
			t.Errorf("output %s: %v", p, err)
		}
	}
	// The one publish step also moves out/current.duckdb to the new snapshot.
	if target, err := os.Readlink(filepath.Join(out, outputs.CurrentName)); err != nil ||
		pub.Current != filepath.Join(out, outputs.CurrentName) || filepath.Join(out, target) != pub.Snapshot {
		t.Errorf("current link %s -> %q (%v), want it at %s pointing to %s", pub.Current, target, err,
			filepath.Join(out, outputs.CurrentName), pub.Snapshot)
	}
	if _, err := os.Stat(filepath.Join(day, "reconcile-2026-11-20-group-1003.xlsx")); err == nil {
		t.Error("a workbook for group 1003, which this run did not list")
	}
	if len(pub.GroupWorkbooks) != 2 || pub.GroupWorkbooks["1002"] != filepath.Join(day, "reconcile-2026-11-20-group-1002.xlsx") {
		t.Errorf("group workbooks %v", pub.GroupWorkbooks)
	}
	// m2 is in both groups: its findings are in both groups' workbooks;
	// m1 (group 1001 only) is not in 1002's.
	for id, want := range map[string][]string{"1001": {"m1", "m2"}, "1002": {"m2"}} {
		f, err := excelize.OpenFile(pub.GroupWorkbooks[id])
		if err != nil {
			t.Fatal(err)
		}
		tab := kindTable(t, f, sheetOf("skipped_cycle"))
		var got []string
		for n := 0; n < tab.rows; n++ {
			mid, _ := f.GetCellValue(sheetOf("skipped_cycle"), tab.cell(t, "Merchant ID", n))
			got = append(got, mid)
		}
		f.Close()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("group %s skipped_cycle merchants %v, want %v", id, got, want)
		}
	}

	var m struct {
		FindingsByKind  map[string]int64            `json:"findingsByKind"`
		FindingsByState map[string]map[string]int64 `json:"findingsByState"`
		PreviousRun     string                      `json:"previousRun"`
		RowCounts       map[string]int64            `json:"rowCounts"`
		Alarms          []outputs.ManifestAlarm     `json:"alarms"`
	}
	b, err := os.ReadFile(pub.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.FindingsByKind["skipped_cycle"] != 2 || m.FindingsByKind["subscription_delinquent"] != 1 || m.FindingsByKind["level3_incomplete"] != 1 ||
		len(m.FindingsByKind) != len(queries.Kinds()) {
		t.Errorf("findingsByKind %v: the run's findings are its new, open and acknowledged ones, every kind listed", m.FindingsByKind)
	}
	if m.FindingsByState["resolved"]["subscription_delinquent"] != 1 || m.FindingsByState["new"]["skipped_cycle"] != 1 ||
		m.FindingsByState["acknowledged"]["level3_incomplete"] != 1 || m.FindingsByState["open"]["level3_incomplete"] != 0 || m.PreviousRun != "2026-11-19" {
		t.Errorf("findingsByState %v, previousRun %q", m.FindingsByState, m.PreviousRun)
	}
	// The raised alarms, in order; the clear one is not listed.
	if len(m.Alarms) != 2 || m.Alarms[0].Name != "members_lost" || m.Alarms[1].Kind != "subscription_suspended" ||
		m.Alarms[1].Currency != "CHF" || m.Alarms[1].Value != 1234567.89 || m.Alarms[1].Limit != 1000 {
		t.Errorf("manifest alarms %+v, want the fixture's two raised ones", m.Alarms)
	}
	if m.RowCounts["findings"] != 44 || m.RowCounts["acknowledgements"] != 2 || m.RowCounts["acknowledgement_audit"] != 4 || m.RowCounts["merchant_names"] != 2 {
		t.Errorf("datasets' rows %v: want the run's 44 findings (resolved included), 2 acknowledgements, 4 changes, 2 names", m.RowCounts)
	}

	// The datasets read back as Hive-partitioned, typed Parquet, across
	// days with one glob.
	var n int
	var dateType, amountType string
	err = db.QueryRow(`SELECT count(*), any_value(typeof(date)), any_value(typeof(amount))
		FROM read_parquet(? || '/*/parquet/findings/*/*/*.parquet', hive_partitioning = true)
		WHERE state IN ('new', 'open', 'acknowledged') AND date = DATE '2026-11-20' AND kind IS NOT NULL`, out).Scan(&n, &dateType, &amountType)
	if err != nil {
		t.Fatal(err)
	}
	if n != 42 || dateType != "DATE" || amountType != "DECIMAL(18,3)" {
		t.Errorf("findings dataset: %d current rows, date %s, amount %s; want 42, DATE, DECIMAL(18,3)", n, dateType, amountType)
	}
	// An acknowledged finding carries its acknowledgement in the dataset.
	var owner, reason, until, ticket string
	err = db.QueryRow(`SELECT ack_owner, ack_reason, CAST(ack_until AS VARCHAR), ack_ticket
		FROM read_parquet(? || '/*/parquet/findings/*/*/*.parquet', hive_partitioning = true) WHERE state = 'acknowledged'`, out).Scan(&owner, &reason, &until, &ticket)
	if err != nil || owner != "Jane Doe" || reason != evilReason || until != "2026-12-15" || ticket != "FIN-42" {
		t.Errorf("the acknowledged finding in Parquet: %q %q %q %q (%v)", owner, reason, until, ticket, err)
	}
	for _, c := range []struct{ file, column, logical string }{
		{"findings/date=2026-11-20/kind=skipped_cycle", "amount", "DecimalType(scale=3, precision=18)"},
		{"transactions/date=2026-11-20", "submit_time", "TimestampType(isAdjustedToUTC=1"},
		{"runs/date=2026-11-20", "finished_at", "TimestampType(isAdjustedToUTC=1"},
	} {
		var logical string
		err := db.QueryRow(`SELECT logical_type FROM parquet_schema(?) WHERE name = ?`,
			filepath.Join(day, "parquet", c.file, "data_0.parquet"), c.column).Scan(&logical)
		if err != nil || !strings.HasPrefix(logical, c.logical) {
			t.Errorf("%s.%s: Parquet logical type %q (%v), want %s…", c.file, c.column, logical, err, c.logical)
		}
	}

	// A finding sheet too long for Excel points to its kind's dataset: the
	// path it names must be where Publish put that kind.
	for _, sh := range Workbook(run, Scope{}).Sheets {
		for _, b := range sh.Blocks {
			if sh.Name == sheetOf("skipped_cycle") && b.Main {
				if _, err := os.Stat(filepath.Join(day, filepath.FromSlash(b.Overflow))); err != nil || !strings.HasSuffix(b.Overflow, "kind=skipped_cycle") {
					t.Errorf("sheet %s names dataset %q: %v", sh.Name, b.Overflow, err)
				}
			}
		}
	}

	run.SplitBy = "merchant"
	if _, err := Publish(context.Background(), db, out, run); err == nil || !strings.Contains(err.Error(), "merchant") {
		t.Errorf("split by merchant: %v", err)
	}
}

// TestPublishStampsSource: a sandbox run's workbooks (title, Summary) and
// manifest say its data is simulated; a platform run's say platform; a run
// that names no source is not published at all.
func TestPublishStampsSource(t *testing.T) {
	t.Parallel() // its own database and files
	db := fixtureDB(t)
	for source, want := range map[string]struct{ title, cell string }{
		SourceSandbox:  {"Reconciliation 2026-11-20 — SIMULATED DATA (sandbox)", "SIMULATED DATA (sandbox)"},
		SourcePlatform: {"Reconciliation 2026-11-20", "platform"},
	} {
		run := fixtureRun
		run.Source, run.SplitBy = source, "group"
		pub, err := Publish(context.Background(), db, t.TempDir(), run)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{pub.Workbook, pub.GroupWorkbooks["1002"]} {
			f, err := excelize.OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			props, err := f.GetDocProps()
			if err != nil {
				t.Fatal(err)
			}
			a1, _ := f.GetCellValue(SummarySheet, "A1")
			label, _ := f.GetCellValue(SummarySheet, "A5")
			cell, _ := f.GetCellValue(SummarySheet, "B5")
			f.Close()
			wantTitle := want.title
			if path != pub.Workbook {
				wantTitle = strings.Replace(wantTitle, "2026-11-20", "2026-11-20, group 1002", 1)
			}
			if props.Title != wantTitle || a1 != wantTitle {
				t.Errorf("%s: document title %q, Summary A1 %q; want %q", filepath.Base(path), props.Title, a1, wantTitle)
			}
			if label != "Data source" || cell != want.cell {
				t.Errorf("%s: Summary A5:B5 = %q: %q, want Data source: %q", filepath.Base(path), label, cell, want.cell)
			}
		}
		var m struct{ Source string }
		b, err := os.ReadFile(pub.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Source != source {
			t.Errorf("manifest source %q (%v), want %q", m.Source, err, source)
		}
	}
	run := fixtureRun
	run.Source = ""
	if _, err := Publish(context.Background(), db, t.TempDir(), run); err == nil || !strings.Contains(err.Error(), `source ""`) {
		t.Errorf("a run with no source: %v; want it refused", err)
	}
}
