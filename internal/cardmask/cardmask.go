// Package cardmask takes card data out of text: full card numbers (PANs)
// keep their first six and last four digits, security codes and track data
// become REMOVED. It is the security boundary of the journal import, which
// masks every raw line (MaskJournalLine) before anything else reads it, and
// of the platform's answers, whose records are masked before they are
// stored (MaskRecord; package ingest, mask.go): both by field, so that the
// platform's identifiers are never altered (fields.go), and by pattern
// (MaskLine) everywhere else. It is kept apart so that it can be read,
// tested and fuzzed on its own.
package cardmask

import (
	"bytes"
	"encoding/binary"
)

// Card data never leaves a merchant journal line: a careless merchant's log
// may carry full card numbers (PANs), security codes and track data
// anywhere (a path, a query string, a body, a key) and in any spelling.
// MaskLine runs on each raw line before anything else reads it (the
// parser, the call inspection, the reject kept of a bad line), so nothing
// downstream ever holds card data.
//
// Where it looks. A line is read as written and then decoded up to
// maxDecodeDepth times over, each decoding undoing %XX and the JSON escapes
// (\uXXXX, \/, \t, \\): a JSON string holding a URL-encoded query, or JSON
// inside a JSON string, is read as its consumer would read it. Each decoded
// character remembers the bytes of the line it came from, so what is found
// at any level is masked in the line itself. Reading the line as written
// matters as much: in track 1 data, "%B4111…" decodes to the byte 0xB4
// followed by "111…", which would hide the card number's first digit.
//
// Card numbers. A number is one digit group, or several joined by 1 to 3
// separators (space, tab, - + . / _, after decoding; not quotes, commas or
// colons, which would join the unrelated numbers of a JSON object). Digits
// of any script and Unicode spaces, dashes, format characters and line
// breaks read as their ASCII kin (unicode.go). From
// the start of each group, the longest run of 13 to 19 digits read on is a
// card number when
//   - it ends where a group ends and passes the Luhn check (as a card
//     number written alone, or grouped, always does); or
//   - it ends inside a group (a card number glued to an expiry date, a
//     security code or other digits: "41111111111111111229"), passes the
//     Luhn check, begins with a card network's IIN and has a length that
//     network issues (cardNetworkLengths). The Luhn check alone would mask
//     half of all identifiers of 20 digits or more.
//
// The first six and last four digits are kept, which is what PCI DSS allows
// to be displayed; the others become X and separators are dropped ("4111
// 1111 1111 1111" becomes "411111XXXXXX1111"). A card number written as a
// JSON number becomes a JSON string, so the line stays valid JSON. A card
// number that ends inside a later group ("3909842531/003 4111119070000001"
// passes for a Diners Club number of 17 digits ending "4111") takes the
// rest of that group with it, but the group's last four
// ("390984XXXXXXX4111XXXXXXXX0001"): its kept last four are that group's
// first digits, and the rest written after them would spell out the
// group, a card number of its own in about one such case in sixteen
// (TestMaskLineCardAfterJoinedNumbers).
//
// Security codes and track data. The value of a field named securityCode,
// cvv, cvv2, cvc, cvc2, cid, cardVerificationValue, cardVerificationCode,
// track1, track2 or trackData (any case, with or without _ or -, in JSON at
// any depth, in a query string or form: `name=value`), or track inside a
// card or paymentInformation object, becomes REMOVED, so an analyst sees
// that one was sent; null, true, false and empty values stay.
// securityCodeIndicator and other longer names are not codes and stay. Track
// data is also recognised by its shape wherever it appears: a (masked) card
// number followed by = or D and digits (track 2), or by ^NAME^ and digits
// (track 1); everything after the card number becomes REMOVED.
//
// The price, measured by TestMaskLineFalsePositives over random ids:
//   - ids of 22 digits that begin as the sandbox's do (a Unix time, 17…)
//     or as the spec's examples (603…, 619…, 641…), or with 61 or 7: none
//     is masked, as no card network's IIN begins so;
//   - ids of 22 digits beginning 644-649 (Discover's range): about 34%;
//   - ids of 22 digits beginning 2221-2720 (Mastercard's range; the
//     sandbox's payments scheduled in 2040 or later): about one in ten;
//   - 20 random digits (the sandbox's network transaction ids): about 7%;
//   - ids of 13-19 digits written alone pass the Luhn check one time in
//     ten, and are masked as any number of that length is (12% of 16-digit
//     ids, counting a shorter card number at their start).
//
// Losing part of such an id is preferable to storing a card number in
// free text. The platform's answers and the journals' lines are masked by
// field instead (fields.go: MaskRecord, MaskJournalLine), which keeps the
// value of an identifier field that has the platform's id shape, so the
// platform's ids are never altered; 22-digit ids created from 2014 to 2022
// begin with card networks' IINs (the vendor's 6512628085536163703211).
//
// Not recognised, by design: a card number glued after other digits
// ("12344111…": its start is not a group's), one joined by four separators
// or more, one glued to other digits whose network is not in the table
// (Maestro, Mir, RuPay: their IINs cover most ids beginning 5 and 6), and
// escapes more than maxDecodeDepth levels deep.
//
// Cost: a line without escapes is scanned in place for numbers, for field
// names before each colon and equals sign, and for track data after each
// masked card number; nothing is allocated unless something is masked
// (TestMaskLineDoesNotAllocate; BenchmarkMaskLine). A line with something
// masked is read again (MaskLine says why): over the sandbox's journals,
// where nearly every line has, 296 MB/s instead of 448, and a
// 1,000-member run's journal import no slower (4.6 s, against 4.7-5.1).

