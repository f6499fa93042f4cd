package platform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The platform documents numbers as JSON strings ("12.34", "3"), but older
// services and other environments send some of them as JSON numbers, and
// booleans as "true"/"Y". The wire types below accept every such spelling so
// that one odd record does not fail a whole listing; the exported resource
// types then carry plain strings and *bool.

// flexString accepts a JSON string, number or boolean (kept as its literal
// text, so 12.50 stays "12.50") or null (empty).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*f = ""
	case b[0] == '"':
		// Most values are plain ASCII with no escapes: take them as they
		// are, without a second decoder pass (a third of a run's decoding).
		if len(b) >= 2 && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 {
			*f = flexString(b[1 : len(b)-1])
			return nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case b[0] == '{' || b[0] == '[':
		return fmt.Errorf("expected a string or number, got %s", kindOf(b))
	default: // number, true, false
		*f = flexString(b)
	}
	return nil
}

// flexBool accepts true/false, the strings "true"/"false", "Y"/"N", "yes"/"no",
// "1"/"0" (any case), the numbers 1/0, and null or "" (unset).
type flexBool struct {
	set, v bool
}

func (f *flexBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
	}
	switch strings.ToLower(s) {
	case "", "null":
		*f = flexBool{}
	case "true", "y", "yes", "1":
		*f = flexBool{set: true, v: true}
	case "false", "n", "no", "0":
		*f = flexBool{set: true, v: false}
	default:
		return fmt.Errorf("expected a boolean, got %.40s", b)
	}
	return nil
}

// ptr returns nil when the field was absent or null.
func (f flexBool) ptr() *bool {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// flexInt accepts an integer as a JSON number (3 or 3.0) or string ("3"), and
// null or "" as 0.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
	}
	if s == "" || s == "null" {
		*f = 0
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		*f = flexInt(n)
		return nil
	}
	// 3.0 or 3e2: accept only if integral and in range.
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x != float64(int64(x)) || x > 1<<53 || x < -(1<<53) {
		return fmt.Errorf("expected an integer, got %.40s", b)
	}
	*f = flexInt(x)
	return nil
}

func kindOf(b []byte) string {
	if len(b) > 0 && b[0] == '{' {
		return "an object"
	}
	return "an array"
}

// link is a HAL link.
type link struct {
	Href   flexString `json:"href"`
	Method flexString `json:"method"`
}

// Link is a HAL link of a resource, for callers that follow one.
type Link struct {
	Href, Method string
}

type pageLinks struct {
	Self *link `json:"self"`
	Next *link `json:"next"`
}

func (l pageLinks) next() string {
	if l.Next == nil {
		return ""
	}
	return strings.TrimSpace(string(l.Next.Href))
}
