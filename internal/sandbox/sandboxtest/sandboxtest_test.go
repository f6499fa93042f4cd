package sandboxtest_test

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// Start's client is accepted by its sandbox in every auth mode, acting for
// a member as the portfolio user; the sandbox stops serving when the test
// that started it ends.
func TestStartEachAuthMode(t *testing.T) {
	var urls []string
	for _, mode := range platform.AuthModes {
		t.Run(string(mode), func(t *testing.T) {
			env := sandboxtest.Start(t, sandbox.Config{Seed: 3}, sandboxtest.WithAuth(mode))
			urls = append(urls, env.URL)
			mid := env.Server.Members()[0]
			n := 0
			for p, err := range env.Client.Merchant(mid).Plans(context.Background()) {
				if err != nil {
					t.Fatalf("plans of %s: %v", mid, err)
				}
				if p.ID == "" {
					t.Fatal("a plan without an id")
				}
				n++
			}
			if n == 0 {
				t.Fatalf("no plans listed for %s", mid)
			}
		})
	}
	for _, u := range urls {
		resp, err := http.Get(u + "/group-management/v1/groups")
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers (%s) after its test ended", u, resp.Status)
		} else if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("%s after its test ended: %v, want connection refused", u, err)
		}
	}
}
