package ingest

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
)

// storedText is everything the import keeps of a line: the text of each
// value of its journal row, or its reject reason and text.
func storedText(t *testing.T, line []byte) []string {
	chunk := newJournalChunk()
	now := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	var out []string
	if addJournalLine(chunk, "f.ndjson", 1, line, false, "sum", now) {
		for _, v := range chunk.rows.Values()[0] {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	r := chunk.rejects.Values()[0]
	return []string{r[2].(string), r[3].(string)}
}

// FuzzPANDisguises writes generated card numbers of real networks in every
// disguise at every place of a journal line; nothing the import keeps of
// the line holds the card number, read in any of its normal forms, and a
// line that was JSON is still accepted.
func FuzzPANDisguises(f *testing.F) {
	for d := range cardmasktest.Disguises {
		for p := range cardmasktest.Places {
			f.Add(uint64(d*cardmasktest.Places+p), uint8(d), uint8(p), uint8(d+p), "note")
		}
	}
	f.Add(uint64(1), uint8(cardmasktest.Track1), uint8(cardmasktest.InQuery), uint8(0), "cvv=123 & trackData")
	f.Fuzz(func(t *testing.T, seed uint64, d, p, network uint8, note string) {
		rng := rand.New(rand.NewPCG(seed, uint64(network)))
		pan := cardmasktest.PAN(rng, int(network), int(seed>>8))
		line := cardmasktest.JournalLine(cardmasktest.Disguise(rng, pan, int(d)), int(p), note)
		for _, s := range storedText(t, []byte(line)) {
			for _, form := range cardmasktest.NormalForms(s) {
				if strings.Contains(form, pan) {
					t.Fatalf("card %s written as %q survives in %q", pan, line, s)
				}
			}
		}
		if cardmasktest.IsJSONObject(line) && !json.Valid(cardmask.MaskLine([]byte(line))) {
			t.Fatalf("MaskLine(%s) = %s is no longer JSON", line, cardmask.MaskLine([]byte(line)))
		}
	})
}

// TestRejectTextMasksEscapedDigits: a rejected line is kept as text, not
// decoded, so a card number whose digits are spelled as JSON escapes must
// be masked all the same.
func TestRejectTextMasksEscapedDigits(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"n":"\u0034111111111111111",`, `{"n":"411111XXXXXX1111",`},
		{`{"n":"\u0034\u0031\u0031\u0031 1111 1111 1111"`, `{"n":"411111XXXXXX1111"`},
		{`{"x":"\u0041"`, `{"x":"\u0041"`},
	}
	for _, c := range cases {
		if got := storedText(t, []byte(c.in)); got[1] != c.want {
			t.Errorf("rejected %s kept as %s, want %s", c.in, got[1], c.want)
		}
	}
}
