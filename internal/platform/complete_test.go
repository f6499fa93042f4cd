package platform

import (
	"encoding/json"
	"testing"
)

// completeSeeds are bodies of every shape the platform sends, and the
// corners of strings and white space.
var completeSeeds = []string{
	`{}`, `[]`, ` {"a":1} `, "\n[1,2,{\"b\":[true,null]}]\r\n",
	`{"plans":[{"id":"1","name":"with } and ] and { inside"}],"totalCount":1}`,
	`{"s":"escaped \" quote and \\ backslash \\\" then brace }"}`,
	`{"u":"\u00e9\ud83d\ude00","n":-1.5e+10,"t":true,"f":false,"z":null}`,
	`[[[[[]]]],{"a":{"b":{"c":[]}}}]`,
}

// TestCompleteCutShort: every valid JSON object or array is complete, and
// every body cut short from one (each proper prefix) is not, so every
// truncated response is retried.
func TestCompleteCutShort(t *testing.T) {
	for _, s := range completeSeeds {
		checkComplete(t, []byte(s))
	}
	for _, s := range []string{"", " ", "null", `"x"`, "1", "<html>}", `{"a":1}{`, `{"a":1} x`, `{"a":"}`, `{"a":"\"}`, `}`, `]`} {
		if complete([]byte(s)) {
			t.Errorf("complete(%q) = true; want false", s)
		}
	}
}

// FuzzComplete checks the same on any input that is valid JSON.
func FuzzComplete(f *testing.F) {
	for _, s := range completeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		checkComplete(t, b)
	})
}

// checkComplete: valid JSON b, if an object or an array, is complete and
// no proper prefix of it is; a scalar never is.
func checkComplete(t *testing.T, b []byte) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("seed %q is not valid JSON", b)
	}
	v := trimJSONSpace(b)
	if v[0] != '{' && v[0] != '[' {
		if complete(b) {
			t.Errorf("complete(%q) = true for a scalar; want false", b)
		}
		return
	}
	if !complete(b) {
		t.Errorf("complete(%q) = false; want true", b)
	}
	for n := len(b) - 1; n >= 0; n-- {
		if string(trimJSONSpace(b[:n])) == string(v) {
			continue // only trailing white space was cut
		}
		if complete(b[:n]) {
			t.Errorf("complete(%q) = true for a body cut short from %q; want false", b[:n], b)
		}
	}
}
