// Package ingest pulls what a run reconciles and loads it into the working
// database, each piece in transactions that hold a whole member or a whole
// file:
//
//   - the organization's groups and their members (LoadDirectory);
//   - each member's plans, subscriptions, payment lists and transactions,
//     with every subscription's projected billing schedule and the
//     member's run_members row (PullMembers; members.go, load.go,
//     billing.go). The schedule is projected here, by the rules of package
//     subscriptions, because its rows belong to the member's load: they
//     commit with the member's data and done-marker, or not at all;
//   - the merchants' journals (ImportJournals): each file opened only if it
//     is a regular file, hashed, streamed in chunks, its card data masked
//     (cardmask) before anything reads a line, each call inspected (calls)
//     into columns; rows of an older version are inspected again
//     (ReinspectJournal);
//   - the attributes of the BINs the run saw (EnrichBINs).
//
// It does not decide what a run is (package pipeline does) nor what the
// data means (package checks).
package ingest
