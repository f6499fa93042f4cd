package reports

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	duckdb "github.com/duckdb/duckdb-go/v2"
	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/outputs"
)

// groupBlock is a table of a sheet with a Group column, as read back from
// the workbook: its title (the row above the header), header and rows.
type groupBlock struct {
	sheet, title string
	header       []string
	rows         [][]string
}

func (b groupBlock) col(name string) int { return slices.Index(b.header, name) }

// groupBlocks reads every table of the workbook that has a Group column,
// and the by-member tables (first column Merchant ID) beside them, with the
// cells' stored values (amounts unformatted).
func groupBlocks(t *testing.T, f *excelize.File) []groupBlock {
	t.Helper()
	var out []groupBlock
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(rows); i++ {
			if !slices.Contains(rows[i], "Group") && (len(rows[i]) == 0 || rows[i][0] != "Merchant ID") {
				continue
			}
			b := groupBlock{sheet: sh, header: rows[i]}
			if len(rows[i-1]) > 0 {
				b.title = rows[i-1][0]
			}
			for _, r := range rows[i+1:] {
				if len(r) == 0 || strings.Join(r, "") == "" {
					break
				}
				b.rows = append(b.rows, append(r, make([]string, max(0, len(b.header)-len(r)))...))
			}
			out = append(out, b)
		}
	}
	return out
}

// sums adds up the numeric columns of rows by the key columns: "key|col" -> sum.
func sums(t *testing.T, b groupBlock, keys, nums []string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range b.rows {
		var k []string
		for _, c := range keys {
			k = append(k, r[b.col(c)])
		}
		for _, c := range nums {
			i := b.col(c)
			if i < 0 {
				t.Fatalf("%s %q: no column %q in %q", b.sheet, b.title, c, b.header)
			}
			v := 0.0
			if r[i] != "" {
				var err error
				if v, err = strconv.ParseFloat(r[i], 64); err != nil {
					t.Fatalf("%s %q: %s = %q is not a number", b.sheet, b.title, c, r[i])
				}
			}
			out[strings.Join(k, ",")+"|"+c] += v
		}
	}
	return out
}

// wholeOf runs a query of the whole run (no group in it) into the same
// shape as sums: its first len(keys) columns are the keys, the others the
// numeric columns nums.
func wholeOf(t *testing.T, db *sql.DB, keys, nums []string, q string) map[string]float64 {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		vals := make([]any, len(keys)+len(nums))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var k []string
		for _, v := range vals[:len(keys)] {
			if v == nil {
				v = ""
			}
			k = append(k, fmt.Sprint(v))
		}
		for i, c := range nums {
			var f float64
			switch v := vals[len(keys)+i].(type) {
			case duckdb.Decimal:
				f = v.Float64()
			case int64:
				f = float64(v)
			case float64:
				f = v
			case nil:
			default:
				t.Fatalf("%s: column %s is a %T", q, c, v)
			}
			out[strings.Join(k, ",")+"|"+c] += f
		}
	}
	return out
}