// maxDecodeDepth is how many times over a line is decoded: enough for a
// URL-encoded query inside a JSON string inside a JSON string.
const maxDecodeDepth = 3

// removed replaces a security code or track data.
const removed = "REMOVED"

// MaskLine returns line with every card number masked and every security
// code and track data removed. It returns line itself (no copy) when there
// is nothing to mask.
//
// What it returns has nothing more to mask: masking can make a card number
// of what was none, since the X of a masked card number start a new digit
// group ("378282246310005259630.619143", an American Express number glued
// to more digits, masks as "378282XXXXX0005259630.619143", where
// "0005259630.619143" reads as a card number of its own), and removing
// track data can bring text next to a masked card number. So the line is
// masked again until nothing changes (maxMaskPasses at most: 200,000
// random lines of card numbers, digits, X and separators, as
// TestMaskLineIdempotent makes them, changed in five passes at most).
func MaskLine(line []byte) []byte {
	line = maskASCII(line)
	if needsFold(line) {
		// What is left of card data is beyond ASCII (unicode.go): only
		// then is the line kept as folded.
		if folded, ok := fold(line); ok {
			if masked := maskASCII(folded); string(masked) != string(folded) {
				return masked
			}
		}
	}
	return line
}

// maskASCII is MaskLine on a line read as bytes (unicode.go says why the
// line may first be folded).
func maskASCII(line []byte) []byte {
	for range maxMaskPasses {
		out, changed := maskOnce(line)
		if !changed {
			break
		}
		line = out
	}
	return line
}

// maxMaskPasses bounds MaskLine's passes over a line.
const maxMaskPasses = 8

// maskOnce is one pass of MaskLine, saying whether it changed line.
func maskOnce(line []byte) ([]byte, bool) {
	v, changedAny := view{text: line}, false
	for depth := 0; ; depth++ {
		for _, pass := range []func([]byte, view) ([]byte, bool){maskPANs, removeSecrets, removeTracks} {
			if out, changed := pass(line, v); changed {
				line, changedAny = out, true
				v = decodedView(line, depth)
			}
		}
		if depth == maxDecodeDepth {
			return line, changedAny
		}
		next, ok := v.decode()
		if !ok {
			return line, changedAny
		}
		v = next
	}
}

// MaskText is MaskLine for a string.
func MaskText(s string) string {
	if out := MaskLine([]byte(s)); string(out) != s {
		return string(out)
	}
	return s
}

// view is a reading of a line: text[i] was decoded from the bytes
// line[at[i]:at[i+1]]. With at nil, text is the line itself.
type view struct {
	text []byte
	at   []int32
}

// raw is the line offset where text[i] begins (i may be len(text)).
func (v view) raw(i int) int {
	if v.at == nil {
		return i
	}
	return int(v.at[i])
}

