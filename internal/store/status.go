package store

import "strings"

// The values of the status columns of the run log (runs.status,
// run_members.status) and of findings.state. They live here, beside the
// schema that defines the columns, because they cross the stages: the
// pipeline writes a run's status and ingest its members', the checks write
// the findings' states, and the reports and the command read all three.

// RunStatus is runs.status.
type RunStatus string

const (
	RunRunning RunStatus = "running" // started, not finished (or the process died)
	RunOK      RunStatus = "ok"      // every member reconciled
	RunPartial RunStatus = "partial" // some members failed, or a journal file or BIN lookup did
	RunFailed  RunStatus = "failed"  // the run as a whole failed; its error says why
)

// MemberStatus is run_members.status. A member an earlier attempt of the
// date completed is not pulled again, and keeps its row: "skipped" is a
// count of the run (runs.members_skipped), not a member's status.
type MemberStatus string

const (
	MemberOK     MemberStatus = "ok"     // pulled and loaded, with its done-marker
	MemberFailed MemberStatus = "failed" // not reconciled; run_members.error says why
)

// FindingState is findings.state: a finding compared with the member's
// previous findings (see checks).
type FindingState string

const (
	FindingNew      FindingState = "new"      // not reported by the member's previous run
	FindingOpen     FindingState = "open"     // reported by the previous run too
	FindingResolved FindingState = "resolved" // reported by the previous run, not by this one
	// FindingAcknowledged is a new or open finding under an
	// acknowledgement in force for its amount: reported, not counted as
	// new or open (see checks' acknowledgements).
	FindingAcknowledged FindingState = "acknowledged"
)

// WithoutStackTrace is a DuckDB error's text without the C++ stack trace
// that some of its errors carry after "Stack Trace:" (a full disk's failed
// checkpoint printed 30 lines of frames under its one line of cause). The
// cause before it is kept whole.
func WithoutStackTrace(msg string) string {
	if i := strings.Index(msg, "Stack Trace:"); i >= 0 {
		return strings.TrimRight(msg[:i], " \n\t")
	}
	return msg
}
