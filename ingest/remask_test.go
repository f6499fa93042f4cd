package ingest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestMaskOlderRecords: a database an older version wrote, with card data
// in a plan's name and raw record, a transaction's ID and order number, a
// member ID and its error, a rejected journal line, is masked once by the
// first run of this version: every such value masked, a value without card
// data untouched, a journal row left to ReinspectJournal, a file's hash
// left as it is (its digits may pass for a card number), and a second
// pass does nothing.
func TestMaskOlderRecords(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	now := time.Date(2026, 11, 20, 1, 0, 0, 0, time.UTC)
	older := []string{
		`INSERT INTO plans (merchant_id, plan_id, name, description, raw, run_id, loaded_at) VALUES
			('m1', 'p1', 'Gold 4111 1111 1111 1111', 'plain', '{"id":"p1","planInformation":{"name":"Gold 4111 1111 1111 1111"}}', 'r1', now()),
			('m1', 'p2', 'Silver', NULL, '{"id":"p2"}', 'r1', now())`,
		`INSERT INTO transactions (merchant_id, transaction_id, client_reference, raw, run_id, loaded_at) VALUES
			('m1', '5500000000000004', 'order 6011-0000-0000-0004', '{"id":5500000000000004}', 'r1', now())`,
		`INSERT INTO run_members (run_id, merchant_id, status, error) VALUES
			('r1', '4012888888881881', 'failed', 'INVALID_DATA: card 4111111111111111 declined')`,
		`INSERT INTO journal_rejects (file, line, reason, text, file_sha256, imported_at) VALUES
			('j.ndjson', 3, 'truncated', '{"card":"4111-1111-1111-1111"', 'abc', now())`,
		`INSERT INTO journal (merchant_id, file, line, path, file_sha256, imported_at) VALUES ('m1', 'j.ndjson', 1, '/pts/v2/payments/4111111111111111', 'abc', now())`,
		// A file's hash whose digits pass for a card number: it names the
		// file, in journal_files and journal_rejects alike.
		`INSERT INTO journal_files (sha256, file, lines, loaded, rejected, imported_at) VALUES ('ab' || '4111111111111111' || 'cd', 'k.ndjson', 1, 0, 1, now())`,
		`INSERT INTO journal_rejects (file, line, reason, text, file_sha256, imported_at) VALUES ('k.ndjson', 1, 'bad', '{', 'ab' || '4111111111111111' || 'cd', now())`,
	}
	for _, q := range older {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	n, err := MaskOlderRecords(ctx, s, now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d rows masked, want 4 (a plan, a transaction, a member, a rejected line)", n)
	}
	for _, c := range []struct{ query, want string }{
		{`SELECT name FROM plans WHERE plan_id = 'p1'`, "Gold 411111XXXXXX1111"},
		{`SELECT CAST(raw AS VARCHAR) FROM plans WHERE plan_id = 'p1'`, `{"id":"p1","planInformation":{"name":"Gold 411111XXXXXX1111"}}`},
		{`SELECT description FROM plans WHERE plan_id = 'p1'`, "plain"},
		{`SELECT name FROM plans WHERE plan_id = 'p2'`, "Silver"},
		{`SELECT transaction_id || ' ' || client_reference FROM transactions`, "550000XXXXXX0004 order 601100XXXXXX0004"},
		{`SELECT CAST(raw AS VARCHAR) FROM transactions`, `{"id":"550000XXXXXX0004"}`},
		{`SELECT merchant_id || ' ' || error FROM run_members`, "401288XXXXXX1881 INVALID_DATA: card 411111XXXXXX1111 declined"},
		{`SELECT text FROM journal_rejects WHERE file = 'j.ndjson'`, `{"card":"411111XXXXXX1111"`},
		{`SELECT path FROM journal`, "/pts/v2/payments/4111111111111111"}, // ReinspectJournal's
		{`SELECT sha256 FROM journal_files`, "ab4111111111111111cd"},
		{`SELECT file_sha256 FROM journal_rejects WHERE file = 'k.ndjson'`, "ab4111111111111111cd"},
		{`SELECT CAST(done_at AS VARCHAR) FROM upgrades WHERE name = 'platform_answers_masked_2'`, "2026-11-20 01:00:00+00"},
	} {
		var got string
		if err := s.ReadPool().QueryRowContext(ctx, c.query).Scan(&got); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.query, got, c.want)
		}
	}

	// Once: rows stored after it are masked as they are loaded, not by a
	// second pass over every table.
	if _, err := s.Conn().ExecContext(ctx, `UPDATE plans SET name = '4111111111111111' WHERE plan_id = 'p2'`); err != nil {
		t.Fatal(err)
	}
	if n, err := MaskOlderRecords(ctx, s, now); err != nil || n != 0 {
		t.Errorf("second pass: %d rows (%v), want none", n, err)
	}
	var name string
	if err := s.ReadPool().QueryRowContext(ctx, `SELECT name FROM plans WHERE plan_id = 'p2'`).Scan(&name); err != nil || !strings.HasPrefix(name, "4111111111111111") {
		t.Errorf("the second pass changed a row: %q (%v)", name, err)
	}
}

// TestMaskOlderRecordsAgain: a database the first masking pass masked
// (platform_answers_masked) is masked again by this version's, which masks
// more: a card number that separators join onto other digits, and the
// track data after it.
func TestMaskOlderRecordsAgain(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	now := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	for _, q := range []string{
		`INSERT INTO upgrades (name, done_at) VALUES ('platform_answers_masked', TIMESTAMPTZ '2026-11-01 01:00:00+00')`,
		// As the first pass left them.
		`INSERT INTO transactions (merchant_id, transaction_id, client_reference, raw, run_id, loaded_at) VALUES
			('m1', 't1', 'ref 390984XXXXXXX4111119070000001', '{"id":"t1"}', 'r1', now()),
			('m1', 't2', 'track 411111XXXXXX1111=25121011234567890?', '{"id":"t2"}', 'r1', now())`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n, err := MaskOlderRecords(ctx, s, now); err != nil || n != 2 {
		t.Fatalf("%d rows masked (%v), want the 2 the first pass missed", n, err)
	}
	rows, err := s.ReadPool().QueryContext(ctx, `SELECT client_reference FROM transactions ORDER BY transaction_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(ref, "9070000001") || strings.Contains(ref, "2512101") {
			t.Errorf("masked again: %q still holds card data", ref)
		}
	}
	if n, err := MaskOlderRecords(ctx, s, now); err != nil || n != 0 {
		t.Errorf("a second pass of this version: %d rows (%v), want none", n, err)
	}
}
