package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// doc is a decoded JSON request body read by dotted field paths, the way
// the spec names fields (orderInformation.amountDetails.totalAmount). The
// write endpoints read bodies this way because the payments API passes
// most fields through: only the ones a rule needs are looked at.
type doc map[string]any

// get walks a dotted path; nil when any step is missing.
func (d doc) get(path string) any {
	var v any = map[string]any(d)
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func (d doc) has(path string) bool { return d.get(path) != nil }

// str is the value at path as a string: strings as they are, numbers and
// booleans as written; "" when absent or not a scalar.
func (d doc) str(path string) string { return scalar(d.get(path)) }

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// boolean reads a JSON boolean or the strings "true"/"false".
func (d doc) boolean(path string) bool {
	v := d.get(path)
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return strings.EqualFold(strings.TrimSpace(x), "true")
	}
	return false
}

// list is the array at path (nil when absent or not an array).
func (d doc) list(path string) []any {
	a, _ := d.get(path).([]any)
	return a
}

// obj is the object at path as a doc (empty when absent).
func (d doc) obj(path string) doc {
	m, _ := d.get(path).(map[string]any)
	if m == nil {
		return doc{}
	}
	return doc(m)
}

// strings reads an array of scalars at path.
func (d doc) strings(path string) []string {
	var out []string
	for _, v := range d.list(path) {
		out = append(out, scalar(v))
	}
	return out
}

// checks collects the field errors of a request, as the platform reports
// them: one detail per field, reason MISSING_FIELD or INVALID_DATA.
type checks struct {
	details []errorDetail
	missing bool
}

// require adds a MISSING_FIELD detail for every path that is absent or
// empty.
func (c *checks) require(d doc, paths ...string) {
	for _, p := range paths {
		v := d.get(p)
		if v == nil || (scalar(v) == "" && !isContainer(v)) {
			c.details = append(c.details, errorDetail{Field: p, Reason: "MISSING_FIELD"})
			c.missing = true
		}
	}
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// invalid adds an INVALID_DATA detail (or the given reason).
func (c *checks) invalid(field, reason string) {
	if reason == "" {
		reason = "INVALID_DATA"
	}
	c.details = append(c.details, errorDetail{Field: field, Reason: reason})
}

func (c *checks) ok() bool { return len(c.details) == 0 }

// parseAmount reads a decimal amount string (at most two decimals, not
// negative) into minor units.
func parseAmount(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty amount")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" {
		whole = "0"
	}
	if strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" || (hasDot && frac == "") {
		return 0, fmt.Errorf("amount %q is not a decimal number", s)
	}
	if len(frac) > 2 {
		return 0, fmt.Errorf("amount %q has more than two decimals", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > 1e13 {
		return 0, fmt.Errorf("amount %q is out of range", s)
	}
	f := 0
	if frac != "" {
		f, _ = strconv.Atoi((frac + "0")[:2])
	}
	return w*100 + int64(f), nil
}

// amountField reads a required or optional amount at path into c.
func (c *checks) amountField(d doc, path string, required bool) (int64, bool) {
	v := d.str(path)
	if v == "" {
		if required {
			c.require(d, path)
		}
		return 0, false
	}
	n, err := parseAmount(v)
	if err != nil {
		c.invalid(path, "")
		return 0, false
	}
	return n, true
}

// currencyField reads a three-letter currency code.
func (c *checks) currencyField(d doc, path string, required bool) string {
	v := strings.ToUpper(d.str(path))
	if v == "" {
		if required {
			c.require(d, path)
		}
		return ""
	}
	if len(v) != 3 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		c.invalid(path, "")
		return ""
	}
	return v
}
