// Package sandbox is the simulated payments platform: served over real HTTP,
// it is both the product's embedded default (`reconcile run` with no
// --base-url) and its test bed. A reconciliation run against it is compared,
// entity by entity, with the ground truth it writes, so the data carries no
// anomaly that is not planted and recorded. The planter records what it
// plants on the object it plants it on, and the ground truth of those kinds
// is the record (planted.go); the other kinds' truth is still computed from
// the data by the definitions of their queries/findings files (truth*.go).
// docs/sandbox.md is the user's guide.
//
// # What it serves
//
// Every service area of the interface spec, with the shapes of docs/dev/wire.md:
//
//   - Group management: create, list, get, patch, delete (groups.go), under
//     the spec's permission rules (users.go).
//   - Recurring billing: plans with filters and the plan state table
//     (plans.go, filters.go), subscriptions and their lifecycle
//     (subscriptions.go), payment lists and skipping (subpayments.go), and
//     a billing engine driven by a data clock (engine.go, clock.go).
//   - Payments (/pts/v2): authorizations and sales with the credentialed,
//     device-wallet, healthcare and Level II/III rules (payments.go),
//     follow-ons (followons.go), buy-now-pay-later (bnpl.go).
//   - Installments (installments.go), BIN lookup (binlookup.go), key
//     generation (keys.go).
//   - Transaction Search and transaction detail over every transaction,
//     generated or made through the API (tss.go).
//   - The customer emails of recurring billing, recorded rather than sent
//     (notices.go).
//   - Its own controls under /sandbox/v1: the clock, merchant settings and
//     the recorded emails (control.go).
//
// # Where things are
//
// One package, in three areas; files are named after what they hold.
//
// The world: the deterministic data and what is known about it.
//
//	model.go          a member's data: plans, subscriptions, payments, transactions, calls
//	gen.go            generating a member from the seed; the planted rates of recurring billing
//	plant_billing.go  the planted recurring-billing anomalies and billing-journal gaps
//	plant_calls.go    the planted calls of the other service areas, and their rates
//	plant_retries.go  the planted runs of retries of declined cards, and their rates
//	bins.go           the BIN table, cards and stateless tokens
//	engine.go         the billing engine the data clock drives
//	clock.go          the data clock (and its control endpoint)
//	cache.go          the bounded cache of generated members
//	apistate.go       what payments-API writes leave on a member; merchant settings
//	planted.go        the ground truth of the kinds the planter records as it plants them
//	truth*.go         the ground truth of the other kinds, computed from the data (areas, billing, retries)
//	journal*.go       the merchants' journals (journal_areas.go: the area calls' shapes)
//
// The HTTP server: every request's way in and out.
//
//	server.go         Server, New, and serve: authentication, merchant check, faults, buffering
//	auth.go, jwt.go   the HTTP signature and the JWTs; users.go, the kinds of user and their keys
//	routes.go         the route table: each endpoint, its access and its handler
//	exchange.go       the adapter every handler runs in: permission, body, lock, target, answer
//	answer.go         the error body and how answers are written
//	declines.go       how a declined payment is answered (response and merchant advice codes)
//	requests.go       request bodies read by dotted path, and their field checks
//	paging.go         query parameters and the links of list pages
//	format.go         how amounts, rates, times and links are written
//	fastjson.go       hand-written encoders of the two big lists
//	faults.go         latency, 429/503 and short listings (Config.Faults)
//	config.go         Config, Scale, Faults
//
// The endpoints, one file per service area, named as the client's are in
// package platform: groups.go, plans.go (filters.go), subscriptions.go,
// subpayments.go, payments.go, followons.go, bnpl.go, installments.go,
// binlookup.go, keys.go, tss.go, notices.go, control.go. A handler holds
// only its endpoint's rules: exchange.go has decoded the body, locked the
// member and found the resource before it runs.
//
// Why one package: the world and the server share one data model that
// both change in place. The endpoints write into a member's plans,
// subscriptions and transactions under its lock, the billing engine runs
// on request, and the planted calls carry the same API records the
// endpoints make and serve again (apiTxn, call.response). Counted, the
// server files use some 190 unexported names of the world files (fields,
// helpers, constants) and the world files some 60 of the server's: a world
// package would export most of its internals and import the server's
// records back, so the seam is kept as files instead.
//
// Tests of other packages start the sandbox with sandboxtest.Start
// (package sandboxtest): served on loopback until the test ends, with a
// platform client signed with the test credentials.
//
// # Authentication
//
// Every request is checked like the platform does (docs/platform.md, Authentication): the
// HTTP signature with HmacSHA256 over host, date, request-target (the old
// (request-target) spelling is accepted too), digest (required on
// POST/PUT/PATCH and checked against the body) and v-c-merchant-id, whose
// signing line must carry the key's owner while the header names the
// merchant acted for. A Date more than 5 minutes off, an unknown key or a
// wrong signature is 401; a merchant the key may not act for is 403. There
// is one key per kind of user the spec's permissions name (users.go); the
// default credentials are DefaultOrganizationID, DefaultKeyID and
// DefaultSecret. JWTs are accepted too (jwt.go), as the platform's SDK
// makes them: HS256 with a key's shared secret, or RS256 with the
// certificates of Config.Certificates; a bad one answers the same 401.
//
// # Data and state
//
// Everything generated derives from (Seed, Scale, BusinessDate): each
// member, each of its subscriptions and its journal have their own PCG
// stream, so a member is generated alone, lazily, and kept in a bounded
// cache; an evicted member is regenerated identically. The data is as of
// BusinessDate+1 day 02:00 UTC (the nightly run), where the data clock
// starts: payments before that are processed, later ones are scheduled.
// Payments fall between 08:00 and 20:00 UTC. Resource ids are 22 digits
// (Unix second, member, sequence), token ids 32 hex digits, and no
// identifier is a run of 13-19 digits, so nothing but a card number looks
// like one.
//
// Moving the clock runs the billing engine, whose outcomes are drawn from
// streams keyed by subscription, cycle and attempt: a member moved in one
// step or many, or evicted and regenerated, reaches the same state. A
// write pins its member in the cache, because its state is then no longer
// a generation. The ground truth and the journals always describe the data
// as generated (the untouched data set): a test that writes or moves the
// clock computes its own expectations.
//
// Planted, per member (rates in gen.go): subscriptions DELINQUENT (~4%,
// never on daily plans, whose one retry an hour later cannot still be
// pending at 02:00), SUSPENDED (~3%, retries exhausted or a do-not-retry
// decline), CANCELLED (~3%), PENDING (~2%), skipped future cycles on ~5% of
// ACTIVE ones; among PAID payments of [BusinessDate-6 days, BusinessDate+1
// day): ~3% whose transaction does not exist and ~3% whose transaction's
// amount (or, one in four, currency) differs; among the merchant's own
// calls, 25% of commercial-card captures and sales without Level III, 12% of
// Level III calls answered level3TransmissionStatus N (half as false); and
// a few calls on BINs nothing resolves; and the recurring-billing anomalies
// of plant_billing.go (missed cycles, double charges, prices off the plan,
// retries off schedule, legacy plans over 12 months, gaps in the merchants'
// billing journals). Member 1 is topped up so that every kind occurs on
// BusinessDate itself, inside the window whatever the lookback. The
// merchants' calls of the other service areas (credentialed, healthcare,
// buy-now-pay-later, installments, wallets, contactless) and the payments
// audit's kinds are planted by plant_calls.go, at the rates listed there;
// the card-network retry kinds, with their near-misses, by
// plant_retries.go.
//
// # Where the spec and the facts are silent
//
// The sandbox picks what the real platform most plausibly does, and says so
// where it does it. In short: a search is answered 201 (as the platform's
// other creates); date math in a search query is relative to the data clock;
// retries still to come are not listed as payments (a retry cannot be added
// to the skip list, so it is not a listed future payment);
// cyclesCompletedCount counts cycles by the status of their last payment;
// custom billing frequencies take the retry schedule of their unit; an
// inactive plan offers only self and activate links; billingCycles.total
// "0" asks for a bill-indefinitely plan; plans are deleted with DELETE on
// the plan; commercial credits always carry Level III, because docs/findings.md's
// rule flags captures and sales only; tokens are stateless (enciphered BIN
// and range), so any merchant's BIN lookup resolves them without a token
// table; card payments settle in a nightly batch at 00:00 UTC, after which
// they cannot be voided; the cents of an amount can ask for an outcome
// (engine.go); a Level II/III rate above 1 (a percent written where the
// spec writes a fraction) is passed through, not rejected, as the rest of
// Level II/III data is. docs/dev/wire.md lists the wire-level decisions.
package sandbox
