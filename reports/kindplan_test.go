package reports

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/queries"
)

// memberTables grow with the portfolio: millions of rows at 10,000
// members. A kind's sheet shows a few thousand findings and looks up their
// rows in these tables; if DuckDB builds a hash table (or a sort, or an
// aggregate) on a whole member table instead, the sheet's memory grows
// with the portfolio, and at 10,000 members one sheet went past DuckDB's
// 256 MB and failed the run's publish step.
var memberTables = []string{"transactions", "subscriptions", "subscription_payments", "journal", "delinquency_ageing"}

// TestKindSheetsHoldNoMemberTable: in every kind sheet's plan, over member
// tables a hundred times the size of the findings (as in a real portfolio),
// no operator that holds its input in memory (a hash join's build side, a
// hash aggregate, a sort, a window) reads a member table straight from its
// scan. The sheets look rows up with LATERAL subqueries for that: DuckDB
// then builds on the findings' keys, whatever it estimates. Plain LEFT
// JOINs, one after another, made it estimate the findings side as large
// as the table and build on the table (a 400,000-row transactions table
// for 1,800 findings, at 5,000 members).
func TestKindSheetsHoldNoMemberTable(t *testing.T) {
	t.Parallel() // its own database and files
	db := fixtureDB(t)
	// A portfolio's worth of member rows next to the fixture's findings.
	for _, stmt := range []string{
		`INSERT INTO transactions (merchant_id, transaction_id, card_bin, card_last4, customer_id, client_reference, run_id, loaded_at)
			SELECT 'bm' || (i % 2000), 'bt' || i, '411111', '1111', 'c' || i, 'o' || i, 'r', now() FROM range(200000) t(i)`,
		`INSERT INTO subscriptions (merchant_id, subscription_id, plan_id, code, customer_id, client_reference, run_id, loaded_at)
			SELECT 'bm' || (i % 2000), 'bs' || i, 'bp' || (i % 50), 'SUB-' || i, 'c' || i, 'o' || i, 'r', now() FROM range(200000) t(i)`,
		`INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_date, billing_amount, currency, run_id, loaded_at)
			SELECT 'bm' || (i % 2000), 'bpay' || i, 'bs' || (i % 200000), 'PAID', TIMESTAMPTZ '2026-11-01 00:00:00+00', 10, 'USD', 'r', now() FROM range(200000) t(i)`,
		`INSERT INTO journal (merchant_id, file, line, file_sha256, imported_at, transaction_id, call_kind, client_reference)
			SELECT 'bm' || (i % 2000), 'journal-bm' || (i % 2000) || '.ndjson', i, 'sha', now(), 'bt' || i, 'sale', 'o' || i FROM range(200000) t(i)`,
		`INSERT INTO delinquency_ageing (run_id, business_date, merchant_id, subscription_id, status, age_bucket, retries_done, retries_remaining)
			SELECT '2026-11-20', DATE '2026-11-20', 'bm' || (i % 2000), 'bs' || i, 'DELINQUENT', '1-30', 1, 2 FROM range(200000) t(i)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("fill the member tables: %v", err)
		}
	}
	kinds := queries.KindSheets()
	if len(kinds) == 0 {
		t.Fatal("no kind sheets")
	}
	for _, kind := range kinds {
		query, _ := queries.KindSheet(kind)
		var plan string
		if err := db.QueryRow(`EXPLAIN (FORMAT json) `+query, "2026-11-20", nil, kind).Scan(new(string), &plan); err != nil {
			t.Fatalf("%s: explain: %v", kind, err)
		}
		var roots []planNode
		if err := json.Unmarshal([]byte(plan), &roots); err != nil {
			t.Fatalf("%s: read the plan: %v", kind, err)
		}
		for _, holds := range memoryHolders(roots) {
			t.Errorf("sheet %s: %s", kind, holds)
		}
	}
}

// planNode is an operator of DuckDB's EXPLAIN (FORMAT json).
type planNode struct {
	Name      string          `json:"name"`
	Children  []planNode      `json:"children"`
	ExtraInfo json.RawMessage `json:"extra_info"`
}

// table is the table a scan reads ("" for other operators).
func (n planNode) table() string {
	var info struct{ Table string }
	if json.Unmarshal(n.ExtraInfo, &info) != nil {
		return ""
	}
	return info.Table
}

// memoryHolders lists the operators of a plan that hold a member table
// read straight from its scan (through projections and filters only).
func memoryHolders(nodes []planNode) []string {
	var out []string
	for _, n := range nodes {
		name := strings.TrimSpace(n.Name)
		var held []planNode // the inputs the operator keeps in memory
		switch name {
		case "HASH_JOIN":
			if len(n.Children) == 2 {
				held = n.Children[1:] // DuckDB builds on the right child
			}
		case "HASH_GROUP_BY", "PERFECT_HASH_GROUP_BY", "ORDER_BY", "WINDOW":
			held = n.Children
		}
		for _, h := range held {
			for (strings.TrimSpace(h.Name) == "PROJECTION" || strings.TrimSpace(h.Name) == "FILTER") && len(h.Children) == 1 {
				h = h.Children[0]
			}
			if t := h.table(); slices.Contains(memberTables, t) {
				out = append(out, fmt.Sprintf("%s holds all of table %s", name, t))
			}
		}
		out = append(out, memoryHolders(n.Children)...)
	}
	return out
}
