package queries

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/subscriptions"
)

var update = flag.Bool("update", false, "rewrite queries/testdata/<kind>/want.csv from what the checks return (read the diff before committing it)")

// TestCheckFixtures runs every check on its own example: per finding kind,
// testdata/<kind>/fixture.sql is loaded into a database with the product's
// schema (Schema()), the check's SQL from Checks() runs as package checks
// runs it (as the subquery of the findings INSERT), and what it returns is compared
// cell by cell with testdata/<kind>/want.csv. `go test ./queries -run
// TestCheckFixtures -update` rewrites want.csv from the result, so a change
// to a check shows its effect in the diff of want.csv.
//
// Fixtures are SQL rather than CSV files per table because every row needs
// a comment saying what it is for (the finding, or the near-miss it must
// not become), which CSV cannot carry, and because a fixture then is a
// script an analyst can paste into `reconcile sql` after the schema,
// window included. Rows are INSERTs naming their columns, so nullable
// columns added to the schema later leave the fixtures valid; the NOT NULL
// bookkeeping columns no check reads (run_id, loaded_at, ...) get a
// default here (bookkeepingDefaults) so that fixtures need not repeat them.
//
// Each fixture sets the window itself (SET VARIABLE window_start and
// window_end, as store.SetWindow does) and, where it writes the billing
// projection (subscription_schedules, expected_cycles), writes it by hand,
// so the reader sees every due date the check relies on; checkProjection
// then recomputes those rows with the subscriptions package's rules (the
// ones ingest projects with), so a hand-written month end or leap day
// cannot be wrong.
//
// want.csv holds one row per finding, sorted by merchant_id and entity_id:
// the four columns of the finding, then one column per key of its detail
// JSON (detail.<key>, in the order the check writes them), so that a change
// to one detail value is a change to one cell. See cell for how values are
// written.
func TestCheckFixtures(t *testing.T) {
	template := schemaTemplate(t)
	for _, c := range Checks() {
		t.Run(c.Kind, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("testdata", c.Kind)
			fixture, err := os.ReadFile(filepath.Join(dir, "fixture.sql"))
			if err != nil {
				t.Fatalf("%v: every kind needs a fixture (see testdata/README.md)", err)
			}
			db := openCopy(t, template)
			if _, err := db.Exec(string(fixture)); err != nil {
				t.Fatalf("load %s/fixture.sql: %v", dir, err)
			}
			checkWindow(t, db)
			checkProjection(t, db)
			got := runCheck(t, db, c)
			wantPath := filepath.Join(dir, "want.csv")
			if *update {
				if err := os.WriteFile(wantPath, got.csv(t), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := readFindings(t, wantPath)
			for _, d := range want.diff(got) {
				t.Error(d)
			}
		})
	}
}

// A new kind without a fixture fails here, and so does a fixture left
// behind by a kind that no longer exists; CONTRIBUTING.md says how to add one.
func TestEveryKindHasAFixture(t *testing.T) {
	kinds := Kinds()
	for _, k := range kinds {
		for _, f := range []string{"fixture.sql", "want.csv"} {
			if _, err := os.Stat(filepath.Join("testdata", k, f)); err != nil {
				t.Errorf("kind %s: %v: add testdata/%s/ as testdata/README.md says", k, err, k)
			}
		}
	}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(kinds, e.Name()) {
			t.Errorf("testdata/%s: no check findings/%s.sql: remove the fixture or restore the kind", e.Name(), e.Name())
		}
	}
	readme, err := os.ReadFile(filepath.Join("testdata", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("go test ./queries -run TestCheckFixtures -update")) {
		t.Error("testdata/README.md no longer says how to rewrite want.csv")
	}
}

// schemaTemplate writes a database file with the schema and the
// bookkeeping defaults, for openCopy: applying the schema is most of the
// cost of a kind's test.
func schemaTemplate(t testing.TB) string {
	t.Helper()
	db := openSchema(t)
	bookkeepingDefaults(t, db)
	var path string
	if err := db.QueryRow(`SELECT path FROM duckdb_databases() WHERE database_name = current_database()`).Scan(&path); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // (checkpoints: the file then holds everything)
		t.Fatal(err)
	}
	return path
}

