// Package platform is the REST client of the payments platform.
//
// It owns everything between a typed Go call and the bytes on the wire:
// authentication in the platform's three modes (HTTP signature, JWT with
// the shared secret, JWT with a P12 key; portfolio keys included), retries with jittered
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
//	signer (http.RoundTripper): Date, and the mode's    sign.go, jwt.go, jwt_p12.go
//	  Digest + Signature, or Authorization: Bearer JWT
//	the http.Client's own transport
//
// Retries and rate limiting wrap the client in one place, so no call site
// writes a retry loop; signing sits in the transport so that every attempt,
// retries included, is signed afresh with its own Date and digest (and a
// JWT of its own).
//
// Shapes not given by the interface specification follow docs/dev/wire.md,
// which takes the platform's SDK models as the reference; the decoders read
// the SDK's spellings and the older ones.
package platform
