package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
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
	// A merchant-initiated sale by token, declined: do not try again.
	`{"time":"2026-11-20T11:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments",
	  "request":{"processingInformation":{"capture":true,"commerceIndicator":"recurring","authorizationOptions":{"initiator":{"type":"merchant",
	    "storedCredentialUsed":true,"merchantInitiatedTransaction":{"reason":"7"}}}},"paymentInformation":{"customer":{"id":"C1"}},
	    "orderInformation":{"amountDetails":{"totalAmount":"9.99","currency":"USD"}}},
	  "status":201,"response":{"id":"1795000000000010000003","status":"DECLINED","paymentAccountInformation":{"card":{"type":"002"}},
	    "processorInformation":{"networkTransactionId":"12345678901234567890","responseCode":"05","merchantAdvice":{"code":"03","codeRaw":"21"}}}}`,
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
	s := storetest.Open(t)
	path := writeJournal(t, journalFixture)
	imports, err := ImportJournals(ctx, s, path, time.Now())
	if err != nil || len(imports) != 1 || imports[0].Loaded != 4 || imports[0].Rejected != 1 {
		t.Fatalf("import: %+v, %v", imports, err)
	}
	var reason string
	if err := s.Conn().QueryRowContext(ctx, `SELECT reason FROM journal_rejects`).Scan(&reason); err != nil ||
		!strings.Contains(reason, "healthCareInformation.amountDetails[0].amount") {
		t.Errorf("reject reason %q (%v)", reason, err)
	}
	const facts = `SELECT line, call_kind, coalesce(level3_missing, ''), coalesce(percent_rates, ''), coalesce(initiator_type, ''),
		coalesce(mit_reason, '-'), coalesce(previous_transaction_id, '-'), coalesce(commerce_indicator, ''),
		coalesce(CAST(healthcare_amount AS VARCHAR), ''), coalesce(CAST(healthcare_detail_amount AS VARCHAR), ''),
		coalesce(healthcare_amount_count, 0), coalesce(card_bin, ''), coalesce(terminal_id, ''), coalesce(installment_id, ''),
		coalesce(CAST(refund_amount AS VARCHAR), ''), coalesce(ref_network_transaction_id, ''), coalesce(response_status, ''),
		coalesce(network_transaction_id, ''), coalesce(card_type, ''), coalesce(processor_response_code, ''),
		coalesce(merchant_advice_code, ''), coalesce(merchant_advice_code_raw, ''), inspect_version
		FROM journal ORDER BY line`
	read := func() []string {
		rows, err := s.Conn().QueryContext(ctx, facts)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			v := make([]sql.NullString, 23)
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
	version := fmt.Sprint(JournalInspectVersion)
	want := []string{
		"1|capture|lineItems[0].unitOfMeasure|amountDetails.taxDetails[0].rate=8.00||-|-||||0||||||PENDING||||||" + version,
		"2|sale|||merchant|7|-|recurring|||0||||||DECLINED|12345678901234567890|002|05|03|21|" + version,
		"3|sale||||-|-||30.000|35.000|3|471510|TRM-1||||AUTHORIZED||||||" + version,
		"4|installment_cancel||||-|-||||0|||SBXIA1|12.000|12345678901234567899|ACCEPTED||||||" + version,
	}
	if got := read(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("journal facts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Rows of an older import: no facts, no version.
	if _, err := s.Conn().ExecContext(ctx, `UPDATE journal SET call_kind = 'other', level3_missing = NULL, initiator_type = NULL,
		healthcare_amount = NULL, terminal_id = NULL, installment_id = NULL, card_type = NULL, processor_response_code = NULL,
		merchant_advice_code = NULL, merchant_advice_code_raw = NULL, inspect_version = NULL`); err != nil {
		t.Fatal(err)
	}
	n, err := ReinspectJournal(ctx, s)
	if err != nil || n != 4 {
		t.Fatalf("re-inspection: %d rows, %v", n, err)
	}
	if got := read(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after re-inspection:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, err := ReinspectJournal(ctx, s); err != nil || n != 0 {
		t.Errorf("a second re-inspection: %d rows, %v; want none", n, err)
	}
}

// TestReinspectionMasksOlderImports: rows an older version imported with
// card data (a card number in the path and so in parent_id, a disguised
// one and a security code in the body) are masked as they are inspected
// again.
func TestReinspectionMasksOlderImports(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	if _, err := ImportJournals(ctx, s, writeJournal(t, journalFixture[:1]), time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn().ExecContext(ctx, `UPDATE journal SET path = '/pts/v2/payments/4111111111111111/captures',
		parent_id = '4111111111111111', inspect_version = 2,
		request = '{"paymentInformation":{"card":{"number":"4111.1111.1111.1111","securityCode":"737"}}}'`); err != nil {
		t.Fatal(err)
	}
	if n, err := ReinspectJournal(ctx, s); err != nil || n != 1 {
		t.Fatalf("re-inspection: %d rows, %v", n, err)
	}
	var path, parent, req string
	if err := s.Conn().QueryRowContext(ctx, `SELECT path, parent_id, CAST(request AS VARCHAR) FROM journal`).Scan(&path, &parent, &req); err != nil {
		t.Fatal(err)
	}
	if path != "/pts/v2/payments/411111XXXXXX1111/captures" || parent != "411111XXXXXX1111" ||
		req != `{"paymentInformation":{"card":{"number":"411111XXXXXX1111","securityCode":"REMOVED"}}}` {
		t.Errorf("after re-inspection: path %s, parent_id %s, request %s", path, parent, req)
	}

	// A row version 6 imported, masked as the masking before 2026-11-27
	// left it: a card number joined onto other digits, with track data.
	if _, err := s.Conn().ExecContext(ctx, `UPDATE journal SET inspect_version = 6,
		request = '{"note":"ref 390984XXXXXXX4111119070000001=25121011234567890?"}'`); err != nil {
		t.Fatal(err)
	}
	if n, err := ReinspectJournal(ctx, s); err != nil || n != 1 {
		t.Fatalf("re-inspection of version 6: %d rows, %v", n, err)
	}
	if err := s.Conn().QueryRowContext(ctx, `SELECT CAST(request AS VARCHAR) FROM journal`).Scan(&req); err != nil {
		t.Fatal(err)
	}
	if req != `{"note":"ref 390984XXXXXXX411111XXXXXX0001=REMOVED"}` {
		t.Errorf("a version-6 row inspected again: request %s", req)
	}
}

// TestReinspectionLeavesNoUpdatesInMemory: the rows an inspection updated
// are written to the file before the checks, not held in DuckDB's memory
// (at 1,000 members they held 189 MiB of the 244 the checks then had).
func TestReinspectionLeavesNoUpdatesInMemory(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	dir := t.TempDir()
	if _, err := ImportJournals(ctx, s, writeLines(t, dir, "many.ndjson", 4000), time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn().ExecContext(ctx, `UPDATE journal SET inspect_version = 6`); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := ReinspectJournal(ctx, s); err != nil || n != 4000 {
		t.Fatalf("re-inspection: %d rows, %v", n, err)
	}
	var held int64
	if err := s.Conn().QueryRowContext(ctx,
		`SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'ALLOCATOR'`).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held > 256<<10 {
		t.Errorf("after re-inspecting 4,000 rows DuckDB holds %d KiB of updates in memory; want them written to the file", held>>10)
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
			jl, perr := ParseJournalLine(cardmask.MaskLine(line))
			if perr != nil || strings.TrimSpace(jl.MerchantID) == "" || strings.TrimSpace(jl.Path) == "" || jl.Status == "" {
				t.Fatalf("accepted %q: %+v, %v", line, jl, perr)
			}
			if n := chunk.rows.Len(); n != 1 {
				t.Fatalf("accepted %q into %d rows", line, n)
			}
		}
		for _, s := range stored {
			for _, r := range cardmasktest.LuhnRuns(s) {
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

// writeLines writes n journal lines (calls of the fixture, each with its
// own response id) into dir/name.
func writeLines(t testing.TB, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		l := strings.Join(strings.Fields(journalFixture[i%4]), " ")
		b.WriteString(regexp.MustCompile(`"id":"\d+"`).ReplaceAllString(l, fmt.Sprintf(`"id":"17950000000000%08d"`, i)) + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importWithin runs an import and fails the test if it does not finish
// in a minute (a read that blocks would hang the run).
func importWithin(t *testing.T, ctx context.Context, s *store.Store, glob string, limits journalLimits) ([]JournalImport, error) {
	t.Helper()
	type result struct {
		imports []JournalImport
		err     error
	}
	done := make(chan result, 1)
	go func() {
		imports, err := importJournals(ctx, s, glob, time.Now(), limits)
		done <- result{imports, err}
	}()
	select {
	case r := <-done:
		return r.imports, r.err
	case <-time.After(time.Minute):
		t.Fatal("the journal import does not finish")
		return nil, nil
	}
}

func journalRows(t *testing.T, s *store.Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Conn().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImportJournalsOnlyRegularFiles: a named pipe and a device matched by
// the glob are reported and never read (reading either could block the
// run or never end), a directory is passed over, and the other files load.
func TestImportJournalsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "a.ndjson", 3)
	writeLines(t, dir, "c.ndjson", 2)
	if err := syscall.Mkfifo(filepath.Join(dir, "b.ndjson"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "d.ndjson")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "e.ndjson"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := storetest.Open(t)
	imports, err := importWithin(t, context.Background(), s, filepath.Join(dir, "*.ndjson"), defaultJournalLimits)
	for _, want := range []string{"b.ndjson: a named pipe, not a regular file", "d.ndjson: a device, not a regular file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("import error %v, want it to say %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "e.ndjson") {
		t.Errorf("a directory is reported: %v", err)
	}
	base := func(i int) string { return filepath.Base(imports[i].File) }
	if len(imports) != 2 || base(0) != "a.ndjson" || imports[0].Loaded != 3 ||
		base(1) != "c.ndjson" || imports[1].Loaded != 2 {
		t.Errorf("imports %+v, want a.ndjson (3 lines) and c.ndjson (2)", imports)
	}
	if n := journalRows(t, s, `SELECT count(*) FROM journal`); n != 5 {
		t.Errorf("%d journal rows, want 5", n)
	}
}

// TestOpenJournalRefusesSwappedPath: the opened file is checked, not only
// the path: a named pipe opened (as if swapped in after the check) is
// refused at once, without waiting for a writer.
func TestOpenJournalRefusesSwappedPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe.ndjson")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := openJournal(p, p); err == nil || !strings.Contains(err.Error(), "named pipe") {
		f.Close()
		t.Fatalf("openJournal of a pipe: %v", err)
	}
	// The same through the second check alone: open as openJournal does.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("a non-blocking open of a pipe waits or fails: %v", err)
	}
	info, _ := f.Stat()
	f.Close()
	if info.Mode().IsRegular() {
		t.Fatal("fstat of a pipe says regular")
	}
}

// TestImportJournalsInChunks: a file larger than a chunk is loaded in
// chunks of at most chunkRows rows, all of them in one transaction with
// its journal_files row; small files are loaded whole. What an import
// holds at once is so bounded by the chunk, not by the file.
func TestImportJournalsInChunks(t *testing.T) {
	dir := t.TempDir()
	big := writeLines(t, dir, "big.ndjson", 95)
	f, _ := os.OpenFile(big, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"merchantId\":\"m1\"}\n\n{\"x\":4111 1111 1111 1111\n")
	f.Close()
	writeLines(t, dir, "small1.ndjson", 3)
	writeLines(t, dir, "small2.ndjson", 4)
	loads := map[string][]int{}
	limits := journalLimits{chunkRows: 10, chunkBytes: 1 << 20, groupRows: 25, groupBytes: 1 << 20,
		loaded: func(file string, rows int) { loads[filepath.Base(file)] = append(loads[filepath.Base(file)], rows) }}
	s := storetest.Open(t)
	imports, err := importWithin(t, context.Background(), s, filepath.Join(dir, "*.ndjson"), limits)
	if err != nil || len(imports) != 3 {
		t.Fatalf("imports %+v, %v", imports, err)
	}
	chunks, rows := loads["big.ndjson"], 0
	for _, n := range chunks {
		if n > limits.chunkRows {
			t.Errorf("a chunk of %d rows loaded, more than %d", n, limits.chunkRows)
		}
		rows += n
	}
	if len(chunks) < 10 || rows != 98 {
		t.Errorf("big.ndjson loaded as chunks %v, want 10 or more making 98 rows", chunks)
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM journal WHERE file LIKE '%big.ndjson%'`:         95,
		`SELECT count(*) FROM journal_rejects WHERE file LIKE '%big.ndjson%'`: 3,
		`SELECT count(*) FROM journal`:                                        102,
		`SELECT count(*) FROM journal_files`:                                  3,
		`SELECT sum(lines) FROM journal_files WHERE file LIKE '%big.ndjson%'`: 98,
	} {
		if n := journalRows(t, s, q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
}

// TestImportJournalsInterruptedLeavesNoPart: an import cancelled in the
// middle of a file's chunks (as a crash would stop it) leaves nothing of
// that file, not even its journal_files row; the next import loads it
// whole.
func TestImportJournalsInterruptedLeavesNoPart(t *testing.T) {
	dir := t.TempDir()
	big := writeLines(t, dir, "big.ndjson", 200)
	s := storetest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	chunks := 0
	limits := journalLimits{chunkRows: 10, chunkBytes: 1 << 20, groupRows: 25, groupBytes: 1 << 20,
		loaded: func(string, int) {
			if chunks++; chunks == 3 {
				cancel()
			}
		}}
	_, err := importWithin(t, ctx, s, big, limits)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import error %v, want it cancelled", err)
	}
	if n := journalRows(t, s, `SELECT count(*) FROM journal`) + journalRows(t, s, `SELECT count(*) FROM journal_files`); n != 0 {
		t.Fatalf("a cancelled import left %d rows", n)
	}
	imports, err := importWithin(t, context.Background(), s, big, defaultJournalLimits)
	if err != nil || len(imports) != 1 || imports[0].Loaded != 200 {
		t.Fatalf("import again: %+v, %v", imports, err)
	}
	if n := journalRows(t, s, `SELECT count(*) FROM journal`); n != 200 {
		t.Errorf("%d journal rows, want 200", n)
	}
}

// TestImportJournalsGroupErrorIsShort: a group of small files that fails
// to load is named by its count and its first and last files, not by every
// name (a group of 4,483 files made a 266 KB line of the run log), and
// none of its files counts as imported, so the next import loads them.
func TestImportJournalsGroupErrorIsShort(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		writeLines(t, dir, fmt.Sprintf("small%02d.ndjson", i), i+1) // each its own content
	}
	s := storetest.Open(t)
	ctx, cancel := context.WithCancel(context.Background())
	limits := journalLimits{chunkRows: 100, chunkBytes: 1 << 20, groupRows: 1000, groupBytes: 1 << 20,
		loaded: func(string, int) { cancel() }} // the group's rows are in; its journal_files rows fail
	_, err := importWithin(t, ctx, s, filepath.Join(dir, "*.ndjson"), limits)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import error %v, want it cancelled", err)
	}
	msg := err.Error()
	first, last := filepath.Join(dir, "small00.ndjson"), filepath.Join(dir, "small39.ndjson")
	if !strings.Contains(msg, "group of 40 files, "+cardmask.MaskText(first)+" to "+cardmask.MaskText(last)) ||
		strings.Contains(msg, "small17.ndjson") {
		t.Errorf("the group's error names %q; want its count, first and last file only", msg)
	}
	if n := journalRows(t, s, `SELECT count(*) FROM journal`) + journalRows(t, s, `SELECT count(*) FROM journal_files`); n != 0 {
		t.Fatalf("a group that failed left %d rows", n)
	}
	imports, err := importWithin(t, context.Background(), s, filepath.Join(dir, "*.ndjson"), defaultJournalLimits)
	if err != nil || len(imports) != 40 {
		t.Fatalf("import again: %d files, %v", len(imports), err)
	}
}

// TestJournalReadStopsWhenCancelled: reading a file stops within a line or
// two of the import being cancelled, however long the file.
func TestJournalReadStopsWhenCancelled(t *testing.T) {
	p := writeLines(t, t.TempDir(), "long.ndjson", 1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := newJournalStream(p, p)
	go st.read(ctx, time.Now(), journalLimits{chunkRows: 1, chunkBytes: 1 << 20}, func(string) bool { return true })
	for range 3 {
		<-st.chunks
	}
	cancel()
	more := 0
	for range st.chunks {
		more++
	}
	if more > 2 || !errors.Is(st.err, context.Canceled) {
		t.Errorf("after cancelling: %d more lines read, error %v", more, st.err)
	}
}

// TestImportJournalsHostileBytes: lines that Go's JSON decoder reads but
// DuckDB would refuse (invalid UTF-8, a lone surrogate, raw control
// characters) and binary garbage are loaded or rejected one by one; none
// fails its file.
func TestImportJournalsHostileBytes(t *testing.T) {
	head := `{"merchantId":"m1","path":"/p","status":201,"request":`
	lines := []string{
		head + "{\"name\":\"Jos\xe9\"}}",
		head + `{"a":"\ud800"}}`,
		head + "{\"a\":\"\x01\tb\rc\"}}",
		"\x00\xff\xfe garbage 4111111111111111",
		head + `{"a":1}}`,
	}
	p := filepath.Join(t.TempDir(), "hostile.ndjson")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := storetest.Open(t)
	imports, err := importWithin(t, context.Background(), s, p, defaultJournalLimits)
	if err != nil || len(imports) != 1 || imports[0].Loaded != 4 || imports[0].Rejected != 1 {
		t.Fatalf("imports %+v, %v; want 4 loaded and the garbage rejected", imports, err)
	}
	var req string
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT request->>'name' FROM journal WHERE line = 1`).Scan(&req); err != nil || req != "Jos\uFFFD" {
		t.Errorf("a Latin-1 name reads %q (%v)", req, err)
	}
}

// BenchmarkImportJournalMemory imports one journal file of 20,000 and of
// 80,000 lines and reports the peak live Go heap while it does: read in
// chunks, a file four times larger needs no more memory.
func BenchmarkImportJournalMemory(b *testing.B) {
	for _, lines := range []int{20_000, 80_000} {
		b.Run(fmt.Sprint(lines), func(b *testing.B) {
			p := writeLines(b, b.TempDir(), "big.ndjson", lines)
			for b.Loop() {
				s, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "j.duckdb"))
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
				var peak uint64
				stop := make(chan struct{})
				sampled := make(chan struct{})
				go func() {
					defer close(sampled)
					for {
						metrics.Read(sample)
						peak = max(peak, sample[0].Value.Uint64())
						select {
						case <-stop:
							return
						case <-time.After(2 * time.Millisecond):
						}
					}
				}()
				start := time.Now()
				if _, err := ImportJournals(context.Background(), s, p, start); err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				close(stop)
				<-sampled
				s.Close()
				b.ReportMetric(float64(peak)/(1<<20), "peak_heap_MiB")
				b.ReportMetric(float64(lines)/elapsed.Seconds(), "lines/s")
			}
		})
	}
}

// TestPooledReadersKeepFilesApart: journal files are read through buffers
// kept from one file to the next. A file that ends in a truncated line with
// no newline, holds a line longer than the buffer with a card number across
// the buffer's edge, and a line over the length limit, leaves nothing in
// the files read after it, and no card number in anything stored.
func TestPooledReadersKeepFilesApart(t *testing.T) {
	dir := t.TempDir()
	const pan = "4111111111111111"
	head := `{"merchantId":"m1","path":"/pts/v2/payments","status":201,"request":{"pad":"`
	// The card number starts 6 bytes before the buffer's 1 MiB edge.
	across := head + strings.Repeat("x", 1<<20-6-len(head)-len(`","card":"`)) + `","card":"` + pan + `"}}`
	if i := strings.Index(across, pan); i != 1<<20-6 {
		t.Fatalf("the card number starts at %d", i)
	}
	overLong := `{"merchantId":"m1","card":"` + pan + `","pad":"` + strings.Repeat("y", maxJournalLine) + `"}`
	hostile := writeLines(t, dir, "a-hostile.ndjson", 2)
	f, err := os.OpenFile(hostile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(across + "\n" + overLong + "\n" + `{"merchantId":"m1","card":"` + pan) // no newline at the end
	f.Close()
	for i := range 4 { // of different lengths: a file whose bytes were imported before is skipped
		writeLines(t, dir, fmt.Sprintf("b-%d.ndjson", i), 5+i)
	}
	s := storetest.Open(t)
	imports, err := importWithin(t, context.Background(), s, filepath.Join(dir, "*.ndjson"), defaultJournalLimits)
	if err != nil || len(imports) != 5 {
		t.Fatalf("imports %+v, %v", imports, err)
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM journal WHERE file LIKE '%a-hostile.ndjson%'`:         3,
		`SELECT count(*) FROM journal_rejects WHERE file LIKE '%a-hostile.ndjson%'`: 2,
		`SELECT count(*) FROM journal_rejects`:                                      2,
		// Each later file holds its own lines (5, 6, 7, 8), numbered from 1.
		`SELECT count(*) FROM journal WHERE file LIKE '%b-%'`:                                                       26,
		`SELECT count(*) FROM journal WHERE file LIKE '%b-%' AND line > 5 + regexp_extract(file, 'b-(\d)', 1)::INT`: 0,
		`SELECT count(*) FROM journal j WHERE file LIKE '%b-%' AND j::VARCHAR LIKE '%xxxx%'`:                        0,
		`SELECT count(*) FROM journal j WHERE j::VARCHAR LIKE '%` + pan + `%'`:                                      0,
		`SELECT count(*) FROM journal_rejects r WHERE r::VARCHAR LIKE '%` + pan + `%'`:                              0,
	} {
		if n := journalRows(t, s, q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
}

// TestMaskedJournalPaths: journals in a folder named after a card are
// stored under their paths masked; two whose names mask alike (cards of one
// BIN and last four) keep their own lines, the second's name numbered; and
// a file imported again as it grows replaces its earlier lines, as a file
// of a plain name does, rather than adding them a second time.
func TestMaskedJournalPaths(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "4111111111111111")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	var twins []string
	for m := 0; len(twins) < 2; m++ {
		if p := fmt.Sprintf("411111%06d4321", m); cardmasktest.Luhn(p) {
			twins = append(twins, p)
		}
	}
	first := writeLines(t, folder, "card-"+twins[0]+".ndjson", 3)
	second := writeLines(t, folder, "card-"+twins[1]+".ndjson", 4)
	s := storetest.Open(t)
	glob := filepath.Join(folder, "*.ndjson")
	// Each file's name and rows, in the order of the names.
	names := func() string {
		var got string
		if err := s.Conn().QueryRowContext(context.Background(), `SELECT string_agg(file || '=' || n, '; ' ORDER BY file)
			FROM (SELECT file, count(*) AS n FROM journal GROUP BY file)`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if _, err := importWithin(t, context.Background(), s, glob, defaultJournalLimits); err != nil {
		t.Fatal(err)
	}
	if got, want := names(), cardmask.MaskText(first)+"=3; "+cardmask.MaskText(second)+" (2)=4"; got != want {
		t.Fatalf("journal rows by file %q, want %q", got, want)
	}
	writeLines(t, folder, "card-"+twins[0]+".ndjson", 5) // the first file grows by two lines
	if _, err := importWithin(t, context.Background(), s, glob, defaultJournalLimits); err != nil {
		t.Fatal(err)
	}
	if got, want := names(), cardmask.MaskText(first)+"=5; "+cardmask.MaskText(second)+" (2)=4"; got != want {
		t.Errorf("after the first file grew, journal rows by file %q, want %q", got, want)
	}
}

// TestJournalNamesNeverCollide: a path already written the way masking
// writes a card number (a file named so on purpose, or by an earlier
// masking) is numbered like any other name two paths share, so that it
// cannot take over the lines of the file whose path masks to it.
func TestJournalNamesNeverCollide(t *testing.T) {
	paths := []string{"/j/4111111111111111.ndjson", "/j/411111XXXXXX1111.ndjson", "/j/plain.ndjson"}
	names := journalNames(paths)
	want := map[string]string{
		"/j/4111111111111111.ndjson": "/j/411111XXXXXX1111.ndjson",
		"/j/411111XXXXXX1111.ndjson": "/j/411111XXXXXX1111.ndjson (2)",
		"/j/plain.ndjson":            "/j/plain.ndjson",
	}
	if !maps.Equal(names, want) {
		t.Errorf("journalNames(%q) = %q, want %q", paths, names, want)
	}
}
