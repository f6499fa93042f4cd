package clitest

import (
	"fmt"
	"testing"
)

// TestPromLabelRegexp: the label syntax ParseProm reads holds escaped
// quotes (metrics.escapeLabel writes them).
func TestPromLabelRegexp(t *testing.T) {
	if s := fmt.Sprint(promLabel.FindStringSubmatch(`k="a\"b",`)[2]); s != `a\"b` {
		t.Errorf("label regexp: %s", s)
	}
}
