package platform

// complete reports whether b is one whole JSON object or array as far as
// its brackets tell: it opens with '{' or '[', every bracket opened outside
// a string is closed, the last one closes the first, and only white space
// surrounds it. Every body cut short fails it (a proper prefix of a JSON
// object or array leaves a bracket or a string open), and that is what a
// retry can mend. Whether a complete body is valid JSON is its decoder's to
// say: the same bytes would come back, so that is ErrInvalidData at once.
//
// It replaced encoding/json.Valid on every page, which took ~5% of
// reconcile's CPU in the members stage (2,000 members, perf) for what the
// decoders check again: the stage took 1m15-1m16 instead of 1m20-1m27.
func complete(b []byte) bool {
	b = trimJSONSpace(b)
	if len(b) < 2 || b[0] != '{' && b[0] != '[' {
		return false
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// Skip the string: to its closing quote, past escapes.
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i == len(b)-1
			}
		}
	}
	return false
}

// trimJSONSpace is b without the white space JSON allows around a value.
func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
