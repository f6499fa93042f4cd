package checks

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/queries"
)

// tableFiles returns a function that writes a table file into a
// temporary folder and returns its path, and the folder.
func tableFiles(t *testing.T) (write func(name, body string) string, dir string) {
	dir = t.TempDir()
	return func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}, dir
}

func TestLoadInterchangeRates(t *testing.T) {
	write, dir := tableFiles(t)
	want := []InterchangeRate{{"*", 0.004, 0.007}, {"MASTERCARD", 0.005, 0.0085}, {"VISA", 0.005, 0.009}}
	for _, p := range []string{
		write("rates.csv", "# our schedule\nnetwork,level2,level3\nvisa, 0.005, 0.009\nMastercard,0.005,0.0085\n*,0.004,0.007\n"),
		write("rates.yaml", "VISA: {level2: 0.005, level3: 0.009}\nMASTERCARD: {level2: 0.005, level3: 0.0085}\n\"*\": {level2: 0.004, level3: 0.007}\n"),
	} {
		rt, err := LoadInterchangeRates(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if rt.Source != cardmask.MaskText(p) || !reflect.DeepEqual(rt.Rates, want) {
			t.Errorf("%s: %+v", p, rt)
		}
	}
	if rt, err := LoadInterchangeRates(""); err != nil || rt.Source != "default" || len(rt.Rates) < 3 {
		t.Errorf("default table: %+v, %v", rt, err)
	}
	for body, wantErr := range map[string]string{
		"network,level2,level3\nVISA,0.5,0.9\nVISA,0.5,0.9\n": "listed twice",
		"network,level2,level3\nVISA,0.5,90\n":                "not a fraction",
		"network,level3\nVISA,0.9\n":                          `lacks "level2"`,
		"network,level2,level3\nVISA,half,0.9\n":              "is not a number",
		"network,level2,level3\n":                             "no rates",
	} {
		if _, err := LoadInterchangeRates(write("bad.csv", body)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: %v, want an error saying %q", body, err, wantErr)
		}
	}
	if _, err := LoadInterchangeRates(write("bad.yaml", "VISA: {level2: 0.005}\n")); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("a YAML rate without level3: %v", err)
	}
	if _, err := LoadInterchangeRates(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("a missing file is not an error")
	}
}

