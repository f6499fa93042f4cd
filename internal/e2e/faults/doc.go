// Package faults holds end-to-end tests of runs that meet faults: failing,
// panicking or slow members, transient errors, listings cut short, bad
// input, and runs of named merchants without group management; the rest of
// the run finishes and says what failed. It holds tests only.
// code.
package faults