// decodedView is line decoded depth times (or as often as it can be).
func decodedView(line []byte, depth int) view {
	v := view{text: line}
	for range depth {
		next, ok := v.decode()
		if !ok {
			break
		}
		v = next
	}
	return v
}

// decode undoes one level of %XX and JSON escapes; false when no escape
// that could hide a digit, a separator or another escape is there.
func (v view) decode() (view, bool) {
	t := v.text
	if !hasEscape(t) {
		return view{}, false
	}
	out := view{text: make([]byte, 0, len(t)), at: make([]int32, 0, len(t)+1)}
	for i := 0; i < len(t); {
		c, w := decodeAt(t, i)
		out.text = append(out.text, c)
		out.at = append(out.at, int32(v.raw(i)))
		i += w
	}
	out.at = append(out.at, int32(v.raw(len(t))))
	return out, true
}

// hasEscape reports whether t holds a %XX or a JSON escape other than \",
// \n, \r, \b and \f (which decode to characters that neither join nor
// split numbers).
func hasEscape(t []byte) bool {
	var next nextOf
	for i := 0; i < len(t); i++ {
		if i = next.index(t, i, '%', '\\'); i < 0 {
			return false
		}
		if t[i] == '%' && i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]) {
			return true
		}
		if t[i] == '\\' && i+1 < len(t) {
			switch t[i+1] {
			case 'u', '/', 't', '\\':
				return true
			}
			i++ // an escaped character is no escape
		}
	}
	return false
}

// nextOf finds the next of two bytes in a text read forward, remembering
// where each occurs next so that the text is searched once for each.
type nextOf struct {
	at    [2]int // next index of each byte, -1 for none
	ready bool
}

// index is the first index >= i of a or b in t, -1 when neither is there;
// i must not decrease between calls.
func (n *nextOf) index(t []byte, i int, a, b byte) int {
	for k, c := range [2]byte{a, b} {
		if !n.ready || n.at[k] >= 0 && n.at[k] < i {
			if j := bytes.IndexByte(t[i:], c); j >= 0 {
				n.at[k] = i + j
			} else {
				n.at[k] = -1
			}
		}
	}
	n.ready = true
	switch {
	case n.at[0] < 0:
		return n.at[1]
	case n.at[1] < 0 || n.at[0] < n.at[1]:
		return n.at[0]
	}
	return n.at[1]
}

// decodeAt decodes the character at t[i]: the character and how many bytes
// it took. A \u escape of a non-ASCII character decodes to 0x80, which is
// neither a digit nor a separator.
func decodeAt(t []byte, i int) (byte, int) {
	switch t[i] {
	case '%':
		if i+2 < len(t) && isHex(t[i+1]) && isHex(t[i+2]) {
			return unhex(t[i+1])<<4 | unhex(t[i+2]), 3
		}
	case '\\':
		if i+1 >= len(t) {
			break
		}
		switch t[i+1] {
		case 'u':
			if i+5 < len(t) && isHex(t[i+2]) && isHex(t[i+3]) && isHex(t[i+4]) && isHex(t[i+5]) {
				r := int(unhex(t[i+2]))<<12 | int(unhex(t[i+3]))<<8 | int(unhex(t[i+4]))<<4 | int(unhex(t[i+5]))
				if r < 0x80 {
					return byte(r), 6
				}
				return 0x80, 6
			}
		case '/', '\\', '"':
			return t[i+1], 2
		case 't':
			return '\t', 2
		case 'n':
			return '\n', 2
		case 'r':
			return '\r', 2
		case 'b':
			return '\b', 2
		case 'f':
			return '\f', 2
		}
	}
	return t[i], 1
}

// rewriter builds a line with some of its byte ranges replaced, in order.
// It allocates on the first replacement only.
type rewriter struct {
	line []byte
	json bool // the line is (or was meant to be) JSON
	out  []byte
	last int // line[:last] is written (or replaced)
	str  strCursor
}

func newRewriter(line []byte) rewriter {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n') {
		i++
	}
	return rewriter{line: line, json: i < len(line) && (line[i] == '{' || line[i] == '[')}
}

// replace writes line[last:start] and then repl in place of line[start:end].
func (w *rewriter) replace(start, end int, repl string) {
	w.skip(start, end)
	w.out = append(w.out, repl...)
}

