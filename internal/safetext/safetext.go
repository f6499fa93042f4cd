// Package safetext makes outside text (a platform's error message, a
// member ID, a merchant's name) safe to show where a control character in
// it would act instead of being read: a terminal, a log line, an e-mail or
// a chat message.
//
// On a terminal ESC starts ANSI and OSC sequences (clear the screen,
// retitle the window, rewrite what was printed), CR returns to the start
// of the line to overprint it, BEL rings; in a message, a line break in a
// one-line field forges lines of its own. Escaping each control character
// as \xNN (\u00NN for C1) leaves every sequence inert and visible, since a
// sequence without its ESC is plain text. Unicode's bidirectional controls
// are escaped the same way (isBidiControl).
package safetext

import (
	"fmt"

	"github.com/reconcile/reconcile/internal/cardmask"
	"strings"
	"unicode/utf8"
)

// isBidiControl reports the Unicode bidirectional formatting characters
// (embeddings, overrides, isolates and the implicit marks). A right-to-left
// override in a platform's message reverses what follows it on a terminal,
// in an e-mail or a chat message ("Trojan Source"): an amount or a member
// ID then reads as another. Escaped, they show as \u202e and act on nothing.
func isBidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f': // ALM, LRM, RLM
		return true
	case r >= '\u202a' && r <= '\u202e': // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= '\u2066' && r <= '\u2069': // LRI, RLI, FSI, PDI
		return true
	}
	return false
}

// Line is s for one line: every control character, line breaks included,
// is escaped; a tab becomes a space.
func Line(s string) string { return escapeControls(s, false) }

// Text is s where it may span lines (an error message): line feeds are
// kept, every other control character escaped.
func Text(s string) string { return escapeControls(s, true) }

// Cut is Line(s) cut to at most n runes, an ellipsis marking the cut. Card
// numbers are masked before the cut (cardmask.MaskText): a cut that keeps
// 15 digits of a 16-digit card number keeps all of it that matters (the
// 16th is the Luhn check digit), and the masker no longer recognises it.
func Cut(s string, n int) string {
	s = Line(cardmask.MaskText(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(0, n-1)]) + "…"
}

func escapeControls(s string, keepNewlines bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1: // a stray byte, e.g. 0x9b (CSI on 8-bit terminals)
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '\u2028' || r == '\u2029': // line and paragraph separators break lines too
			fmt.Fprintf(&b, `\u%04x`, r)
		case isBidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
