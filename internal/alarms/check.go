package alarms

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports"
)

// Querier runs the statements of queries/alarms.sql: a *sql.DB or *sql.Conn
// of the working database, or of a merged publication's.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// The names of the rules (reports.Alarm.Name; the label name of
// reconcile_alarm).
const (
	MembersLost     = "members_lost"
	FailedShare     = "failed_share"
	KindCount       = "kind_count"
	KindAmount      = "kind_amount"
	KindCountTrend  = "kind_count_trend"
	KindAmountTrend = "kind_amount_trend"
	// Failed is raised in place of the others when they could not be
	// checked (the database failed): the run goes on, and says so.
	Failed = "alarms_failed"
)

var (
	membersLostSQL    = queries.Must("alarms.sql", "MembersLost")
	memberOutcomesSQL = queries.Must("alarms.sql", "MemberOutcomes")
	kindTotalsSQL     = queries.Must("alarms.sql", "KindTotals")
	kindHistorySQL    = queries.Must("alarms.sql", "KindHistory")
)

// listed is how many members an alarm's message names before "and N more".
const listed = 10

// Check checks run runID of q's database against r and returns every rule
// checked, raised or clear, in a stable order: members_lost, failed_share,
// then per kind (the catalog's order) its count, amount and trend rules.
func Check(ctx context.Context, q Querier, runID string, r *Rules) ([]reports.Alarm, error) {
	var out []reports.Alarm
	if r.MembersLost {
		a, err := membersLost(ctx, q, runID)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if r.FailedShare != nil {
		a, err := failedShare(ctx, q, runID, *r.FailedShare)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if len(r.Kinds) == 0 {
		return out, nil
	}
	today, err := kindTotals(ctx, q, kindTotalsSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("alarms of run %s: %w", runID, err)
	}
	history, err := kindTotals(ctx, q, kindHistorySQL, runID, r.History)
	if err != nil {
		return nil, fmt.Errorf("alarms of run %s: history: %w", runID, err)
	}
	runs := history.runs()
	for _, kind := range queries.Kinds() {
		out = append(out, r.checkKind(kind, today.of(runID, kind), history, runs)...)
	}
	return out, nil
}

// CheckOrRaise is Check for a run that must publish whatever happens: when
// the rules cannot be checked, it returns a raised alarms_failed alarm
// that says why, so the Summary, the manifest, the metrics and the digest
// all show that the alarms are not known, and the outputs are still
// written.
func CheckOrRaise(ctx context.Context, q Querier, runID string, r *Rules) []reports.Alarm {
	list, err := Check(ctx, q, runID, r)
	if err != nil {
		return []reports.Alarm{{Name: Failed, Raised: true, Value: 1,
			Message: "the alarms could not be checked: " + safetext.Cut(err.Error(), 300)}}
	}
	return list
}

func membersLost(ctx context.Context, q Querier, runID string) (reports.Alarm, error) {
	rows, err := q.QueryContext(ctx, membersLostSQL, runID)
	if err != nil {
		return reports.Alarm{}, fmt.Errorf("alarm %s of run %s: %w", MembersLost, runID, err)
	}
	defer rows.Close()
	var prev string
	var lost []string
	for rows.Next() {
		var mid, outcome string
		if err := rows.Scan(&prev, &mid, &outcome); err != nil {
			return reports.Alarm{}, fmt.Errorf("alarm %s of run %s: %w", MembersLost, runID, err)
		}
		lost = append(lost, safetext.Cut(mid, 64)+" ("+outcome+")")
	}
	if err := rows.Err(); err != nil {
		return reports.Alarm{}, fmt.Errorf("alarm %s of run %s: %w", MembersLost, runID, err)
	}
	a := reports.Alarm{Name: MembersLost, Value: float64(len(lost)), Raised: len(lost) > 0,
		Message: "no member of the previous run is missing or failed"}
	if a.Raised {
		verb := "are"
		if len(lost) == 1 {
			verb = "is"
		}
		a.Message = fmt.Sprintf("%s reconciled by run %s %s missing or failed today: %s", plural(len(lost), "member"),
			safetext.Cut(prev, 64), verb, listOf(lost))
	}
	return a, nil
}

func failedShare(ctx context.Context, q Querier, runID string, limit float64) (reports.Alarm, error) {
	var total, failed int64
	rows, err := q.QueryContext(ctx, memberOutcomesSQL, runID)
	if err == nil {
		defer rows.Close()
		if rows.Next() {
			err = rows.Scan(&total, &failed)
		}
		if err == nil {
			err = rows.Err()
		}
	}
	if err != nil {
		return reports.Alarm{}, fmt.Errorf("alarm %s of run %s: %w", FailedShare, runID, err)
	}
	share := 0.0
	if total > 0 {
		share = float64(failed) / float64(total)
	}
	a := reports.Alarm{Name: FailedShare, Value: share, Limit: limit, Raised: share > limit}
	a.Message = fmt.Sprintf("%d of %d members failed (%.1f%%), %s %.1f%%", failed, total, 100*share,
		limitWord(a.Raised), 100*limit)
	return a, nil
}

// checkKind checks one kind's rules against its totals today and its
// history (over runs, the history's run IDs).
func (r *Rules) checkKind(kind string, today kindTotal, history totals, runs []string) []reports.Alarm {
	rule := r.forKind(kind)
	var out []reports.Alarm
	if rule.Count != nil {
		limit := *rule.Count
		a := reports.Alarm{Name: KindCount, Kind: kind, Value: float64(today.count), Limit: float64(limit), Raised: today.count > limit}
		a.Message = fmt.Sprintf("%s: %s, %s %d", kind, plural(int(today.count), "finding"),
			limitWord(a.Raised), limit)
		out = append(out, a)
	}
	for _, cur := range today.currencies(rule.Amount) {
		limit, ok := rule.amountLimit(cur)
		if !ok {
			continue
		}
		v := today.amount[cur]
		a := reports.Alarm{Name: KindAmount, Kind: kind, Currency: cur, Value: v, Limit: limit, Raised: v > limit}
		a.Message = fmt.Sprintf("%s: %s %s in findings, %s %s %s", kind, cur, formatAmount(v),
			limitWord(a.Raised), cur, formatAmount(limit))
		out = append(out, a)
	}
	if rule.CountVsMedian != nil {
		k := *rule.CountVsMedian
		a := reports.Alarm{Name: KindCountTrend, Kind: kind, Value: float64(today.count)}
		if len(runs) < r.MinHistory {
			a.Message = fmt.Sprintf("%s: %s, but only %s before it: the median needs %d", kind,
				plural(int(today.count), "finding"), plural(len(runs), "run"), r.MinHistory)
		} else {
			m := median(history.counts(kind, runs))
			a.Limit, a.Raised = k*m, float64(today.count) > k*m
			a.Message = fmt.Sprintf("%s: %s, %s %g × the median of the last %s (%g)", kind, plural(int(today.count), "finding"),
				trendWord(a.Raised), k, plural(len(runs), "run"), m)
		}
		out = append(out, a)
	}
	if rule.AmountVsMedian != nil && len(runs) >= r.MinHistory {
		k := *rule.AmountVsMedian
		for _, cur := range today.currencies(nil) {
			m := median(history.amounts(kind, cur, runs))
			v := today.amount[cur]
			a := reports.Alarm{Name: KindAmountTrend, Kind: kind, Currency: cur, Value: v, Limit: k * m, Raised: v > k*m}
			a.Message = fmt.Sprintf("%s: %s %s in findings, %s %g × the median of the last %s (%s %s)", kind, cur, formatAmount(v),
				trendWord(a.Raised), k, plural(len(runs), "run"), cur, formatAmount(m))
			out = append(out, a)
		}
	}
	return out
}

// kindTotal is one kind's current findings in one run: how many, and their
// amount per currency.
type kindTotal struct {
	count  int64
	amount map[string]float64
}

// currencies are the currencies of the total's amounts and those named in
// limits (but "*"), sorted: a currency with a limit is checked, at 0, on a
// day it has no finding, so its alarm clears.
func (t kindTotal) currencies(limits map[string]float64) []string {
	var out []string
	for cur := range t.amount {
		out = append(out, cur)
	}
	for cur := range limits {
		if cur != AnyKind && !slices.Contains(out, cur) {
			out = append(out, cur)
		}
	}
	slices.Sort(out)
	return out
}

// totals are kind totals by run ID and kind.
type totals map[string]map[string]kindTotal

func (t totals) of(runID, kind string) kindTotal { return t[runID][kind] }

// runs are the run IDs of t, a run without findings included.
func (t totals) runs() []string { return sortedKeys(t) }

// counts are kind's counts over runs, 0 where a run had none.
func (t totals) counts(kind string, runs []string) []float64 {
	out := make([]float64, len(runs))
	for i, id := range runs {
		out[i] = float64(t[id][kind].count)
	}
	return out
}

// amounts are kind's amounts in cur over runs, 0 where a run had none.
func (t totals) amounts(kind, cur string, runs []string) []float64 {
	out := make([]float64, len(runs))
	for i, id := range runs {
		out[i] = t[id][kind].amount[cur]
	}
	return out
}

// kindTotals reads the rows of KindTotals or KindHistory: run ID, kind,
// currency, count, amount.
func kindTotals(ctx context.Context, q Querier, query string, args ...any) (totals, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("finding totals: %w", err)
	}
	defer rows.Close()
	out := totals{}
	for rows.Next() {
		var id string
		var kind, cur sql.NullString
		var n int64
		var amount float64
		if err := rows.Scan(&id, &kind, &cur, &n, &amount); err != nil {
			return nil, fmt.Errorf("finding totals: %w", err)
		}
		if out[id] == nil {
			out[id] = map[string]kindTotal{}
		}
		if !kind.Valid { // a run of the history without findings
			continue
		}
		t := out[id][kind.String]
		if t.amount == nil {
			t.amount = map[string]float64{}
		}
		t.count += n
		if cur.Valid {
			t.amount[cur.String] += amount
		}
		out[id][kind.String] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("finding totals: %w", err)
	}
	return out, nil
}

// median of vs (not empty): the middle value, or the mean of the two.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// limitWord and trendWord say how a value compares with its limit.
func limitWord(raised bool) string {
	if raised {
		return "above the limit of"
	}
	return "within the limit of"
}

func trendWord(raised bool) string {
	if raised {
		return "above"
	}
	return "within"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// listOf names the first few of items and counts the rest.
func listOf(items []string) string {
	if len(items) <= listed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:listed], ", ") + fmt.Sprintf(" and %d more", len(items)-listed)
}
