// Package merge holds end-to-end tests of sharded runs (--shard i/n) and
// reconcile merge: the merged publication equals a full run's, and a merge
// of shards that do not make one run is refused. It holds tests
// only.
package merge
