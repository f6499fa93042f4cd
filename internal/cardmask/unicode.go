package cardmask

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Card numbers beyond ASCII. A number pasted from a web page or a PDF is
// grouped by no-break spaces (U+00A0), French formatting writes narrow
// no-break spaces (U+202F), a word processor en dashes, an editor
// zero-width spaces; an input method writes full-width digits (U+FF10..),
// Arabic or Devanagari locales their own digits. Each is a card number all
// the same, and a person reads it as one.
//
// The masker reads ASCII (its scanner is bytes). So a line holding
// anything else is folded first (fold): every Unicode decimal digit to its
// ASCII digit, every Unicode space, line break or dash to one ASCII
// separator, every format character (zero-width, soft hyphen, joiners) to
// nothing. The folded line is masked; if masking changed it, the folded,
// masked line is what is kept (its other non-ASCII separators and digits
// read as ASCII ones: only lines that held card data change); if not, the
// line is kept exactly as it was.

// needsFold reports whether line holds a byte the ASCII masker would not
// read as a digit or a separator where a person would: any non-ASCII
// byte, or a line break (a number wrapped over two lines of a message).
func needsFold(line []byte) bool {
	for i, c := range line {
		if c >= utf8.RuneSelf || c == '\n' || c == '\r' || c == '\\' && i+1 < len(line) && strings.IndexByte("unr", line[i+1]) >= 0 {
			return true
		}
	}
	return false
}

// fold is line with digits and separators made ASCII, as above. ok is
// false when nothing was folded (nothing to read differently).
func fold(line []byte) (out []byte, ok bool) {
	out = make([]byte, 0, len(line))
	for i := 0; i < len(line); {
		if line[i] == '\\' && i+1 < len(line) {
			// A JSON escape: \uXXXX of a digit or separator folds as the
			// character would (Go's encoder writes U+2028 and U+2029 so);
			// any other escape, \\ included, is copied whole.
			if r, escaped := jsonEscape(line[i:]); escaped {
				if f, folds := foldRune(r); folds {
					out, ok = append(out, f...), true
					i += 6
					continue
				}
			}
			if line[i+1] == 'n' || line[i+1] == 'r' { // an escaped line break
				out, ok = append(out, ' '), true
				i += 2
				continue
			}
			if line[i+1] < utf8.RuneSelf { // an escape pair (\\ included): both bytes
				out = append(out, line[i], line[i+1])
				i += 2
				continue
			}
			out = append(out, line[i]) // a bare backslash before a character folded below
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == '\n' || r == '\r' {
			out, ok = append(out, ' '), true
			i += size
			continue
		}
		if r >= utf8.RuneSelf {
			if f, folds := foldRune(r); folds {
				out, ok = append(out, f...), true
				i += size
				continue
			}
		}
		out = append(out, line[i:i+size]...)
		i += size
	}
	return out, ok
}

// foldRune is what a non-ASCII rune folds to, if it folds: its ASCII digit,
// a space, a dash, or nothing (a format character).
func foldRune(r rune) ([]byte, bool) {
	switch {
	case r < utf8.RuneSelf:
		return nil, false
	case unicode.Is(unicode.Nd, r):
		return []byte{byte('0' + digitValue(r))}, true
	case unicode.Is(unicode.Cf, r):
		return nil, true // zero-width, soft hyphen, joiners: nothing
	case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
		return []byte{' '}, true
	case unicode.Is(unicode.Pd, r) || r == '\u2212': // dashes, the minus sign
		return []byte{'-'}, true
	}
	return nil, false
}

// jsonEscape reads \uXXXX at the start of b.
func jsonEscape(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// digitValue is the value of the Unicode decimal digit r: decimal digits
// come in runs of ten from a zero (some runs adjoin, as the mathematical
// digits do), so it is r's distance from the start of its run, modulo ten.
func digitValue(r rune) int {
	start := r
	for k := 0; k < 60 && unicode.Is(unicode.Nd, start-1); k++ {
		start--
	}
	return int(r-start) % 10
}
