package clitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// PushReceiver is a local HTTP server taking what --metrics-push sends.
type PushReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	Method string
	Path   string
	CType  string
	Body   []byte
	Pushes int
}

// StartPushReceiver starts a Pushgateway stand-in on loopback HTTP that
// keeps the last push; it stops when the test ends.
func StartPushReceiver(t *testing.T) *PushReceiver {
	p := &PushReceiver{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.Method, p.Path, p.CType, p.Body = r.Method, r.URL.EscapedPath(), r.Header.Get("Content-Type"), b
		p.Pushes++
		p.mu.Unlock()
	}))
	t.Cleanup(p.Close)
	return p
}

// Last is the last push: its method, path and Content-Type, and how many
// pushes came.
func (p *PushReceiver) Last() (method, path, ctype string, pushes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Method, p.Path, p.CType, p.Pushes
}

// Samples parses the last push as ParseProm parses a metrics file.
func (p *PushReceiver) Samples(t *testing.T) []PromSample {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	path := filepath.Join(t.TempDir(), "pushed.prom")
	if err := os.WriteFile(path, p.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	return ParseProm(t, path)
}
