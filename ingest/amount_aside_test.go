package ingest_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestOutOfRangeAmountsAreKeptAside: a transaction total the platform
// never sends (negative, or beyond what an amount column holds) is kept
// aside with its reason, for that record alone: every member is
// reconciled, the checks run, the rest of the member loads. One such
// amount failed the whole run's checks, every night after.
func TestOutOfRangeAmountsAreKeptAside(t *testing.T) {
	total := regexp.MustCompile(`"totalAmount":"[0-9.]+"`)
	bad := []string{`"totalAmount":"-12.00"`, `"totalAmount":"1000000000000000.00"`, `"totalAmount":"99999999999999999999.99"`}
	planted := 0
	env := startRewritten(t, func(r *http.Request, status int, body []byte) []byte {
		if r.URL.Path != "/tss/v2/searches" || planted == len(bad) || status/100 != 2 {
			return body
		}
		if loc := total.FindIndex(body); loc != nil {
			body = bytes.Join([][]byte{body[:loc[0]], []byte(bad[planted]), body[loc[1]:]}, nil)
			planted++
		}
		return body
	})
	s, res := runOnSandbox(t, env)
	if planted != len(bad) {
		t.Fatalf("%d amounts planted, want %d", planted, len(bad))
	}
	if res.MembersOK != len(env.Server.Members()) {
		t.Fatalf("%d members reconciled of %d: %v", res.MembersOK, len(env.Server.Members()), res.Failed)
	}
	rows, err := s.Conn().QueryContext(context.Background(), `SELECT value, reason FROM kept_aside WHERE record = 'transaction' ORDER BY value`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var amount, reason string
		if err := rows.Scan(&amount, &reason); err != nil {
			t.Fatal(err)
		}
		got = append(got, amount+": "+reason)
	}
	rows.Close()
	joined := strings.Join(got, "\n")
	if len(got) != 3 || !strings.Contains(joined, "-12.00: amount -12.00 USD is negative") ||
		!strings.Contains(joined, "1000000000000000.00: amount 1000000000000000.00 USD is beyond what an amount column holds") ||
		!strings.Contains(joined, "99999999999999999999.99: amount 99999999999999999999.99 USD is beyond what an amount column holds") {
		t.Errorf("kept aside:\n%s\nwant the negative and the oversized totals with their reasons", joined)
	}
	var findings int
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT count(*) FROM findings`).Scan(&findings); err != nil || findings == 0 {
		t.Errorf("findings: %d (%v): the checks did not run", findings, err)
	}
}
