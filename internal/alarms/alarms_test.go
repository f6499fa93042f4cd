package alarms

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/reports"
)

// history is a working database (the product's schema, a real DuckDB file)
// with runs added one business day after the other, each compared with the
// one before, as the pipeline records them.
type history struct {
	t    *testing.T
	db   *store.Store
	day  time.Time
	last string
}

func newHistory(t *testing.T) *history {
	return &history{t: t, db: storetest.Open(t), day: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
}

// finding is one current finding of a run.
type finding struct {
	kind, mid string
	amount    float64
	currency  string // "" for a finding without an amount
}

// add records the next day's run: its members (merchant ID -> ok or
// failed) and its current findings. It returns the run's ID.
func (h *history) add(members map[string]string, findings ...finding) string {
	h.t.Helper()
	id := h.day.Format("2006-01-02")
	ctx := context.Background()
	exec := func(q string, args ...any) {
		h.t.Helper()
		if _, err := h.db.Conn().ExecContext(ctx, q, args...); err != nil {
			h.t.Fatalf("%v\n%s", err, q)
		}
	}
	var prev any
	if h.last != "" {
		prev = h.last
	}
	exec(`INSERT INTO runs (run_id, business_date, shard, window_start, window_end, started_at, status, attempts, previous_run)
		VALUES (?, ?::DATE, '0/1', ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, 'ok', 1, ?)`,
		id, id, id, h.day.AddDate(0, 0, 1).Format(time.DateOnly), h.day.AddDate(0, 0, 1).Format(time.DateOnly), prev)
	for mid, status := range members {
		exec(`INSERT INTO run_members (run_id, merchant_id, status) VALUES (?, ?, ?)`, id, mid, status)
	}
	for i, f := range findings {
		var amount, cur any
		if f.currency != "" {
			amount, cur = f.amount, f.currency
		}
		exec(`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, first_seen_run, state)
			VALUES (?, ?::DATE, ?, ?, ?, ?, ?, ?, 'new')`, id, id, f.kind, f.mid, fmt.Sprint("e", i), amount, cur, id)
	}
	// A resolved finding is not a current one: no rule counts it.
	exec(`INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, amount, currency, first_seen_run, state)
		VALUES (?, ?::DATE, 'amount_mismatch', 'm1', 'gone', 1000000, 'USD', ?, 'resolved')`, id, id, id)
	h.last, h.day = id, h.day.AddDate(0, 0, 1)
	return id
}

func (h *history) check(runID string, r *Rules) []reports.Alarm {
	h.t.Helper()
	list, err := Check(context.Background(), h.db.Conn(), runID, r)
	if err != nil {
		h.t.Fatal(err)
	}
	return list
}

// alarm finds the alarm called name (with kind and currency, if given).
func alarm(t *testing.T, list []reports.Alarm, name string, kindCurrency ...string) reports.Alarm {
	t.Helper()
	label := strings.Join(append([]string{name}, kindCurrency...), " ")
	for _, a := range list {
		if a.Label() == label {
			return a
		}
	}
	t.Fatalf("no alarm %q among %+v", label, list)
	return reports.Alarm{}
}

func rules(t *testing.T, yaml string) *Rules {
	t.Helper()
	r, err := Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func allOK(mids ...string) map[string]string {
	m := map[string]string{}
	for _, mid := range mids {
		m[mid] = string(store.MemberOK)
	}
	return m
}

func TestMembersLostRaisesAndClears(t *testing.T) {
	h := newHistory(t)
	r := rules(t, "members-lost: true")
	first := h.add(allOK("m1", "m2", "m3", "m4"))
	if a := alarm(t, h.check(first, r), MembersLost); a.Raised {
		t.Errorf("a shard's first run has no previous members to lose: %+v", a)
	}
	// m2 failed, m3 is missing; m4 failed the day before too (below).
	day2 := h.add(map[string]string{"m1": "ok", "m2": "failed", "m4": "ok"})
	a := alarm(t, h.check(day2, r), MembersLost)
	if !a.Raised || a.Value != 2 || !strings.Contains(a.Message, "m2 (failed), m3 (missing)") || !strings.Contains(a.Message, first) {
		t.Errorf("two members lost: %+v", a)
	}
	// m2 is back; m3, not reconciled by day 2, is no longer "lost".
	day3 := h.add(allOK("m1", "m2", "m4"))
	if a := alarm(t, h.check(day3, r), MembersLost); a.Raised || a.Value != 0 {
		t.Errorf("every member of day 2 reconciled on day 3: %+v", a)
	}
}

func TestFailedShareRaisesAndClears(t *testing.T) {
	h := newHistory(t)
	run := h.add(map[string]string{"m1": "ok", "m2": "ok", "m3": "ok", "m4": "failed"})
	if a := alarm(t, h.check(run, rules(t, "failed-share: 0.2")), FailedShare); !a.Raised || a.Value != 0.25 ||
		!strings.Contains(a.Message, "1 of 4 members failed (25.0%), above the limit of 20.0%") {
		t.Errorf("25%% failed, limit 20%%: %+v", a)
	}
	if a := alarm(t, h.check(run, rules(t, "failed-share: 0.25")), FailedShare); a.Raised {
		t.Errorf("25%% failed is not above a limit of 25%%: %+v", a)
	}
	next := h.add(allOK("m1", "m2", "m3", "m4"))
	if a := alarm(t, h.check(next, rules(t, "failed-share: 0")), FailedShare); a.Raised {
		t.Errorf("none failed: %+v", a)
	}
}

func TestKindLimitsRaiseAndClear(t *testing.T) {
	h := newHistory(t)
	r := rules(t, `
kinds:
  "*":
    amount: {"*": 1000}
  amount_mismatch:
    count: 1
    amount: {USD: 100, CHF: 5, "*": 1000}
`)
	day1 := h.add(allOK("m1"),
		finding{"amount_mismatch", "m1", 60, "USD"}, finding{"amount_mismatch", "m1", 50.5, "USD"},
		finding{"amount_mismatch", "m1", 500, "EUR"}, finding{"bin_unresolved", "m1", 0, ""},
		finding{"skipped_cycle", "m1", 1500, "JPY"})
	list := h.check(day1, r)
	if a := alarm(t, list, KindCount, "amount_mismatch"); !a.Raised || a.Value != 3 || a.Limit != 1 {
		t.Errorf("3 findings, limit 1: %+v", a)
	}
	if a := alarm(t, list, KindAmount, "amount_mismatch", "USD"); !a.Raised || a.Value != 110.5 ||
		!strings.Contains(a.Message, "USD 110.50 in findings, above the limit of USD 100.00") {
		t.Errorf("USD 110.50, limit 100: %+v", a)
	}
	// EUR has no limit of its own: the currency "*" of the kind's map applies.
	if a := alarm(t, list, KindAmount, "amount_mismatch", "EUR"); a.Raised || a.Limit != 1000 {
		t.Errorf("EUR 500 under the kind's \"*\" limit: %+v", a)
	}
	// A currency with a limit and no finding is checked at 0, so its
	// alarm is there to clear.
	if a := alarm(t, list, KindAmount, "amount_mismatch", "CHF"); a.Raised || a.Value != 0 {
		t.Errorf("CHF without findings: %+v", a)
	}
	// The kind "*"'s rule applies to a kind without an entry of its own.
	if a := alarm(t, list, KindAmount, "skipped_cycle", "JPY"); !a.Raised || a.Limit != 1000 {
		t.Errorf("JPY 1500 under the kind \"*\" rule: %+v", a)
	}
	// A kind without amounts has no amount alarm; no kind entry: no count alarm.
	for _, a := range list {
		if a.Kind == "bin_unresolved" {
			t.Errorf("bin_unresolved has no amount and no count rule: %+v", a)
		}
	}
	day2 := h.add(allOK("m1"), finding{"amount_mismatch", "m1", 90, "USD"})
	list = h.check(day2, r)
	if a := alarm(t, list, KindCount, "amount_mismatch"); a.Raised {
		t.Errorf("1 finding, limit 1: %+v", a)
	}
	if a := alarm(t, list, KindAmount, "amount_mismatch", "USD"); a.Raised {
		t.Errorf("USD 90, limit 100: %+v", a)
	}
}

func TestTrendRulesRaiseAndClear(t *testing.T) {
	h := newHistory(t)
	r := rules(t, `
history: 7
min-history: 3
kinds:
  "*":
    count-vs-median: 3
    amount-vs-median: 2
`)
	day := func(n int, usd float64) string {
		var fs []finding
		for range n {
			fs = append(fs, finding{"skipped_cycle", "m1", usd / float64(n), "USD"})
		}
		return h.add(allOK("m1"), fs...)
	}
	// Too little history: the trend waits, clear, and says why.
	early := day(5, 50)
	if a := alarm(t, h.check(early, r), KindCountTrend, "skipped_cycle"); a.Raised || !strings.Contains(a.Message, "needs 3") {
		t.Errorf("first run: %+v", a)
	}
	// Seven more days: counts 2 3 2 4 2 3 (and the 5 above, which drops
	// out of the last 7 once 8 runs precede), amounts 100 each.
	for _, n := range []int{2, 3, 2, 4, 2, 3} {
		day(n, 100)
	}
	// The last 7 runs: 5 2 3 2 4 2 3 -> median 3; 10 > 3 × 3.
	spike := day(10, 250)
	list := h.check(spike, r)
	if a := alarm(t, list, KindCountTrend, "skipped_cycle"); !a.Raised || a.Limit != 9 ||
		!strings.Contains(a.Message, "10 findings, above 3 × the median of the last 7 runs (3)") {
		t.Errorf("count spike: %+v", a)
	}
	// Amounts: 50 100 100 100 100 100 100 -> median 100; 250 > 2 × 100.
	if a := alarm(t, list, KindAmountTrend, "skipped_cycle", "USD"); !a.Raised || a.Limit != 200 {
		t.Errorf("amount spike: %+v", a)
	}
	// The next day is back to normal: 2 3 2 4 2 3 10 -> median 3; 9 is not above 9.
	calm := day(9, 150)
	list = h.check(calm, r)
	if a := alarm(t, list, KindCountTrend, "skipped_cycle"); a.Raised {
		t.Errorf("9 findings against 3 × 3: %+v", a)
	}
	if a := alarm(t, list, KindAmountTrend, "skipped_cycle", "USD"); a.Raised {
		t.Errorf("USD 150 against 2 × 100: %+v", a)
	}
	// A kind with no finding for weeks and one today: the median is 0, and
	// any finding is above it.
	rare := h.add(allOK("m1"), finding{"double_charge", "m1", 10, "EUR"})
	if a := alarm(t, h.check(rare, r), KindCountTrend, "double_charge"); !a.Raised || a.Limit != 0 {
		t.Errorf("a kind never seen before: %+v", a)
	}
}

// History is the shard's: a run of another shard in the same file is not
// part of it.
func TestHistoryIsTheShards(t *testing.T) {
	h := newHistory(t)
	r := rules(t, "min-history: 1\nkinds: {skipped_cycle: {count-vs-median: 1}}")
	h.add(allOK("m1"), finding{"skipped_cycle", "m1", 1, "USD"}, finding{"skipped_cycle", "m1", 1, "USD"})
	other := h.add(allOK("m9"))
	if _, err := h.db.Conn().ExecContext(context.Background(), `UPDATE runs SET shard = '1/2' WHERE run_id = ?`, other); err != nil {
		t.Fatal(err)
	}
	today := h.add(allOK("m1"), finding{"skipped_cycle", "m1", 1, "USD"}, finding{"skipped_cycle", "m1", 1, "USD"})
	// Its history is the first run only (2 findings): 2 is not above 1 × 2.
	if a := alarm(t, h.check(today, r), KindCountTrend, "skipped_cycle"); a.Raised || !strings.Contains(a.Message, "last 1 run (2)") {
		t.Errorf("the other shard's empty run counted in the median: %+v", a)
	}
}

// Member IDs are the platform's text: the message keeps them on one line.
func TestMembersLostMessageIsOneLine(t *testing.T) {
	h := newHistory(t)
	evil := "m1\r\nBcc: all@example.com\x1b[2J"
	h.add(allOK(evil))
	run := h.add(allOK("m2"))
	a := alarm(t, h.check(run, rules(t, "members-lost: true")), MembersLost)
	if !a.Raised || strings.ContainsAny(a.Message, "\r\n\x1b") || !strings.Contains(a.Message, `m1\x0d\x0aBcc`) {
		t.Errorf("message %q", a.Message)
	}
}

func TestCheckOrRaise(t *testing.T) {
	h := newHistory(t)
	run := h.add(allOK("m1"))
	h.db.Close()
	list := CheckOrRaise(context.Background(), h.db.Conn(), run, rules(t, "members-lost: true"))
	if len(list) != 1 || list[0].Name != Failed || !list[0].Raised || !strings.Contains(list[0].Message, "could not be checked") {
		t.Errorf("a database that fails: %+v", list)
	}
}

func TestParse(t *testing.T) {
	r := rules(t, "")
	if r.MembersLost || r.FailedShare != nil || len(r.Kinds) != 0 || r.History != DefaultHistory || r.MinHistory != DefaultMinHistory {
		t.Errorf("an empty file: %+v", r)
	}
	r = rules(t, `kinds: {"*": {count: 5, count-vs-median: 2}, skipped_cycle: {count: 1}}`)
	if k := r.forKind("skipped_cycle"); *k.Count != 1 || *k.CountVsMedian != 2 {
		t.Errorf("a kind's own field wins, \"*\" fills the others: %+v", k)
	}
	if k := r.forKind("amount_mismatch"); *k.Count != 5 {
		t.Errorf("\"*\" applies to every kind: %+v", k)
	}
	for yaml, want := range map[string]string{
		"members-lost: yes\nmember-lost: true":             "member-lost",
		"kinds: {skiped_cycle: {count: 1}}":                "skiped_cycle",
		"kinds: {skipped_cycle: {count: -1}}":              "count -1",
		"kinds: {skipped_cycle: {amount: {usd: 5}}}":       `"usd"`,
		"kinds: {skipped_cycle: {amount: {USD: -5}}}":      "amount USD -5",
		"kinds: {skipped_cycle: {count-vs-median: 0}}":     "count-vs-median 0",
		"kinds: {skipped_cycle: {amount-vs-median: -1.5}}": "amount-vs-median -1.5",
		"failed-share: 5":                                  "failed-share 5",
		"history: 1000":                                    "history 1000",
		"history: 3\nmin-history: 4":                       "min-history 4",
		"kinds: [1, 2]":                                    "cannot unmarshal",
	} {
		if _, err := Parse([]byte(yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error naming %q", yaml, err, want)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 999.5: "999.50", 1234567.891: "1,234,567.89", -1000: "-1,000.00"} {
		if got := formatAmount(v); got != want {
			t.Errorf("formatAmount(%v) = %q, want %q", v, got, want)
		}
	}
}
