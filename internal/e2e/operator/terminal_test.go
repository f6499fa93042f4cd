package operator

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/progress"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// hostile is text as an attacker-controlled server could send it: an OSC
// that retitles the window, a screen clear, a carriage return to overprint
// the line, a C1 CSI, a stray 0x9b byte, a line feed to forge a new line.
const hostile = "denied\x1b]0;owned\x07\x1b[2J\rfindings: 0\u009b31m\x9b\nok"

// TestServerTextNeverReachesTheTerminalRaw: a member fails with a platform
// error message full of escapes; the summary on stdout, the logs and the
// progress display on stderr and the exit message carry none of them raw,
// and still show what the platform said.
func TestServerTextNeverReachesTheTerminalRaw(t *testing.T) {
	t.Parallel() // its own sandbox, files and database
	f := clitest.NewFixture(t, sandbox.Config{})
	bad := f.Srv.Members()[1]
	h := f.Srv.Handler()
	body, _ := json.Marshal(map[string]string{"status": "FORBIDDEN", "reason": "NOT_AUTHORIZED\x1b[5m", "message": hostile})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("v-c-merchant-id") != bad {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write(body)
	}))
	defer proxy.Close()
	f.URL = proxy.URL
	work := t.TempDir()
	code, stdout, stderr := clitest.RunCLI(t, clitest.SandboxEnv, f.RunArgs(filepath.Join(work, "r.duckdb"), filepath.Join(work, "out"), "--progress", "always")...)
	if code != cli.ExitPartial {
		t.Fatalf("run exited %d, want %d\n%s\n%s", code, cli.ExitPartial, stdout, stderr)
	}
	assertNoControls(t, "stdout", stdout, false)
	// The display's own line control is the only one allowed on stderr.
	shown := strings.ReplaceAll(stderr, "\r\x1b[K", "")
	for _, c := range []string{"\x1b", "\x07", "\r"} {
		if strings.Contains(shown, c) {
			t.Errorf("stderr carries %q raw:\n%q", c, stderr)
		}
	}
	if !strings.Contains(stdout, "failed "+bad+": ") || !strings.Contains(stdout, `denied\x1b]0;owned\x07`) {
		t.Errorf("the summary does not show the member's error, escaped:\n%s", stdout)
	}
}

// slog's handlers already keep control characters out of their output: the
// text handler (on a terminal) quotes any value that holds one, the JSON
// handler escapes C0 (C1 passes, but JSON logs go to files and collectors).
func TestSlogHandlersQuoteControlCharacters(t *testing.T) {
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error(hostile, "error", hostile, hostile, 1)
	assertNoControls(t, "slog text handler", text.String(), true)
	slog.New(slog.NewJSONHandler(&js, nil)).Error(hostile, "error", hostile)
	for _, c := range []string{"\x1b", "\x07", "\r"} {
		if strings.Contains(js.String(), c) {
			t.Errorf("slog JSON handler wrote %q raw: %q", c, js.String())
		}
	}
	var rec map[string]any
	if err := json.Unmarshal(js.Bytes(), &rec); err != nil || rec["error"] != strings.ToValidUTF8(hostile, "\ufffd") {
		t.Errorf("JSON log record: %v, %q", err, rec["error"])
	}
}

// The progress display lets only its own line move the cursor: whatever is
// logged through it is escaped, whichever handler wrote it.
func TestProgressDisplayEscapesWhatIsLogged(t *testing.T) {
	var buf bytes.Buffer
	d := progress.New(&buf, time.Now)
	if n, err := d.Write([]byte(hostile + "\n")); n != len(hostile)+1 || err != nil {
		t.Errorf("Write = %d, %v", n, err)
	}
	d.Close()
	assertNoControls(t, "progress display", strings.ReplaceAll(buf.String(), "\r\x1b[K", ""), true)
}
