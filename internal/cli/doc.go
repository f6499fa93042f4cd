// Package cli is reconcile's command line: each command's flags (one file
// per command), one configuration checked, and the wiring of the packages
// that do the work: internal/pipeline for a run, internal/finish for the
// end of a run or a merge, internal/merge, internal/doctor,
// internal/sqlguard, internal/checks (ack), internal/schedule and
// internal/sandbox. cmd/reconcile's main calls Main; tests call Run
// in-process, with an Env of their own.
package cli
