package reports

import (
	"fmt"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// Alarm is one alarm rule checked for a run (package alarms checks them
// against thresholds and the run history): what the Summary sheet, the
// manifest, the metrics and the digest show of it.
type Alarm struct {
	// Name is the rule: members_lost, failed_share, kind_count,
	// kind_amount, kind_count_trend, kind_amount_trend (docs/operations.md),
	// or alarms_failed when the rules could not be checked at all.
	Name     string
	Kind     string // the finding kind of a kind_* rule; "" for the run's
	Currency string // the currency of an amount rule; ""
	Raised   bool
	Value    float64 // what was measured: a count, an amount, a share (0.25)
	Limit    float64 // the threshold it was compared with
	Message  string  // one line for people, naming both
}

// Label is the alarm's name with the kind and currency it concerns, as a
// list or a subject names it: "kind_amount amount_mismatch USD".
func (a Alarm) Label() string {
	s := a.Name
	for _, part := range []string{a.Kind, a.Currency} {
		if part != "" {
			s += " " + part
		}
	}
	return s
}

// RaisedAlarms are the alarms of list that are raised, in order.
func RaisedAlarms(list []Alarm) []Alarm {
	var out []Alarm
	for _, a := range list {
		if a.Raised {
			out = append(out, a)
		}
	}
	return out
}

var alarmsSQL = queries.Must("reports/summary.sql", "Alarms")

// alarmsBlock is the Summary's table of the raised alarms, right under the
// run's facts where a reader starts; with none raised, one row says how
// many were checked. A run checked against no alarm (no --alarms) has no
// such table. Alarms are the run's, so a group's workbook, whose readers
// see their group only, does not show them.
func alarmsBlock(run Publication, scope Scope) (outputs.Block, bool) {
	if len(run.Alarms) == 0 || scope.GroupID != "" {
		return outputs.Block{}, false
	}
	var names, messages, kinds, currencies []string
	for _, a := range RaisedAlarms(run.Alarms) {
		names = append(names, a.Name)
		messages = append(messages, a.Message)
		kinds = append(kinds, a.Kind)
		currencies = append(currencies, a.Currency)
	}
	if len(names) == 0 {
		names, kinds, currencies = []string{"(none raised)"}, []string{""}, []string{""}
		messages = []string{fmt.Sprintf("%d alarm(s) checked, none above its limit", len(run.Alarms))}
	}
	return outputs.Block{
		Title: "Alarms",
		Query: alarmsSQL,
		Args:  []any{names, messages, kinds, currencies},
		// What wraps in the second column, as the failed members' errors
		// do, rather than widening a column the sheet's other tables share.
		Columns: []outputs.Column{
			{Header: "Alarm", Type: outputs.Text}, {Header: "What", Type: outputs.Text, Wrap: true},
			{Header: "Finding kind", Type: outputs.Text}, {Header: "Currency", Type: outputs.Text, Width: 9}},
	}, true
}

// manifestAlarms are the raised alarms as the manifest lists them: always
// a list, empty when none was raised.
func manifestAlarms(list []Alarm) []outputs.ManifestAlarm {
	out := []outputs.ManifestAlarm{}
	for _, a := range RaisedAlarms(list) {
		out = append(out, outputs.ManifestAlarm{Name: a.Name, Kind: a.Kind, Currency: a.Currency,
			Value: a.Value, Limit: a.Limit, Message: a.Message})
	}
	return out
}
