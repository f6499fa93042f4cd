package cli

import (
	"strings"
	"testing"
)

// hostile is text as an attacker-controlled server could send it: an OSC
// that retitles the window, a screen clear, a carriage return to overprint
// the line, a C1 CSI, a stray 0x9b byte, a line feed to forge a new line.
const hostile = "denied\x1b]0;owned\x07\x1b[2J\rfindings: 0\u009b31m\x9b\nok"

func TestTerminalLineAndText(t *testing.T) {
	const line = `denied\x1b]0;owned\x07\x1b[2J\x0dfindings: 0\u009b31m\x9b\x0aok`
	if got := terminalLine(hostile); got != line {
		t.Errorf("terminalLine:\n got %s\nwant %s", got, line)
	}
	if got := terminalText(hostile); got != strings.Replace(line, `\x0a`, "\n", 1) {
		t.Errorf("terminalText keeps line feeds only:\n%s", got)
	}
	for _, s := range []string{"plain text", "naïve — ünïcode ✓", ""} {
		if terminalLine(s) != s || terminalText(s) != s {
			t.Errorf("printable text changed: %q", s)
		}
	}
	if got := terminalLine("a\tb\x7f"); got != `a b\x7f` {
		t.Errorf("tab and DEL: %q", got)
	}
}
