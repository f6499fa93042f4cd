// Package process holds end-to-end tests of reconcile as a process: the
// built binary killed and re-run, signals, the one-writer lock, file
// modes, scheduling and the terminal's display. It holds tests
// only.
package process
