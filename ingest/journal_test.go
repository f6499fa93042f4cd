package ingest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// journalFixture is a journal of one call per service area, written as a
// careless merchant logs it: full card numbers included.
var journalFixture = []string{
	// A Level III capture with a field left out and a tax rate as a percent.
	`{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments/1795000000000010000001/captures",
	  "request":{"processingInformation":{"purchaseLevel":"3"},"orderInformation":{"amountDetails":{"totalAmount":"21.60","currency":"USD",
	    "taxDetails":[{"rate":"8.00","amount":"1.60"}]},"lineItems":[{"productCode":"A","quantity":2,"unitPrice":"10.00","commodityCode":"1",
	    "discountAmount":"0.00"}]}},
	  "status":201,"response":{"id":"1795000000000010000002","status":"PENDING","orderInformation":{"invoiceDetails":{"level3TransmissionStatus":"Y"}}}}`,
	// A merchant-initiated sale by token.
	`{"time":"2026-11-20T11:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments",
	  "request":{"processingInformation":{"capture":true,"commerceIndicator":"recurring","authorizationOptions":{"initiator":{"type":"merchant",
	    "storedCredentialUsed":true,"merchantInitiatedTransaction":{"reason":"7"}}}},"paymentInformation":{"customer":{"id":"C1"}},
	    "orderInformation":{"amountDetails":{"totalAmount":"9.99","currency":"USD"}}},
	  "status":201,"response":{"id":"1795000000000010000003","status":"AUTHORIZED","processorInformation":{"networkTransactionId":"12345678901234567890"}}}`,
	// A healthcare sale with a full card number.
	`{"time":"2026-11-20T12:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments",
	  "request":{"processingInformation":{"capture":true},"paymentInformation":{"card":{"number":"4715100000000005","productSubtype":"HC"}},
	    "healthCareInformation":{"amountDetails":[{"amountType":"healthcare","amount":"30.00"},{"amountType":"prescription","amount":"20.00"},
	      {"amountType":"vision","amount":"15.00"}]},"orderInformation":{"amountDetails":{"totalAmount":"30.00","currency":"USD"}}},
	  "status":201,"response":{"id":"1795000000000010000004","status":"AUTHORIZED","pointOfSaleInformation":{"terminalId":"TRM-1"}}}`,
	// An installment plan partly refunded.
	`{"time":"2026-11-20T13:00:00Z","merchantId":"m1","method":"POST","path":"/fin/v1/plan-acceptance/cancel/",
	  "request":{"processingInformation":{"installmentServiceProvider":"VISA","refundOptions":{"refundAmount":"12.00"},
	    "authorizationOptions":{"networkTransactionId":"12345678901234567899"}},"orderInformation":{"amountDetails":{"totalAmount":"120.00","currency":"USD"}}},
	  "status":201,"response":{"id":"1795000000000010000005","status":"ACCEPTED","installmentInformation":{"id":"SBXIA1","planId":"P3"}}}`,
	// A healthcare amount that is no amount: rejected with the reason.
	`{"time":"2026-11-20T14:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments",
	  "request":{"healthCareInformation":{"amountDetails":[{"amountType":"dental","amount":"twelve"}]},"paymentInformation":{"card":{"number":"4111111111111111"}}},
	  "status":201,"response":{"id":"1795000000000010000006"}}`,
}

func writeJournal(t *testing.T, lines []string) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.Join(strings.Fields(l), " ") + "\n")
	}
	p := filepath.Join(dir, "journal.ndjson")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestJournalFacts imports one call of each area and reads back what the
