package queries

import (
	"database/sql"
	"strconv"
	"testing"
)

// A merchant that charges one card over and over (a test card in
// production, a card on file in a retry loop, a subscription engine gone
// wrong) is what the card-network checks exist for, so they must hold on
// it: 20,000 calls on one card, within the run's default memory limit (256
// MB). A check that pairs each call with every earlier one of its card
// (200 million pairs here) runs out of memory or for minutes instead:
// retry_after_do_not_retry ran out of memory before it read each card in
// one ordered pass; reattempts_over_network_limit took 92 s and
// recurring_interval_over_year 28-170 s before they did
// (BenchmarkOneCardCharged20000Times measures them).
const chargedTimes = 20_000

// oneCardCase is a check run on one card charged chargedTimes times: the
// journal and tables it needs, and what it must find.
type oneCardCase struct {
	kind  string
	setup []string
	want  func(t *testing.T, f findings)
}

var oneCardCases = []oneCardCase{
	{
		// Declined do-not-retry sales: each after the first is flagged.
		kind: "retry_after_do_not_retry",
		setup: []string{
			`INSERT INTO bin_attributes (bin, lookup_status, brand) VALUES ('530695', 'COMPLETED', 'MASTERCARD')`,
			`INSERT INTO journal (merchant_id, file, line, time, method, path, status, call_kind, transaction_id, card_bin, card_last4,
			                      amount, currency, response_status, merchant_advice_code, merchant_advice_code_raw, file_sha256, imported_at)
			 SELECT 'm1', 'j.ndjson', i, TIMESTAMPTZ '2026-11-17 00:00:00+00' + i * INTERVAL 10 SECOND, 'POST', '/pts/v2/payments', 201,
			        'sale', 't' || i, '530695', '0001', 20.00, 'GBP', 'DECLINED', '03', '03', 'sha', now()
			 FROM range(` + strconv.Itoa(chargedTimes) + `) AS r(i)`,
		},
		want: func(t *testing.T, f findings) {
			if got := len(f.rows); got != chargedTimes-1 {
				t.Errorf("%d attempts after a do-not-retry decline reported, want %d", got, chargedTimes-1)
			}
		},
	},
	{
		// Declined sales against Mastercard's limits (10 reattempts in 24
		// hours, 35 in 30 days): every reattempt from the 11th on is over
		// the 24-hour limit and reported once.
		kind: "reattempts_over_network_limit",
		setup: []string{
			`INSERT INTO bin_attributes (bin, lookup_status, brand) VALUES ('530695', 'COMPLETED', 'MASTERCARD')`,
			`INSERT INTO retry_limits (network, reattempts, window_length, cit_mit_apart, source, loaded_at) VALUES
			 ('MASTERCARD', 10, INTERVAL 24 HOUR, false, 'test', now()), ('MASTERCARD', 35, INTERVAL 30 DAY, false, 'test', now())`,
			`INSERT INTO journal (merchant_id, file, line, time, method, path, status, call_kind, transaction_id, card_bin, card_last4,
			                      amount, currency, response_status, file_sha256, imported_at)
			 SELECT 'm1', 'j.ndjson', i, TIMESTAMPTZ '2026-11-17 00:00:00+00' + i * INTERVAL 10 SECOND, 'POST', '/pts/v2/payments', 201,
			        'sale', 't' || i, '530695', '0001', 20.00, 'GBP', 'DECLINED', 'sha', now()
			 FROM range(` + strconv.Itoa(chargedTimes) + `) AS r(i)`,
		},
		want: func(t *testing.T, f findings) {
			if got := len(f.rows); got != chargedTimes-1-10 {
				t.Errorf("%d reattempts over the limit reported, want %d", got, chargedTimes-1-10)
			}
		},
	},
	{
		// Recurring merchant-initiated sales every 10 seconds, the first two
		// years after the card's customer-initiated sale: the first is over
		// the year since the card was last used, each later one follows the
		// one before it.
		kind: "recurring_interval_over_year",
		setup: []string{
			`INSERT INTO journal (merchant_id, file, line, time, method, path, status, call_kind, transaction_id, card_bin, card_last4,
			                      amount, currency, response_status, initiator_type, commerce_indicator, file_sha256, imported_at)
			 VALUES ('m1', 'j.ndjson', 0, TIMESTAMPTZ '2024-11-17 00:00:00+00', 'POST', '/pts/v2/payments', 201, 'sale', 'cit',
			         '530695', '0001', 20.00, 'GBP', 'AUTHORIZED', 'customer', 'internet', 'sha', now())`,
			`INSERT INTO journal (merchant_id, file, line, time, method, path, status, call_kind, transaction_id, card_bin, card_last4,
			                      amount, currency, response_status, initiator_type, commerce_indicator, file_sha256, imported_at)
			 SELECT 'm1', 'j.ndjson', i + 1, TIMESTAMPTZ '2026-11-17 00:00:00+00' + i * INTERVAL 10 SECOND, 'POST', '/pts/v2/payments', 201,
			        'sale', 't' || i, '530695', '0001', 20.00, 'GBP', 'AUTHORIZED', 'merchant', 'recurring', 'sha', now()
			 FROM range(` + strconv.Itoa(chargedTimes) + `) AS r(i)`,
		},
		want: func(t *testing.T, f findings) {
			if len(f.rows) != 1 || f.rows[0][1] != "t0" {
				t.Errorf("findings %v, want the first MIT (t0) alone", f.rows)
			}
		},
	},
}

// oneCardDB is a database holding c's journal, with the run's window and
// memory limit set.
func oneCardDB(tb testing.TB, c oneCardCase) (*sql.DB, Check) {
	tb.Helper()
	db := openCopy(tb, schemaTemplate(tb))
	stmts := append([]string{
		`SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'`,
		`SET VARIABLE window_end = TIMESTAMPTZ '2026-11-21 00:00:00+00'`,
	}, c.setup...)
	for _, stmt := range append(stmts, `SET memory_limit = '256MB'`) {
		if _, err := db.Exec(stmt); err != nil {
			tb.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, check := range Checks() {
		if check.Kind == c.kind {
			return db, check
		}
	}
	tb.Fatalf("no check %s", c.kind)
	return nil, Check{}
}

func TestChecksOnOneCardCharged20000Times(t *testing.T) {
	for _, c := range oneCardCases {
		t.Run(c.kind, func(t *testing.T) {
			db, check := oneCardDB(t, c)
			c.want(t, runCheck(t, db, check))
		})
	}
}

// BenchmarkOneCardCharged20000Times times each check on its one-card
// journal: a check that pairs a card's calls grows with their square.
func BenchmarkOneCardCharged20000Times(b *testing.B) {
	for _, c := range oneCardCases {
		b.Run(c.kind, func(b *testing.B) {
			db, check := oneCardDB(b, c)
			for b.Loop() {
				var n int
				if err := db.QueryRow("SELECT count(*) FROM (" + check.SQL + "\n)").Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
