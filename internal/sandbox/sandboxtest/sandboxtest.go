// Package sandboxtest starts the sandbox for a test: served on a loopback
// port (httptest) until the test ends, with a platform client signed with
// the sandbox's test credentials. It is the one copy of the setup every
// test against the sandbox needs:
//
//	env := sandboxtest.Start(t, sandbox.Config{Seed: 7})
//	for p, err := range env.Client.Merchant(env.Server.Members()[0]).Plans(ctx) { … }
//
// The package imports platform, so platform's own tests (package platform)
// cannot use it; they set the sandbox up themselves, as the sandbox's tests
// do with a signer of their own.
package sandboxtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/sandbox"
	"github.com/reconcile/reconcile/internal/testsign"
)

// Env is a sandbox serving on loopback and a client of it.
type Env struct {
	// URL is the sandbox's base URL (http://127.0.0.1:port).
	URL string
	// Server is the sandbox, for its Go methods (Members, GroundTruth,
	// WriteJournals, AdvanceClock, …).
	Server *sandbox.Server
	// Client acts as the portfolio user (the default key, signing as the
	// organization), in the auth mode of WithAuth, with no rate limit and
	// retries that wait milliseconds, not seconds.
	Client *platform.Client

	http *http.Client
	sign testsign.HTTPSignature
}

// fastRetry is the client's retry policy: the platform's rules with
// millisecond waits, so that a test of faults does not sleep.
var fastRetry = platform.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond,
	MaxRetryAfter: 50 * time.Millisecond}

// Option changes what Start makes.
type Option func(*options)

type options struct {
	mode       platform.AuthMode
	clientOpts []platform.Option
	wrap       func(http.Handler) http.Handler
}

// WithAuth makes the client authenticate in mode (default the HTTP
// signature). For platform.AuthJWTP12 a throwaway key and certificate are
// made (sandbox.TestKeyPair) and the sandbox is started trusting it.
func WithAuth(mode platform.AuthMode) Option {
	return func(o *options) { o.mode = mode }
}

// WithClientOptions passes options to platform.NewClient, after the
// defaults (so platform.WithRetryPolicy replaces the fast retries).
func WithClientOptions(opts ...platform.Option) Option {
	return func(o *options) { o.clientOpts = append(o.clientOpts, opts...) }
}

// WithHandler serves the sandbox's handler wrapped by wrap, e.g. to
// record the responses a test's run received.
func WithHandler(wrap func(http.Handler) http.Handler) Option {
	return func(o *options) { o.wrap = wrap }
}

// Start builds a sandbox of cfg, serves it on loopback until tb ends, and
// returns it with a client; any failure fails tb.
func Start(tb testing.TB, cfg sandbox.Config, opts ...Option) *Env {
	tb.Helper()
	o := options{mode: platform.AuthHTTPSignature}
	for _, opt := range opts {
		opt(&o)
	}
	creds := platform.Credentials{Mode: o.mode}
	if o.mode == platform.AuthJWTP12 {
		key, cert, err := sandbox.TestKeyPair(cmp.Or(cfg.OrganizationID, sandbox.DefaultOrganizationID))
		if err != nil {
			tb.Fatalf("sandboxtest: %v", err)
		}
		if creds.P12, err = platform.NewP12Key(key, cert); err != nil {
			tb.Fatalf("sandboxtest: %v", err)
		}
		trusted, err := sandbox.NewCertificate(cert)
		if err != nil {
			tb.Fatalf("sandboxtest: %v", err)
		}
		cfg.Certificates = append(cfg.Certificates[:len(cfg.Certificates):len(cfg.Certificates)], trusted)
	}
	srv, err := sandbox.New(cfg)
	if err != nil {
		tb.Fatalf("sandboxtest: %v", err)
	}
	h := srv.Handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	hs := httptest.NewServer(h)
	tb.Cleanup(hs.Close)
	c := srv.Config()
	if creds.Secret, err = platform.NewSecret(base64.StdEncoding.EncodeToString(c.Secret)); err != nil {
		tb.Fatalf("sandboxtest: the sandbox's secret: %v", err)
	}
	creds.KeyID, creds.PortfolioID = c.KeyID, c.OrganizationID
	client, err := platform.NewClient(hs.URL, creds, append([]platform.Option{platform.WithRetryPolicy(fastRetry)}, o.clientOpts...)...)
	if err != nil {
		tb.Fatalf("sandboxtest: client: %v", err)
	}
	return &Env{URL: hs.URL, Server: srv, Client: client, http: hs.Client(),
		sign: testsign.HTTPSignature{KeyID: c.KeyID, Secret: c.Secret, SignAs: c.OrganizationID}}
}

// Do sends one request the product's client does not model (the
// sandbox's write endpoints: create a subscription, update a card, create
// a group, ...) as the portfolio user acting for merchant, signed with an
// HTTP signature by internal/testsign (not by package platform). body is
// nil or encoded as JSON; out is nil or decoded from the answer. An answer
// other than 2xx is an error carrying the status and body.
func (e *Env) Do(ctx context.Context, merchant, method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return fmt.Errorf("%s %s: encode: %w", method, path, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, e.URL+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("v-c-merchant-id", merchant)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	e.sign.Sign(req, raw)
	resp, err := e.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}
