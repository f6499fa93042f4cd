package safetext

import (
	"strings"
	"testing"
)

func TestLineEscapesEveryLineBreak(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nBcc: x@evil.example": `a\x0d\x0aBcc: x@evil.example`,
		"a\u2028b\u2029c":          `a\u2028b\u2029c`,
		"\x1b[2Jok\u0085":          `\x1b[2Jok\u0085`,
		"naïve ✓":                  "naïve ✓",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	if got := Cut("héllo wörld", 6); got != "héllo…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("short", 6); got != "short" {
		t.Errorf("Cut of a short text = %q", got)
	}
	if got := Cut("a\nb", 10); got != `a\x0ab` {
		t.Errorf("Cut escapes before cutting: %q", got)
	}
}

// TestBidiControlsAreEscaped: a right-to-left override (or any embedding,
// isolate or mark) in outside text is shown escaped and acts on nothing, on
// the terminal (Line, Text) as in the digest's e-mail and webhook (Cut).
func TestBidiControlsAreEscaped(t *testing.T) {
	in := "refund 12.00\u202e00.21 dnufer\u202c ok \u2066x\u2069 \u200f\u061c"
	want := `refund 12.00\u202e00.21 dnufer\u202c ok \u2066x\u2069 \u200f\u061c`
	for name, got := range map[string]string{"Line": Line(in), "Text": Text(in), "Cut": Cut(in, 200)} {
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := Line("שלום עולם"); got != "שלום עולם" {
		t.Errorf("right-to-left letters themselves must stay: %q", got)
	}
}

// TestCutMasksBeforeItCuts: a cut that keeps 15 digits of a 16-digit card
// number keeps the number (its 16th digit is only the Luhn check), which
// the masker no longer recognises once cut; Cut masks first.
func TestCutMasksBeforeItCuts(t *testing.T) {
	for _, n := range []int{18, 19, 20, 21, 22, 40} {
		got := Cut("card 4111111111111111 declined by issuer", n)
		if strings.Contains(got, "1111111111") {
			t.Errorf("Cut(…, %d) = %q keeps the card's digits", n, got)
		}
	}
}
