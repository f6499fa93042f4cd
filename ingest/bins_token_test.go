package ingest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// TestBINTokenRefusedTriesTheNext: a BIN whose prefix answers MULTIPLE is
// looked up again with the tokens its transactions carry; when the
// platform refuses the first token (a customer deleted since), the next
// one still resolves the BIN, and the run records no BIN problem.
func TestBINTokenRefusedTriesTheNext(t *testing.T) {
	scale, err := sandbox.ParseScale("small")
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int32
	env := sandboxtest.Start(t, sandbox.Config{Scale: scale},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == "POST" && r.URL.Path == "/bin/v1/binlookup" {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					token := bytes.Contains(body, []byte(`"customer"`)) || bytes.Contains(body, []byte(`"instrumentIdentifier"`))
					if token && refused.Add(1) == 1 {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusNotFound)
						io.WriteString(w, `{"status":"NOT_FOUND","reason":"NOT_FOUND","message":"customer not found"}`)
						return
					}
				}
				next.ServeHTTP(w, r)
			})
		}))
	s, res := runOnSandbox(t, env)
	if refused.Load() < 2 {
		t.Fatalf("%d token lookup(s): no token was tried after the refused first one (or the data has no BIN a token resolves)", refused.Load())
	}
	for _, p := range res.Problems {
		if strings.Contains(p, "BIN") {
			t.Errorf("BIN problem recorded: %s", p)
		}
	}
	var byToken int
	if err := s.Conn().QueryRowContext(context.Background(),
		`SELECT count(*) FROM bin_attributes WHERE resolved_by = 'token' AND lookup_status = 'COMPLETED'`).Scan(&byToken); err != nil {
		t.Fatal(err)
	}
	if byToken == 0 {
		t.Error("no BIN resolved by a token after the first token was refused")
	}
}
