package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestQuietHandler(t *testing.T) {
	var b bytes.Buffer
	log := QuietTerminal(slog.New(slog.NewTextHandler(&b, nil)), "info")
	log.Info("run started", "run_id", "r")
	log.Info("member loaded", "merchant_id", "m1")
	log.With("merchant_id", "m2").Info("payment lists")
	log.WithGroup("journal").Info("journal file", "file", "j.ndjson")
	log.With("run_id", "r").Warn("member failed", "merchant_id", "m3")
	out := b.String()
	if !strings.Contains(out, "run started") || !strings.Contains(out, "member failed") {
		t.Errorf("the run's records and warnings must show:\n%s", out)
	}
	for _, hidden := range []string{"m1", "m2", "j.ndjson"} {
		if strings.Contains(out, hidden) {
			t.Errorf("a per-item INFO record (%s) shows:\n%s", hidden, out)
		}
	}
	b.Reset()
	QuietTerminal(slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), "debug").Info("member loaded", "merchant_id", "m1")
	if !strings.Contains(b.String(), "m1") {
		t.Error("--log-level debug hides a member's record")
	}
}
