package ingest

import (
	"regexp"
	"strings"
	"testing"
)

func TestMaskPANs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"4111111111111111", "411111XXXXXX1111"},
		{`{"number":"4111111111111111","x":1}`, `{"number":"411111XXXXXX1111","x":1}`},
		{"card 4111 1111 1111 1111 used", "card 411111XXXXXX1111 used"},
		{"4111-1111-1111-1111", "411111XXXXXX1111"},
		{"378282246310005", "378282XXXXX0005"},               // 15-digit Amex
		{"4111111111111112", "4111111111111112"},             // fails Luhn
		{"6000000000000000000001", "6000000000000000000001"}, // 22-digit id: not a PAN
		{"amount 12.34 on 2026-11-20", "amount 12.34 on 2026-11-20"},
		{"411111XXXXXX1111", "411111XXXXXX1111"}, // already masked
		{"a 5555555555554444 b 4012888888881881", "a 555555XXXXXX4444 b 401288XXXXXX1881"},
		{"x4111111111111111 0", "x411111XXXXXX1111 0"},            // a PAN followed by another number
		{"ref 12 4111 1111 1111 1111", "ref 12 411111XXXXXX1111"}, // grouped PAN after a short number
	}
	for _, c := range cases {
		got, changed := MaskPANs(c.in)
		if got != c.want {
			t.Errorf("MaskPANs(%q) = %q, want %q", c.in, got, c.want)
		}
		if changed != (c.in != c.want) {
			t.Errorf("MaskPANs(%q) changed = %v", c.in, changed)
		}
	}
}

// panRun finds maximal digit runs of card-number length.
var panRun = regexp.MustCompile(`\d+`)

// LuhnValidRuns returns the Luhn-valid runs of 13-19 digits in s: what must
// never appear in anything reconcile writes.
func LuhnValidRuns(s string) []string {
	var found []string
	for _, m := range panRun.FindAllString(s, -1) {
		if len(m) >= 13 && len(m) <= 19 && luhn(m) {
			found = append(found, m)
		}
	}
	return found
}

func FuzzMaskPANs(f *testing.F) {
	for _, s := range []string{"4111111111111111", "x 4111 1111 1111 1111 y", "6000000000000000000001", "", "1-2 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _ := MaskPANs(s)
		if runs := LuhnValidRuns(got); len(runs) > 0 {
			// A run that was already longer than 19 digits is left alone on
			// purpose; anything else is a leak.
			for _, r := range runs {
				if !partOfLongerRun(s, r) {
					t.Fatalf("MaskPANs(%q) = %q still holds card-like run %q", s, got, r)
				}
			}
		}
	})
}

func partOfLongerRun(s, r string) bool {
	for _, m := range panRun.FindAllString(s, -1) {
		if len(m) > 19 && strings.Contains(m, r) {
			return true
		}
	}
	return false
}

// TestRejectTextMasksEscapedDigits: a rejected line is kept as text, not
// decoded, so a card number whose digits are spelled as JSON escapes must
// be masked all the same.
func TestRejectTextMasksEscapedDigits(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"n":"\u0034111111111111111",`, `{"n":"411111XXXXXX1111",`},
		{`{"n":"\u0034\u0031\u0031\u0031 1111 1111 1111"`, `{"n":"411111XXXXXX1111"`},
		{`{"n":"\\u0034111111111111111"`, `{"n":"\\u0034111111111111111"`}, // an escaped backslash: no digit, and 15 digits that fail Luhn
		{`{"x":"\u0041"`, `{"x":"\u0041"`},
	}
	for _, c := range cases {
		if got := rejectText([]byte(c.in)); got != c.want {
			t.Errorf("rejectText(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
