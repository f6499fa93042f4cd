package checks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/internal/store/storetest"
)

func date(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// ackState is a delinquency finding's state in a run, with its
// acknowledgement's owner, end, reason and ticket: "acknowledged Jane
// 2026-11-19 reason FIN-1", or "open".
func ackState(t *testing.T, s *store.Store, runID, mid, sub string) string {
	t.Helper()
	var state string
	var owner, until, reason, ticket sql.NullString
	err := s.Conn().QueryRowContext(context.Background(), `SELECT state, ack_owner, CAST(ack_until AS VARCHAR), ack_reason, ack_ticket
		FROM findings WHERE run_id = ? AND kind = 'subscription_delinquent' AND merchant_id = ? AND entity_id = ?`, runID, mid, sub).
		Scan(&state, &owner, &until, &reason, &ticket)
	if errors.Is(err, sql.ErrNoRows) {
		return "(none)"
	}
	if err != nil {
		t.Fatal(err)
	}
	if !owner.Valid {
		return state
	}
	return strings.Join([]string{state, owner.String, until.String, reason.String, ticket.String}, " ")
}

// auditRows lists the audit trail of one finding: "action by source run
// before -> after", oldest first.
func auditRows(t *testing.T, s *store.Store, mid, sub string) []string {
	t.Helper()
	rows, err := s.Conn().QueryContext(context.Background(), `SELECT action, changed_by, source, coalesce(run_id, '-'),
		coalesce(CAST(before AS VARCHAR), '-'), coalesce(CAST(after AS VARCHAR), '-')
		FROM acknowledgement_audit WHERE kind = 'subscription_delinquent' AND merchant_id = ? AND entity_id = ? ORDER BY seq`, mid, sub)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var action, by, source, run, before, after string
		if err := rows.Scan(&action, &by, &source, &run, &before, &after); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %s %s %s -> %s", action, by, source, run, before, after))
	}
	return out
}