// skip writes line[last:start] and leaves out line[start:end]; the caller
// writes what replaces it.
func (w *rewriter) skip(start, end int) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.line)+16)
	}
	w.out = append(w.out, w.line[w.last:start]...)
	w.last = end
}

// inString reports whether line[pos] is inside a JSON string. Positions
// asked must not decrease.
func (w *rewriter) inString(pos int) bool { return w.str.at(w.line, pos) }

func (w *rewriter) result() ([]byte, bool) {
	if w.out == nil {
		return w.line, false
	}
	return append(w.out, w.line[w.last:]...), true
}

// strCursor follows JSON string boundaries through a line, forward only.
type strCursor struct {
	pos     int
	in, esc bool // inside a string; after its backslash
}

// at reports whether line[pos] is inside a string.
func (c *strCursor) at(line []byte, pos int) bool {
	for ; c.pos < pos && c.pos < len(line); c.pos++ {
		switch b := line[c.pos]; {
		case c.esc:
			c.esc = false
		case c.in && b == '\\':
			c.esc = true
		case b == '"':
			c.in = !c.in
		}
	}
	return c.in
}

// maskPANs masks the card numbers of v (a view of line) in line.
func maskPANs(line []byte, v view) ([]byte, bool) {
	w := newRewriter(line)
	t := v.text
	for i := nextDigit(t, 0); i < len(t); i = nextDigit(t, i) {
		i = w.maskNumber(v, i)
	}
	return w.result()
}

// nextDigit is where the first digit of t at or after i is, len(t) when
// there is none. It looks at eight bytes at a time (hasDigit): most of a
// line is not digits.
func nextDigit(t []byte, i int) int {
	for ; i+8 <= len(t) && !hasDigit(binary.LittleEndian.Uint64(t[i:])); i += 8 {
	}
	for ; i < len(t) && !isDigit(t[i]); i++ {
	}
	return i
}

// hasDigit reports whether one of the eight bytes of x is an ASCII digit
// (the "hasbetween" bit trick): for a byte b below 0x80, 185-b has its top
// bit set when b < 58 and b+80 when b >= 48, and neither borrows or carries
// into the next byte; a byte from 0x80 up is cleared by ^x.
func hasDigit(x uint64) bool {
	const (
		ones = 0x0101010101010101
		low7 = 0x7f7f7f7f7f7f7f7f
		tops = 0x8080808080808080
	)
	y := x & low7
	return (ones*(127+'9'+1)-y)&^x&(y+ones*(127-('0'-1)))&tops != 0
}

// maskNumber masks the card numbers of the number starting at v.text[start]
// and returns where it ends.
func (w *rewriter) maskNumber(v view, start int) int {
	t := v.text
	for p := start; ; {
		// Two shapes that cannot hold a card number are passed over without
		// reading the window: a number of fewer than 13 digits (a date, an
		// amount), and a group of 20 digits or more that begins with no
		// card network's IIN (a 22-digit resource id), where a card number
		// could only end inside the group (panLength).
		end, short := shortNumber(t, p)
		if short {
			return end
		}
		if end = groupEnd(t, p); end-p >= 20 && cardNetworkLengths(t[p:p+4]) == 0 {
			if p = nextGroup(t, end); p < 0 {
				return end
			}
			continue
		}
		var d digitWindow
		d.read(t, p)
		if n := d.panLength(); n > 0 {
			w.maskPAN(v, d, n)
			end = groupEnd(t, int(d.pos[n-1]))
			if !d.atEnd[n-1] && d.groupStart(n-1) > p {
				w.maskGroupRest(v, int(d.pos[n-1])+1, end)
			}
		}
		if p = nextGroup(t, end); p < 0 {
			return end
		}
	}
}

// shortNumber reports whether the number from t[p] on (digit groups joined
// by separators) has fewer than 13 digits, and where it then ends.
func shortNumber(t []byte, p int) (int, bool) {
	n := 0
	for {
		q := groupEnd(t, p)
		if n += q - p; n >= 13 {
			return 0, false
		}
		if p = nextGroup(t, q); p < 0 {
			return q, true
		}
	}
}

