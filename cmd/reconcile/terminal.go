package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text from outside (a platform's error message, a member ID, a cell of
// `reconcile sql`'s table) is printed to a terminal only through
// terminalLine or terminalText. A control character in it could otherwise
// drive the terminal: ESC starts ANSI and OSC sequences (clear the screen,
// retitle the window, rewrite what was printed), CR returns to the start of
// the line to overprint it, BEL rings. Escaping each control character as
// \xNN (\u00NN for C1) leaves every sequence inert and visible, since a
// sequence without its ESC is plain text.

// terminalLine is s for one line of a terminal: every control character,
// line breaks included, is escaped; a tab becomes a space.
func terminalLine(s string) string { return escapeControls(s, false) }

// terminalText is s for a terminal where s may span lines (an error
// message): line feeds are kept, every other control character escaped.
func terminalText(s string) string { return escapeControls(s, true) }

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
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
