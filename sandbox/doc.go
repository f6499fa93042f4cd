// Package sandbox is the simulated payments platform: served over real HTTP,
// it is both the product's embedded default (`reconcile run` with no
// --base-url) and its test bed. A reconciliation run against it is compared,
// entity by entity, with the ground truth it writes, so the data carries no
// anomaly that is not planted and recorded, and the ground truth is computed
// from the data by the definitions of DESIGN.md rather than from the
// planting decisions.
//
// # What it serves (this version)
//
// Groups (GET /groups, /groups/{organizationId}, /groups/{groupId}),
// recurring billing reads (plans, plan code, subscriptions, subscription
// payments), Transaction Search (POST /tss/v2/searches, GET
// /tss/v2/transactions/{id}) and BIN lookup, with the shapes of
// docs/wire.md. Anything else is 404 with an error body. Write endpoints,
// payments, installments and the billing engine come later: each member's
// data sits in a struct behind its own mutex so that they can change it.
//
// # Authentication
//
// Every request is checked like the platform does (platform-facts.md): the
// HTTP signature with HmacSHA256 over host, date, request-target (the old
// (request-target) spelling is accepted too), digest (required on
// POST/PUT/PATCH and checked against the body) and v-c-merchant-id, whose
// signing line must carry the key's owner, the organization, while the
// header names the member acted for. A Date more than 5 minutes off, an
// unknown key or a wrong signature is 401; a header merchant that is neither
// the organization nor a member of its groups is 403. The default
// credentials are DefaultOrganizationID, DefaultKeyID and DefaultSecret.
//
// # Data
//
// Everything derives from (Seed, Scale, BusinessDate): each member, each of
// its subscriptions and its journal have their own PCG stream, so a member
// is generated alone, lazily, and kept in a bounded cache; an evicted member
// is regenerated identically. The data is as of BusinessDate+1 day 02:00 UTC
// (the nightly run): payments before that are processed, later ones are
// scheduled. Payments fall between 08:00 and 20:00 UTC. Resource ids are 22
// digits (Unix second, member, sequence), token ids 32 hex digits, and no
// identifier is a run of 13-19 digits, so nothing but a card number looks
// like one.
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
// a few calls on BINs nothing resolves. Member 1 is topped up so that every
// kind occurs on BusinessDate itself, inside the window whatever the
// lookback.
//
// # Where the spec and the facts are silent
//
// The sandbox picks what the real platform most plausibly does, and says so
// where it does it. In short: a search is answered 201 (as the platform's
// other creates); date math in a search query is relative to the data clock;
// retries still to come are not listed as payments (the facts say a retry
// cannot be added to the list, so it is not a listed future payment);
// cyclesCompletedCount counts cycles by the status of their last payment;
// custom billing frequencies take the retry schedule of their unit; an
// inactive plan offers only self and activate links; commercial credits
// always carry Level III, because DESIGN.md's rule flags captures and sales
// only; tokens are stateless (enciphered BIN and range), so any merchant's
// BIN lookup resolves them without a token table.
package sandbox
