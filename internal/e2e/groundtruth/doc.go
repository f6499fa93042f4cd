// Package groundtruth holds end-to-end tests: whole runs of the CLI
// (internal/cli) against the sandbox over loopback HTTP, whose findings,
// billing, payments audit, settlement and request counts must equal the
// sandbox's ground truth. It holds tests only.
package groundtruth