func ackCount(t *testing.T, s *store.Store) int {
	t.Helper()
	var n int
	if err := s.Conn().QueryRowContext(context.Background(), `SELECT count(*) FROM acknowledgements`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

const formulaReason = `=HYPERLINK("http://attacker.example/","ok")`

// TestAcknowledgementLifecycle follows one delinquent subscription through
// an acknowledgement: acknowledged (its state and columns, counted all the
// same), expired (open again, the day after its date), acknowledged again
// and reopened by an amount change, and revoked; each change audited with
// who, what, before and after, and a re-run of a date changing nothing.
func TestAcknowledgementLifecycle(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	m1 := map[string]string{"m1": "ok"}
	jdoe := Change{By: "jdoe", At: time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)}
	delinquent := map[string]string{"m1/s1": "DELINQUENT", "m1/s2": "DELINQUENT"}

	runDay(t, s, "0/1", day{date: "2026-11-18", members: m1, subs: delinquent})
	ack := Acknowledgement{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s1", Reason: formulaReason,
		Owner: "Jane", Until: date(t, "2026-11-19"), Ticket: "FIN-1"}
	run, changed, err := Acknowledge(ctx, s, ack, jdoe)
	if err != nil || run != "2026-11-18" || !changed {
		t.Fatalf("acknowledge: run %q, changed %v, %v", run, changed, err)
	}
	if _, changed, err := Acknowledge(ctx, s, ack, jdoe); err != nil || changed {
		t.Errorf("the same acknowledgement again: changed %v, %v; want nothing changed", changed, err)
	}

	// Day 2: acknowledged, and still a finding.
	counts := runDay(t, s, "0/1", day{date: "2026-11-19", members: m1, subs: delinquent})
	if got, want := ackState(t, s, "2026-11-19", "m1", "s1"), "acknowledged Jane 2026-11-19 "+formulaReason+" FIN-1"; got != want {
		t.Errorf("day 2: %q, want %q", got, want)
	}
	if got := ackState(t, s, "2026-11-19", "m1", "s2"); got != "open" {
		t.Errorf("day 2, the other subscription: %q, want open", got)
	}
	if counts["subscription_delinquent"] != 2 {
		t.Errorf("day 2 counts %v: an acknowledged finding is still a finding", counts)
	}
	// Re-running the date changes nothing.
	runDay(t, s, "0/1", day{date: "2026-11-19", members: m1, subs: delinquent})
	if got := ackState(t, s, "2026-11-19", "m1", "s1"); !strings.HasPrefix(got, "acknowledged") {
		t.Errorf("day 2 re-run: %q", got)
	}

	// Day 3: the acknowledgement covered up to the 19th: open again.
	runDay(t, s, "0/1", day{date: "2026-11-20", members: m1, subs: delinquent})
	if got := ackState(t, s, "2026-11-20", "m1", "s1"); got != "open" {
		t.Errorf("day 3, expired: %q, want open", got)
	}
	if n := ackCount(t, s); n != 0 {
		t.Errorf("%d acknowledgements in force after expiry", n)
	}

	// Acknowledged again (an end date before the latest run's is refused),
	// then the amount changes on day 4: reopened.
	ack.Until = date(t, "2026-11-19")
	if _, _, err := Acknowledge(ctx, s, ack, jdoe); err == nil || !strings.Contains(err.Error(), "before the business date of the latest run (2026-11-20)") {
		t.Errorf("an end date already past: %v", err)
	}
	ack.Until, ack.Reason = date(t, "2026-12-31"), "Card update requested"
	if _, _, err := Acknowledge(ctx, s, ack, jdoe); err != nil {
		t.Fatal(err)
	}
	runDay(t, s, "0/1", day{date: "2026-11-21", members: m1, subs: delinquent, amounts: map[string]string{"m1/s1": "12.00"}})
	if got := ackState(t, s, "2026-11-21", "m1", "s1"); got != "open" {
		t.Errorf("day 4, amount changed: %q, want open", got)
	}

	// Revoked: acknowledged on s2, revoked before day 5.
	ack2 := Acknowledgement{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s2", Reason: "Disputed", Owner: "Sam",
		Until: date(t, "2026-12-31")}
	if _, _, err := Acknowledge(ctx, s, ack2, jdoe); err != nil {
		t.Fatal(err)
	}
	if mid, err := Revoke(ctx, s, "subscription_delinquent", "s2", "", Change{By: "sam", At: jdoe.At}); err != nil || mid != "m1" {
		t.Fatalf("revoke: %q %v", mid, err)
	}
	runDay(t, s, "0/1", day{date: "2026-11-22", members: m1, subs: delinquent})
	if got := ackState(t, s, "2026-11-22", "m1", "s2"); got != "open" {
		t.Errorf("day 5, revoked: %q, want open", got)
	}

	first := `{"owner":"Jane","until":"2026-11-19","reason":"=HYPERLINK(\"http://attacker.example/\",\"ok\")","ticket":"FIN-1","amount":"10.50","currency":"EUR","source":"command"}`
	second := `{"owner":"Jane","until":"2026-12-31","reason":"Card update requested","ticket":"FIN-1","amount":"10.50","currency":"EUR","source":"command"}`
	want := []string{
		"acknowledge jdoe command - - -> " + first,
		"expire reconcile run 2026-11-20 " + first + " -> -",
		"acknowledge jdoe command - - -> " + second,
		`reopen reconcile run 2026-11-21 ` + second + ` -> {"amount":"12.00","currency":"EUR"}`,
	}
	if got := auditRows(t, s, "m1", "s1"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit of s1:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := auditRows(t, s, "m1", "s2"); len(got) != 2 || !strings.HasPrefix(got[1], `revoke sam command - {"owner":"Sam"`) || !strings.HasSuffix(got[1], "-> -") {
		t.Errorf("audit of s2: %q", got)
	}
}

// Acknowledge and Revoke refuse what they cannot do, clearly, and change
// nothing.
func TestAcknowledgementRefusals(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	c := Change{By: "jdoe", At: time.Now()}
	ok := Acknowledgement{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s1", Reason: "r", Owner: "o", Until: date(t, "2026-12-31")}
	if _, _, err := Acknowledge(ctx, s, ok, c); err == nil || !strings.Contains(err.Error(), "no run has finished") {
		t.Errorf("before any run: %v", err)
	}
	runDay(t, s, "0/1", day{date: "2026-11-18", members: map[string]string{"m1": "ok", "m2": "ok"},
		subs: map[string]string{"m1/s1": "DELINQUENT", "m2/s1": "DELINQUENT"}})
	for name, c2 := range map[string]struct {
		mutate func(*Acknowledgement)
		want   string
	}{
		"unknown kind":    {func(a *Acknowledgement) { a.Kind = "no_such_kind" }, `kind "no_such_kind": not a finding kind`},
		"no such finding": {func(a *Acknowledgement) { a.EntityID = "s9" }, "run 2026-11-18 reports no subscription_delinquent finding"},
		"no reason":       {func(a *Acknowledgement) { a.Reason = "" }, "reason: missing"},
		"no owner":        {func(a *Acknowledgement) { a.Owner = "" }, "owner: missing"},
		"long reason":     {func(a *Acknowledgement) { a.Reason = strings.Repeat("x", 2001) }, "reason: 2001 characters, at most 2000"},
		"control":         {func(a *Acknowledgement) { a.Owner = "Jane\x1b[31m" }, "owner: holds a control character"},
		"card number":     {func(a *Acknowledgement) { a.Reason = "refunded to 4111 1111 1111 1111" }, "reason: holds card data"},
		"card as entity":  {func(a *Acknowledgement) { a.EntityID = "5500000000000004" }, "entity: holds card data"},
		// The platform's id, though it passes for a card number, is an
		// entity: refused only as no finding of the run.
		"platform id as entity": {func(a *Acknowledgement) { a.EntityID = "6512628085536163703211" }, "run 2026-11-18 reports no subscription_delinquent finding"},
		"card glued as entity":  {func(a *Acknowledgement) { a.EntityID = "65126280855361637032112" }, "entity: holds card data"},
		"security code":         {func(a *Acknowledgement) { a.Ticket = "cvv=123" }, "ticket: holds card data"},
		"no date":               {func(a *Acknowledgement) { a.Until = time.Time{} }, "until: missing"},
	} {
		a := ok
		c2.mutate(&a)
		if _, _, err := Acknowledge(ctx, s, a, c); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c2.want)
		}
	}
	if _, _, err := Acknowledge(ctx, s, ok, c); err != nil {
		t.Fatal(err)
	}
	m2 := ok
	m2.MerchantID = "m2"
	if _, _, err := Acknowledge(ctx, s, m2, c); err != nil {
		t.Fatal(err)
	}
	if _, err := Revoke(ctx, s, "subscription_delinquent", "s1", "", c); err == nil || !strings.Contains(err.Error(), "2 merchants (m1, m2): say which with --merchant") {
		t.Errorf("an ambiguous revoke: %v", err)
	}
	if _, err := Revoke(ctx, s, "subscription_delinquent", "s1", "m3", c); err == nil || !strings.Contains(err.Error(), `no acknowledgement of subscription_delinquent "s1" of merchant "m3"`) {
		t.Errorf("revoking what is not there: %v", err)
	}
	if n := ackCount(t, s); n != 2 {
		t.Errorf("%d acknowledgements after the refusals, want the 2 made", n)
	}
}

// A file's acknowledgements: made (before the finding exists, its amount
// is recorded the first day it is reported), taken over from a command,
// unchanged on a second sync (no audit row), revoked when no longer
// listed; an entry past its date is left out, and one a run reopened is
// not made again until it changes.
func TestAcknowledgementFileSync(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	m1 := map[string]string{"m1": "ok"}
	file := Change{By: "cron", At: time.Date(2026, 11, 18, 1, 0, 0, 0, time.UTC), Source: "file acks.yaml"}
	runDay(t, s, "0/1", day{date: "2026-11-18", members: m1, subs: map[string]string{"m1/s1": "DELINQUENT"}})
	// A command's acknowledgement of s1, which the file then takes over.
	if _, _, err := Acknowledge(ctx, s, Acknowledgement{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s1",
		Reason: "by hand", Owner: "jdoe", Until: date(t, "2026-12-31")}, Change{By: "jdoe", At: file.At}); err != nil {
		t.Fatal(err)
	}
	entries := []Acknowledgement{
		{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s1", Reason: "In the file", Owner: "Ops", Until: date(t, "2026-12-31")},
		{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s2", Reason: "Not delinquent yet", Owner: "Ops", Until: date(t, "2026-12-31")},
		{Kind: "subscription_delinquent", MerchantID: "m1", EntityID: "s3", Reason: "Old", Owner: "Ops", Until: date(t, "2026-11-18")},
	}
	sync, err := SyncAcknowledgementFile(ctx, s, entries, date(t, "2026-11-19"), file, "2026-11-19")
	if err != nil {
		t.Fatal(err)
	}
	if sync.Changed != 2 || sync.Revoked != 0 || len(sync.Past) != 1 || sync.Past[0].EntityID != "s3" {
		t.Errorf("first sync %+v: want s1 taken over, s2 made, s3 past", sync)
	}
	if sync, err := SyncAcknowledgementFile(ctx, s, entries, date(t, "2026-11-19"), file, "2026-11-19"); err != nil || sync.Changed != 0 {
		t.Errorf("the same file again: %+v, %v; want nothing changed", sync, err)
	}
	// Day 2: s2 turns delinquent: acknowledged, its amount recorded.
	runDay(t, s, "0/1", day{date: "2026-11-19", members: m1, subs: map[string]string{"m1/s1": "DELINQUENT", "m1/s2": "DELINQUENT"}})
	for _, sub := range []string{"s1", "s2"} {
		if got := ackState(t, s, "2026-11-19", "m1", sub); !strings.HasPrefix(got, "acknowledged Ops 2026-12-31") {
			t.Errorf("day 2 %s: %q", sub, got)
		}
	}
	if got := auditRows(t, s, "m1", "s2"); len(got) != 2 || !strings.HasPrefix(got[0], "acknowledge cron file acks.yaml 2026-11-19 - ->") ||
		!strings.HasPrefix(got[1], "amount_recorded reconcile run 2026-11-19 ") || !strings.Contains(got[1], `"amount":"10.50","currency":"EUR"`) {
		t.Errorf("audit of s2: %q", got)
	}
	if got := auditRows(t, s, "m1", "s1"); len(got) != 2 || !strings.HasPrefix(got[1], "change cron file acks.yaml 2026-11-19 ") ||
		!strings.Contains(got[1], `"reason":"by hand"`) || !strings.Contains(got[1], `"reason":"In the file"`) {
		t.Errorf("audit of s1, taken over by the file: %q", got)
	}
	// Day 3: s2's amount changes (reopened); the file, unchanged, does not
	// make it again; s1 is dropped from the file (revoked).
	runDay(t, s, "0/1", day{date: "2026-11-20", members: m1, subs: map[string]string{"m1/s1": "DELINQUENT", "m1/s2": "DELINQUENT"},
		amounts: map[string]string{"m1/s2": "20.00"}})
	sync, err = SyncAcknowledgementFile(ctx, s, entries[1:], date(t, "2026-11-21"), file, "2026-11-21")
	if err != nil {
		t.Fatal(err)
	}
	if sync.Revoked != 1 || len(sync.Reopened) != 1 || sync.Reopened[0].EntityID != "s2" || sync.Changed != 0 {
		t.Errorf("sync after the amount changed: %+v", sync)
	}
	runDay(t, s, "0/1", day{date: "2026-11-21", members: m1, subs: map[string]string{"m1/s1": "DELINQUENT", "m1/s2": "DELINQUENT"},
		amounts: map[string]string{"m1/s2": "20.00"}})
	for _, sub := range []string{"s1", "s2"} {
		if got := ackState(t, s, "2026-11-21", "m1", sub); got != "open" {
			t.Errorf("day 4 %s: %q, want open", sub, got)
		}
	}
	// A new reason in the file acknowledges the new amount.
	entries[1].Reason = "Checked the new amount"
	if sync, err := SyncAcknowledgementFile(ctx, s, entries[1:], date(t, "2026-11-22"), file, "2026-11-22"); err != nil || sync.Changed != 1 {
		t.Errorf("the entry changed: %+v, %v; want it made again", sync, err)
	}
}

// The file format: every entry as written, and every way of getting it
// wrong named with its line.
func TestParseAcknowledgements(t *testing.T) {
	good := `# version-controlled
acknowledgements:
  - kind: missed_cycle
    merchant: 800123
    entity: "6034873819306413101960:4"
    reason: '=HYPERLINK("http://attacker.example/","ok")'
    owner: Jane Doe
    until: 2026-12-15
    ticket: FIN-1234
  - kind: skipped_cycle
    merchant: "m2"
    entity: p9
    reason: >
      Customer asked to skip
    owner: Ops
    until: "2027-01-31"
    ticket:
`
	acks, err := ParseAcknowledgements([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Acknowledgement{
		{Kind: "missed_cycle", MerchantID: "800123", EntityID: "6034873819306413101960:4", Reason: formulaReason,
			Owner: "Jane Doe", Until: date(t, "2026-12-15"), Ticket: "FIN-1234"},
		{Kind: "skipped_cycle", MerchantID: "m2", EntityID: "p9", Reason: "Customer asked to skip", Owner: "Ops", Until: date(t, "2027-01-31")},
	}
	if fmt.Sprint(acks) != fmt.Sprint(want) {
		t.Errorf("parsed\n %+v\nwant\n %+v", acks, want)
	}
	// entry is a valid entry, lines 2 to 7 of its file (kind, merchant,
	// entity, reason, owner, until), with field's line replaced by line
	// ("" drops it); a field it does not have is added as line 8.
	entry := func(field, line string) string {
		fields := []string{"kind", "merchant", "entity", "reason", "owner", "until"}
		lines := []string{"kind: missed_cycle", "merchant: m1", `entity: "s1:2"`, "reason: r", "owner: o", "until: 2026-12-15"}
		if i := slices.Index(fields, field); i >= 0 {
			lines[i] = line
		} else {
			lines = append(lines, line)
		}
		out := "acknowledgements:\n"
		for i, l := range lines {
			if l == "" {
				continue
			}
			if out == "acknowledgements:\n" || i == 0 {
				out += "  - " + l + "\n"
			} else {
				out += "    " + l + "\n"
			}
		}
		return out
	}
	for name, c := range map[string]struct{ text, want string }{
		"unknown key":      {entry("colour", "colour: red"), `line 8: unknown key "colour"`},
		"unknown top key":  {"acks:\n  - kind: x\n", `line 1: unknown key "acks"`},
		"bad date":         {entry("until", "until: 15/12/2026"), `line 7: until "15/12/2026": want a date, YYYY-MM-DD`},
		"impossible date":  {entry("until", "until: 2026-02-30"), `line 7: until "2026-02-30"`},
		"unknown kind":     {entry("kind", "kind: no_such_kind"), `line 2: kind "no_such_kind": not a finding kind`},
		"list for reason":  {entry("reason", "reason: [a, b]"), "line 5: reason: want a text, not a list"},
		"map for owner":    {entry("owner", "owner: {name: x}"), "line 6: owner: want a text, not a mapping"},
		"number as date":   {entry("until", "until: 20261215"), `line 7: until "20261215"`},
		"missing owner":    {entry("owner", ""), "line 2: the entry has no owner"},
		"empty reason":     {entry("reason", "reason:"), "line 5: reason: empty"},
		"control in owner": {entry("owner", `owner: "Jane\u001b[2J"`), "line 2: owner: holds a control character"},
		"card in reason":   {entry("reason", `reason: "card 4111-1111-1111-1111 refunded"`), "line 2: reason: holds card data"},
		"owner twice":      {entry("owner2", "owner: p"), "line 8: owner given twice"},
		"entry not a map":  {"acknowledgements:\n  - just text\n", "line 2: an entry must be a mapping"},
		"not a list":       {"acknowledgements: yes\n", "line 1: acknowledgements: want a list"},
		"not a mapping":    {"- a\n- b\n", "line 1: want a mapping with the key acknowledgements"},
		"two documents":    {"acknowledgements: []\n---\nacknowledgements: []\n", "line 2: a second YAML document"},
		"alias":            {"x: &r reason\nacknowledgements:\n  - kind: missed_cycle\n    reason: *r\n", `line 1: unknown key "x"`},
		"alias value":      {"acknowledgements:\n  - kind: &k missed_cycle\n    merchant: *k\n", "line 3: merchant: want a text, not a alias"},
		"syntax":           {"acknowledgements:\n  - kind: [\n", "yaml: line"},
		"duplicate": {"acknowledgements:\n" + strings.Repeat("  - {kind: missed_cycle, merchant: m1, entity: s1:2, reason: r, owner: o, until: 2026-12-15}\n", 2),
			`line 3: missed_cycle "s1:2" of merchant "m1" is acknowledged on line 2 already`},
	} {
		_, err := ParseAcknowledgements([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q\n%s", name, err, c.want, c.text)
		}
	}
	if acks, err := ParseAcknowledgements(nil); err != nil || len(acks) != 0 {
		t.Errorf("an empty file: %v, %v; want no acknowledgement", acks, err)
	}
}

// A hostile file: too large (refused unread), too many entries, not a
// regular file.
func TestReadAcknowledgementFileHostile(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("acknowledgements:\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxAckFile + 1); err != nil { // mostly NUL bytes, never parsed
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadAcknowledgementFile(huge); err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Errorf("a huge file: %v", err)
	}
	many := filepath.Join(dir, "many.yaml")
	body := "acknowledgements:\n" + strings.Repeat("  - {}\n", maxAckEntries+1)
	if err := os.WriteFile(many, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAcknowledgementFile(many); err == nil || !strings.Contains(err.Error(), "entries, at most 20000") {
		t.Errorf("too many entries: %v", err)
	}
	if _, err := ReadAcknowledgementFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadAcknowledgementFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing file was read")
	}
}