// openCopy opens a copy of the template, for one kind's fixture alone.
func openCopy(t testing.TB, template string) *sql.DB {
	t.Helper()
	b, err := os.ReadFile(template)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "check.duckdb")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // the window variables live in the connection
	// Schema() sets the time zone of the connection it runs on; this one
	// opens without it, and the details' timestamps are written in it.
	if _, err := db.Exec(`SET TimeZone = 'UTC'`); err != nil {
		t.Fatal(err)
	}
	return db
}

// bookkeepingDefaults gives the NOT NULL columns that record where a row
// came from, and that no check reads, a default, so that fixtures can leave
// them out.
func bookkeepingDefaults(t testing.TB, db *sql.DB) {
	t.Helper()
	defaults := map[string]string{
		"run_id":       `'fixture'`,
		"loaded_at":    `TIMESTAMPTZ '2000-01-01 00:00:00+00'`,
		"imported_at":  `TIMESTAMPTZ '2000-01-01 00:00:00+00'`,
		"looked_up_at": `TIMESTAMPTZ '2000-01-01 00:00:00+00'`,
		"file_sha256":  `'fixture'`,
	}
	rows, err := db.Query(`SELECT table_name, column_name FROM duckdb_columns()
		WHERE database_name = current_database() AND NOT internal AND NOT is_nullable AND column_default IS NULL
		  AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database())`)
	if err != nil {
		t.Fatal(err)
	}
	var alter []string
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		if d, ok := defaults[column]; ok {
			alter = append(alter, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET DEFAULT %s;", table, column, d))
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(strings.Join(alter, "\n")); err != nil {
		t.Fatalf("bookkeeping defaults: %v", err)
	}
}

// checkWindow fails a fixture that does not set the window the checks read.
func checkWindow(t *testing.T, db *sql.DB) {
	t.Helper()
	var ok sql.NullBool
	err := db.QueryRow(`SELECT CAST(getvariable('window_start') AS TIMESTAMPTZ) < CAST(getvariable('window_end') AS TIMESTAMPTZ)`).Scan(&ok)
	if err != nil || !ok.Valid || !ok.Bool {
		t.Fatalf("the fixture must SET VARIABLE window_start and window_end (TIMESTAMPTZ, start before end): %v", err)
	}
}

// checkProjection recomputes the fixture's billing projection with the
// subscriptions package's rules and fails on any row the projection would
// not have written: each subscription_schedules row must carry its
// subscription's terms (a term it lacks taken from its plan), the cut-off
// at the window's end, the cycles due by it and the retry policy of its
// unit; expected_cycles must hold exactly its due cycles, with the billing
// amount, and the setup fee on cycle 1. A fixture that writes a schedule
// writes one for every subscription, as ingest does.
func checkProjection(t *testing.T, db *sql.DB) {
	t.Helper()
	var schedules int
	if err := db.QueryRow(`SELECT count(*) FROM subscription_schedules`).Scan(&schedules); err != nil {
		t.Fatal(err)
	}
	var cycles int
	if err := db.QueryRow(`SELECT count(*) FROM expected_cycles`).Scan(&cycles); err != nil {
		t.Fatal(err)
	}
	if schedules == 0 {
		if cycles > 0 {
			t.Fatal("expected_cycles without subscription_schedules: write the schedule of every subscription")
		}
		return
	}
	// The terms, as ingest's addSubscription takes them.
	mismatches := queryStrings(t, db, `
		SELECT coalesce(s.merchant_id, sc.merchant_id) || ' ' || coalesce(s.subscription_id, sc.subscription_id) || ': ' ||
		       CASE WHEN sc.subscription_id IS NULL THEN 'no subscription_schedules row'
		            WHEN s.subscription_id IS NULL THEN 'a schedule without its subscription'
		            ELSE 'schedule terms differ from the subscription''s (else its plan''s)' END
		FROM subscriptions s
		LEFT JOIN plans p ON p.merchant_id = s.merchant_id AND p.plan_id = s.plan_id
		FULL JOIN subscription_schedules sc ON sc.merchant_id = s.merchant_id AND sc.subscription_id = s.subscription_id
		WHERE sc.subscription_id IS NULL OR s.subscription_id IS NULL
		   OR sc.period_unit IS DISTINCT FROM upper(coalesce(s.billing_period_unit, p.billing_period_unit))
		   OR sc.period_length IS DISTINCT FROM coalesce(s.billing_period_length, p.billing_period_length)
		   OR sc.cycles_total IS DISTINCT FROM nullif(coalesce(s.cycles_total, p.cycles_total), 0)
		   OR sc.start_date IS DISTINCT FROM s.start_date
		   OR sc.currency IS DISTINCT FROM coalesce(s.currency, p.currency)
		   OR sc.cut_off IS DISTINCT FROM CAST(getvariable('window_end') AS TIMESTAMPTZ)
		UNION ALL
		SELECT e.merchant_id || ' ' || e.subscription_id || ' cycle ' || e.cycle ||
		       ': expected_cycles amounts differ from the subscription''s (else its plan''s; setup fee on cycle 1 only)'
		FROM expected_cycles e
		LEFT JOIN subscriptions s ON s.merchant_id = e.merchant_id AND s.subscription_id = e.subscription_id
		LEFT JOIN plans p ON p.merchant_id = s.merchant_id AND p.plan_id = s.plan_id
		WHERE e.billing_amount IS DISTINCT FROM coalesce(s.billing_amount, p.billing_amount)
		   OR e.setup_fee IS DISTINCT FROM CASE WHEN e.cycle = 1 THEN coalesce(s.setup_fee, p.setup_fee) END
		   OR e.currency IS DISTINCT FROM coalesce(s.currency, p.currency)
		ORDER BY 1`)
	for _, m := range mismatches {
		t.Error(m)
	}
	// The dates and the retry policy, by the subscriptions package.
	rows, err := db.Query(`
		SELECT sc.merchant_id, sc.subscription_id, coalesce(sc.period_unit, ''), sc.period_length, coalesce(sc.cycles_total, 0),
		       sc.start_date, sc.cut_off, sc.cycles_due, sc.last_due_date, sc.next_due_date, sc.projection_cut,
		       sc.retry_limit, epoch(sc.retry_interval), epoch(sc.retry_tolerance), sc.within_12_months,
		       coalesce(sc.problem, ''),
		       (SELECT list(e.cycle ORDER BY e.cycle) FROM expected_cycles e
		        WHERE e.merchant_id = sc.merchant_id AND e.subscription_id = sc.subscription_id),
		       (SELECT list(e.due_date ORDER BY e.cycle) FROM expected_cycles e
		        WHERE e.merchant_id = sc.merchant_id AND e.subscription_id = sc.subscription_id)
		FROM subscription_schedules sc ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s projected
		if err := rows.Scan(&s.merchantID, &s.subscriptionID, &s.unit, &s.length, &s.total, &s.start, &s.cutoff,
			&s.cyclesDue, &s.lastDue, &s.nextDue, &s.cut, &s.retryLimit, &s.retryInterval, &s.retryTolerance,
			&s.within12, &s.problem, &s.cycles, &s.dues); err != nil {
			t.Fatal(err)
		}
		for _, m := range s.mismatches() {
			t.Errorf("%s %s: %s", s.merchantID, s.subscriptionID, m)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// projected is a fixture's subscription_schedules row with its
// expected_cycles.
type projected struct {
	merchantID, subscriptionID, unit, problem string
	length                                    sql.NullInt64
	total                                     int
	start, lastDue, nextDue                   sql.NullTime
	cutoff                                    time.Time
	cyclesDue                                 sql.NullInt64
	cut, within12                             sql.NullBool
	retryLimit                                int
	retryInterval, retryTolerance             float64
	cycles, dues                              any // lists, NULL without expected cycles
}

// mismatches lists how the row differs from what ingest would project.
func (s projected) mismatches() []string {
	var out []string
	if s.retryLimit != subscriptions.RetryLimit(s.unit) ||
		s.retryInterval != subscriptions.RetryInterval(s.unit).Seconds() ||
		s.retryTolerance != subscriptions.RetryTolerance(s.unit).Seconds() {
		out = append(out, fmt.Sprintf("retry policy %d, %gs, %gs; the unit %s has %d, %v, %v", s.retryLimit,
			s.retryInterval, s.retryTolerance, s.unit, subscriptions.RetryLimit(s.unit),
			subscriptions.RetryInterval(s.unit), subscriptions.RetryTolerance(s.unit)))
	}
	period, err := subscriptions.ParsePeriod(s.unit, fmt.Sprint(s.length.Int64))
	if err != nil || !s.start.Valid {
		if s.problem == "" {
			out = append(out, "no projection possible (unknown period or no start date): problem must say why")
		}
		if s.cycles != nil {
			out = append(out, "expected cycles for a schedule that has none")
		}
		return out
	}
	if s.problem != "" {
		out = append(out, "problem "+s.problem+" on a schedule that projects")
	}
	due, next, hasNext, cut := subscriptions.Schedule{Start: s.start.Time, Period: period, Total: s.total}.Due(s.cutoff)
	var wantCycles []int32
	var wantDues []time.Time
	for _, c := range due {
		wantCycles = append(wantCycles, int32(c.Number))
		wantDues = append(wantDues, c.Due.UTC())
	}
	gotCycles, gotDues := listOf[int32](s.cycles), listOf[time.Time](s.dues)
	for i := range gotDues {
		gotDues[i] = gotDues[i].UTC()
	}
	if !slices.Equal(gotCycles, wantCycles) || !slices.Equal(gotDues, wantDues) {
		out = append(out, fmt.Sprintf("expected_cycles %v due %v; the schedule has cycles %v due %v",
			gotCycles, fmtTimes(gotDues), wantCycles, fmtTimes(wantDues)))
	}
	wantLast, wantNext := sql.NullTime{}, sql.NullTime{}
	if len(due) > 0 {
		wantLast = sql.NullTime{Time: due[len(due)-1].Due, Valid: true}
	}
	if hasNext {
		wantNext = sql.NullTime{Time: next.Due, Valid: true}
	}
	if s.cyclesDue.Int64 != int64(len(due)) || !sameTime(s.lastDue, wantLast) || !sameTime(s.nextDue, wantNext) ||
		s.cut.Bool != cut {
		out = append(out, fmt.Sprintf("cycles_due %v, last %v, next %v, cut %v; the schedule has %d, %v, %v, %v",
			s.cyclesDue.Int64, fmtTime(s.lastDue), fmtTime(s.nextDue), s.cut.Bool, len(due), fmtTime(wantLast),
			fmtTime(wantNext), cut))
	}
	if !s.within12.Valid || s.within12.Bool != period.WithinTwelveMonths() {
		out = append(out, fmt.Sprintf("within_12_months %v; the period %s is %v", s.within12, period,
			period.WithinTwelveMonths()))
	}
	return out
}

func listOf[T any](v any) []T {
	l, _ := v.([]any)
	out := make([]T, 0, len(l))
	for _, e := range l {
		out = append(out, e.(T))
	}
	return out
}

func sameTime(a, b sql.NullTime) bool {
	return a.Valid == b.Valid && (!a.Valid || a.Time.Equal(b.Time))
}

func fmtTime(t sql.NullTime) string {
	if !t.Valid {
		return "NULL"
	}
	return t.Time.UTC().Format(time.RFC3339)
}

func fmtTimes(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Format(time.RFC3339)
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// findings are a check's results as want.csv holds them: a header and one
// row of cells per finding, sorted by merchant_id and entity_id.
type findings struct {
	header []string
	rows   [][]string
}

// runCheck runs the check's SQL as checks' insertFindings does, as the
// subquery f of a SELECT, reading amount and detail as the text DuckDB
// writes for them (DECIMAL keeps its scale, the detail its key order).
func runCheck(t *testing.T, db *sql.DB, c Check) findings {
	t.Helper()
	rows, err := db.Query(`SELECT f.merchant_id, f.entity_id, CAST(f.amount AS VARCHAR), f.currency, CAST(f.detail AS VARCHAR)
		FROM (` + c.SQL + "\n) f")
	if err != nil {
		t.Fatalf("check %s: %v", c.Kind, err)
	}
	defer rows.Close()
	var out findings
	seen := map[[2]string]bool{}
	for rows.Next() {
		var mid, entity string
		var amount, currency, detail sql.NullString
		if err := rows.Scan(&mid, &entity, &amount, &currency, &detail); err != nil {
			t.Fatal(err)
		}
		// checks keeps one row per member and entity, an arbitrary one.
		if key := [2]string{mid, entity}; seen[key] {
			t.Errorf("%s %s: reported twice; checks would keep one of the rows at random", mid, entity)
		} else {
			seen[key] = true
		}
		keys, values, err := detailColumns(detail.String)
		if err != nil {
			t.Fatalf("%s %s: detail %q: %v", mid, entity, detail.String, err)
		}
		header := append([]string{"merchant_id", "entity_id", "amount", "currency"}, keys...)
		if out.header == nil {
			out.header = header
		} else if !slices.Equal(out.header, header) {
			t.Fatalf("%s %s: detail keys %v differ from the other findings' %v", mid, entity, header, out.header)
		}
		row := []string{textCell(mid), textCell(entity), nullCell(amount, amount.String), nullCell(currency, textCell(currency.String))}
		out.rows = append(out.rows, append(row, values...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out.rows) == 0 {
		t.Fatal("the check found nothing: a fixture must show at least one finding")
	}
	slices.SortFunc(out.rows, func(a, b []string) int {
		return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1])
	})
	return out
}

// detailColumns splits a finding's detail JSON object into its keys
// (detail.<key>, in the order written) and their cells.
func detailColumns(detail string) (keys, values []string, err error) {
	dec := json.NewDecoder(strings.NewReader(detail))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object (%v)", err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, "detail."+tok.(string))
		values = append(values, cell(v))
	}
	return keys, values, nil
}

// cell writes a JSON value for want.csv: a string as its text, NULL for
// null, anything else (numbers with their scale, booleans, lists) as its
// compact JSON. A string that would read as NULL keeps its JSON quotes.
func cell(v json.RawMessage) string {
	if string(v) == "null" { // (before Unmarshal, which takes null into a string as "")
		return "NULL"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return textCell(s)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

func textCell(s string) string {
	if s == "NULL" {
		return `"NULL"`
	}
	return s
}

func nullCell(v sql.NullString, text string) string {
	if !v.Valid {
		return "NULL"
	}
	return text
}

func (f findings) csv(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(append([][]string{f.header}, f.rows...)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readFindings(t *testing.T, path string) findings {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	var f findings
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if f.header == nil {
			f.header = rec
		} else {
			f.rows = append(f.rows, rec)
		}
	}
	return f
}

// diff says how got differs from f (want.csv), finding by finding and
// cell by cell.
func (f findings) diff(got findings) []string {
	if !slices.Equal(f.header, got.header) {
		return []string{fmt.Sprintf("columns:\n want %v\n got  %v", f.header, got.header)}
	}
	byKey := func(rows [][]string) map[string][]string {
		m := map[string][]string{}
		for _, r := range rows {
			m[r[0]+" "+r[1]] = r
		}
		return m
	}
	want, have := byKey(f.rows), byKey(got.rows)
	var out []string
	for _, r := range f.rows {
		k := r[0] + " " + r[1]
		g, ok := have[k]
		if !ok {
			out = append(out, "missing finding "+k)
			continue
		}
		for i := range r {
			if !sameCell(r[i], g[i]) {
				out = append(out, fmt.Sprintf("%s: %s: want %s, got %s", k, f.header[i], r[i], g[i]))
			}
		}
	}
	for _, r := range got.rows {
		if k := r[0] + " " + r[1]; want[k] == nil {
			out = append(out, fmt.Sprintf("unexpected finding %s: %v", k, r))
		}
	}
	return out
}

// sameCell compares two cells, a number by its value: amounts are
// DECIMAL(18,3), so 120.00 in want.csv is the 120.000 a check gives.
func sameCell(want, got string) bool {
	if want == got {
		return true
	}
	w, ok1 := new(big.Rat).SetString(want)
	g, ok2 := new(big.Rat).SetString(got)
	return ok1 && ok2 && strings.ContainsAny(want+got, ".") && w.Cmp(g) == 0
}