// maskPAN replaces the card number of d's first n digits in the line. In a
// JSON line, a number outside any string (a JSON number) is written as a
// string, replacing its whole number token. A card number starting inside
// an earlier replacement is gone already.
func (w *rewriter) maskPAN(v view, d digitWindow, n int) {
	start, end := v.raw(int(d.pos[0])), v.raw(int(d.pos[n-1])+1)
	if start < w.last {
		return
	}
	quote := w.json && !w.inString(start)
	if quote {
		for start > w.last && isNumberByte(w.line[start-1]) {
			start--
		}
		for end < len(w.line) && isNumberByte(w.line[end]) {
			end++
		}
		w.skip(start, end)
		w.out = append(w.out, '"')
	} else {
		w.skip(start, end)
	}
	w.out = append(w.out, d.d[:6]...)
	for range n - 10 {
		w.out = append(w.out, 'X')
	}
	w.out = append(w.out, d.d[n-4:n]...)
	if quote {
		w.out = append(w.out, '"')
	}
}

// maskGroupRest masks the digits of v.text[from:end], the rest of a digit
// group a card number ended inside, but the group's last four. The card
// number began in an earlier group and kept the first digits of this one
// as its own last four: written out, they and the rest of the group are
// one run of digits ("3909842531/003 4111119070000001" reads as a Diners
// Club number of 17 digits ending "4111", masked "390984XXXXXXX4111"), and
// the group may be a card number of its own (or the run may merely pass
// for one). A JSON number the card number's replacement quoted was
// replaced to its end, so nothing of it is left here.
func (w *rewriter) maskGroupRest(v view, from, end int) {
	for q := from; q < end-4; q++ {
		if at := v.raw(q); at >= w.last {
			w.replace(at, v.raw(q+1), "X")
		}
	}
}

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// digitWindow holds up to 19 digits read on from the start of a digit
// group, across separators.
type digitWindow struct {
	d     [19]byte  // the digits
	pos   [19]int32 // where each is in the text
	atEnd [19]bool  // whether digit i ends its group
	n     int
	cut   bool // the number goes on past the 19 digits
	end   int  // where the number ends, when it is not cut
}

func (d *digitWindow) read(t []byte, p int) {
	for {
		q := p
		for ; q < len(t) && isDigit(t[q]); q++ {
			if d.n == len(d.d) {
				d.cut = true
				return
			}
			d.d[d.n], d.pos[d.n] = t[q], int32(q)
			d.n++
		}
		d.atEnd[d.n-1] = true
		if p = nextGroup(t, q); p < 0 {
			d.end = q
			return
		}
	}
}

// groupStart is where the digit group of digit i starts in the text.
func (d *digitWindow) groupStart(i int) int {
	for i > 0 && !d.atEnd[i-1] {
		i--
	}
	return int(d.pos[i])
}

// panLength is the length of the longest card number at the start of d, 0
// when there is none (the rule of the file comment).
func (d *digitWindow) panLength() int {
	lengths := cardNetworkLengths(d.d[:d.n])
	for n := d.n; n >= 13; n-- {
		if d.atEnd[n-1] || lengths&(1<<n) != 0 {
			if luhn(d.d[:n]) {
				return n
			}
		}
	}
	return 0
}

// cardNetworkLengths is the set (bit n for length n) of the lengths the
// card network whose IIN begins digits issues; 0 when digits begin with
// no network's IIN. Networks: Visa 4 (13, 16, 19); Mastercard 51-55 and
// 2221-2720 (16); American Express 34, 37 (15); Discover 6011, 644-649, 65
// (16-19); JCB 3528-3589 (16-19); Diners Club 300-305, 36, 38-39 (14-19);
// UnionPay 62 (16-19). digits holds at least 4.
func cardNetworkLengths(digits []byte) uint32 {
	const (
		visa     = 1<<13 | 1<<16 | 1<<19
		sixteen  = 1 << 16
		amex     = 1 << 15
		to19From = 1<<20 - 1 // with the bits below the first length cleared
	)
	from := func(n int) uint32 { return to19From &^ (1<<n - 1) }
	p2 := int(digits[0]-'0')*10 + int(digits[1]-'0')
	p3 := p2*10 + int(digits[2]-'0')
	p4 := p3*10 + int(digits[3]-'0')
	switch {
	case digits[0] == '4':
		return visa
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720:
		return sixteen
	case p2 == 34, p2 == 37:
		return amex
	case p4 == 6011, p3 >= 644 && p3 <= 649, p2 == 65, p2 == 62, p4 >= 3528 && p4 <= 3589:
		return from(16)
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38, p2 == 39:
		return from(14)
	}
	return 0
}

