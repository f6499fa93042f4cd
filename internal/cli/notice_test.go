package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/notify"
)

// The documented examples of the --alarms and --notify files are valid.
func TestExampleNoticeFiles(t *testing.T) {
	urlFile := filepath.Join(t.TempDir(), "url")
	if err := os.WriteFile(urlFile, []byte("https://hooks.example.com/T/B/x"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		return map[string]string{notify.EnvSMTPPassword: "x", notify.EnvWebhookURL: "https://hooks.example.com/x"}[k]
	}
	text, err := os.ReadFile("../../notify.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The example's secret files are /etc paths: read one of the test's instead.
	cfg, err := notify.Parse(text, func(string, string) ([]byte, error) { return os.ReadFile(urlFile) }, getenv)
	if err != nil {
		t.Fatalf("notify.example.yaml: %v", err)
	}
	if cfg.Email == nil || cfg.Webhook == nil || len(cfg.Groups) == 0 {
		t.Errorf("notify.example.yaml read as %+v", cfg)
	}
	if _, err := loadNotice(noticeOptions{alarms: "../../alarms.example.yaml"}, getenv); err != nil {
		t.Errorf("alarms.example.yaml: %v", err)
	}
}
