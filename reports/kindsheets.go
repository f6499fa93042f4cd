package reports

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/queries"
)

// The kinds' sheets are named, introduced and ordered from data: each
// kind's Title, Means and Do lines (queries/findings/<kind>.sql) and the
// money its findings put at stake (KindRank). A kind added by a new .sql
// file gets its sheet, name, opening lines and place without a change here;
// a sheet added beside them (billing, payments, ...) only needs its name in
// otherSheets, so that no kind takes it.

// otherSheets are the workbook's sheets that are not a kind's: a kind's
// sheet never takes one of these names.
func otherSheets() []string {
	out := []string{SummarySheet, ResolvedSheet, AcknowledgementsSheet, LegendSheet}
	out = append(out, BillingSheets...)
	out = append(out, PaymentSheets...)
	return append(out, SettlementSheets...)
}

// kindTitle is the name a person reads for a kind: its Title line, else
// its id with spaces ("settlement_late" → "Settlement late").
func kindTitle(c queries.Check) string {
	if t := strings.TrimSpace(c.Title); t != "" {
		return t
	}
	return capitalize(strings.ReplaceAll(c.Kind, "_", " "))
}

// kindTexts are a kind's two opening lines for finance: its Means and Do
// lines, else its description and action (the platform's terms, better
// than nothing for a kind that has not been given its own words yet).
func kindTexts(c queries.Check) (means, do string) {
	means, do = strings.TrimSpace(c.Means), strings.TrimSpace(c.Do)
	if means == "" {
		means = c.Description
	}
	if do == "" {
		do = capitalize(c.Action)
	}
	return means, do
}

// kindSheetLead are the columns a kind's sheet shows first, whatever
// order its statement gives them in: when, who (merchant and customer),
// how much, and its state, the columns finance needs on a printed
// sheet's first page. The kind's own columns follow.
var kindSheetLead = []string{"When", "Merchant ID", "Merchant name", "Customer", "Amount", "Currency", "State"}

// kindIntro is the two lines a kind's sheet opens with.
func kindIntro(c queries.Check) []string {
	means, do := kindTexts(c)
	return []string{"What it means: " + means, "What to do: " + do}
}

// kindSheetNames gives each kind its sheet's name: its title (kindTitle)
// made valid for Excel (none of : \ / ? * [ ], no apostrophe at either
// end), cut at a word to Excel's 31 characters, and made unique (ignoring
// case, and apart from otherSheets) with a number.
func kindSheetNames(checks []queries.Check) map[string]string {
	used := map[string]bool{}
	for _, s := range otherSheets() {
		used[strings.ToLower(s)] = true
	}
	out := map[string]string{}
	for _, c := range checks {
		base := strings.Map(func(r rune) rune {
			if strings.ContainsRune(`:\/?*[]`, r) {
				return '-'
			}
			return r
		}, kindTitle(c))
		base = strings.Trim(base, "' ")
		if base == "" {
			base = "Finding"
		}
		name := cutAtWord(base, 31)
		for n := 2; used[strings.ToLower(name)]; n++ {
			suffix := fmt.Sprintf(" %d", n)
			name = cutAtWord(base, 31-len(suffix)) + suffix
		}
		used[strings.ToLower(name)] = true
		out[c.Kind] = name
	}
	return out
}

// cutAtWord cuts s to n UTF-16 units (Excel's count), at the last space
// when there is one in the second half, and trims what would end it
// badly (a space, an apostrophe, a comma).
func cutAtWord(s string, n int) string {
	cut := cutUTF16(s, n)
	if cut == s {
		return s
	}
	if i := strings.LastIndex(cut, " "); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ',;-")
}

// rankChecks orders checks by rank (kinds, the first first); kinds rank
// does not name keep their order after those it does.
func rankChecks(checks []queries.Check, rank []string) []queries.Check {
	if len(rank) == 0 {
		return checks
	}
	pos := map[string]int{}
	for i, k := range rank {
		if _, dup := pos[k]; !dup {
			pos[k] = i
		}
	}
	out := make([]queries.Check, 0, len(checks))
	byKind := map[string]queries.Check{}
	for _, c := range checks {
		byKind[c.Kind] = c
	}
	for _, k := range rank {
		if c, ok := byKind[k]; ok {
			out = append(out, c)
			delete(byKind, k)
		}
	}
	for _, c := range checks {
		if _, ok := byKind[c.Kind]; ok {
			out = append(out, c)
		}
	}
	return out
}

// KindRank lists the catalog's kinds by money at stake in scope: the
// amounts of their findings today added up across currencies (an order
// only; no such sum is shown), then their count, then the catalog's order
// (queries/reports/summary.sql KindRank).
func KindRank(ctx context.Context, q outputs.Querier, runID string, scope Scope) ([]string, error) {
	rows, err := q.QueryContext(ctx, kindRankSQL, runID, scope.arg(), queries.Kinds())
	if err != nil {
		return nil, fmt.Errorf("rank the finding kinds: %w", err)
	}
	defer rows.Close()
	var kinds []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("rank the finding kinds: %w", err)
		}
		kinds = append(kinds, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rank the finding kinds: %w", err)
	}
	return kinds, nil
}

// entityHeaderRE finds the header a kind's sheet gives the finding's
// entity ID (f.entity_id AS "Subscription ID").
var entityHeaderRE = regexp.MustCompile(`(?i)\bf\.entity_id\s+AS\s+"([^"]+)"`)

// KindSheetEntityHeader is the header of the column holding the finding's
// entity ID (findings.entity_id) on kind's sheet: "Entity ID" for a kind
// with the default columns. reconcile ack --from reads the ID from it.
func KindSheetEntityHeader(kind string) string {
	query, ok := queries.KindSheet(kind)
	if !ok {
		query = kindFindingsSQL
	}
	if m := entityHeaderRE.FindStringSubmatch(query); m != nil {
		return m[1]
	}
	return "Entity ID"
}
