package alarms

import (
	"strings"
	"testing"
	"time"
)

// The response MLE key's alarm is raised 60 days ahead by default, at the
// file's response-mle-key-days otherwise, and says what to do; an expired
// key says it expired.
func TestKeyExpiryAlarm(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	def, err := Parse([]byte("members-lost: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	short, err := Parse([]byte("response-mle-key-days: 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		r      *Rules
		in     time.Duration
		raised bool
		want   string
	}{
		{def, 90 * 24 * time.Hour, false, "in 90 days (limit 60)"},
		{def, 60*24*time.Hour + time.Hour, true, "generate a new \"REST – API Response MLE\" key"},
		{short, 30 * 24 * time.Hour, false, "limit 10"},
		{def, -48 * time.Hour, true, "expired on 2026-11-26"},
	}
	for _, c := range cases {
		a := c.r.KeyExpiry("KID-1", now.Add(c.in), now)
		if a.Name != ResponseMLEKeyExpiry || a.Raised != c.raised || !strings.Contains(a.Message, c.want) || !strings.Contains(a.Message, "KID-1") {
			t.Errorf("%s ahead: %+v, want raised %v saying %q", c.in, a, c.raised, c.want)
		}
	}
	if _, err := Parse([]byte("response-mle-key-days: -1\n")); err == nil {
		t.Error("a negative response-mle-key-days is accepted")
	}
}
