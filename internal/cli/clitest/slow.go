package clitest

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox/sandboxtest"
)

// SlowSwitch delays every answer of a sandbox by a fixed latency while it
// is on, as the sandbox's Faults.Latency does (the wait ends if the caller
// goes away). A test that needs a run slowed only while it watches it (to
// kill or signal it mid-run) turns it on for that run alone, and its other
// runs against the same sandbox, whose outcome latency does not change, go
// at full speed instead of sleeping through every request.
type SlowSwitch struct {
	Latency time.Duration
	On      atomic.Bool
}

// Option serves the sandbox through the switch.
func (s *SlowSwitch) Option() sandboxtest.Option {
	return sandboxtest.WithHandler(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if s.On.Load() {
				t := time.NewTimer(s.Latency)
				select {
				case <-t.C:
				case <-r.Context().Done():
					t.Stop()
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	})
}
