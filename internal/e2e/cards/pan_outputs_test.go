package cards

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// plantedCard is card data a careless merchant's journal carries, as it
// is written in a journal line.
type plantedCard struct {
	pan  string // the card number, digits only
	line string // the journal line carrying it
}

// testCardNumber is a Luhn-valid card number: prefix, then the digits of
// n, then zeros, then the check digit, length digits in all.
func testCardNumber(prefix string, n, length int) string {
	b := []byte(prefix + strconv.Itoa(n))
	for len(b) < length-1 {
		b = append(b, '0')
	}
	for d := byte('0'); d <= '9'; d++ {
		if clitest.LuhnValid(append(b, d)) {
			return string(append(b, d))
		}
	}
	panic("no check digit")
}

// Planted security codes and track data, distinctive enough to be looked
// for: the codes next to their field names, the track's cardholder name
// and discretionary data anywhere.
var (
	plantedCodes = map[string]string{"securityCode": "7391", "cvv": "8462", "CVC2": "5173", "cid": "2948", "cardVerificationValue": "6035", "cvv2": "4817"}
	plantedTrack = []string{"QUIXOTE", "ZEBULON", "8675309"}
)

// plantedCards writes one journal line per disguise of a card number and
// per place in a line, each with its own card number.
func plantedCards(mid string) []plantedCard {
	head := `{"time":"2026-11-20T15:00:00Z","merchantId":"` + mid + `","method":"POST",`
	resp := `,"status":201,"response":{"id":"17950000000000990%05d","status":"AUTHORIZED"}}`
	var out []plantedCard
	add := func(pan, line string) {
		out = append(out, plantedCard{pan: pan, line: line})
	}
	group := func(pan, sep string) string {
		var parts []string
		for i := 0; i < len(pan); i += 4 {
			parts = append(parts, pan[i:min(i+4, len(pan))])
		}
		return strings.Join(parts, sep)
	}
	n := 0
	next := func(prefix string, length int) string { n++; return testCardNumber(prefix, 700+n, length) }
	call := func(path, request string) string {
		return head + `"path":"` + path + `","request":` + request + fmt.Sprintf(resp, n)
	}

	p := next("4", 16)
	add(p, call("/pts/v2/payments/"+p+"/captures", `{}`))
	p = next("51", 16)
	add(p, call("/pts/v2/payments/"+group(p, "%20")+"/refunds", `{}`))
	p = next("37", 15)
	add(p, call("/pts/v2/payments?card="+group(p, "+")+"&x=1", `{}`))
	for _, sep := range []string{"  ", ".", "/", "_", "-", " - ", `\t`, `\/`, "%2D", "+"} {
		p = next("4", 16)
		add(p, call("/pts/v2/payments", `{"paymentInformation":{"card":{"number":"`+group(p, sep)+`"}}}`))
	}
	p = next("6011", 16)
	var esc strings.Builder
	for _, c := range p {
		fmt.Fprintf(&esc, `\u%04x`, c)
	}
	add(p, call("/pts/v2/payments", `{"paymentInformation":{"card":{"number":"`+esc.String()+`"}}}`))
	p = next("35", 16)
	var enc strings.Builder
	for _, c := range p {
		fmt.Fprintf(&enc, "%%%02X", c)
	}
	add(p, call("/pts/v2/payments?pan="+enc.String(), `{}`))
	p = next("4", 16)
	add(p, call("/pts/v2/payments", `{"paymentInformation":{"card":{"number":"`+p+`1229"}}}`)) // glued to the expiry
	p = next("55", 16)
	add(p, call("/pts/v2/payments", `{"paymentInformation":{"card":{"number":"`+p+`1229737"}}}`)) // and the code
	p = next("62", 19)
	add(p, call("/pts/v2/payments", `{"body":"{\"card\":\"`+group(p, " ")+`\"}"}`)) // JSON inside a JSON string
	p = next("36", 14)
	add(p, call("/pts/v2/payments", `{"`+p+`":"key"}`))
	p = next("4", 13)
	add(p, call("/pts/v2/payments", `{"n":`+p+`}`)) // a JSON number
	p = next("2221", 16)
	add(p, head+`"path":"/pts/v2/payments","request":{},"status":201,"response":{"id":"17950000000000990099","card":{"suffix":"`+group(p, " ")+`"}}}`)
	p = next("4", 16)
	add(p, call("/pts/v2/payments", `{"note":"%B`+p+`^QUIXOTE/ZEBULON^25121018675309000000?"}`)) // track 1
	p = next("4", 16)
	add(p, call("/pts/v2/payments", `{"emv":";`+p+`=25121018675309?"}`)) // track 2
	p = next("4", 16)
	add(p, call("/pts/v2/payments", `{"pointOfSaleInformation":{"trackData":";`+p+`=25121018675309?"},"paymentInformation":{"card":{"track":"%B`+p+`^QUIXOTE/ZEBULON^2512101?"}}}`))
	p = next("4", 16)
	add(p, call("/pts/v2/payments?cvv=8462", `{"paymentInformation":{"card":{"number":"`+p+`","securityCode":"7391","CVC2":5173,"cid":"2948"}},"x":"{\"cardVerificationValue\":\"6035\"}","y":"cvv2%3D4817"}`))
	p = next("4", 16)
	// as the order number, which the import keeps as journal.client_reference
	add(p, call("/pts/v2/payments", `{"clientReferenceInformation":{"code":"`+group(p, "-")+`"}}`))
	p = next("5", 16)
	add(p, head+`"path":"/pts/v2/payments","request":{},"status":201,"response":{"id":"17950000000000990098","clientReferenceInformation":{"code":"`+p+`"}}}`)
	p = next("4", 16)
	add(p, head+`"path":"/pts/v2/payments","request":{"paymentInformation":{"card":{"number":"`+group(p, "-")+`","securityCode":"7391"`) // truncated: rejected
	p = next("4", 16)
	add(p, `{"merchantId":"","path":"/pts/v2/payments/`+p+`","status":201}`) // no merchant: rejected
	return out
}

