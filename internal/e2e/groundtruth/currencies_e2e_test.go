package groundtruth

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/reports"
)

// currencyRewrite rewrites, in member mid's Transaction Search answers, the
// amount and currency of the first transactions it lists, in the order of
// amounts; the same transaction gets the same amount in every answer (a
// member may be pulled again).
func currencyRewrite(mid string, amounts [][2]string) sandboxtest.Option {
	var mu sync.Mutex
	given := map[string][2]string{}
	return sandboxtest.WithHandler(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != "POST" || r.URL.Path != "/tss/v2/searches" || r.Header.Get("v-c-merchant-id") != mid {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var page map[string]any
			if rec.Code == http.StatusCreated || rec.Code == http.StatusOK {
				if err := json.Unmarshal(body, &page); err == nil {
					emb, _ := page["_embedded"].(map[string]any)
					list, _ := emb["transactionSummaries"].([]any)
					mu.Lock()
					for _, x := range list {
						t, _ := x.(map[string]any)
						id, _ := t["id"].(string)
						a, ok := given[id]
						if !ok && len(given) < len(amounts) {
							a, ok = amounts[len(given)], true
							given[id] = a
						}
						if !ok {
							continue
						}
						order, _ := t["orderInformation"].(map[string]any)
						details, _ := order["amountDetails"].(map[string]any)
						if details != nil {
							details["totalAmount"], details["currency"] = a[0], a[1]
						}
					}
					mu.Unlock()
					if b, err := json.Marshal(page); err == nil {
						body = b
					}
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	})
}

// TestCurrencyMinorUnits: a member's transactions in KWD (three decimals)
// and JPY (none) are stored exactly in the DuckDB file, summed exactly,
// and shown in the workbook with their currency's decimals; an amount with
// more decimals than its currency has (12.3456 KWD, 12.5 JPY) is kept
// aside with its reason, never rounded, while the rest of the member loads
// and the run ends ok.
func TestCurrencyMinorUnits(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	probe := clitest.NewFixture(t, sandbox.Config{})
	mid := probe.Srv.Members()[1]
	f := clitest.NewFixture(t, sandbox.Config{}, currencyRewrite(mid, [][2]string{
		{"12.345", "KWD"}, {"1000", "JPY"}, {"12.3456", "KWD"}, {"12.5", "JPY"}, {"0.005", "KWD"}, {"250", "JPY"}}))
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out)...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cli.ExitOK, stdout, stderr)
	}
	conn := clitest.OpenReadOnly(t, db)
	var status string
	var pulled, stored, plans int
	if err := conn.QueryRow(`SELECT status, transactions, (SELECT count(*) FROM transactions WHERE merchant_id = $1),
			(SELECT count(*) FROM plans WHERE merchant_id = $1)
		FROM run_members WHERE run_id = '2026-11-20' AND merchant_id = $1`, mid).Scan(&status, &pulled, &stored, &plans); err != nil {
		t.Fatal(err)
	}
	if status != "ok" || stored != pulled || stored < 4 || plans == 0 {
		t.Errorf("member %s: status %s, %d transactions counted, %d stored, %d plans; want ok, the rest of the member loaded",
			mid, status, pulled, stored, plans)
	}
	amounts := map[string][]string{}
	rows, err := conn.Query(`SELECT currency, CAST(amount AS VARCHAR) FROM transactions WHERE merchant_id = ? AND currency IN ('KWD', 'JPY') ORDER BY 1, 2`, mid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var cur, a string
		if err := rows.Scan(&cur, &a); err != nil {
			t.Fatal(err)
		}
		amounts[cur] = append(amounts[cur], a)
	}
	rows.Close()
	if strings.Join(amounts["KWD"], " ") != "0.005 12.345" || strings.Join(amounts["JPY"], " ") != "1000.000 250.000" {
		t.Errorf("stored KWD %v, JPY %v; want exactly 0.005 and 12.345 KWD, 1000 and 250 JPY", amounts["KWD"], amounts["JPY"])
	}
	var kwd, jpy string
	if err := conn.QueryRow(`SELECT CAST(sum(amount) FILTER (WHERE currency = 'KWD') AS VARCHAR), CAST(sum(amount) FILTER (WHERE currency = 'JPY') AS VARCHAR)
		FROM transactions WHERE merchant_id = ?`, mid).Scan(&kwd, &jpy); err != nil {
		t.Fatal(err)
	}
	if kwd != "12.350" || jpy != "1250.000" {
		t.Errorf("sums KWD %s JPY %s; want 12.350 and 1250.000", kwd, jpy)
	}
	// Texts (reports' reasons, acknowledgements) write an amount with its
	// currency's decimals, dropping only zeros.
	var texts string
	if err := conn.QueryRow(`SELECT concat_ws(' ', amount_text(12.345::DECIMAL(18,3), 'KWD'), amount_text(1000::DECIMAL(18,3), 'JPY'),
		amount_text(12.340::DECIMAL(18,3), 'USD'), amount_text(12.340::DECIMAL(18,3), 'kwd'), amount_text(1000.5::DECIMAL(18,3), 'JPY'),
		amount_text(-0.001::DECIMAL(18,3), 'USD'))`).Scan(&texts); err != nil {
		t.Fatal(err)
	}
	if texts != "12.345 1000 12.34 12.340 1000.5 -0.001" {
		t.Errorf("amount texts %q, want %q", texts, "12.345 1000 12.34 12.340 1000.5 -0.001")
	}
	aside := map[string]string{}
	rows, err = conn.Query(`SELECT value || ' ' || currency, record || ' ' || field || ': ' || reason FROM kept_aside WHERE run_id = '2026-11-20' AND merchant_id = ?`, mid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v, why string
		if err := rows.Scan(&v, &why); err != nil {
			t.Fatal(err)
		}
		aside[v] = why
	}
	rows.Close()
	if len(aside) != 2 || !strings.Contains(aside["12.3456 KWD"], "transaction totalAmount: ") ||
		!strings.Contains(aside["12.3456 KWD"], "4 decimals; KWD has 3") || !strings.Contains(aside["12.5 JPY"], "1 decimals; JPY has 0") {
		t.Errorf("kept aside %v; want 12.3456 KWD and 12.5 JPY with their reasons", aside)
	}

	// The workbook: the Summary's funding mix by group holds the amounts
	// per currency, each formatted with its currency's decimals.
	wb, err := excelize.OpenFile(filepath.Join(out, "2026-11-20", "reconcile-2026-11-20.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	sheet := reports.SummarySheet
	grid, err := wb.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]*big.Rat{"KWD": new(big.Rat), "JPY": new(big.Rat)}
	formats := map[string]string{}
	inMix := false
	for r, row := range grid {
		if len(row) > 0 && strings.HasPrefix(row[0], "Funding mix by group") {
			inMix = true
			continue
		}
		if inMix && len(row) > 0 && row[0] == "" {
			break
		}
		if !inMix || len(row) < 5 || sums[row[4]] == nil {
			continue
		}
		cell, _ := excelize.CoordinatesToCellName(4, r+1)
		v, ok := new(big.Rat).SetString(row[3])
		if !ok {
			t.Fatalf("%s %s: amount %q is not a number", sheet, cell, row[3])
		}
		sums[row[4]].Add(sums[row[4]], v)
		idx, err := wb.GetCellStyle(sheet, cell)
		if err != nil {
			t.Fatal(err)
		}
		st, err := wb.GetStyle(idx)
		if err != nil {
			t.Fatal(err)
		}
		if st.CustomNumFmt != nil {
			formats[row[4]] = *st.CustomNumFmt
		}
	}
	// The sandbox's own KWD and JPY members trade in the window too: the
	// Summary's totals (a member in several groups counted once, on a row of
	// its own) are the database's, to the fils and the yen.
	var dbKWD, dbJPY string
	if err := conn.QueryRow(`SELECT CAST(sum(amount) FILTER (WHERE currency = 'KWD') AS VARCHAR), CAST(sum(amount) FILTER (WHERE currency = 'JPY') AS VARCHAR)
		FROM transactions t
		WHERE t.merchant_id IN (SELECT merchant_id FROM group_members WHERE run_id = '2026-11-20') AND t.submit_time >= (SELECT window_start FROM runs WHERE run_id = '2026-11-20')
		  AND t.submit_time < (SELECT window_end FROM runs WHERE run_id = '2026-11-20')`).Scan(&dbKWD, &dbJPY); err != nil {
		t.Fatal(err)
	}
	if sums["KWD"].FloatString(3) != dbKWD || sums["JPY"].FloatString(3) != dbJPY || sums["KWD"].Sign() == 0 || sums["JPY"].Sign() == 0 {
		t.Errorf("the Summary's funding mix by group totals KWD %s, JPY %s; want the database's %s and %s", sums["KWD"].FloatString(3), sums["JPY"].FloatString(3), dbKWD, dbJPY)
	}
	if !strings.HasSuffix(strings.Split(formats["KWD"], " ")[0], "0.000") || strings.Contains(formats["JPY"], ".") || formats["JPY"] == "" {
		t.Errorf("number formats KWD %q, JPY %q; want three decimals for KWD, none for JPY", formats["KWD"], formats["JPY"])
	}
}
