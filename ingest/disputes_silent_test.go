package ingest

import (
	"fmt"
	"testing"
	"time"
)

// TestAskSilentOncePerWeek: a member with no record in tonight's
// organization reports is asked for its own report every night while none
// of its reports was ever read, but on exactly one night of any seven once
// they were: a quiet night (at scale medium, night 5 of the bench had no
// clearing record for 49 of 50 members) must not cost a request a member,
// and a permission withdrawn later must still show within a week.
func TestAskSilentOncePerWeek(t *testing.T) {
	read := map[string]bool{}
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for m := range 40 {
		mid := fmt.Sprintf("member%03d", m)
		for day := range 7 {
			if !askSilent(mid, read, start.AddDate(0, 0, day)) {
				t.Fatalf("%s, never read: not asked on day %d", mid, day)
			}
		}
		read[maskedID(mid)] = true
		for first := range 7 {
			asked := 0
			for day := first; day < first+7; day++ {
				if askSilent(mid, read, start.AddDate(0, 0, day)) {
					asked++
				}
			}
			if asked != 1 {
				t.Errorf("%s, read before: asked on %d of the 7 nights from day %d, want 1", mid, asked, first)
			}
		}
	}
}