// groupEnd is where the digit group containing t[p] ends.
func groupEnd(t []byte, p int) int {
	for p < len(t) && isDigit(t[p]) {
		p++
	}
	return p
}

// nextGroup is where the digit group after the one ending at t[end] starts,
// when 1 to 3 separators join them; -1 otherwise.
func nextGroup(t []byte, end int) int {
	k := end
	for k < len(t) && isSeparator(t[k]) {
		k++
		if k-end > 3 {
			return -1
		}
	}
	if k == end || k == len(t) || !isDigit(t[k]) {
		return -1
	}
	return k
}

func isSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '-', '+', '.', '/', '_':
		return true
	}
	return false
}

// luhn reports whether digits pass the Luhn check.
func luhn(digits []byte) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// secretNames are the field names whose values are security codes or track
// data, lower case without _ or -; longer names first, so that cvv2 is
// tried before cvv. "track" alone counts only inside a card object.
var secretNames = []string{
	"cardverificationvalue", "cardverificationcode", "securitycode", "trackdata",
	"track1", "track2", "cvv2", "cvc2", "track", "cvv", "cvc", "cid",
}

// removeSecrets removes the security codes and track data fields of v (a
// view of line) from line: names are looked for before each colon and
// equals sign.
func removeSecrets(line []byte, v view) ([]byte, bool) {
	w := newRewriter(line)
	t := v.text
	var delimiters nextOf
	for i := 0; i < len(t); i++ {
		if i = delimiters.index(t, i, ':', '='); i < 0 {
			break
		}
		nameAt, nameEnd := secretNameBefore(t, i)
		if nameAt < 0 {
			continue
		}
		if t[nameAt]|0x20 == 't' && nameEnd-nameAt == len("track") && !underCard(t, nameAt) {
			continue
		}
		if start, end, kind := fieldValue(t, nameEnd, v.at == nil); end > start {
			w.remove(v, start, end, kind)
			i = end - 1
		}
	}
	return w.result()
}

// removeTracks removes the track data that follows the masked card numbers
// of v (a view of line) from line.
func removeTracks(line []byte, v view) ([]byte, bool) {
	w := newRewriter(line)
	t := v.text
	for i := 0; ; {
		j := bytes.Index(t[i:], []byte("XXX"))
		if j < 0 {
			break
		}
		k := i + j
		for k < len(t) && t[k] == 'X' {
			k++
		}
		k = min(k+4, len(t)) // past the last four digits, at a track's separator
		if start, end := trackTail(t, k); end > start {
			w.remove(v, start, end, stringContents)
			k = end
		}
		i = k
	}
	return w.result()
}

// secretNameBefore finds the name of a field whose delimiter (colon or
// equals sign) is t[i]: the end of the key before it (after blanks and its
// closing quote, escaped or not) when that is a secret name starting a
// word. It returns where the name starts and ends, -1 when there is none.
func secretNameBefore(t []byte, i int) (int, int) {
	end := i
	for end > 0 && (t[end-1] == ' ' || t[end-1] == '\t') {
		end--
	}
	if end > 0 && t[end-1] == '"' {
		end--
		for end > 0 && t[end-1] == '\\' {
			end--
		}
	}
	if end == 0 {
		return -1, -1
	}
	for _, name := range secretNamesByLast[t[end-1]|0x20] {
		if at := nameEndingAt(t, end, name); at >= 0 {
			return at, end
		}
	}
	return -1, -1
}

// secretNamesByLast lists the secret names by their last character, so
// that most keys are passed over on their last character alone.
var secretNamesByLast = func() (by [256][]string) {
	for _, n := range secretNames {
		by[n[len(n)-1]] = append(by[n[len(n)-1]], n)
	}
	return by
}()

