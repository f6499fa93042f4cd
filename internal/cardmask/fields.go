package cardmask

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Identifiers are never altered. The platform's ids are 22 digits: the
// Unix time of creation without its leading 1 (9 digits), then 13 digits
// (the vendor's example 6512628085536163703211, submitted
// 2022-04-29T20:06:49Z). Ids created from 2014 to 2022 begin as card
// numbers do (4, 51-55, 6011, 62, 644-649, 65), and MaskLine, reading
// text by pattern, masks one such id in ten (its first 16 digits pass the
// Luhn check): a finding would then name an id that exists nowhere.
//
// So the platform's answers and the journals' lines are masked by field
// (MaskRecord, MaskJournalLine): their schemas are known.
//   - The value of an identifier field (identifierFields: id,
//     transactionId, reconciliationId, requestId and the other ids the
//     vendor's SDK models name) is kept exactly as written when it has an
//     identifier's shape (IsPlatformID), and masked by pattern otherwise:
//     a card number written in an id field is masked as anywhere else.
//   - In a link (the value of an href, and the path of a journal line),
//     a path segment of that shape is kept, when it joins no other digits
//     (a digit, or a separator and a digit, on either side, or an escape
//     next to it, and it is read with them as MaskLine would).
//   - The value of a card-number field (number inside card, tokenizedCard,
//     bankAccount or account, as the SDK models name them) is masked as a
//     card number whatever its check digit: each run of 12 digits or more
//     keeps its first six and last four.
//   - Everything else is masked by pattern (MaskLine), as before.
//
// The price, and why it is defensible: a value of exactly 22 digits in an
// identifier field is kept even when its first digits would pass for a
// card number (a card number followed by 3 to 9 digits, written there on
// purpose). The platform writes these fields itself; in a journal the
// merchant's log copies them from the platform's answers. Any other shape
// (13 to 19 digits, 20, 21, 23 or more, grouped, escaped) in the same
// field is masked. Text that is not valid JSON is masked by pattern whole.

// identifierFields are the names (lower case) of fields whose values are
// the platform's identifiers: the SDK models' id, transactionId (and the
// recurring-billing payments' transactionID), reconciliationId, requestId,
// and the recurring-billing and token ids.
var identifierFields = map[string]bool{
	"id": true, "transactionid": true, "reconciliationid": true, "requestid": true,
	"subscriptionid": true, "planid": true, "customerid": true, "paymentinstrumentid": true,
	"instrumentidentifierid": true, "shippingaddressid": true, "originaltransactionid": true,
}

// cardNumberParents are the objects (lower case) whose "number" is a card
// or account number in the SDK models (Ptsv2paymentsPaymentInformationCard,
// …TokenizedCard, …BankAccount, Ptsv2paymentsSenderInformationAccount).
var cardNumberParents = map[string]bool{"card": true, "tokenizedcard": true, "bankaccount": true, "account": true}

// IsPlatformID reports whether s has the shape of an identifier the
// platform assigns: exactly 22 ASCII digits (transactions, payments,
// subscriptions, plans), or 32 hexadecimal characters with no run of 12
// digits (the token ids: customers, payment instruments). Such a value in
// an identifier field is never masked.
func IsPlatformID(s string) bool { return isPlatformID([]byte(s)) }

func isPlatformID(s []byte) bool {
	switch len(s) {
	case 22:
		for i := 0; i < len(s); i++ {
			if !isDigit(s[i]) {
				return false
			}
		}
		return true
	case 32:
		run := 0
		for i := 0; i < len(s); i++ {
			if !isHex(s[i]) {
				return false
			}
			if run = run + 1; !isDigit(s[i]) {
				run = 0
			}
			if run >= 12 {
				return false
			}
		}
		return true
	}
	return false
}

// MaskRecord masks a JSON document from the platform by field (see
// above); text that is not valid JSON is masked by pattern. It returns doc
// itself (no copy) when there is nothing to mask.
func MaskRecord(doc []byte) []byte { return maskFields(doc, false) }

// MaskJournalLine is MaskRecord for a merchant journal line, whose
// top-level "path" is a link (the call's path, which names the
// transaction it acts on).
func MaskJournalLine(line []byte) []byte { return maskFields(line, true) }

