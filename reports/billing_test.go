package reports

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
)

// billingFixtureDB is the fixture run with recurring-billing rows: m2 is in
// both groups 1001 and 1002, m1 in 1001 only, m3 in 1002 only.
func billingFixtureDB(t *testing.T) *sql.DB {
	t.Helper()
	db := fixtureDB(t)
	for _, s := range []string{
		`DELETE FROM subscriptions WHERE subscription_id IN ('s1', 's7', 's2')`, // the finding sheets' own, replaced
		`INSERT INTO subscriptions (merchant_id, subscription_id, code, status, billing_amount, currency, run_id, loaded_at) VALUES
			('m1', 's1', 'SUB-1', 'DELINQUENT', 100.00, 'USD', 'r', now()),
			('m1', 's7', 'SUB-7', 'ACTIVE', 20.00, 'USD', 'r', now()),
			('m2', 's2', 'SUB-2', 'SUSPENDED', 99.99, 'EUR', 'r', now())`,
		`INSERT INTO delinquency_ageing VALUES
			('2026-11-20', DATE '2026-11-20', 'm1', 's1', 'DELINQUENT', 4, TIMESTAMPTZ '2026-11-16 10:00:00+00', 4, '0-7 days', 2, 3,
			 TIMESTAMPTZ '2026-11-20 10:00:00+00', TIMESTAMPTZ '2026-11-22 10:00:00+00', 105.00, 'USD'),
			('2026-11-20', DATE '2026-11-20', 'm2', 's2', 'SUSPENDED', 2, TIMESTAMPTZ '2026-09-01 10:00:00+00', 80, '61-90 days', 5, 0,
			 TIMESTAMPTZ '2026-09-11 10:00:00+00', NULL, 99.99, 'EUR'),
			('2026-11-19', DATE '2026-11-19', 'm1', 's9', 'DELINQUENT', 1, NULL, NULL, 'no failed payment', 0, 5, NULL, NULL, 1, 'USD')`,
		`INSERT INTO subscription_metrics VALUES
			('2026-11-20', DATE '2026-11-20', 'm1', 'USD', 10, 8, 1, 1, 812.50, 100.00, 1, 1, 0, 1, 2, 40.00),
			('2026-11-20', DATE '2026-11-20', 'm2', 'EUR', 4, 3, 0, 1, 30.44, 0, 0, 0, 0, 0, 0, 0),
			('2026-11-20', DATE '2026-11-20', 'm3', 'JPY', 2, 2, 0, 0, 1500, 0, 0, 0, 0, 0, 0, 0),
			('2026-11-20', DATE '2026-11-20', 'm4', 'GBP', 9, 9, 0, 0, 900, 0, 0, 0, 0, 0, 0, 0)`,
		`INSERT INTO subscription_recoveries VALUES
			('2026-11-20', DATE '2026-11-20', 'm1', 's7', 'DELINQUENT', 'ACTIVE', '2026-11-19', 'retry_succeeded',
			 'p8', TIMESTAMPTZ '2026-11-20 09:00:00+00', 20.00, 'USD')`,
		`INSERT INTO billing_match (run_id, business_date, merchant_id, payment_id, leg, class, flagged, reasons, payment_date,
			payment_status, amount, currency, found_amount, found_currency, found_status) VALUES
			('2026-11-20', DATE '2026-11-20', 'm1', 'p1', 'journal', 'missing', true, NULL, TIMESTAMPTZ '2026-11-17 10:00:00+00', 'PAID', 105.00, 'USD', NULL, NULL, NULL),
			('2026-11-20', DATE '2026-11-20', 'm1', 'p2', 'transaction', 'mismatch', true, 'amount', TIMESTAMPTZ '2026-11-19 10:00:00+00', 'PAID', 1234.75, 'USD', 1234.50, 'USD', 'PENDING'),
			('2026-11-20', DATE '2026-11-20', 'm2', 'p3', 'journal', 'late', false, NULL, TIMESTAMPTZ '2026-11-20 10:00:00+00', 'PAID', 99.99, 'EUR', NULL, NULL, NULL)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("billing fixture: %v\n%s", err, s)
		}
	}
	return db
}

func billingWorkbook(t *testing.T, scope Scope) *excelize.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), billingFixtureDB(t), path, Workbook(fixtureRun, scope)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// cells reads a block's data rows: the rows after the header row whose
// first cell is header, up to the next empty row.
func cells(t *testing.T, f *excelize.File, sheet, header string) [][]string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) > 0 && r[0] == header && i > 0 {
			var out [][]string
			for _, d := range rows[i+1:] {
				if len(d) == 0 {
					break
				}
				out = append(out, d)
			}
			return out
		}
	}
	t.Fatalf("sheet %s: no block headed %q", sheet, header)
	return nil
}

// The Ageing sheet lists each delinquent or suspended subscription of the
// run once, under its member's groups (a member in two groups on a row of
// its own, "1001, 1002", never under each), longest failing first within a
// member, with the amount at risk in its currency; the second block sums
// the amount per group, member and age.
func TestAgeingSheet(t *testing.T) {
	t.Parallel() // its own database and files
	f := billingWorkbook(t, Scope{})
	rows := cells(t, f, AgeingSheet, "Group")
	var got []string
	for _, r := range rows {
		got = append(got, r[0]+" "+r[1]+" "+r[2]+" "+r[4]+" "+r[7]+" "+r[8])
	}
	want := []string{
		"1001 m1 s1 DELINQUENT 4 0-7 days",
		"1001, 1002 m2 s2 SUSPENDED 80 61-90 days",
		"1002 m3 s3 DELINQUENT 6 1-7 days", // fixtureDB's, for the subscription_delinquent sheet
	}
	if !slices.Equal(got, want) {
		t.Errorf("Ageing rows\n %q\nwant\n %q", got, want)
	}
	for _, c := range []struct{ ref, shown string }{
		{"M3", "$105.00"}, {"M4", "€ 99.99"}, {"G3", "2026-11-16 10:00:00"}, {"L3", "2026-11-22 10:00:00"}, {"K4", "0"},
	} {
		if v, _ := f.GetCellValue(AgeingSheet, c.ref); v != c.shown {
			t.Errorf("Ageing %s = %q, want %q", c.ref, v, c.shown)
		}
	}
	// The group workbook of 1002 holds m2 and m3 only.
	g := billingWorkbook(t, Scope{GroupID: "1002"})
	if rows := cells(t, g, AgeingSheet, "Group"); len(rows) != 2 || rows[0][1] != "m2" || rows[1][1] != "m3" {
		t.Errorf("group 1002's Ageing rows: %v", rows)
	}
}

// The Metrics sheet sums the members' metrics per group and currency (a
// member in two groups counts once, on a row of its groups together), lists them per member, and names
// today's recoveries; the failed member m4 is not counted.
func TestMetricsSheet(t *testing.T) {
	t.Parallel() // its own database and files
	f := billingWorkbook(t, Scope{})
	byGroup := cells(t, f, MetricsSheet, "Group")
	var got []string
	for _, r := range byGroup {
		got = append(got, r[0]+" "+r[1]+" active "+r[3]+" mrr "+r[6]+" recovered "+r[9])
	}
	want := []string{
		"1001 USD active 8 mrr $812.50 recovered 1",
		"1001, 1002 EUR active 3 mrr € 30.44 recovered 0",
		"1002 JPY active 2 mrr ¥1,500 recovered 0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Metrics by group\n %q\nwant\n %q", got, want)
	}
	rows, _ := f.GetRows(MetricsSheet)
	found := false
	for _, r := range rows {
		found = found || (len(r) > 5 && r[2] == "s7" && r[3] == "DELINQUENT" && r[4] == "ACTIVE" && r[5] == "retry_succeeded")
	}
	if !found {
		t.Error("the Metrics sheet does not list the recovery of s7")
	}
	match := cells(t, f, MatchSheet, "Group")
	if len(match) != 3 || match[0][1] != "m1" || match[0][4] != "1" || match[0][5] != "1" {
		t.Errorf("Three-way match summary: %v", match)
	}
}
