package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/ingest"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// sdkJournal writes the calls the platform's Node.js SDK made in the
// contract test (../platform/testdata/sdk, journal-line shaped) as one
// merchant journal, after edit may change each call; it returns the
// journal's path and the calls by operation (the file name's suffix).
func sdkJournal(t *testing.T, name string, edit func(op string, call map[string]any)) (string, map[string]map[string]any) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "platform", "testdata", "sdk", "*.json"))
	if err != nil || len(files) < 40 {
		t.Fatalf("SDK fixtures: %d files, %v", len(files), err)
	}
	var buf bytes.Buffer
	calls := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var call map[string]any
		if err := json.Unmarshal(b, &call); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		op := strings.TrimSuffix(filepath.Base(f)[3:], ".json")
		if edit != nil {
			edit(op, call)
		}
		calls[op] = call
		line, err := json.Marshal(call)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, calls
}

// responseID is the id of a call's answer.
func responseID(call map[string]any) string {
	id, _ := call["response"].(map[string]any)["id"].(string)
	return id
}

// A journal written by an integration built on the platform's SDK (its
// requests as the SDK's models serialise them, the answers in the SDK's
// names) is imported and inspected: refund and credit amounts from
// refundAmountDetails and creditAmountDetails, the Level III fields, card
// numbers masked; and the checks judge it, finding nothing in the SDK's
// complete calls and what is wrong in calls edited to be wrong.
func TestSDKJournal(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	good, calls := sdkJournal(t, "journal-sdk.ndjson", nil)
	imports, err := ingest.ImportJournals(ctx, s, good, time.Now())
	if err != nil || len(imports) != 1 || imports[0].Rejected != 0 || imports[0].Loaded != len(calls) {
		t.Fatalf("import: %+v, %v", imports, err)
	}
	facts := func(id string) string {
		t.Helper()
		var out string
		err := s.Conn().QueryRowContext(ctx, `SELECT concat_ws('|', call_kind, amount_text(amount, currency), currency,
			coalesce(purchase_level, '-'), coalesce(CAST(line_item_count AS VARCHAR), '-'), coalesce(level3_status, '-'),
			coalesce(purchase_order_number, '-'), coalesce(level3_missing, '-'), coalesce(card_bin, '-'), coalesce(card_last4, '-'))
			FROM journal WHERE transaction_id = ? AND call_kind <> 'other'`, id).Scan(&out) // not a GET of the transaction
		if err != nil {
			t.Fatalf("journal row of %s: %v", id, err)
		}
		return out
	}
	for op, want := range map[string]string{
		"refundCapture":                    "refund|20.00|USD|-|-|-|-|-|-|-",
		"refundPayment":                    "refund|15.00|USD|-|-|-|-|-|-|-",
		"createCredit-Level-III":           "credit|40.00|USD|3|1|Y|PO-SDK-1|-|448590|0007",
		"capturePayment-Level-III":         "capture|120.00|USD|3|1|Y|PO-SDK-1|-|-|-",
		"createPayment-sale-Level-III":     "sale|50.00|USD|3|1|Y|PO-SDK-1|-|555544|1102",
		"capturePayment-buy-now-pay-later": "capture|60.00|USD|-|-|-|-|-|-|-",
		"authReversal":                     "reversal|30.00|USD|-|-|-|-|-|-|-",
	} {
		if got := facts(responseID(calls[op])); got != want {
			t.Errorf("%s: %s, want %s", op, got, want)
		}
	}
	var leaked int
	if err := s.Conn().QueryRowContext(ctx, `SELECT count(*) FROM journal
		WHERE CAST(request AS VARCHAR) LIKE '%4485900000000007%' OR CAST(request AS VARCHAR) LIKE '%5555443333111102%'`).Scan(&leaked); err != nil || leaked != 0 {
		t.Errorf("%d journal rows keep a full card number (%v)", leaked, err)
	}

	// The checks, with the SDK's cards' BINs known as commercial.
	if _, err := s.Conn().ExecContext(ctx, `INSERT INTO bin_attributes (bin, lookup_status, funding_source, card_platform, looked_up_at)
		VALUES ('448590', 'COMPLETED', 'CREDIT', 'COMMERCIAL', now()), ('555544', 'COMPLETED', 'CREDIT', 'COMMERCIAL', now())`); err != nil {
		t.Fatal(err)
	}
	const mid = "sbxmid000002"
	counts := runDay(t, s, "0/1", day{date: "2026-11-21", members: map[string]string{mid: "ok"}})
	for _, kind := range []string{"level3_incomplete", "level3_not_transmitted", "level2_missing_po", "commercial_card_without_level3",
		"mit_missing_reason", "mit_missing_previous_transaction", "healthcare_amounts_exceed_total"} {
		if counts[kind] != 0 {
			t.Errorf("the SDK's complete calls: %d %s findings", counts[kind], kind)
		}
	}

	// The same calls, edited as a careless mapping would leave them.
	bad, edited := sdkJournal(t, "journal-sdk-bad.ndjson", func(op string, call map[string]any) {
		resp, _ := call["response"].(map[string]any)
		if id, ok := resp["id"].(string); ok {
			resp["id"] = "9" + id[1:] // other transactions than the first journal's
		}
		req, _ := call["request"].(map[string]any)
		switch op {
		case "createCredit-Level-III":
			item := req["orderInformation"].(map[string]any)["lineItems"].([]any)[0].(map[string]any)
			delete(item, "unitOfMeasure")
		case "capturePayment-Level-III":
			resp["orderInformation"].(map[string]any)["invoiceDetails"] = map[string]any{"level3TransmissionStatus": "N"}
		case "createPayment-sale-Level-III":
			delete(req["processingInformation"].(map[string]any), "purchaseLevel")
			delete(req["orderInformation"].(map[string]any), "lineItems")
		}
	})
	if _, err := ingest.ImportJournals(ctx, s, bad, time.Now()); err != nil {
		t.Fatal(err)
	}
	runDay(t, s, "0/1", day{date: "2026-11-21", members: map[string]string{mid: "ok"}})
	rows, err := s.Conn().QueryContext(ctx, `SELECT kind, entity_id, amount_text(amount, currency), currency FROM findings
		WHERE run_id = '2026-11-21' AND state IN ('new', 'open') AND kind IN ('level3_incomplete', 'level3_not_transmitted', 'commercial_card_without_level3')
		ORDER BY kind`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var kind, id, amount, cur string
		if err := rows.Scan(&kind, &id, &amount, &cur); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{kind, id, amount, cur}, " "))
	}
	want := []string{
		"commercial_card_without_level3 " + responseID(edited["createPayment-sale-Level-III"]) + " 50.00 USD",
		"level3_incomplete " + responseID(edited["createCredit-Level-III"]) + " 40.00 USD",
		"level3_not_transmitted " + responseID(edited["capturePayment-Level-III"]) + " 120.00 USD",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings of the edited SDK calls:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