// nameEndingAt is where name (any case, _ and - between its letters
// ignored) starts when it ends at t[end] and starts a word (nameStart); -1
// otherwise.
func nameEndingAt(t []byte, end int, name string) int {
	j, k := end, len(name)
	for k > 0 && j > 0 {
		switch c := t[j-1]; {
		case c|0x20 == name[k-1]: // digits have the 0x20 bit already
			j, k = j-1, k-1
		case (c == '_' || c == '-') && k < len(name):
			j--
		default:
			return -1
		}
	}
	if k > 0 || !nameStart(t, j) {
		return -1
	}
	return j
}

// valueKind is what a range to remove holds.
type valueKind int

const (
	stringContents valueKind = iota // the contents of a string
	bareValue                       // a number or other bare token
	containerValue                  // a JSON object or array
)

// remove replaces the view's text[start:end] with REMOVED in the line. A
// bare value or a container outside any JSON string becomes the JSON string
// "REMOVED"; the contents of a string are removed only inside a JSON string
// of the line (a quote read as opening one may be closing another), and
// never past its end. A value removed already is left as it is.
func (w *rewriter) remove(v view, start, end int, kind valueKind) {
	rs, re := v.raw(start), v.raw(end)
	if rs < w.last || string(w.line[rs:re]) == removed || string(w.line[rs:re]) == `"`+removed+`"` {
		return
	}
	outside := w.json && !w.inString(rs)
	switch {
	case kind == containerValue:
		if outside {
			w.replace(rs, re, `"`+removed+`"`)
		}
	case kind == bareValue && outside:
		w.replace(rs, cutAtStringEnd(w.line, rs, re), `"`+removed+`"`)
	case !outside:
		if re = cutAtStringEnd(w.line, rs, re); rs < re {
			w.replace(rs, re, removed)
		}
	}
}

// cutAtStringEnd cuts line[start:end] before the first quote that would
// end a JSON string (one preceded by an even number of backslashes).
func cutAtStringEnd(line []byte, start, end int) int {
	for q := start; q < end; q++ {
		if line[q] == '"' && backslashesBefore(line, q)%2 == 0 {
			return q
		}
	}
	return end
}

func backslashesBefore(t []byte, q int) int {
	n := 0
	for q-n-1 >= 0 && t[q-n-1] == '\\' {
		n++
	}
	return n
}

// nameStart reports whether a name can start at t[i]: after a character
// that is not a letter or digit (card_cvv), or as the next word of a
// camelCase name (cardCvv, cardSecurityCode).
func nameStart(t []byte, i int) bool {
	if i == 0 || !isAlnum(t[i-1]) {
		return true
	}
	return t[i-1] >= 'a' && t[i-1] <= 'z' && t[i] >= 'A' && t[i] <= 'Z'
}

// fieldValue finds the value of the field whose name ends at t[j]: after
// the key's closing quote (escaped or not), a colon or an equals sign, it
// is a quoted string (its contents), a JSON object or array (only when the
// line is read as written and the key's quote is not escaped), or a bare
// token up to a delimiter. start == end when there is no value to remove
// (none, empty, null, true, false).
func fieldValue(t []byte, j int, asWritten bool) (start, end int, kind valueKind) {
	keyDepth := countBackslashes(t, j)
	if j+keyDepth < len(t) && t[j+keyDepth] == '"' {
		j += keyDepth + 1
	}
	j = skipBlanks(t, j)
	if j == len(t) || t[j] != ':' && t[j] != '=' {
		return 0, 0, 0
	}
	j = skipBlanks(t, j+1)
	if j == len(t) {
		return 0, 0, 0
	}
	if b := countBackslashes(t, j); j+b < len(t) && t[j+b] == '"' {
		start = j + b + 1
		return start, stringContentEnd(t, start, b), stringContents
	}
	if t[j] == '{' || t[j] == '[' {
		if !asWritten || keyDepth > 0 {
			return 0, 0, 0
		}
		return j, containerEnd(t, j), containerValue
	}
	end = j
	for end < len(t) && !isValueDelimiter(t[end]) {
		end++
	}
	switch string(t[j:end]) {
	case "null", "true", "false":
		return 0, 0, 0
	}
	return j, end, bareValue
}

