package platform

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
	"golang.org/x/time/rate"
)

// TestRateAdaptsToTheSandboxLimit: a client whose --rate is ten times the
// platform's limit (the sandbox's token bucket per key, 429 with
// Retry-After beyond it) loses no request to it: its rate falls below the
// limit on the 429s, never rises above its ceiling, and rises back as
// answers succeed; its own count of requests and 429s is the sandbox's.
func TestRateAdaptsToTheSandboxLimit(t *testing.T) {
	const limit, ceiling = 50, 500
	srv, err := sandbox.New(sandbox.Config{Seed: 3, Scale: sandbox.Scale{Members: 2, Subscriptions: 5, Groups: 1},
		BusinessDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		RateLimit:    sandbox.RateLimit{PerSecond: limit, Burst: 10}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cfg := srv.Config()
	secret, err := NewSecret(base64.StdEncoding.EncodeToString(cfg.Secret))
	if err != nil {
		t.Fatal(err)
	}
	creds := Credentials{Mode: AuthHTTPSignature, KeyID: cfg.KeyID, Secret: secret, PortfolioID: cfg.OrganizationID}
	c, err := NewClient(hs.URL, creds, WithRateLimiter(rate.NewLimiter(ceiling, 4)))
	if err != nil {
		t.Fatal(err)
	}
	var stats Stats
	ctx := WithStats(context.Background(), &stats)
	m := c.Merchant(srv.Members()[0])
	probe := func() {
		if err := m.Probe(ctx, FamilyRecurringBilling, time.Now()); err != nil {
			t.Error(err) // a 429 retried to the end would show here
		}
	}

	// Four members at once, as a run fans out.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				probe()
			}
		}()
	}
	wg.Wait()
	fell := c.Rate()
	if fell.Decreases == 0 || fell.Lowest >= limit {
		t.Fatalf("rate after 80 requests at %d/s against a limit of %d/s: %+v; want it to have fallen below the limit", ceiling, limit, fell)
	}
	if fell.Lowest < 1 || fell.Current > ceiling || fell.Ceiling != ceiling {
		t.Errorf("rate %+v: out of [1, %d]", fell, ceiling)
	}

	// One member on its own: the answers succeed, and the rate rises
	// back, a little for each second's worth of them.
	for i := 0; c.Rate().Increases <= fell.Increases || c.Rate().Current <= fell.Current; i++ {
		if i == 500 {
			t.Fatalf("rate did not rise back in 500 successful requests: %+v (after the 429s: %+v)", c.Rate(), fell)
		}
		probe()
	}
	if r := c.Rate(); r.Current > ceiling {
		t.Errorf("rate %v rose above the ceiling %d", r.Current, ceiling)
	}

	sv := srv.Served()
	if stats.Requests.Load() != sv.Requests || stats.RateLimited.Load() != sv.RateLimited {
		t.Errorf("client counted %d requests, %d answered 429; the sandbox served %d, %d answered 429",
			stats.Requests.Load(), stats.RateLimited.Load(), sv.Requests, sv.RateLimited)
	}
	if sv.RateLimited == 0 {
		t.Error("the sandbox answered no 429: the test did not reach the limit")
	}
	if got := stats.ByFamily()[FamilyRecurringBilling]; got != sv.Requests {
		t.Errorf("recurring billing requests %d, want all %d", got, sv.Requests)
	}
	t.Logf("rate %+v; %d requests, %d answered 429", c.Rate(), sv.Requests, sv.RateLimited)
}
