package ingest_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

// TestBINStageHasADeadline: a BIN service that accepts and never answers
// holds the BIN stage only until its deadline (the member time-out): BINs
// not reached by then are never sent, each is a problem of the run that
// says so, and the run finishes. Before, each BIN waited out its own
// time-out, a few at a time, for hours.
func TestBINStageHasADeadline(t *testing.T) {
	scale, err := sandbox.ParseScale("small")
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int32
	release := make(chan struct{}) // closed before the server's Close waits for its handlers
	env := sandboxtest.Start(t, sandbox.Config{Scale: scale},
		sandboxtest.WithHandler(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/bin/v1/binlookup" {
					lookups.Add(1)
					select { // accepted, never answered
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				next.ServeHTTP(w, r)
			})
		}))
	t.Cleanup(func() { close(release) })
	s := storetest.Open(t)
	c := env.Server.Config()
	res, err := pipeline.Run(context.Background(), s, pipeline.Options{Client: env.Client, OrganizationID: c.OrganizationID,
		BusinessDate: c.BusinessDate, Concurrency: 2, PaymentLists: 2, MemberTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var bins, unreached int
	for _, p := range res.Problems {
		if strings.Contains(p, "look up BIN") {
			bins++
		}
		if strings.Contains(p, "not looked up: the BIN stage's time limit (5s) was reached") {
			unreached++
		}
	}
	if bins == 0 || unreached == 0 || int(lookups.Load()) >= bins {
		t.Errorf("%d BIN problems, %d not reached by the stage's deadline, %d lookups sent; want the BINs past the deadline never sent and recorded so",
			bins, unreached, lookups.Load())
	}
	if res.MembersOK != len(env.Server.Members()) {
		t.Errorf("%d members reconciled of %d: the BIN stage's deadline must not cost the members", res.MembersOK, len(env.Server.Members()))
	}
}
