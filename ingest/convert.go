package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
)

// converter turns the platform's text fields into typed column values,
// remembering the first field that did not convert, so that a bad record
// fails its member with a message naming the record and the field.
type converter struct {
	err error
}

func (c *converter) fail(field, value string, err error) {
	if c.err == nil {
		c.err = fmt.Errorf("%s %q: %w", field, value, err)
	}
}

// amount returns thousandths (exact into DECIMAL(18,3): store.Batch.Amount),
// and false when absent or not an amount.
func (c *converter) amount(field, s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	v, err := platform.ParseAmount(s)
	if err != nil {
		c.fail(field, s, err)
		return 0, false
	}
	return v, true
}

// integer returns an INTEGER, and false when absent or not one.
func (c *converter) integer(field, s string) (int32, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		c.fail(field, s, err)
		return 0, false
	}
	return int32(v), true
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05", // group management's creationDateTime
	"2006-01-02",
}

// timestamp parses the platform's ISO 8601 times into UTC, and false when
// absent or not a time.
func (c *converter) timestamp(field, s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	t, err := parseTime(s)
	if err != nil {
		c.fail(field, s, err)
		return time.Time{}, false
	}
	return t, true
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 time")
}

// text returns nil for an empty string, so absent fields are NULL (for rows
// built as []any: store.Batch.Add; the typed setter is Batch.Text).
func text(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// orNull is v, or nil (NULL) unless ok: a converter's result in a row built
// as []any.
func orNull[T any](v T, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// rawJSON is JSON text for a JSON column in a row built as []any.
func rawJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}