// MaskPath masks a journal call's path as MaskJournalLine masks it in its
// line: by pattern, keeping its id-shaped segments when the call's status
// is 2xx and its response (JSON) names an id of the platform's shape, or
// when its request or response names the same id.
func MaskPath(path string, status int, request, response string) string {
	b := []byte(path)
	if hasControlByte(b) {
		return MaskText(path)
	}
	fs := fieldScan{t: b, topPath: true}
	fs.path = fs.link(nil, 0, len(b))
	named := map[string]bool{}
	for k, d := range []string{request, response} {
		ds := fieldScan{t: []byte(d)}
		if ds.scan() {
			for _, sp := range ds.keep {
				named[d[sp[0]:sp[1]]] = true
			}
			fs.responseID = fs.responseID || k == 1 && len(ds.keep) > 0
		}
	}
	if status >= 200 && status <= 299 {
		fs.status = fmt.Sprint(status)
	}
	fs.keepPathIDs(named)
	if out := fs.mask(); string(out) != path {
		return string(out)
	}
	return path
}

// MaskRecordText is MaskRecord for a string.
func MaskRecordText(s string) string {
	if out := MaskRecord([]byte(s)); string(out) != s {
		return string(out)
	}
	return s
}

func maskFields(doc []byte, topPath bool) []byte {
	fs := fieldScan{t: doc, topPath: topPath}
	if !fs.scan() {
		return MaskLine(doc)
	}
	out := fs.mask()
	if len(fs.cards) > 0 {
		out = maskCardFields(out, topPath)
	}
	if len(out) == len(doc) && (len(doc) == 0 || &out[0] == &doc[0]) || bytes.Equal(out, doc) {
		return doc
	}
	return out
}

// mask returns the text masked by pattern with the kept spans as they
// were: each is replaced by a placeholder MaskLine leaves alone (a control
// byte, which valid JSON never holds raw, around letters), the text is
// masked, and the placeholders are put back.
func (fs *fieldScan) mask() []byte {
	if len(fs.keep) == 0 {
		return MaskLine(fs.t)
	}
	var b []byte
	last := 0
	for k, sp := range fs.keep {
		b = append(b, fs.t[last:sp[0]]...)
		b = appendPlaceholder(b, k)
		last = sp[1]
	}
	b = append(b, fs.t[last:]...)
	masked := MaskLine(b)
	out := make([]byte, 0, len(masked)+len(fs.keep)*22)
	for i := 0; i < len(masked); {
		if masked[i] != placeholderMark {
			out = append(out, masked[i])
			i++
			continue
		}
		end := bytes.IndexByte(masked[i+1:], placeholderMark)
		k, ok := placeholderIndex(masked[i+1 : i+1+max(end, 0)])
		if end < 0 || !ok || k >= len(fs.keep) {
			return MaskLine(fs.t) // cannot happen; pattern masking is the safe side
		}
		sp := fs.keep[k]
		out = append(out, fs.t[sp[0]:sp[1]]...)
		i += end + 2
	}
	return out
}

const placeholderMark = 0x01

// appendPlaceholder writes placeholder k: the mark, k in letters G-V (one
// per four bits; no digit, no X or D, which MaskLine reads) and the mark.
func appendPlaceholder(b []byte, k int) []byte {
	b = append(b, placeholderMark)
	for {
		b = append(b, 'G'+byte(k&15))
		if k >>= 4; k == 0 {
			break
		}
	}
	return append(b, placeholderMark)
}

func placeholderIndex(s []byte) (int, bool) {
	k := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] < 'G' || s[i] > 'V' {
			return 0, false
		}
		k = k<<4 | int(s[i]-'G')
	}
	return k, len(s) > 0
}

func hasControlByte(b []byte) bool { return bytes.IndexByte(b, placeholderMark) >= 0 }

// fieldScan reads a JSON document for the spans kept (identifiers) and the
// card-number fields, by field name.
type fieldScan struct {
	t       []byte
	i       int
	topPath bool     // the top-level "path" is a link
	keep    [][2]int // byte ranges kept as written, in order
	path    [][2]int // the id-shaped segments of a journal line's path
	// For a journal line: whether the value read is its response, whether
	// that names an id, and its status.
	inResponse, responseID bool
	status                 string
	cards                  [][2]int // card-number values (string contents)
}

