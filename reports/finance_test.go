package reports

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports/reportstest"
)

// TestSummaryFindingsByKindForFinance: the Summary's "Findings by kind"
// is what finance starts from. One row per kind and currency, named as
// the kind's sheet is (a person's words, not the snake-case id, which
// stays in the Kind ID column), each name a link to its sheet; the amount
// at stake beside the counts, in the row's currency; the counts of a
// column adding up to the run's facts (no row counted twice); the kinds
// in the order of their sheets, the most money first; and a chart of the
// ten largest amounts, one bar per kind and currency.
func TestSummaryFindingsByKindForFinance(t *testing.T) {
	t.Parallel() // its own database and files
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SummarySheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	start := -1
	for i, r := range rows {
		if len(r) >= 2 && start < 0 {
			facts[r[0]] = r[1]
		}
		if len(r) > 0 && strings.HasPrefix(r[0], "Findings by kind") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatal("the Summary has no Findings by kind")
	}
	header := rows[start+1]
	if want := []string{"Finding", "Currency", "Findings", "New today", "Still open", "Acknowledged", "Resolved", "Amount at stake", "Kind ID"}; !slices.Equal(header, want) {
		t.Fatalf("Findings by kind header %q, want %q", header, want)
	}
	names := KindSheetNames()
	sheets := f.GetSheetList()
	sums := map[string]int{}
	var order []string // the kinds, as the rows list them
	for i := start + 2; i < len(rows) && len(rows[i]) > 0 && rows[i][0] != ""; i++ {
		r := rows[i]
		kind := r[8]
		if r[0] != names[kind] || strings.Contains(r[0], "_") {
			t.Errorf("row %d: %q for kind %s, want its sheet's name %q", i+1, r[0], kind, names[kind])
		}
		ref, _ := excelize.CoordinatesToCellName(1, i+1)
		formula, _ := f.GetCellFormula(SummarySheet, ref)
		if want := `HYPERLINK("#'` + strings.ReplaceAll(r[0], "'", "''") + `'!A1","` + r[0] + `")`; formula != want || !slices.Contains(sheets, r[0]) {
			t.Errorf("%s: %q, want a link to the sheet %q", ref, formula, r[0])
		}
		for c, h := range header[2:7] {
			n, _ := strconv.Atoi(r[c+2])
			sums[h] += n
		}
		if r[1] != "" { // a currency: its amount, in its format
			amt, _ := excelize.CoordinatesToCellName(8, i+1)
			shown, _ := f.GetCellValue(SummarySheet, amt)
			if _, err := strconv.ParseFloat(r[7], 64); err != nil || shown == r[7] {
				t.Errorf("%s: amount %q shown %q in %s", amt, r[7], shown, r[1])
			}
		}
		if len(order) == 0 || order[len(order)-1] != kind {
			order = append(order, kind)
		}
	}
	for h, fact := range map[string]string{"Findings": "Findings", "New today": "New today", "Still open": "Still open",
		"Acknowledged": "Acknowledged", "Resolved": "Resolved since previous run"} {
		if strconv.Itoa(sums[h]) != facts[fact] {
			t.Errorf("the %s column sums to %d, the run's facts say %s", h, sums[h], facts[fact])
		}
	}
	if kinds := queries.Kinds(); len(order) != len(kinds) {
		t.Errorf("Findings by kind lists %d kinds (%q), want every kind of the catalog (%d)", len(order), order, len(kinds))
	}
	// The same order as the sheets, the most money at stake first.
	var sheetOrder []string
	for _, s := range sheets[1 : 1+len(order)] {
		for k, n := range names {
			if n == s {
				sheetOrder = append(sheetOrder, k)
			}
		}
	}
	if !slices.Equal(order, sheetOrder) {
		t.Errorf("Findings by kind in the order %q, the sheets %q", order, sheetOrder)
	}
	// The most money at stake first, without exchange rates: by the
	// amounts in the principal currency (that of most findings), either
	// sign, then the others'.
	counts, principalAmt := map[string]int{}, map[string]float64{}
	for i := start + 2; i < len(rows) && len(rows[i]) > 0 && rows[i][0] != ""; i++ {
		n, _ := strconv.Atoi(rows[i][2])
		counts[rows[i][1]] += n
	}
	principal := ""
	for c, n := range counts {
		if c != "" && (n > counts[principal] || n == counts[principal] && c < principal) {
			principal = c
		}
	}
	for i := start + 2; i < len(rows) && len(rows[i]) > 0 && rows[i][0] != ""; i++ {
		if rows[i][1] == principal {
			a, _ := strconv.ParseFloat(rows[i][7], 64)
			principalAmt[rows[i][8]] += math.Abs(a) // money at stake either way (a funding shortfall is negative)
		}
	}
	for i := 1; i < len(order); i++ {
		if principalAmt[order[i]] > principalAmt[order[i-1]] {
			t.Errorf("%s (%v %s) comes after %s (%v %s)", order[i], principalAmt[order[i]], principal, order[i-1], principalAmt[order[i-1]], principal)
		}
	}
	// The chart: the ten largest kinds in the principal currency.
	var bars []string
	for i := range rows {
		if len(rows[i]) > 0 && strings.HasPrefix(rows[i][0], "Money at stake") {
			for j := i + 2; j < len(rows) && len(rows[j]) > 0 && rows[j][0] != ""; j++ {
				if rows[j][2] != principal {
					t.Errorf("money at stake row %q: not in %s", rows[j], principal)
				}
				bars = append(bars, rows[j][0])
			}
		}
	}
	var top []string
	for _, k := range order {
		if principalAmt[k] > 0 && len(top) < 10 {
			top = append(top, names[k])
		}
	}
	if len(bars) == 0 || !slices.Equal(bars, top) {
		t.Errorf("money at stake rows %q, want the ten largest in %s: %q", bars, principal, top)
	}
	var charts string
	for _, x := range reportstest.ZipFiles(t, path, "xl/charts/chart") {
		charts += x
	}
	if !strings.Contains(charts, "Money at stake") || strings.Contains(charts, "Findings by kind") {
		t.Error("the Summary's chart is not the money at stake")
	}
}

// TestLegendSpeaksToFinance: the Legend lists each kind by its sheet's
// name (a link), what it means and what to do in finance's words, and its
// ID; none of its texts is the platform's description.
func TestLegendSpeaksToFinance(t *testing.T) {
	t.Parallel() // its own database and files
	path := writeFixtureWorkbook(t, Scope{})
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, _ := f.GetRows(LegendSheet)
	names := KindSheetNames()
	seen := 0
	for i, r := range rows {
		if len(r) < 5 {
			continue
		}
		for _, c := range queries.Checks() {
			if r[4] != c.Kind {
				continue
			}
			seen++
			ref, _ := excelize.CoordinatesToCellName(1, i+1)
			if fm, _ := f.GetCellFormula(LegendSheet, ref); r[0] != names[c.Kind] || !strings.HasPrefix(fm, "HYPERLINK(") {
				t.Errorf("Legend %s: %q (%q), want a link to %q", ref, r[0], fm, names[c.Kind])
			}
			if r[1] != c.Means || r[2] != c.Do || strings.Contains(r[1], "/pts/") {
				t.Errorf("Legend row of %s: %q / %q, want its Means and Do lines", c.Kind, r[1], r[2])
			}
		}
	}
	if seen != len(queries.Checks()) {
		t.Errorf("the Legend lists %d kinds, want %d", seen, len(queries.Checks()))
	}
}
