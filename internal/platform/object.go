package platform

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A run decodes millions of subscription payments, each a flat JSON object
// of a dozen strings. Decoding one through a reflective decoder copied its
// bytes four times (the record, then each value for its UnmarshalJSON) and
// was a fifth of the members stage's Go CPU. eachMember walks the record's
// bytes once instead: it checks the whole object against the JSON grammar
// (RFC 8259) and hands each member's key to the caller with its value,
// which the caller reads in place (skip, eachElement), so a decoder copies
// only the strings it keeps.

// maxDepth bounds the nesting of objects and arrays eachMember accepts,
// the outermost object counted, as encoding/json does.
const maxDepth = 10000

// eachMember calls f with the key (unescaped) of every member of the
// object b, in order, and its value; f reads the value (skip, eachElement)
// and returns where it ends. A key given twice is passed twice. b must be
// one JSON object, or null (no members), with white space around it;
// anything else, and any byte outside the grammar anywhere in it, is an
// error, and f is not called past it.
func eachMember(b []byte, f func(key []byte, v jsonValue) (end int, err error)) error {
	s := objectScanner{b: b}
	s.space()
	switch {
	case s.literalAhead("null"):
		s.i += len("null")
	case s.at('{'):
		if err := s.items(f); err != nil {
			return err
		}
	default:
		return s.unexpected("looking for the beginning of an object")
	}
	return s.end()
}

// jsonValue is a value in b for eachMember's caller to read: where it
// starts, inside how many objects and arrays. A plain struct, so that
// handing it to the caller allocates nothing.
type jsonValue struct {
	b            []byte
	start, depth int
}

func (v jsonValue) scanner() objectScanner { return objectScanner{b: v.b, i: v.start, depth: v.depth} }

// null reports whether the value is null.
func (v jsonValue) null() bool {
	s := v.scanner()
	return s.literalAhead("null")
}

// skip checks the value and returns where it ends.
func (v jsonValue) skip() (end int, err error) {
	s := v.scanner()
	err = s.value()
	return s.i, err
}

// eachElement checks the array, calling f with where each of its elements
// starts and ends, and returns where the array ends; null is an array of
// none.
func (v jsonValue) eachElement(f func(start, end int) error) (end int, err error) {
	if v.null() {
		return v.start + len("null"), nil
	}
	s := v.scanner()
	if !s.at('[') {
		return s.i, s.unexpected("looking for an array")
	}
	err = s.items(func(_ []byte, e jsonValue) (int, error) {
		end, err := e.skip()
		if err == nil {
			err = f(e.start, end)
		}
		return end, err
	})
	return s.i, err
}

// fieldIndex is the index in tags of the field key names, as encoding/json
// picks it: the tag equal to key, or else the first tag equal to it but
// for case (Unicode simple folding, bytes.EqualFold); -1 for none.
func fieldIndex(key []byte, tags []string) int {
	for i, t := range tags {
		if string(key) == t {
			return i
		}
	}
	for i, t := range tags {
		if strings.EqualFold(string(key), t) {
			return i
		}
	}
	return -1
}

// objectScanner reads JSON text from b at i, inside depth objects and
// arrays.
type objectScanner struct {
	b     []byte
	i     int
	depth int
}

func (s *objectScanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func (s *objectScanner) space() {
	b, i := s.b, s.i
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	s.i = i
}

// end checks that only white space follows the value.
func (s *objectScanner) end() error {
	s.space()
	if s.i < len(s.b) {
		return s.unexpected("after the top-level value")
	}
	return nil
}

func (s *objectScanner) unexpected(where string) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("unexpected end of JSON input %s", where)
	}
	return fmt.Errorf("invalid character %q at offset %d %s", s.b[s.i], s.i, where)
}

func (s *objectScanner) literalAhead(word string) bool {
	return len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word
}