func sameSums(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	var diffs []string
	for k := range want {
		if math.Abs(got[k]-want[k]) > 0.0005 {
			diffs = append(diffs, fmt.Sprintf("%s: per-group rows sum to %v, the whole is %v", k, got[k], want[k]))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && got[k] != 0 {
			diffs = append(diffs, fmt.Sprintf("%s: per-group rows sum to %v, the whole has none", k, got[k]))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

// TestPerGroupTablesSumToTheWhole reads the whole run's workbook back from
// the xlsx and sums every table with a Group column, as finance does with
// a SUM over a sheet. The fixture's member m2 is in groups 1001 and 1002:
// no table may count it (its payments, findings, subscriptions, metrics)
// in both groups' rows. Each member-level table lists a member's record
// once, under one Group label ("1001, 1002" for m2), the same label in
// every table; each group-level table sums, per key, to the whole run's
// figure, computed from the database without groups or from the sheet's
// own by-member table.
func TestPerGroupTablesSumToTheWhole(t *testing.T) {
	t.Parallel() // its own database and files
	db := billingFixtureDB(t)
	path := filepath.Join(t.TempDir(), "w.xlsx")
	if _, err := outputs.WriteWorkbook(context.Background(), db, path, Workbook(fixtureRun, Scope{})); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	blocks := groupBlocks(t, f)
	if len(blocks) < 10 {
		t.Fatalf("only %d tables with a Group column in the workbook", len(blocks))
	}

	// Member-level tables: a record once, under one label per member.
	label := map[string]string{}
	for _, b := range blocks {
		g, m := b.col("Group"), b.col("Merchant ID")
		if m < 0 {
			continue
		}
		seen := map[string]bool{}
		for _, r := range b.rows {
			rest := r
			if g >= 0 {
				rest = slices.Delete(slices.Clone(r), g, g+1)
			}
			key := strings.Join(rest, "\x00")
			if seen[key] {
				t.Errorf("%s %q: the row of %s is there twice, under two groups (%q)", b.sheet, b.title, r[m], r)
			}
			seen[key] = true
			if g < 0 {
				continue
			}
			if l, ok := label[r[m]]; ok && l != r[g] {
				t.Errorf("%s %q: member %s under group %q, elsewhere under %q", b.sheet, b.title, r[m], r[g], l)
			}
			label[r[m]] = r[g]
		}
	}
	if label["m2"] != "1001, 1002" {
		t.Errorf("m2, in groups 1001 and 1002, is labelled %q, want \"1001, 1002\"", label["m2"])
	}

	run := fixtureRun.RunID
	inGroups := fmt.Sprintf(`merchant_id IN (SELECT merchant_id FROM group_members WHERE run_id = '%s')`, run)
	okMembers := fmt.Sprintf(`merchant_id IN (SELECT merchant_id FROM run_members WHERE run_id = '%s' AND status = 'ok')`, run)
	window := fmt.Sprintf(`BETWEEN (SELECT window_start FROM runs WHERE run_id = '%s') AND (SELECT window_end FROM runs WHERE run_id = '%s') - INTERVAL 1 MICROSECOND`, run, run)
	checked := map[string]bool{}
	for _, b := range blocks {
		if b.col("Merchant ID") >= 0 {
			continue
		}
		var keys, nums []string
		var whole map[string]float64
		switch {
		case b.sheet == SummarySheet && b.title == "Members by group":
			nums = []string{"Members", "Reconciled", "Failed"}
			whole = wholeOf(t, db, nil, nums, fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE status = 'ok'), count(*) FILTER (WHERE status = 'failed')
				FROM run_members WHERE run_id = '%s' AND %s`, run, inGroups))
		case b.sheet == SummarySheet && strings.HasPrefix(b.title, "Payments billed by group"):
			keys, nums = []string{"Currency"}, []string{"Payments", "Amount"}
			whole = wholeOf(t, db, keys, nums, fmt.Sprintf(`SELECT currency, count(*), sum(billing_amount + coalesce(setup_fee, 0) + coalesce(surcharge_amount, 0))
				FROM subscription_payments WHERE status = 'PAID' AND payment_date %s AND %s AND %s GROUP BY currency`, window, okMembers, inGroups))
		case b.sheet == SummarySheet && b.title == "Findings by group and kind":
			keys, nums = []string{"Kind", "Currency"}, []string{"Findings", "New today", "Still open", "Acknowledged", "Resolved", "Amount"}
			whole = wholeOf(t, db, keys, nums, fmt.Sprintf(`SELECT kind, currency,
				count(*) FILTER (WHERE state IN ('new', 'open', 'acknowledged')), count(*) FILTER (WHERE state = 'new'),
				count(*) FILTER (WHERE state = 'open'), count(*) FILTER (WHERE state = 'acknowledged'),
				count(*) FILTER (WHERE state = 'resolved'), sum(amount) FILTER (WHERE state IN ('new', 'open', 'acknowledged'))
				FROM findings WHERE run_id = '%s' AND %s GROUP BY ALL`, run, inGroups))
		case b.sheet == SummarySheet && strings.HasPrefix(b.title, "Funding mix by group"):
			keys, nums = []string{"Funding source", "Currency"}, []string{"Transactions", "Amount"}
			whole = wholeOf(t, db, keys, nums, fmt.Sprintf(`SELECT coalesce(b.funding_source, '(unknown)'), t.currency, count(*), sum(t.amount)
				FROM transactions t LEFT JOIN bin_attributes b ON b.bin = t.card_bin
				WHERE t.submit_time %s AND t.%s AND t.%s GROUP BY ALL`, window, okMembers, inGroups))
		default:
			// A group-level table beside its by-member table on the same sheet
			// (Metrics; the payments sheets): the members' rows are the whole.
			// The by-member table sharing the most columns with it.
			var members *groupBlock
			best := 0
			for i := range blocks {
				o := blocks[i]
				if o.sheet != b.sheet || o.col("Merchant ID") < 0 {
					continue
				}
				common := 0
				for _, h := range b.header[1:] {
					if o.col(h) >= 0 {
						common++
					}
				}
				if common > best {
					members, best = &blocks[i], common
				}
			}
			if members == nil {
				t.Errorf("%s %q: a per-group table this test does not sum against a whole: add it", b.sheet, b.title)
				continue
			}
			for _, h := range b.header[1:] {
				switch {
				case members.col(h) < 0: // e.g. Members, Terminals: counted per group only
				case slices.Contains([]string{"Currency", "Funding source", "Card platform", "Card product", "Health card",
					"Wallet", "Payment solution", "Network"}, h):
					keys = append(keys, h)
				default:
					nums = append(nums, h)
				}
			}
			if len(nums) == 0 {
				t.Errorf("%s %q: no column in common with its by-member table %q", b.sheet, b.title, members.title)
				continue
			}
			whole = sums(t, *members, keys, nums)
		}
		checked[b.sheet+" "+b.title] = true
		sameSums(t, b.sheet+" "+b.title, sums(t, b, keys, nums), whole)
	}
	for _, want := range []string{"Summary Members by group", "Summary Payments billed by group", "Summary Findings by group and kind",
		"Summary Funding mix by group", MetricsSheet, InterchangeSheet, FundingSheet, WalletsSheet, TerminalsSheet} {
		found := false
		for k := range checked {
			found = found || strings.HasPrefix(k, want)
		}
		if !found {
			t.Errorf("no table %q was summed: the test would not show double counting there", want)
		}
	}
}
