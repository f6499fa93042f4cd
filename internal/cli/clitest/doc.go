// Package clitest is what the end-to-end tests (internal/e2e/...) share: a
// sandbox on loopback HTTP with its journals and ground truth on disk
// (Fixture), the CLI run in-process (RunCLI) or as a process
// (ReconcileBinary, StartRun), runs made once per test binary and copied
// (SharedSmallRun, SharedMediumRun, SharedMergeShards), and the readers the
// tests assert with: findings against the ground truth, table digests, card
// number scans of every output, Prometheus samples, file trees.
//
// A package that uses a shared run or the binary calls Main from its
// TestMain, which ends them once its tests are done.
package clitest