// value skips one JSON value.
func (s *objectScanner) value() error {
	if s.i >= len(s.b) {
		return s.unexpected("looking for a value")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{' || c == '[':
		return s.items(nil)
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't' || c == 'f' || c == 'n':
		for _, word := range []string{"true", "false", "null"} {
			if s.literalAhead(word) {
				s.i += len(word)
				return nil
			}
		}
	}
	return s.unexpected("looking for a value")
}

// items reads the object or array at s, from its opening bracket past its
// closing one. With each, it calls each for every member or element with
// its key (unescaped; nil in an array) and its value, which each reads;
// without, it skips them. Nesting past maxDepth, this one counted, is an
// error, as in encoding/json.
func (s *objectScanner) items(each func(key []byte, v jsonValue) (end int, err error)) error {
	if s.depth++; s.depth > maxDepth {
		return fmt.Errorf("JSON nested deeper than %d at offset %d", maxDepth, s.i)
	}
	defer func() { s.depth-- }()
	closer, object := byte(']'), s.b[s.i] == '{'
	if object {
		closer = '}'
	}
	s.i++
	s.space()
	if s.at(closer) {
		s.i++
		return nil
	}
	for {
		var key []byte
		var err error
		if object {
			if key, err = s.key(each != nil); err != nil {
				return err
			}
		}
		if each != nil {
			s.i, err = each(key, jsonValue{b: s.b, start: s.i, depth: s.depth})
		} else {
			err = s.value()
		}
		if err != nil {
			return err
		}
		s.space()
		switch {
		case s.at(','):
			s.i++
			s.space()
		case s.at(closer):
			s.i++
			return nil
		case object:
			return s.unexpected("after an object member")
		default:
			return s.unexpected("after an array element")
		}
	}
}

// key reads an object key and the colon after it, and returns the key,
// unescaped, if asked for.
func (s *objectScanner) key(want bool) ([]byte, error) {
	if !s.at('"') {
		return nil, s.unexpected("looking for an object key")
	}
	start := s.i
	escaped, err := s.str()
	if err != nil {
		return nil, err
	}
	var key []byte
	switch {
	case !want:
	case escaped:
		var k string
		if err := json.Unmarshal(s.b[start:s.i], &k); err != nil {
			return nil, fmt.Errorf("object key at offset %d: %w", start, err)
		}
		key = []byte(k)
	default:
		key = s.b[start+1 : s.i-1]
	}
	s.space()
	if !s.at(':') {
		return nil, s.unexpected("after an object key")
	}
	s.i++
	s.space()
	return key, nil
}

// str skips a string from its opening quote past its closing one, and
// reports whether it holds an escape. It works on locals: through s, every
// byte read would load s.b and s.i again.
func (s *objectScanner) str() (escaped bool, err error) {
	b, i := s.b, s.i+1 // past the opening quote
	for {
		for i < len(b) && !stringStops[b[i]] {
			i++
		}
		if i >= len(b) {
			s.i = i
			return escaped, s.unexpected("in a string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				i++
				s.i = i
				return escaped, s.unexpected("in a string escape")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				i += 2
				for range 4 {
					if i >= len(b) || !isHex(b[i]) {
						s.i = i
						return escaped, s.unexpected("in a \\u escape")
					}
					i++
				}
			default:
				i++
				s.i = i
				return escaped, s.unexpected("in a string escape")
			}
		default: // a control character
			s.i = i
			return escaped, s.unexpected("in a string")
		}
	}
}

// stringStops are the bytes a string's scan stops at: its end, an escape,
// and the control characters a string may not hold.
var stringStops = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// number skips a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *objectScanner) number() error {
	if s.at('-') {
		s.i++
	}
	switch {
	case s.at('0'):
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.unexpected("in a number")
	}
	if s.at('.') {
		s.i++
		if !s.digits() {
			return s.unexpected("after a number's decimal point")
		}
	}
	if s.at('e') || s.at('E') {
		s.i++
		if s.at('+') || s.at('-') {
			s.i++
		}
		if !s.digits() {
			return s.unexpected("in a number's exponent")
		}
	}
	return nil
}

// digits skips a run of digits and reports whether there was one.
func (s *objectScanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