// maxScanDepth bounds nesting: a deeper document is masked by pattern.
const maxScanDepth = 64

// scan reads the whole document; false when it is not valid JSON (as far
// as spans go: strings, nesting and their delimiters).
func (fs *fieldScan) scan() bool {
	if !fs.value(fieldName{}, fieldName{}, 0) {
		return false
	}
	fs.ws()
	if fs.i != len(fs.t) {
		return false
	}
	fs.keepPathIDs(nil)
	return true
}

// keepPathIDs keeps the id-shaped segments of a journal line's path when
// the line is the platform's successful answer naming an id (a 2xx status
// and an identifier of the platform's shape in its response: the call
// acted on resources the platform knows, and would have been refused on a
// card number), or when the line names the same id in an identifier field
// or a link. Otherwise the path is the merchant's text alone, where a card
// number glued to its expiry date or security code can have an id's shape
// ("6512628085536163703211" itself passes for a Discover number and a
// security code), and it is masked by pattern.
func (fs *fieldScan) keepPathIDs(named map[string]bool) {
	if len(fs.path) == 0 {
		return
	}
	if len(fs.status) == 3 && fs.status[0] == '2' && isDigit(fs.status[1]) && isDigit(fs.status[2]) && fs.responseID {
		fs.keep = append(fs.keep, fs.path...)
		slices.SortFunc(fs.keep, func(a, b [2]int) int { return a[0] - b[0] })
		return
	}
	if named == nil {
		named = map[string]bool{}
	}
	for _, sp := range fs.keep {
		named[string(fs.t[sp[0]:sp[1]])] = true
	}
	added := false
	for _, sp := range fs.path {
		if named[string(fs.t[sp[0]:sp[1]])] {
			fs.keep, added = append(fs.keep, sp), true
		}
	}
	if added {
		slices.SortFunc(fs.keep, func(a, b [2]int) int { return a[0] - b[0] })
	}
}

func (fs *fieldScan) ws() {
	for fs.i < len(fs.t) {
		switch fs.t[fs.i] {
		case ' ', '\t', '\r', '\n':
			fs.i++
		default:
			return
		}
	}
}

