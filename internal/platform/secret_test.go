package platform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestNewSecret(t *testing.T) {
	s, err := NewSecret("  " + testSecretB64 + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Bytes()) != testSecretRaw {
		t.Errorf("Bytes() = %q", s.Bytes())
	}
	b := s.Bytes()
	b[0] = 'X'
	if string(s.Bytes()) != testSecretRaw {
		t.Error("Bytes() exposes the key for modification")
	}
	for _, bad := range []string{"", "   ", "not base64!", "YWJj$"} {
		_, err := NewSecret(bad)
		if err == nil {
			t.Errorf("NewSecret(%q) accepted", bad)
			continue
		}
		if in := strings.TrimSpace(bad); in != "" && strings.Contains(err.Error(), in) {
			t.Errorf("error repeats the input: %v", err)
		}
	}
}

// No way of printing a Secret, Credentials or a Client shows the key.
func TestSecretRedacted(t *testing.T) {
	creds := testCreds(t, testPortfolio)
	c, err := NewClient("https://api.example.net", creds)
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, v := range []any{creds.Secret, creds, &creds, c} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
			outputs = append(outputs, fmt.Sprintf(verb, v))
		}
	}
	js, err := json.Marshal(creds)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(js))
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	logger.Info("configured", "secret", creds.Secret, "creds", creds)
	var tbuf bytes.Buffer
	slog.New(slog.NewTextHandler(&tbuf, nil)).Info("configured", "secret", creds.Secret, "creds", creds)
	outputs = append(outputs, buf.String(), tbuf.String())

	hexKey := fmt.Sprintf("%x", testSecretRaw)
	for _, out := range outputs {
		if strings.Contains(out, testSecretRaw) || strings.Contains(out, testSecretB64) || strings.Contains(out, hexKey) ||
			strings.Contains(out, testSecretRaw[:12]) {
			t.Errorf("output leaks the secret: %s", out)
		}
	}
	if got := fmt.Sprintf("%v|%+v|%#v", creds.Secret, creds.Secret, creds.Secret); got != "REDACTED|REDACTED|REDACTED" {
		t.Errorf("Secret prints %q", got)
	}
	if !strings.Contains(buf.String(), `"secret":"REDACTED"`) {
		t.Errorf("slog JSON: %s", buf.String())
	}
	if !strings.Contains(string(js), `"Secret":"REDACTED"`) {
		t.Errorf("JSON: %s", js)
	}
}
