// Package jsonbody reads fields of a decoded JSON body (a journaled call's
// request or response, decoded with UseNumber) the way the call inspection
// needs them: a body from its text, a value by its path of keys, and
// scalars as text.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Object decodes a JSON body, numbers as json.Number; anything but an
// object (or text that is no JSON) is nil.
func Object(s string) map[string]any {
	if s == "" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

// Lookup returns the value at the path of keys, or nil when an object on
// the way is missing or is not an object.
func Lookup(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

// Text renders a scalar JSON value as text; numbers arrive as json.Number
// or float64 depending on the decoder. Objects and arrays are "".
func Text(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case nil:
		return ""
	case interface{ String() string }:
		return s.String()
	case float64:
		return strconv.FormatFloat(s, 'f', -1, 64)
	case bool:
		if s {
			return "true"
		}
		return "false"
	}
	return ""
}

// IsTrue reports whether v is true or the string "true" (any case).
func IsTrue(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case string:
		return strings.EqualFold(b, "true")
	}
	return false
}
