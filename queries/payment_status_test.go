package queries

import (
	"fmt"
	"strings"
	"testing"
)

// paymentStatuses are the statuses of an authorization's or a sale's
// answer (SDK model PtsV2PaymentsPost201Response, status; FAILED is a
// buy-now-pay-later answer's) with what each means, and two the SDK does
// not list: neither may count as approved.
var paymentStatuses = []struct{ status, outcome string }{
	{"AUTHORIZED", "approved"},
	{"PARTIAL_AUTHORIZED", "approved"},
	{"AUTHORIZED_PENDING_REVIEW", "pending"},
	{"PENDING_REVIEW", "pending"},
	{"PENDING_AUTHENTICATION", "pending"},
	{"AUTHORIZED_RISK_DECLINED", "declined"},
	{"DECLINED", "declined"},
	{"INVALID_REQUEST", "declined"},
	{"FAILED", "declined"},
	{"SOMETHING_NEW", "unknown"},
	{"", "unknown"},
}

// TestTerminalActivityCountsEachStatusByItsMeaning charges one terminal
// once with each status: approved counts the two approvals only (it
// counted everything but DECLINED and FAILED), and the declined, pending
// and unknown ones are counted as such.
func TestTerminalActivityCountsEachStatusByItsMeaning(t *testing.T) {
	db := openCopy(t, schemaTemplate(t))
	var values []string
	for i, s := range paymentStatuses {
		status := "NULL"
		if s.status != "" {
			status = "'" + s.status + "'"
		}
		values = append(values, fmt.Sprintf(`('m1', 'j.ndjson', %d, TIMESTAMPTZ '2026-11-20 10:%02d:00+00', '/pts/v2/payments', 201, 'sale',
			'sale-%d', '411111', '%04d', 10.00, 'USD', %s, 'TRM-1', 'customer')`, i+1, i, i+1, i+1, status))
	}
	if _, err := db.Exec(`INSERT INTO journal (merchant_id, file, line, time, path, status, call_kind, transaction_id, card_bin, card_last4,
		amount, currency, response_status, terminal_id, initiator_type) VALUES ` + strings.Join(values, ",\n")); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRow(`SELECT format('{} transactions: {} approved ({}), {} declined, {} pending, {} unknown',
		transactions, approved, approved_amount = 20, declined, pending, unknown) FROM terminal_activity`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "11 transactions: 2 approved (true), 4 declined, 3 pending, 2 unknown"; got != want {
		t.Errorf("terminal_activity: %s, want %s", got, want)
	}

	// The card-network retry checks' attempts: approved only where the
	// status means approved; the calls that never reached the issuer
	// (FAILED, INVALID_REQUEST) are no attempts.
	rows, err := db.Query(`SELECT transaction_id, approved, declined FROM card_attempts ORDER BY time`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var attempts []string
	for rows.Next() {
		var id string
		var approved, declined bool
		if err := rows.Scan(&id, &approved, &declined); err != nil {
			t.Fatal(err)
		}
		attempts = append(attempts, fmt.Sprintf("%s:%v/%v", id, approved, declined))
	}
	want := "sale-1:true/false sale-2:true/false sale-3:false/false sale-4:false/false sale-5:false/false " +
		"sale-6:false/false sale-7:false/true sale-10:false/false sale-11:false/false"
	if strings.Join(attempts, " ") != want {
		t.Errorf("card_attempts (approved/declined):\n%s\nwant\n%s", strings.Join(attempts, " "), want)
	}

	for _, s := range paymentStatuses {
		var outcome string
		if err := db.QueryRow(`SELECT payment_status_outcome(NULLIF(?, ''))`, s.status).Scan(&outcome); err != nil {
			t.Fatal(err)
		}
		if outcome != s.outcome {
			t.Errorf("payment_status_outcome(%q) = %s, want %s", s.status, outcome, s.outcome)
		}
	}
}
