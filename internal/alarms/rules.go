// Package alarms checks a run against the operator's thresholds (--alarms):
// a member the previous run reconciled that is missing or failed today, a
// share of failed members above a limit, and per finding kind a count or an
// amount above a fixed limit or above k times its median over the trailing
// runs. The run history is read from the working database (runs,
// run_members, findings), so a rule needs no state of its own and holds
// for a re-run, a resumed run or a merged publication alike.
//
// Check returns every rule it checked, raised or clear, as reports.Alarm:
// the Summary sheet and the manifest show the raised ones, the metrics
// all of them (1 or 0), and the digest's subject says that one was
// raised. An alarm never changes a run's status or exit code.
package alarms

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reconcile/reconcile/queries"
)

// Rules are the thresholds of an --alarms file:
//
//	members-lost: true        # a member the previous run reconciled is missing or failed
//	failed-share: 0.05        # more than 5% of the run's members failed
//	history: 7                # runs in the trailing median (default 7)
//	min-history: 3            # fewer earlier runs: the median rules wait (default 3)
//	response-mle-key-days: 60 # the response MLE key expires within 60 days (the default; keyexpiry.go)
//	kinds:
//	  "*":                    # every kind, unless its own entry sets the same field
//	    count-vs-median: 3    # more than 3 × the median count of the history
//	  paid_without_transaction:
//	    count: 0              # more than 0: any finding raises it
//	  amount_mismatch:
//	    amount: {USD: 10000, "*": 50000}   # per currency; "*" for the others
//	    amount-vs-median: 2
//
// A kind's count and amount are its current findings (new and open);
// amounts are compared per currency, never added across currencies.
type Rules struct {
	MembersLost bool                `yaml:"members-lost"`
	FailedShare *float64            `yaml:"failed-share"`
	History     int                 `yaml:"history"`
	MinHistory  int                 `yaml:"min-history"`
	Kinds       map[string]KindRule `yaml:"kinds"`
	// ResponseMLEKeyDays is how many days before the response MLE key
	// expires the response_mle_key_expiry alarm is raised; nil: 60.
	ResponseMLEKeyDays *int `yaml:"response-mle-key-days"`
}

// KindRule are the thresholds of one finding kind (or of "*", every kind).
// A nil field is not checked.
type KindRule struct {
	Count          *int64             `yaml:"count"`            // more findings than this
	Amount         map[string]float64 `yaml:"amount"`           // per currency ("*": any other), more than this
	CountVsMedian  *float64           `yaml:"count-vs-median"`  // more than k × the history's median count
	AmountVsMedian *float64           `yaml:"amount-vs-median"` // more than k × the median amount, per currency
}

// AnyKind is the kinds key whose rule applies to every kind.
const AnyKind = "*"

// Defaults of Rules.
const (
	DefaultHistory    = 7
	DefaultMinHistory = 3
	maxHistory        = 366
)

// Load reads and checks an --alarms file.
func Load(path string) (*Rules, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--alarms: %w", err)
	}
	r, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("--alarms %s: %w", path, err)
	}
	return r, nil
}

// currencyCode is an ISO 4217 code, the form findings.currency takes.
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Parse reads the YAML of an --alarms file. An unknown setting or finding
// kind is an error (a typo would otherwise check nothing, silently), and so
// is a negative limit or a factor that is not positive.
func Parse(b []byte) (*Rules, error) {
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil && !errors.Is(err, io.EOF) { // EOF: an empty file, no rules
		return nil, err
	}
	if r.History == 0 {
		r.History = DefaultHistory
	}
	if r.MinHistory == 0 {
		r.MinHistory = min(DefaultMinHistory, r.History)
	}
	if r.History < 1 || r.History > maxHistory {
		return nil, fmt.Errorf("history %d: want 1 to %d runs", r.History, maxHistory)
	}
	if r.MinHistory < 1 || r.MinHistory > r.History {
		return nil, fmt.Errorf("min-history %d: want 1 to history (%d)", r.MinHistory, r.History)
	}
	if d := r.ResponseMLEKeyDays; d != nil && (*d < 0 || *d > 3*366) {
		return nil, fmt.Errorf("response-mle-key-days %d: want 0 to %d days (the key is valid for three years)", *d, 3*366)
	}
	if s := r.FailedShare; s != nil && (*s < 0 || *s > 1) {
		return nil, fmt.Errorf("failed-share %v: want a fraction from 0 to 1 (0.05 is 5%%)", *s)
	}
	known := map[string]bool{AnyKind: true}
	for _, k := range queries.Kinds() {
		known[k] = true
	}
	for _, kind := range sortedKeys(r.Kinds) {
		if !known[kind] {
			return nil, fmt.Errorf("kinds: %q is not a finding kind (the kinds are in queries/findings/, or %q for every kind)", kind, AnyKind)
		}
		if err := r.Kinds[kind].check(); err != nil {
			return nil, fmt.Errorf("kinds: %s: %w", kind, err)
		}
	}
	return &r, nil
}

func (k KindRule) check() error {
	if k.Count != nil && *k.Count < 0 {
		return fmt.Errorf("count %d: want 0 or more", *k.Count)
	}
	for _, cur := range sortedKeys(k.Amount) {
		if cur != AnyKind && !currencyCode.MatchString(cur) {
			return fmt.Errorf("amount: %q: want an ISO 4217 code (USD) or %q", cur, AnyKind)
		}
		if k.Amount[cur] < 0 {
			return fmt.Errorf("amount %s %v: want 0 or more", cur, k.Amount[cur])
		}
	}
	for name, f := range map[string]*float64{"count-vs-median": k.CountVsMedian, "amount-vs-median": k.AmountVsMedian} {
		if f != nil && !(*f > 0) {
			return fmt.Errorf("%s %v: want a factor above 0", name, *f)
		}
	}
	return nil
}

// forKind is the rule of kind: its own entry's fields, and those of "*"
// that its entry leaves unset.
func (r *Rules) forKind(kind string) KindRule {
	own, all := r.Kinds[kind], r.Kinds[AnyKind]
	if own.Count == nil {
		own.Count = all.Count
	}
	if own.CountVsMedian == nil {
		own.CountVsMedian = all.CountVsMedian
	}
	if own.AmountVsMedian == nil {
		own.AmountVsMedian = all.AmountVsMedian
	}
	if own.Amount == nil {
		own.Amount = all.Amount
	}
	return own
}

// amountLimit is the limit of an amount in cur: its own, else "*"'s.
func (k KindRule) amountLimit(cur string) (float64, bool) {
	if v, ok := k.Amount[cur]; ok {
		return v, true
	}
	v, ok := k.Amount[AnyKind]
	return v, ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// formatAmount writes an amount as the workbook shows it without a
// currency: 1,234,567.89.
func formatAmount(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if neg {
		whole = "-" + whole
	}
	return whole + "." + frac
}
