package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/internal/store"
)

// WriteAlarms adds the alarms checked to a run's summary for a terminal
// (`reconcile run`, `reconcile merge`): how many were checked when none
// was raised, else each raised one with its message.
func WriteAlarms(w io.Writer, list []Alarm) {
	raised := RaisedAlarms(list)
	if len(list) == 0 {
		return
	}
	if len(raised) == 0 {
		fmt.Fprintf(w, "alarms: none raised (%d checked)\n", len(list))
		return
	}
	labels := make([]string, len(raised))
	for i, a := range raised {
		labels[i] = a.Label()
	}
	fmt.Fprintf(w, "ALARMS: %d raised: %s\n", len(raised), safetext.Line(strings.Join(labels, ", ")))
	for _, a := range raised {
		fmt.Fprintf(w, "  %s\n", safetext.Line(a.Message))
	}
}

// WriteChanges adds to a run's summary for a terminal what changed since
// the previous run and the per-group workbooks (paths masked and escaped,
// as the run stores them). Nil-safe.
func (pub *Published) WriteChanges(w io.Writer) {
	if pub == nil {
		return
	}
	sum := func(state store.FindingState) (n int64) {
		for _, v := range pub.Findings[string(state)] {
			n += v
		}
		return n
	}
	if pub.PreviousRun != "" {
		fmt.Fprintf(w, "since %s: %d new, %d still open, %d resolved\n", pub.PreviousRun,
			sum(store.FindingNew), sum(store.FindingOpen), sum(store.FindingResolved))
	}
	if len(pub.GroupWorkbooks) > 0 {
		ids := make([]string, 0, len(pub.GroupWorkbooks))
		for id := range pub.GroupWorkbooks {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		var paths []string
		for _, id := range ids {
			paths = append(paths, safetext.Line(cardmask.MaskText(pub.GroupWorkbooks[id])))
		}
		fmt.Fprintf(w, "group workbooks: %s\n", strings.Join(paths, ", "))
	}
}