// TestNoCardDataInAnyOutput runs the CLI on the sandbox with an extra
// journal that carries card numbers in every disguise, security codes and
// track data, and reads back every output: none of it survives anywhere.
func TestNoCardDataInAnyOutput(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	planted := plantedCards(f.Srv.Members()[0])
	var lines []string
	for _, c := range planted {
		lines = append(lines, c.line)
	}
	if err := os.WriteFile(filepath.Join(f.Journals, "journal-planted.ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	metricsFile := filepath.Join(work, "reconcile.prom")
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--metrics-file", metricsFile, "--log-level", "debug")...)
	if code != cli.ExitOK {
		t.Fatalf("run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	day := filepath.Join(out, "2026-11-20")
	// reconcile sql first: DuckDB refuses to open a file twice in one
	// process with different settings, and the test's own read-only
	// connection below stays open.
	csvOut := map[string]string{}
	for _, table := range []string{"journal", "journal_rejects", "findings"} {
		code, out, errOut := clitest.RunCLI(t, nil, "sql", "--db", db, "--format", "csv", "SELECT * FROM "+table)
		if code != cli.ExitOK || out == "" {
			t.Fatalf("sql of %s exited %d: %s", table, code, errOut)
		}
		csvOut[table] = out
	}
	csv := func(table string) func(t *testing.T) string {
		return func(*testing.T) string { return csvOut[table] }
	}
	conn := clitest.OpenReadOnly(t, db)

	// The planted lines were read: loaded or rejected, the codes replaced.
	var loaded, rejected int
	if err := conn.QueryRow(`SELECT (SELECT count(*) FROM journal WHERE file LIKE '%planted%'),
		(SELECT count(*) FROM journal_rejects WHERE file LIKE '%planted%')`).Scan(&loaded, &rejected); err != nil {
		t.Fatal(err)
	}
	if loaded+rejected != len(planted) || rejected != 2 {
		t.Fatalf("planted journal: %d lines loaded and %d rejected, want %d and 2", loaded, rejected, len(planted)-2)
	}
	var kept string
	if err := conn.QueryRow(`SELECT json_extract_string(request, '$.paymentInformation.card.securityCode') AS code
		FROM journal WHERE file LIKE '%planted%' AND code IS NOT NULL`).Scan(&kept); err != nil || kept != "REMOVED" {
		t.Errorf("a planted security code is stored as %q (%v), want REMOVED", kept, err)
	}

	outputs := append(runOutputs(t, conn, day, metricsFile, stdout, stderr),
		output{"csv journal", csv("journal")}, output{"csv journal_rejects", csv("journal_rejects")},
		output{"csv findings", csv("findings")})
	codes := map[string]*regexp.Regexp{}
	for name, code := range plantedCodes {
		codes[name] = regexp.MustCompile(`(?i)` + name + `\W{0,12}` + code)
	}
	readOutputs(t, outputs, func(t *testing.T, text string, forms []string) {
		for _, c := range planted {
			for _, form := range forms {
				if strings.Contains(form, c.pan) {
					t.Errorf("card %s… of line %.120q survives", c.pan[:6], c.line)
					break
				}
			}
		}
		for name, re := range codes {
			if m := re.FindString(forms[0]); m != "" {
				t.Errorf("the planted %s survives: %q", name, m)
			}
		}
		for _, s := range plantedTrack {
			if strings.Contains(text, s) {
				t.Errorf("track data %q survives", s)
			}
		}
	})
}

// readOutputs reads each output in a subtest of its own and hands check
// its text and normalForms: an output of under 100 bytes fails, for the
// check would prove nothing.
func readOutputs(t *testing.T, outputs []output, check func(t *testing.T, text string, forms []string)) {
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			text := o.text(t)
			if len(text) < 100 {
				t.Fatalf("only %d bytes read: the check would prove nothing", len(text))
			}
			check(t, text, normalForms(text))
		})
	}
}

// output is one output of a run, read as text.
type output struct {
	name string
	text func(t *testing.T) string
}

// runOutputs is every file output of a run (its working database through
// conn, the day's snapshot, Parquet files, workbook and manifest, the
// metrics file) and what it printed.
func runOutputs(t *testing.T, conn *sql.DB, day, metricsFile, stdout, stderr string) []output {
	file := func(path string) func(t *testing.T) string {
		return func(t *testing.T) string {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
	return []output{
		{"working database", func(t *testing.T) string { return allText(t, conn) }},
		{"snapshot", func(t *testing.T) string {
			return allText(t, clitest.OpenReadOnly(t, filepath.Join(day, "reconcile-2026-11-20.duckdb")))
		}},
		{"parquet", func(t *testing.T) string {
			var b strings.Builder
			for _, text := range clitest.ParquetTexts(t, conn, filepath.Join(day, "parquet")) {
				b.WriteString(text)
			}
			return b.String()
		}},
		{"workbook", func(t *testing.T) string { return workbookText(t, filepath.Join(day, "reconcile-2026-11-20.xlsx")) }},
		{"stdout and logs", func(*testing.T) string { return stdout + "\n" + stderr }},
		{"metrics file", file(metricsFile)},
		{"manifest", file(filepath.Join(day, "manifest.json"))},
	}
}

// normalForms are the readings of text a consumer could make, each with
// every separator a card number may be written with taken out: as
// written, then undoing %XX and JSON escapes (\uXXXX, \/, \t, \\, \")
// once, twice and three times.
func normalForms(text string) []string {
	escape := regexp.MustCompile(`%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[/t\\"]`)
	decode := func(s string) string {
		return escape.ReplaceAllStringFunc(s, func(m string) string {
			switch {
			case m[0] == '%':
				b, _ := strconv.ParseUint(m[1:], 16, 8)
				return string([]byte{byte(b)})
			case m[1] == 'u':
				r, _ := strconv.ParseUint(m[2:], 16, 32)
				return string(rune(r))
			case m[1] == 't':
				return "\t"
			}
			return m[1:]
		})
	}
	strip := strings.NewReplacer(" ", "", "\t", "", "-", "", "+", "", ".", "", "/", "", "_", "")
	var out []string
	for range 4 {
		out = append(out, strip.Replace(text), strip.Replace(asciiReading(text)))
		text = decode(text)
	}
	return out
}

// asciiReading is text as a person reads its numbers: every decimal digit
// of any script as its ASCII digit (by Unicode's table of Nd ranges, each
// of which runs from a zero: written apart from cardmask's reading), and
// every space, line break, dash and format character taken out.
func asciiReading(text string) string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r < 0x80 && r != '\n' && r != '\r':
			b.WriteRune(r)
		case unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp, unicode.Pd, unicode.Cf) || r == '\n' || r == '\r' || r == '\u2212':
		case unicode.Is(unicode.Nd, r):
			b.WriteRune('0' + ndValue(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func ndValue(r rune) rune {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return (r - rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return (r - rune(rg.Lo)) % 10
		}
	}
	return 0
}

// allText is every value of every text column of every table and view.
func allText(t *testing.T, db *sql.DB) string {
	var b strings.Builder
	for _, c := range clitest.TextColumns(t, db) {
		b.WriteString(c.Text + "\n")
	}
	return b.String()
}

// workbookText is every cell of every sheet of the workbook.
func workbookText(t *testing.T, path string) string {
	t.Helper()
	wb, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	var b strings.Builder
	for _, sheet := range wb.GetSheetList() {
		rows, err := wb.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			b.WriteString(strings.Join(r, "\n") + "\n")
		}
	}
	return b.String()
}

// TestNoCardNumberInOperatorPaths names the run's own files after cards:
// the journals' folder and files (a merchant's per-card debug log, say),
// a journal that cannot be read, the interchange-rate, retry-limit and
// acknowledgement files. Their paths are stored (the journal tables'
// file column, the tables' source), reported (the run's error, the
// manifest's settings) and logged, and no card number survives in any
// output; the masked names are there, so the files were read.
func TestNoCardNumberInOperatorPaths(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	pan := func(n int) string { return testCardNumber("411111", 900+n, 16) }
	group := func(p, sep string) string { return p[0:4] + sep + p[4:8] + sep + p[8:12] + sep + p[12:16] }
	folder := filepath.Join(t.TempDir(), pan(1))
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two cards of one BIN and last four: their names mask alike.
	var twins []string
	for m := 0; len(twins) < 2; m++ {
		if p := fmt.Sprintf("411111%06d4321", m); clitest.LuhnValid([]byte(p)) {
			twins = append(twins, p)
		}
	}
	names := []string{ // the disguises a file name may take
		group(pan(2), "-") + ".ndjson",
		"card%20" + group(pan(3), "%20") + ".ndjson",
		"x" + pan(4) + "_debug.ndjson",
		"journal " + group(pan(5), " ") + ".ndjson",
		"card-" + twins[0] + ".ndjson",
		"card-" + twins[1] + ".ndjson",
	}
	journals, err := filepath.Glob(filepath.Join(f.Journals, "*.ndjson"))
	if err != nil || len(journals) < len(names) {
		t.Fatalf("the sandbox wrote %d journals (%v), want at least %d", len(journals), err, len(names))
	}
	var copied []string
	for i, src := range journals {
		name := filepath.Base(src)
		if i < len(names) {
			name = names[i]
		}
		copied = append(copied, filepath.Join(folder, name))
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(copied[i], b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A named pipe is refused, and the refusal names it.
	pipe := filepath.Join(folder, "pipe-"+pan(6)+".ndjson")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	acked := f.Truth.Findings["subscription_delinquent"]
	if len(acked) == 0 {
		t.Fatal("the sandbox planted no subscription_delinquent finding to acknowledge")
	}
	named := func(name, text string) string {
		dir := filepath.Join(t.TempDir(), pan(7))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rates := named("rates-"+pan(8)+".csv", "network,level2,level3\nVISA,0.004,0.01\n*,0,0\n")
	limits := named("limits-"+group(pan(9), ".")+".csv", "network,reattempts,window\nVISA,15,30d\n*,5,7d\n")
	acks := named("acks "+pan(10)+".yaml", clitest.DelinquencyAcknowledged(acked[0].MerchantID, acked[0].EntityID))

	// The working folder too: the run prints where its outputs are.
	work := filepath.Join(t.TempDir(), pan(11))
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	db, out := filepath.Join(work, "r.duckdb"), filepath.Join(work, "out")
	metricsFile := filepath.Join(work, "reconcile.prom")
	// A run before, without journals: the database's one-time masking of
	// older rows (ingest.MaskOlderRecords) is then behind it, and what the
	// run below stores is as it wrote it.
	if code, so, se := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, filepath.Join(work, "out0"), "--journal", filepath.Join(work, "none", "*.ndjson"))...); code != cli.ExitOK {
		t.Fatalf("the run before exited %d\n%s\n%s", code, so, se)
	}
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(db, out, "--force", "--journal", filepath.Join(folder, "*.ndjson"),
		"--interchange-rates", rates, "--retry-limits", limits, "--acknowledgements", acks,
		"--metrics-file", metricsFile, "--log-level", "debug")...)
	if code != cli.ExitPartial || !strings.Contains(stdout+stderr, "named pipe") {
		t.Fatalf("run exited %d, want %d for the refused pipe\nstdout:\n%s\nstderr:\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	// What each path is stored and shown as: masked as a whole (its
	// folders' digits may join a card number's, t.TempDir's included).
	day := filepath.Join(out, "2026-11-20")
	if want := "workbook: " + cardmask.MaskText(day); !strings.Contains(stdout, want) {
		t.Errorf("stdout does not say %q…:\n%s", want, stdout)
	}
	conn := clitest.OpenReadOnly(t, db)
	stored := map[string]bool{}
	for _, r := range clitest.QueryDB(t, db, `SELECT DISTINCT file FROM journal`) {
		stored[strings.TrimSuffix(r[0], " (2)")] = true // the second twin
	}
	for _, p := range copied {
		if !stored[cardmask.MaskText(p)] {
			t.Errorf("no journal rows of %s as %s", filepath.Base(p), cardmask.MaskText(p))
		}
	}
	// The twins' rows are all there, each file's under its own name.
	var twinNames, twinLoaded, twinRows int
	if err := conn.QueryRow(`SELECT count(DISTINCT file), sum(loaded),
		(SELECT count(*) FROM journal WHERE file LIKE '%/card-411111XXXXXX4321.ndjson%')
		FROM journal_files WHERE file LIKE '%/card-411111XXXXXX4321.ndjson%'`).Scan(&twinNames, &twinLoaded, &twinRows); err != nil {
		t.Fatal(err)
	}
	if twinNames != 2 || twinLoaded == 0 || twinRows != twinLoaded {
		t.Errorf("the files whose names mask alike: %d names, %d lines loaded, %d journal rows; want 2 names and every line",
			twinNames, twinLoaded, twinRows)
	}
	var ratesSource, limitsSource, ackSource, runError string
	if err := conn.QueryRow(`SELECT (SELECT any_value(source) FROM interchange_rates), (SELECT any_value(source) FROM retry_limits),
		(SELECT any_value(source) FROM acknowledgement_audit WHERE source LIKE 'file%'), (SELECT error FROM runs)`).Scan(
		&ratesSource, &limitsSource, &ackSource, &runError); err != nil {
		t.Fatal(err)
	}
	for what, c := range map[string]struct{ got, want string }{
		"interchange_rates.source":     {ratesSource, cardmask.MaskText(rates)},
		"retry_limits.source":          {limitsSource, cardmask.MaskText(limits)},
		"acknowledgement_audit.source": {ackSource, "file " + cardmask.MaskText(acks)},
		"runs.error":                   {runError, "journal " + cardmask.MaskText(pipe) + ": a named pipe"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want the masked path %q in it", what, c.got, c.want)
		}
	}

	readOutputs(t, runOutputs(t, conn, day, metricsFile, stdout, stderr), func(t *testing.T, _ string, forms []string) {
		for _, form := range forms {
			for _, p := range append([]string{pan(1), pan(2), pan(3), pan(4), pan(5), pan(6), pan(7), pan(8), pan(9), pan(10), pan(11)}, twins...) {
				if strings.Contains(form, p) {
					t.Errorf("card number %s… of a path survives", p[:6])
				}
			}
		}
	})
}
