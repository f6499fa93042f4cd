// Package platform is the REST client of the payments platform.
//
// It owns everything between a typed Go call and the bytes on the wire:
// HTTP-signature signing (portfolio keys included), retries with jittered
// backoff, a shared rate limit, paging, and the decoding of the resources the
// rest of the project reads (groups, plans, subscriptions, subscription
// payments, transaction summaries, BIN lookups). It keeps no state beyond the
// client, runs no SQL, writes no reports and does not log: every failure comes
// back as an error that says what was called.
//
// The layers, outermost first:
//
//	Merchant method (typed resource, paging)        groups.go, rbs.go, tss.go, bin.go
//	Client.send: rate limit, retry, typed errors    client.go, retry.go, errors.go
//	signer (http.RoundTripper): Date, Digest, Signature   sign.go
//	the http.Client's own transport
//
// Retries and rate limiting wrap the client in one place, so no call site
// writes a retry loop; signing sits in the transport so that every attempt,
// retries included, is signed afresh with its own Date and Digest.
//
// Shapes not given by the interface specification follow
// ../shared/spec/platform-facts.md and docs/wire.md.
package platform
