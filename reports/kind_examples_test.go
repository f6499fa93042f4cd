package reports

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/queries"
)

// addKindExamples gives the workbook fixture a finding of every kind it
// has none of: the first finding of the kind's own check fixture
// (queries/testdata/<kind>/want.csv), under fixtureRun, for member m1. So
// a new kind's sheet is in the workbook tests (and its row in
// docs/workbook.md is written) from the kind's own files, without a line
// here; a finding written by hand above, with the member rows its sheet
// joins, covers more of its columns and takes precedence.
func addKindExamples(t testing.TB, db *sql.DB) {
	t.Helper()
	for _, kind := range queries.Kinds() {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM findings WHERE run_id = ? AND kind = ?`, fixtureRun.RunID, kind).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			continue
		}
		path := filepath.Join("..", "queries", "testdata", kind, "want.csv")
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("kind %s has no finding in the workbook fixture and no example: %v", kind, err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s: want a header and a finding (%v)", path, err)
		}
		header, row := recs[0], recs[1]
		detail := map[string]json.RawMessage{}
		var keys []string
		for i, h := range header {
			key, ok := strings.CutPrefix(h, "detail.")
			if !ok {
				continue
			}
			keys = append(keys, key)
			detail[key] = cellJSON(row[i])
		}
		var b strings.Builder // the keys in the check's order, as it writes them
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(k)
			b.Write(name)
			b.WriteByte(':')
			b.Write(detail[k])
		}
		b.WriteByte('}')
		null := func(s string) any {
			if s == "NULL" {
				return nil
			}
			return s
		}
		_, err = db.Exec(`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, detail, first_seen_run, state)
			VALUES (?, ?, ?, 'm1', ?, CAST(? AS DECIMAL(18,3)), ?, ?, ?, 'new')`,
			fixtureRun.RunID, fixtureRun.BusinessDate, kind, row[1], null(row[2]), null(row[3]), b.String(), fixtureRun.RunID)
		if err != nil {
			t.Fatalf("%s: add its example finding: %v", kind, err)
		}
	}
}

// cellJSON reads a want.csv cell back as the JSON value it was written
// from (queries/testdata/README.md): NULL is null, a number, list or
// object is itself, anything else a string.
func cellJSON(cell string) json.RawMessage {
	if cell == "NULL" {
		return json.RawMessage("null")
	}
	if json.Valid([]byte(cell)) && cell != "" && strings.ContainsAny(cell[:1], "-0123456789[{tf") {
		return json.RawMessage(cell)
	}
	s, _ := json.Marshal(cell)
	return s
}

// TestKindWithoutAHandWrittenFindingGetsItsExample: a kind the fixture
// has no finding of still gets a sheet with a finding, from its check's
// fixture, with the entity and amount the check returned.
func TestKindWithoutAHandWrittenFindingGetsItsExample(t *testing.T) {
	t.Parallel() // its own database and files
	db := fixtureDB(t)
	if _, err := db.Exec(`DELETE FROM findings WHERE kind = 'double_charge'`); err != nil {
		t.Fatal(err)
	}
	addKindExamples(t, db)
	var entity, cycle string
	var amount float64
	err := db.QueryRow(`SELECT entity_id, amount, detail->>'billing_cycle' FROM findings WHERE run_id = ? AND kind = 'double_charge'`,
		fixtureRun.RunID).Scan(&entity, &amount, &cycle)
	if err != nil {
		t.Fatalf("no double_charge finding after addKindExamples: %v", err)
	}
	if entity != "sub-1:3" || amount != 20 || cycle != "3" {
		t.Errorf("double_charge example: %s, %v, cycle %s; want want.csv's first row (sub-1:3, 20.00, cycle 3)", entity, amount, cycle)
	}
}
