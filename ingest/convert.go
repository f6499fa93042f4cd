package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/platform"
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

// amount returns hundredths as int64 (exact into DECIMAL(18,2) through the
// Appender), or nil when absent.
func (c *converter) amount(field, s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	v, err := platform.ParseAmount(s)
	if err != nil {
		c.fail(field, s, err)
		return nil
	}
	return v
}

func (c *converter) integer(field, s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		c.fail(field, s, err)
		return nil
	}
	return int32(v)
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05", // group management's creationDateTime
	"2006-01-02",
}

// timestamp parses the platform's ISO 8601 times into UTC, or nil when absent.
func (c *converter) timestamp(field, s string) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	t, err := parseTime(s)
	if err != nil {
		c.fail(field, s, err)
		return nil
	}
	return t
}

func parseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an ISO 8601 time")
}

// text returns nil for an empty string, so absent fields are NULL.
func text(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// rawJSON is JSON text for a JSON column (staged as VARCHAR; see stage).
func rawJSON(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