// TestInterchangeAtRisk estimates from a run's findings: each commercial
// call counted once at its lost level's rate, consumer cards and resolved
// findings left out, an unlisted network at the * rate.
func TestInterchangeAtRisk(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	for _, q := range []string{
		`INSERT INTO interchange_rates VALUES ('VISA', 0.005, 0.009, 't', now()), ('MASTERCARD', 0.005, 0.0085, 't', now()),
			('*', 0.004, 0.0075, 't', now())`,
		`INSERT INTO bin_attributes (bin, lookup_status, card_platform, brand, looked_up_at) VALUES
			('448590', 'COMPLETED', 'COMMERCIAL', 'VISA', now()), ('555544', 'COMPLETED', 'COMMERCIAL', 'MASTERCARD', now()),
			('601100', 'COMPLETED', 'COMMERCIAL', 'DISCOVER', now()), ('411111', 'COMPLETED', 'CONSUMER', 'VISA', now())`,
		`INSERT INTO journal (merchant_id, file, line, transaction_id, card_bin, card_last4, file_sha256, imported_at) VALUES
			('m1', 'f', 1, 't1', '448590', '0001', 's', now()), ('m1', 'f', 2, 't2', '448590', '0002', 's', now()),
			('m1', 'f', 3, 't3', '555544', '0003', 's', now()), ('m1', 'f', 4, 't4', '411111', '0004', 's', now()),
			('m2', 'f', 5, 't5', '601100', '0005', 's', now()), ('m2', 'f', 6, 't6', '448590', '0006', 's', now())`,
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, first_seen_run, state) VALUES
			('r', DATE '2026-11-20', 'commercial_card_without_level3', 'm1', 't1', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level2_missing_po', 'm1', 't2', 200.00, 'USD', 'r', 'open'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't3', 50.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_incomplete', 'm1', 't3', 50.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't4', 70.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'commercial_card_without_level3', 'm2', 't5', 10.00, 'EUR', 'r', 'new'),
			('r', DATE '2026-11-20', 'commercial_card_without_level3', 'm2', 't6', 99.00, 'USD', 'r', 'resolved')`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.Conn().ExecContext(ctx, queries.InterchangeAtRisk(), "r"); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Conn().QueryContext(ctx, `SELECT merchant_id || ' ' || network || ' ' || currency || ' ' || calls || ' ' ||
		level3_calls || ' ' || level2_calls || ' ' || amount_text(amount, currency) || ' ' || amount_text(at_risk, currency) FROM interchange_at_risk ORDER BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		got = append(got, s)
	}
	want := []string{
		"m1 MASTERCARD USD 1 1 0 50.00 0.43", // counted once though two kinds report it; 0.425 rounds up
		"m1 VISA USD 2 1 1 300.00 1.90",      // 100 x 0.9% + 200 x 0.5%
		"m2 DISCOVER EUR 1 1 0 10.00 0.08",   // not listed: the * rate
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("interchange_at_risk:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestInterchangeAtRiskUsesWhatWasCharged: a call whose interchange
// clearing record the Reporting API gave counts what was billed back
// instead of the estimate (0 when it cleared at the level sent); a record
// in another currency, or of another member, leaves the estimate.
func TestInterchangeAtRiskUsesWhatWasCharged(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	for _, q := range []string{
		`INSERT INTO interchange_rates VALUES ('VISA', 0.005, 0.01, 't', now()), ('*', 0.005, 0.01, 't', now())`,
		`INSERT INTO bin_attributes (bin, lookup_status, card_platform, brand, looked_up_at) VALUES
			('448590', 'COMPLETED', 'COMMERCIAL', 'VISA', now())`,
		`INSERT INTO journal (merchant_id, file, line, transaction_id, card_bin, card_last4, file_sha256, imported_at) VALUES
			('m1', 'f', 1, 't1', '448590', '0001', 's', now()), ('m1', 'f', 2, 't2', '448590', '0002', 's', now()),
			('m1', 'f', 3, 't3', '448590', '0003', 's', now()), ('m1', 'f', 4, 't4', '448590', '0004', 's', now())`,
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, first_seen_run, state) VALUES
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't1', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't2', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't3', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't4', 100.00, 'USD', 'r', 'new')`,
		`INSERT INTO interchange_clearing (merchant_id, request_id, amount, currency, sent_level, cleared_level,
			fee_expected, fee_charged, billback_amount, fee_currency, run_id, loaded_at) VALUES
			('m1', 't1', 100.00, 'USD', '3', '1', 2.00, 2.75, 0.75, 'USD', 'r', now()),
			('m1', 't2', 100.00, 'USD', '3', '3', 2.00, 2.00, 0.00, 'USD', 'r', now()),
			('m1', 't3', 100.00, 'USD', '3', '1', 2.00, 2.75, 0.75, 'EUR', 'r', now()),
			('m2', 't4', 100.00, 'USD', '3', '1', 2.00, 2.75, 0.75, 'USD', 'r', now())`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.Conn().ExecContext(ctx, queries.InterchangeAtRisk(), "r"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := s.Conn().QueryRowContext(ctx, `SELECT amount_text(at_risk, currency) FROM interchange_at_risk`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	// t1 0.75 charged, t2 0 (cleared at Level III), t3 and t4 estimated at 1% each.
	if got != "2.75" {
		t.Errorf("at risk %s, want 2.75: 0.75 charged + 0 + 1.00 + 1.00 estimated", got)
	}
}

// TestInterchangeAtRiskCountsEveryBusinessPlatform: a call on a BUSINESS,
// CORPORATE or GOVERNMENT card that lost Level III is at risk as one on a
// COMMERCIAL card is (every cardPlatform of the SDK's model
// TmsBinLookupPaymentAccountInformationFeatures but CONSUMER); a CONSUMER
// card and a platform the SDK does not list are not.
func TestInterchangeAtRiskCountsEveryBusinessPlatform(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	for _, q := range []string{
		`INSERT INTO interchange_rates VALUES ('VISA', 0.005, 0.01, 't', now()), ('*', 0.005, 0.01, 't', now())`,
		`INSERT INTO bin_attributes (bin, lookup_status, card_platform, brand, looked_up_at) VALUES
			('455701', 'COMPLETED', 'BUSINESS', 'VISA', now()), ('556677', 'COMPLETED', 'CORPORATE', 'VISA', now()),
			('428208', 'COMPLETED', 'GOVERNMENT', 'VISA', now()), ('448590', 'COMPLETED', 'COMMERCIAL', 'VISA', now()),
			('411111', 'COMPLETED', 'CONSUMER', 'VISA', now()), ('400000', 'COMPLETED', 'PREMIUM', 'VISA', now())`,
		`INSERT INTO journal (merchant_id, file, line, transaction_id, card_bin, card_last4, file_sha256, imported_at) VALUES
			('m1', 'f', 1, 't1', '455701', '0001', 's', now()), ('m1', 'f', 2, 't2', '556677', '0002', 's', now()),
			('m1', 'f', 3, 't3', '428208', '0003', 's', now()), ('m1', 'f', 4, 't4', '448590', '0004', 's', now()),
			('m1', 'f', 5, 't5', '411111', '0005', 's', now()), ('m1', 'f', 6, 't6', '400000', '0006', 's', now())`,
		`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, first_seen_run, state) VALUES
			('r', DATE '2026-11-20', 'commercial_card_without_level3', 'm1', 't1', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'commercial_card_without_level3', 'm1', 't2', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't3', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_incomplete', 'm1', 't4', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't5', 100.00, 'USD', 'r', 'new'),
			('r', DATE '2026-11-20', 'level3_not_transmitted', 'm1', 't6', 100.00, 'USD', 'r', 'new')`,
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.Conn().ExecContext(ctx, queries.InterchangeAtRisk(), "r"); err != nil {
		t.Fatal(err)
	}
	var calls, level3 int
	var atRisk float64
	if err := s.Conn().QueryRowContext(ctx, `SELECT sum(calls), sum(level3_calls), CAST(sum(at_risk) AS DOUBLE) FROM interchange_at_risk`).
		Scan(&calls, &level3, &atRisk); err != nil {
		t.Fatal(err)
	}
	if calls != 4 || level3 != 4 || atRisk != 4 {
		t.Errorf("interchange_at_risk: %d calls, %d lost Level III, %v at risk; want the 4 business cards' 4 calls, 4.00 (1%% of 100.00 each)", calls, level3, atRisk)
	}
}
