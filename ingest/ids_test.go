package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/subscriptions"
)

// alteredIDs fails the test unless some of ids are ones the masking by
// pattern alters (it would prove nothing otherwise).
func alteredIDs(t *testing.T, ids []string) {
	t.Helper()
	n := 0
	for _, id := range ids {
		if cardmask.MaskText(id) != id {
			n++
		}
	}
	if n < 6 {
		t.Fatalf("only %d ids pass for card numbers", n)
	}
}

// TestMaskSnapshotKeepsPlatformIDs: plans, subscriptions, payments and
// transactions whose ids were created in every year from 2019 to 2030 keep
// them as sent, card data beside them masked; the payment lists stay under
// their subscriptions' ids.
func TestMaskSnapshotKeepsPlatformIDs(t *testing.T) {
	ids := cardmasktest.PlatformIDs()
	alteredIDs(t, ids)
	snap := &subscriptions.Snapshot{Payments: map[string]*platform.PaymentList{}}
	var txns []platform.TransactionSummary
	for _, id := range ids {
		snap.Plans = append(snap.Plans, decoded(t, platform.DecodePlan,
			`{"id":"`+id+`","planInformation":{"name":"Gold 4111 1111 1111 1111","code":"G"}}`))
		sub := decoded(t, platform.DecodeSubscription, `{"id":"`+id+`","planInformation":{"code":"G"},"subscriptionInformation":{"planId":"`+id+`","name":"x 4111111111111111","status":"ACTIVE"}}`)
		snap.Subscriptions = append(snap.Subscriptions, sub)
		snap.Payments[id] = &platform.PaymentList{TotalCount: 1, Payments: []platform.Payment{decoded(t, platform.DecodePayment,
			`{"id":"`+id+`","status":"PAID","transactionID":"`+id+`","x":"4111111111111111"}`)}}
		txns = append(txns, decoded(t, platform.DecodeTransaction,
			`{"id":"`+id+`","clientReferenceInformation":{"code":"4111111111111111"},"_links":{"transactionDetail":{"href":"https://api.cybersource.com/tss/v2/transactions/`+id+`"}}}`))
	}
	got, err := maskSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	gotTxns, err := maskTransactions(txns)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		p, s, tx := got.Plans[i], got.Subscriptions[i], gotTxns[i]
		if p.ID != id || s.ID != id || tx.ID != id || p.Name != "Gold 411111XXXXXX1111" {
			t.Errorf("ids %s %s %s, plan name %q; want %s kept and the card masked", p.ID, s.ID, tx.ID, p.Name, id)
		}
		list := got.Payments[id]
		if list == nil || list.Payments[0].ID != id || list.Payments[0].TransactionID != id {
			t.Errorf("payment list of %s: %+v", id, list)
			continue
		}
		for _, raw := range []string{string(p.Raw), string(s.Raw), string(tx.Raw), string(list.Payments[0].Raw)} {
			if strings.Contains(raw, "4111111111111111") || strings.Count(raw, id) < 1 {
				t.Errorf("raw %s: want %s kept and the card masked", raw, id)
			}
		}
	}
}

// TestJournalKeepsPlatformIDs: journal calls on transactions created in
// every year from 2019 to 2030 are stored with their ids as written (the
// transaction's, the parent's in the path, the links'), a card number in
// the same lines masked, and again after a re-inspection.
func TestJournalKeepsPlatformIDs(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	ids := cardmasktest.PlatformIDs()
	alteredIDs(t, ids)
	var lines []string
	for i, id := range ids {
		capture := cardmasktest.PlatformID(time.Date(2026, 11, 20, 10, 0, i, 0, time.UTC), "000001")
		lines = append(lines,
			`{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"GET","path":"/tss/v2/transactions/`+id+`","status":200,`+
				`"response":{"id":"`+id+`","reconciliationId":"`+id+`","_links":{"self":{"href":"/tss/v2/transactions/`+id+`"}}}}`,
			`{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments/`+id+`/captures",`+
				`"request":{"paymentInformation":{"card":{"number":"4111111111111111"}},"orderInformation":{"amountDetails":{"totalAmount":"1.00","currency":"USD"}}},"status":201,`+
				`"response":{"id":"`+capture+`","status":"PENDING","_links":{"self":{"href":"/pts/v2/captures/`+capture+`"}}}}`)
	}
	path := writeJournal(t, lines)
	if _, err := ImportJournals(ctx, s, path, time.Now()); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		rows, err := s.Conn().QueryContext(ctx, `SELECT line, path, coalesce(transaction_id, ''), coalesce(parent_id, ''),
			CAST(request AS VARCHAR), CAST(response AS VARCHAR) FROM journal ORDER BY line`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var line int
			var p, tid, parent string
			var req, resp sql.NullString
			if err := rows.Scan(&line, &p, &tid, &parent, &req, &resp); err != nil {
				t.Fatal(err)
			}
			id := ids[(line-1)/2]
			all := fmt.Sprint(p, tid, parent, req.String, resp.String)
			if strings.Contains(all, "4111111111111111") || strings.Contains(all, "XXX"+id[15:]) {
				t.Errorf("%s: line %d holds a card number or an altered id: %s", when, line, all)
			}
			if line%2 == 1 && (p != "/tss/v2/transactions/"+id || tid != id || strings.Count(resp.String, id) != 3) {
				t.Errorf("%s: line %d: path %s, transaction %s, response %s; want %s kept", when, line, p, tid, resp.String, id)
			}
			if line%2 == 0 && (p != "/pts/v2/payments/"+id+"/captures" || parent != id || !strings.Contains(req.String, "411111XXXXXX1111")) {
				t.Errorf("%s: line %d: path %s, parent %s, request %s; want %s kept and the card masked", when, line, p, parent, req.String, id)
			}
			n++
		}
		if n != len(lines) {
			t.Errorf("%s: %d rows, want %d", when, n, len(lines))
		}
	}
	check("imported")
	if _, err := s.Conn().ExecContext(ctx, `UPDATE journal SET inspect_version = NULL`); err != nil {
		t.Fatal(err)
	}
	if n, err := ReinspectJournal(ctx, s); err != nil || n != len(lines) {
		t.Fatalf("re-inspection: %d rows, %v", n, err)
	}
	check("inspected again")
}

// TestMaskOlderRecordsKeepsPlatformIDs: the upgrade pass over a database
// an older version wrote masks by field: ids of the platform's shape in id
// columns and raw records stay, card data beside them is masked.
func TestMaskOlderRecordsKeepsPlatformIDs(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	id := "6512628085536163703211"
	if _, err := s.Conn().ExecContext(ctx, `INSERT INTO transactions (merchant_id, transaction_id, client_reference, raw, run_id, loaded_at) VALUES
		('m1', $1, '4111111111111111', '{"id":"'||$1||'","x":"4111111111111111"}', 'r1', now())`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := MaskOlderRecords(ctx, s, time.Now()); err != nil {
		t.Fatal(err)
	}
	var tid, ref, raw string
	if err := s.Conn().QueryRowContext(ctx, `SELECT transaction_id, client_reference, CAST(raw AS VARCHAR) FROM transactions`).Scan(&tid, &ref, &raw); err != nil {
		t.Fatal(err)
	}
	if tid != id || ref != "411111XXXXXX1111" || raw != `{"id":"`+id+`","x":"411111XXXXXX1111"}` {
		t.Errorf("after the upgrade: %s %s %s; want %s kept and the card masked", tid, ref, raw, id)
	}
}