// stringContentEnd is where the contents of a string opened at depth d
// (its quote preceded by d backslashes: 0 in JSON, 1 in JSON inside a JSON
// string) end: before a quote preceded by d or fewer backslashes, or by an
// even number (a quote that ends a string of the line). Without one, the
// text's end.
func stringContentEnd(t []byte, start, d int) int {
	for q := start; q < len(t); q++ {
		if t[q] != '"' {
			continue
		}
		b := backslashesBefore(t[start:], q-start)
		if b <= d || b%2 == 0 {
			if b%2 == 1 {
				return q - b
			}
			return q
		}
	}
	return len(t)
}

// containerEnd is the end of the JSON object or array opened at t[j], or
// the text's end when it is not closed.
func containerEnd(t []byte, j int) int {
	depth, in := 0, false
	for q := j; q < len(t); q++ {
		switch c := t[q]; {
		case in && c == '\\':
			q++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return q + 1
			}
		}
	}
	return len(t)
}

func countBackslashes(t []byte, j int) int {
	b := 0
	for j+b < len(t) && t[j+b] == '\\' {
		b++
	}
	return b
}

func skipBlanks(t []byte, j int) int {
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	return j
}

func isValueDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', '&', ';', ' ', '\t', '\r', '\n', '"', '\\', '\'', ')', '<', '>', '#':
		return true
	}
	return false
}

// underCard reports whether t[p] is inside the value of a key "card" or
// "paymentInformation" (a rough JSON reading of t up to p).
func underCard(t []byte, p int) bool {
	var stack []bool // per open object or array: inside a card
	var lastString []byte
	inCard, pending := false, false
	for q := 0; q < p; q++ {
		switch t[q] {
		case '"':
			end := stringContentEnd(t, q+1, 0)
			lastString = t[q+1 : end]
			q = end
		case ':':
			pending = bytes.EqualFold(lastString, []byte("card")) || bytes.EqualFold(lastString, []byte("paymentInformation"))
		case '{', '[':
			stack = append(stack, inCard)
			inCard = inCard || pending
			pending = false
		case '}', ']':
			if len(stack) > 0 {
				inCard, stack = stack[len(stack)-1], stack[:len(stack)-1]
			}
		case ',':
			pending = false
		}
	}
	return inCard
}

// trackTail finds the track data after a masked card number that ends at
// t[i]: after = or D (track 2), the digits of the expiry, service code and
// discretionary data and the end sentinel; after ^ (track 1), the name,
// a second ^ and what follows. It returns the range to remove, empty when
// t[i] follows no masked card number or starts no track data.
func trackTail(t []byte, i int) (start, end int) {
	if i == len(t) || t[i] != '=' && t[i] != 'D' && t[i] != '^' || !endsMaskedPAN(t, i) {
		return 0, 0
	}
	start, end = i+1, i+1
	if t[i] == '^' {
		second := bytes.IndexByte(t[start:min(len(t), start+46)], '^')
		if second < 0 {
			return 0, 0
		}
		end = start + second + 1
		for end < len(t) && (isAlnum(t[end]) || t[end] == ' ') {
			end++
		}
	} else {
		for end < len(t) && (isDigit(t[end]) || t[end] == 'X') {
			end++
		}
		if end-start < 4 {
			return 0, 0
		}
		for end < len(t) && (t[end] == 'F' || t[end] == 'f') {
			end++
		}
	}
	if end < len(t) && t[end] == '?' {
		end++
	}
	return start, end
}

// endsMaskedPAN reports whether t[:i] ends with a masked card number: its
// last four digits, after a run of 13 or more digits and X (three X or
// more) that starts with a digit. That is a card number as maskPAN writes
// it (6 digits, X and the last four) and one that separators joined onto
// other digits, whose group maskGroupRest masked on past the number's own
// last four ("390984XXXXXXX4111XXXXXXXX0001"): the track data after that
// one is as much card data.
func endsMaskedPAN(t []byte, i int) bool {
	if !allDigitsIn(t, i-4, i) || i-4 == 0 || t[i-5] != 'X' {
		return false
	}
	start, xs := i, 0
	for start > 0 && (isDigit(t[start-1]) || t[start-1] == 'X') {
		if start--; t[start] == 'X' {
			xs++
		}
	}
	return xs >= 3 && i-start >= 13 && isDigit(t[start])
}

func allDigitsIn(t []byte, from, to int) bool {
	if from < 0 {
		return false
	}
	for _, c := range t[from:to] {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool {
	return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z'
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