// checks rely on; then forgets the facts as an older version would have
// left them, and a run's re-inspection restores them from the stored
// bodies.
func TestJournalFacts(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	path := writeJournal(t, journalFixture)
	imports, err := ImportJournals(ctx, s, path, time.Now())
	if err != nil || len(imports) != 1 || imports[0].Loaded != 4 || imports[0].Rejected != 1 {
		t.Fatalf("import: %+v, %v", imports, err)
	}
	var reason string
	if err := s.conn.QueryRowContext(ctx, `SELECT reason FROM journal_rejects`).Scan(&reason); err != nil ||
		!strings.Contains(reason, "healthCareInformation.amountDetails[0].amount") {
		t.Errorf("reject reason %q (%v)", reason, err)
	}
	const facts = `SELECT line, call_kind, coalesce(level3_missing, ''), coalesce(percent_rates, ''), coalesce(initiator_type, ''),
		coalesce(mit_reason, '-'), coalesce(previous_transaction_id, '-'), coalesce(commerce_indicator, ''),
		coalesce(CAST(healthcare_amount AS VARCHAR), ''), coalesce(CAST(healthcare_detail_amount AS VARCHAR), ''),
		coalesce(healthcare_amount_count, 0), coalesce(card_bin, ''), coalesce(terminal_id, ''), coalesce(installment_id, ''),
		coalesce(CAST(refund_amount AS VARCHAR), ''), coalesce(ref_network_transaction_id, ''), coalesce(response_status, ''),
		coalesce(network_transaction_id, ''), inspect_version
		FROM journal ORDER BY line`
	read := func() []string {
		rows, err := s.conn.QueryContext(ctx, facts)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			v := make([]sql.NullString, 19)
			ptrs := make([]any, len(v))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, x := range v {
				parts = append(parts, x.String)
			}
			out = append(out, strings.Join(parts, "|"))
		}
		return out
	}
	want := []string{
		"1|capture|lineItems[0].unitOfMeasure|amountDetails.taxDetails[0].rate=8.00||-|-||||0||||||PENDING||2",
		"2|sale|||merchant|7|-|recurring|||0||||||AUTHORIZED|12345678901234567890|2",
		"3|sale||||-|-||30.00|35.00|3|471510|TRM-1||||AUTHORIZED||2",
		"4|installment_cancel||||-|-||||0|||SBXIA1|12.00|12345678901234567899|ACCEPTED||2",
	}
	if got := read(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("journal facts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Rows of an older import: no facts, no version.
	if _, err := s.conn.ExecContext(ctx, `UPDATE journal SET call_kind = 'other', level3_missing = NULL, initiator_type = NULL,
		healthcare_amount = NULL, terminal_id = NULL, installment_id = NULL, inspect_version = NULL`); err != nil {
		t.Fatal(err)
	}
	n, err := reinspectJournal(ctx, s)
	if err != nil || n != 4 {
		t.Fatalf("re-inspection: %d rows, %v", n, err)
	}
	if got := read(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after re-inspection:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, err := reinspectJournal(ctx, s); err != nil || n != 0 {
		t.Errorf("a second re-inspection: %d rows, %v; want none", n, err)
	}
}

// FuzzParseJournalLine feeds the import arbitrary lines: it never panics,
// a line it accepts has merchantId, path and status, and nothing it would
// store (the row of an accepted line, the text of a rejected one) holds a
// Luhn-valid run of 13-19 digits that the line did not already hold inside
// a longer digit run.
func FuzzParseJournalLine(f *testing.F) {
	for _, l := range journalFixture {
		f.Add([]byte(strings.Join(strings.Fields(l), " ")))
	}
	for _, s := range []string{
		`{"merchantId":"m","path":"/p","status":201,"request":{"4111111111111111":4111111111111111}}`,
		`{"merchantId":"m","path":"/pts/v2/payments/4111-1111-1111-1111","status":"201"}`,
		`{"merchantId":"m","path":"/p","status":201,"time":"nope"}`,
		`{"merchantId":"","path":"/p","status":201} {}`,
		`{"merchantId":"m","path":"/p","status":201,"response":{"id":"6000000000000000000001","x":"4111 1111 1111 1111"}}`,
		"\xff\xfe 4111111111111111",
		`[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		stored := storedText(t, line)
		chunk := newJournalChunk()
		if addJournalLine(chunk, "f.ndjson", 1, line, false, "sum", time.Now()) {
			jl, perr := ParseJournalLine(MaskLine(line))
			if perr != nil || strings.TrimSpace(jl.MerchantID) == "" || strings.TrimSpace(jl.Path) == "" || jl.Status == "" {
				t.Fatalf("accepted %q: %+v, %v", line, jl, perr)
			}
			if len(chunk.rows.Values) != 1 || len(chunk.rows.Values[0]) != len(chunk.rows.Columns) {
				t.Fatalf("accepted %q into %d rows", line, len(chunk.rows.Values))
			}
		}
		for _, s := range stored {
			for _, r := range luhnRuns(s) {
				longer := false
				for _, m := range regexp.MustCompile(`\d+`).FindAllString(string(line), -1) {
					longer = longer || len(m) > 19 && strings.Contains(m, r)
				}
				if !longer {
					t.Fatalf("line %q stores %q, which holds the card-like run %s", line, s, r)
				}
			}
		}
	})
}