// str reads a string at fs.i and returns its contents' range.
func (fs *fieldScan) str() (int, int, bool) {
	if fs.i >= len(fs.t) || fs.t[fs.i] != '"' {
		return 0, 0, false
	}
	start := fs.i + 1
	for j := start; j < len(fs.t); j++ {
		switch c := fs.t[j]; {
		case c == '\\':
			j++
		case c == '"':
			fs.i = j + 1
			return start, j, true
		case c < 0x20:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// value reads one value, the value of field key inside object parent.
func (fs *fieldScan) value(key, parent fieldName, depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	fs.ws()
	if fs.i >= len(fs.t) {
		return false
	}
	switch fs.t[fs.i] {
	case '{':
		fs.i++
		fs.ws()
		if fs.i < len(fs.t) && fs.t[fs.i] == '}' {
			fs.i++
			return true
		}
		for {
			fs.ws()
			ks, ke, ok := fs.str()
			if !ok {
				return false
			}
			fs.ws()
			if fs.i >= len(fs.t) || fs.t[fs.i] != ':' {
				return false
			}
			fs.i++
			name := lowerName(fs.t[ks:ke])
			top := fs.topPath && depth == 0
			fs.inResponse = fs.inResponse || top && name.is("response")
			vs := fs.i
			if !fs.value(name, key, depth+1) {
				return false
			}
			if top && name.is("response") {
				fs.inResponse = false
			}
			if top && name.is("status") {
				fs.status = strings.Trim(strings.TrimSpace(string(fs.t[vs:fs.i])), `"`)
			}
			fs.ws()
			if fs.i >= len(fs.t) {
				return false
			}
			if fs.t[fs.i] == '}' {
				fs.i++
				return true
			}
			if fs.t[fs.i] != ',' {
				return false
			}
			fs.i++
		}
	case '[':
		fs.i++
		fs.ws()
		if fs.i < len(fs.t) && fs.t[fs.i] == ']' {
			fs.i++
			return true
		}
		for {
			if !fs.value(key, parent, depth+1) {
				return false
			}
			fs.ws()
			if fs.i >= len(fs.t) {
				return false
			}
			if fs.t[fs.i] == ']' {
				fs.i++
				return true
			}
			if fs.t[fs.i] != ',' {
				return false
			}
			fs.i++
		}
	case '"':
		s, e, ok := fs.str()
		if !ok {
			return false
		}
		switch {
		case identifierFields[string(key.b[:key.n])] && isPlatformID(fs.t[s:e]):
			fs.keep = append(fs.keep, [2]int{s, e})
			fs.responseID = fs.responseID || fs.inResponse
		case key.is("href"):
			fs.keep = fs.link(fs.keep, s, e)
		case fs.topPath && depth == 1 && key.is("path"):
			fs.path = fs.link(fs.path, s, e)
		case key.is("number") && cardNumberParents[string(parent.b[:parent.n])]:
			fs.cards = append(fs.cards, [2]int{s, e})
		}
		return true
	}
	// A number or a literal: up to a delimiter.
	start := fs.i
	for fs.i < len(fs.t) {
		switch fs.t[fs.i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return fs.i > start
		case '"', '{', '[', ':':
			return false
		}
		fs.i++
	}
	return fs.i > start
}

// link adds to spans the path segments of the link t[s:e] (before its
// query) that have an identifier's shape and join no other digits.
func (fs *fieldScan) link(spans [][2]int, s, e int) [][2]int {
	t := fs.t
	if q := bytes.IndexAny(t[s:e], "?#"); q >= 0 {
		e = s + q
	}
	for p := s; p < e; {
		if !isAlnum(t[p]) {
			p++
			continue
		}
		q := p
		for q < e && isAlnum(t[q]) {
			q++
		}
		if fs.segmentKept(s, e, p, q) {
			spans = append(spans, [2]int{p, q})
		}
		p = q
	}
	return spans
}

func (fs *fieldScan) segmentKept(s, e, p, q int) bool {
	t := fs.t
	if !isPlatformID(t[p:q]) {
		return false
	}
	if p > s && t[p-1] != '/' || q < e && t[q] != '/' {
		return false
	}
	// No escape near it, and no digits joined to it by separators.
	if bytes.ContainsAny(t[max(s, p-6):p], `%\`) || bytes.ContainsAny(t[q:min(e, q+6)], `%\`) {
		return false
	}
	j := p - 1
	for j >= s && isSeparator(t[j]) {
		j--
	}
	k := q
	for k < e && isSeparator(t[k]) {
		k++
	}
	return !(j >= s && isDigit(t[j])) && !(k < e && isDigit(t[k]))
}

// maskCardFields masks the card-number fields of doc (valid JSON, masked
// by pattern already) by field: in each, every run of 12 digits or more
// (joined by 1 to 3 separators) keeps its first six and last four digits,
// the others become X.
func maskCardFields(doc []byte, topPath bool) []byte {
	fs := fieldScan{t: doc, topPath: topPath}
	if !fs.scan() {
		return doc
	}
	var out []byte
	for _, sp := range fs.cards {
		var pos []int
		flush := func() {
			if len(pos) >= 12 {
				if out == nil {
					out = bytes.Clone(doc)
				}
				for _, at := range pos[6 : len(pos)-4] {
					out[at] = 'X'
				}
			}
			pos = pos[:0]
		}
		for j := sp[0]; j < sp[1]; j++ {
			switch c := doc[j]; {
			case isDigit(c):
				pos = append(pos, j)
			case isSeparator(c) && len(pos) > 0 && j+1 < sp[1]:
				// joined when the separators lead to a digit within three
				k := j
				for k < sp[1] && k-j < 3 && isSeparator(doc[k]) {
					k++
				}
				if k < sp[1] && isDigit(doc[k]) {
					j = k - 1
				} else {
					flush()
				}
			default:
				flush()
			}
		}
		flush()
	}
	if out == nil {
		return doc
	}
	return out
}

// fieldName is a JSON key in lower case, held without allocating; a key
// longer than its array (no field this file names) is empty.
type fieldName struct {
	b [24]byte
	n uint8
}

func lowerName(key []byte) fieldName {
	var f fieldName
	if len(key) > len(f.b) {
		return f
	}
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		f.b[i] = c
	}
	f.n = uint8(len(key))
	return f
}

func (f fieldName) is(name string) bool { return string(f.b[:f.n]) == name }
