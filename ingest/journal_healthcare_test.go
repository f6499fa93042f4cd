package ingest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/queries"
)

// TestHealthcareAmountTypesOfBothNetworks imports healthcare payments of
// the vendor's amount types (SDK model
// Ptsv2paymentsHealthCareInformationAmountDetails): Mastercard's
// eligible-total is the healthcare total, not a part of it, and Visa's
// healthcare-transit is a part; then runs healthcare_amounts_exceed_total
// on them. A Mastercard total with its prescription part within the
// payment's total is no finding; parts over the total are.
func TestHealthcareAmountTypesOfBothNetworks(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	line := func(hour, id, total, amounts string) string {
		return `{"time":"2026-11-20T` + hour + `:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments",
		  "request":{"processingInformation":{"capture":true},"paymentInformation":{"card":{"productSubtype":"HC"}},
		    "healthCareInformation":{"amountDetails":[` + amounts + `]},"orderInformation":{"amountDetails":{"totalAmount":"` + total + `","currency":"USD"}}},
		  "status":201,"response":{"id":"` + id + `","status":"AUTHORIZED"}}`
	}
	path := writeJournal(t, []string{
		// Mastercard: eligible-total 100.00 and prescription 60.00 on a
		// 100.00 sale: within the total (they were summed to 160.00).
		line("10", "1795000000000020000001", "100.00", `{"amountType":"eligible-total","amount":"100.00"},{"amountType":"prescription","amount":"60.00"}`),
		// Mastercard: eligible-total 120.00 on a 100.00 sale: over it.
		line("11", "1795000000000020000002", "100.00", `{"amountType":"eligible-total","amount":"120.00"}`),
		// Visa: transit 40.00 (a part, sent alone) on 100.00: within it.
		line("12", "1795000000000020000003", "100.00", `{"amountType":"healthcare-transit","amount":"40.00"}`),
		// Visa: transit 110.00 on 100.00: a part over the total.
		line("13", "1795000000000020000004", "100.00", `{"amountType":"healthcare-transit","amount":"110.00"}`),
	})
	if imports, err := ImportJournals(ctx, s, path, time.Now()); err != nil || len(imports) != 1 || imports[0].Loaded != 4 {
		t.Fatalf("import: %+v, %v", imports, err)
	}
	rows, err := s.Conn().QueryContext(ctx, `SELECT transaction_id, coalesce(amount_text(healthcare_amount, 'USD'), '-'),
		coalesce(amount_text(healthcare_detail_amount, 'USD'), '-') FROM journal ORDER BY line`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, total, parts string
		if err := rows.Scan(&id, &total, &parts); err != nil {
			t.Fatal(err)
		}
		got = append(got, id[len(id)-1:]+" total "+total+" parts "+parts)
	}
	rows.Close()
	want := []string{"1 total 100.00 parts 60.00", "2 total 120.00 parts -", "3 total - parts 40.00", "4 total - parts 110.00"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("healthcare amounts: %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}

	var check string
	for _, c := range queries.Checks() {
		if c.Kind == "healthcare_amounts_exceed_total" {
			check = c.SQL
		}
	}
	if check == "" {
		t.Fatal("no healthcare_amounts_exceed_total check")
	}
	if _, err := s.Conn().ExecContext(ctx, `SET VARIABLE window_start = TIMESTAMPTZ '2026-11-20 00:00:00+00'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn().ExecContext(ctx, `SET VARIABLE window_end = TIMESTAMPTZ '2026-11-21 00:00:00+00'`); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Conn().QueryContext(ctx, `SELECT entity_id FROM (`+check+"\n) ORDER BY entity_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var flagged []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		flagged = append(flagged, id)
	}
	if w := "1795000000000020000002 1795000000000020000004"; strings.Join(flagged, " ") != w {
		t.Errorf("healthcare_amounts_exceed_total: %v, want %s", flagged, w)
	}
}
