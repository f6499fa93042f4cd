package groundtruth

import (
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/reports"
)

// sheetSums sums, per currency, the number cells of column value of the
// table whose header row starts with first, over the rows where filter
// (column, value) holds ("" filter: every row), stopping at the first
// blank row.
func sheetSums(t *testing.T, wb *excelize.File, sheet, first, value, filterCol, filterVal string) map[string]string {
	t.Helper()
	rows, err := wb.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	start := slices.IndexFunc(rows, func(r []string) bool { return len(r) > 0 && r[0] == first })
	if start < 0 {
		t.Fatalf("sheet %s: no table headed %q", sheet, first)
	}
	h := rows[start]
	cur, val, filt := slices.Index(h, "Currency"), slices.Index(h, value), slices.Index(h, filterCol)
	if cur < 0 || val < 0 || (filterCol != "" && filt < 0) {
		t.Fatalf("sheet %s header %q: no Currency, %s or %s", sheet, h, value, filterCol)
	}
	sums := map[string]float64{}
	for _, r := range rows[start+1:] {
		if len(r) == 0 || r[0] == "" {
			break
		}
		if filterCol != "" && (filt >= len(r) || r[filt] != filterVal) {
			continue
		}
		v, err := strconv.ParseFloat(r[val], 64)
		if err != nil {
			t.Fatalf("sheet %s: %s %q is not a number", sheet, value, r[val])
		}
		sums[r[cur]] += v
	}
	out := map[string]string{}
	for c, v := range sums {
		out[c] = fmt.Sprintf("%.3f", v)
	}
	return out
}

// checkFundingTieOut: the funded total per currency is the same on the
// Summary's waterfall, on the Funding sheet (read back from the xlsx) and
// in SQL over the fundings table; and the Funding sheet's differences are
// the funding_tieout_mismatch findings' amounts.
func checkFundingTieOut(t *testing.T, path string, db *sql.DB) {
	t.Helper()
	wb, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	query := func(q string) map[string]string {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var c string
			var v float64
			if err := rows.Scan(&c, &v); err != nil {
				t.Fatal(err)
			}
			out[c] = fmt.Sprintf("%.3f", v)
		}
		return out
	}
	sqlFunded := query(`SELECT currency, CAST(sum(funded) AS DOUBLE) FROM fundings
		WHERE funding_day >= TIMESTAMPTZ '2026-11-17 00:00:00+00' AND funding_day < TIMESTAMPTZ '2026-11-21 00:00:00+00' GROUP BY currency`)
	if len(sqlFunded) == 0 {
		t.Fatal("no funding in the window: the tie-out is not exercised")
	}
	sheetFunded := sheetSums(t, wb, reports.FundingDaySheet, "Funding day", "Funded", "", "")
	summaryFunded := sheetSums(t, wb, "Summary", "Currency", "Amount", "Stage", "funded")
	if !maps.Equal(sqlFunded, sheetFunded) || !maps.Equal(sqlFunded, summaryFunded) {
		t.Errorf("funded per currency: SQL %v, Funding sheet %v, Summary %v", sqlFunded, sheetFunded, summaryFunded)
	}
	sqlDiff := query(`SELECT currency, CAST(sum(amount) AS DOUBLE) FROM findings
		WHERE run_id = '2026-11-20' AND kind = 'funding_tieout_mismatch' AND state IN ('new', 'open') GROUP BY currency`)
	sheetDiff := sheetSums(t, wb, reports.FundingDaySheet, "Funding day", "Difference", "Ties out", "no")
	if len(sqlDiff) == 0 || !maps.Equal(sqlDiff, sheetDiff) {
		t.Errorf("tie-out differences per currency: findings %v, Funding sheet %v", sqlDiff, sheetDiff)
	}
}
