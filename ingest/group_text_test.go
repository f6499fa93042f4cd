package ingest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// TestGroupNameWithAStrayByteIsRepaired: one invalid UTF-8 byte in a
// group's name (the platform's answer as sent) is repaired, as a journal's
// text is: the run reconciles every member, the name is stored with U+FFFD
// in the byte's place. It failed the whole run.
func TestGroupNameWithAStrayByteIsRepaired(t *testing.T) {
	env := startRewritten(t, func(r *http.Request, status int, body []byte) []byte {
		if !strings.HasPrefix(r.URL.Path, "/group-management/") {
			return body
		}
		return bytes.Replace(body, []byte(`"name":"`), []byte("\"name\":\"Caf\xe9 "), 1)
	})
	s, res := runOnSandbox(t, env)
	if res.MembersOK != len(env.Server.Members()) {
		t.Fatalf("%d members reconciled of %d", res.MembersOK, len(env.Server.Members()))
	}
	var n int
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT count(*) FROM groups WHERE name LIKE ?`, "Caf\uFFFD %").Scan(&n); err != nil || n != 1 {
		t.Errorf("groups named with the repaired byte: %d (%v), want 1", n, err)
	}
}

// startRewritten starts the small sandbox behind a proxy that passes each
// answer's body through rewrite (the platform's answer as a hostile or
// broken platform would send it), one request at a time.
func startRewritten(t *testing.T, rewrite func(r *http.Request, status int, body []byte) []byte) *sandboxtest.Env {
	t.Helper()
	scale, err := sandbox.ParseScale("small")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return sandboxtest.Start(t, sandbox.Config{Scale: scale},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				body := rewrite(r, rec.Code, rec.Body.Bytes())
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.Header().Del("Content-Length")
				w.WriteHeader(rec.Code)
				io.Copy(w, bytes.NewReader(body))
			})
		}))
}
