package queries

import (
	"strconv"
	"testing"
)

// A merchant that charges one card over and over (a test card in
// production, a card on file in a retry loop) is what the card-network
// retry checks exist for, so they must hold on it: 20,000 declined
// do-not-retry sales on one card, each after the first one flagged, within
// the run's default memory limit (256 MB). A check that pairs each attempt
// with every earlier one (200 million pairs here) runs out of memory
// instead, as this one did before it read each card in one ordered pass.
func TestRetryAfterDoNotRetryOnOneCardCharged20000Times(t *testing.T) {
	const attempts = 20_000
	db := openCopy(t, schemaTemplate(t))
	for _, stmt := range []string{
		`SET VARIABLE window_start = TIMESTAMPTZ '2026-11-17 00:00:00+00'`,
		`SET VARIABLE window_end = TIMESTAMPTZ '2026-11-21 00:00:00+00'`,
		`INSERT INTO bin_attributes (bin, lookup_status, brand) VALUES ('530695', 'COMPLETED', 'MASTERCARD')`,
		`INSERT INTO journal (merchant_id, file, line, time, method, path, status, call_kind, transaction_id, card_bin, card_last4,
		                      amount, currency, response_status, merchant_advice_code, merchant_advice_code_raw, file_sha256, imported_at)
		 SELECT 'm1', 'j.ndjson', i, TIMESTAMPTZ '2026-11-17 00:00:00+00' + i * INTERVAL 10 SECOND, 'POST', '/pts/v2/payments', 201,
		        'sale', 't' || i, '530695', '0001', 20.00, 'GBP', 'DECLINED', '03', '03', 'sha', now()
		 FROM range(` + strconv.Itoa(attempts) + `) AS r(i)`,
		`SET memory_limit = '256MB'`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var check Check
	for _, c := range Checks() {
		if c.Kind == "retry_after_do_not_retry" {
			check = c
		}
	}
	if got := len(runCheck(t, db, check).rows); got != attempts-1 {
		t.Errorf("%d attempts after a do-not-retry decline reported, want %d", got, attempts-1)
	}
}
