// Package queries holds the SQL of reconcile, embedded at build time: the
// schema of the working DuckDB file (schema.sql, migrations.sql, views.sql,
// comments.sql), one reconciliation or audit check per finding kind
// (findings/), the recurring-billing reports (billing/), the workbook's
// sheets (reports/, and each finding kind's columns in reports/kinds/),
// what reconcile sql --tables runs (cli/), and the
// statements each package runs, as named blocks in a file named for the
// package (store.sql, ingest.sql, checks.sql, acknowledgements.sql,
// pipeline.sql, merge.sql, alarms.sql, notify.sql; see Named). SQL stays in
// .sql files so that analysts can read, copy and run exactly what the
// product runs.
package queries

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

//go:embed schema.sql migrations.sql views.sql comments.sql interchange_at_risk.sql findings/*.sql billing/*.sql store.sql ingest.sql checks.sql acknowledgements.sql pipeline.sql
//go:embed alarms.sql notify.sql
//go:embed reports/*.sql reports/kinds/*.sql cli/*.sql merge.sql
var files embed.FS

// Schema returns the idempotent DDL of the working database: every table in
// full (schema.sql), the changes that bring a file an older version made
// to the same shape (migrations.sql), the views (views.sql), and the
// comment on every table, view and column (comments.sql), in that order,
// since a view needs its columns and a comment its column.
func Schema() string {
	return mustRead("schema.sql") + "\n" + mustRead("migrations.sql") + "\n" + mustRead("views.sql") + "\n" +
		mustRead("comments.sql")
}

// InterchangeAtRisk is the INSERT that fills interchange_at_risk for a run
// ($1 = run_id) from its findings and interchange_rates.
func InterchangeAtRisk() string { return mustRead("interchange_at_risk.sql") }

// Check is one finding kind's query. The query returns the columns
// merchant_id, entity_id, amount, currency, detail. It runs over temp views
// standing in for the member tables (plans, subscriptions,
// subscription_payments, transactions, journal, subscription_schedules,
// expected_cycles, run_members; store.SlicedTables), each holding one slice
// of the run's members, and reads the session variables window_start,
// window_end and bnpl_session_age (findings/README.md). It must therefore
// relate a member's rows only to the same member's rows: checks, like the
// billing reports, run over slices of the run's members
// (store.ForEachSlice). `reconcile sql --check KIND` runs one as a run did.
type Check struct {
	Kind        string
	Description string // the leading comment of the .sql file, as prose
	// Action is what to do about a finding of this kind: the "Action:"
	// paragraph of the leading comment, which ends it. It lives in the
	// .sql file so that a new kind brings its own advice to the workbook's
	// Legend sheet and to the finding_kinds table.
	Action string
	// Title, Means and Do are the kind for a finance reader: the name of
	// its workbook sheet ("Level III not transmitted", at most 31
	// characters) and two sentences in business words, what a finding
	// means and what to do. They are the "Title:", "Means:" and "Do:"
	// lines of the leading comment, so that a new kind brings its own
	// sheet name and opening lines; a kind without them gets a name made
	// from its id (the workbook's) and its Description and Action.
	Title, Means, Do string
	SQL              string
}

// kindOrder is the order of the first eight rows of docs/findings.md's table; kinds added later
// are appended after it in alphabetical order.
var kindOrder = []string{
	"level3_not_transmitted",
	"commercial_card_without_level3",
	"skipped_cycle",
	"subscription_delinquent",
	"subscription_suspended",
	"paid_without_transaction",
	"amount_mismatch",
	"bin_unresolved",
}

// Checks returns every finding check, in a stable order.
func Checks() []Check {
	entries, err := fs.ReadDir(files, "findings")
	if err != nil {
		panic(fmt.Sprintf("queries: embedded findings missing: %v", err))
	}
	byKind := map[string]Check{}
	for _, e := range entries {
		kind := strings.TrimSuffix(e.Name(), ".sql")
		sql := mustRead(path.Join("findings", e.Name()))
		c := leadingComment(sql)
		c.Kind, c.SQL = kind, sql
		byKind[kind] = c
	}
	var out []Check
	for _, k := range kindOrder {
		if c, ok := byKind[k]; ok {
			out = append(out, c)
			delete(byKind, k)
		}
	}
	for _, e := range entries { // the rest, alphabetical (ReadDir sorts)
		if c, ok := byKind[strings.TrimSuffix(e.Name(), ".sql")]; ok {
			out = append(out, c)
		}
	}
	return out
}

// KindSheet returns the statement of a finding kind's workbook sheet: the
// kinds' prelude (reports/kind_prelude.sql: the CTEs scope, scoped_findings,
// kind_findings, groups_of and run) followed by the kind's own file,
// queries/reports/kinds/<kind>.sql, and whether the kind has one: a kind
// without (one added later) gets the default columns of
// reports/findings.sql's KindFindings. The statement takes $1 = run ID,
// $2 = group ID or NULL and $3 = the kind, and names each column as the
// sheet's header. The prelude is written once, here, rather than copied
// into every kind's file: a new kind's file holds only its columns.
func KindSheet(kind string) (string, bool) {
	b, err := files.ReadFile(path.Join("reports", "kinds", kind+".sql"))
	if err != nil {
		return "", false
	}
	return withKindPrelude(string(b)), true
}

// withKindPrelude puts the kinds' prelude before a kind's statement. The
// kind's leading comment stays; a WITH that opens its statement becomes a
// comma, so that its own CTEs follow the prelude's.
func withKindPrelude(stmt string) string {
	prelude := strings.TrimRight(mustRead("reports/kind_prelude.sql"), "\n")
	lines := strings.SplitAfter(stmt, "\n")
	i := 0
	for i < len(lines) && (strings.HasPrefix(strings.TrimSpace(lines[i]), "--") || strings.TrimSpace(lines[i]) == "") {
		i++
	}
	head, body := strings.Join(lines[:i], ""), strings.Join(lines[i:], "")
	if len(body) >= 5 && strings.EqualFold(body[:5], "WITH ") {
		return prelude + "\n" + head + "," + body[4:]
	}
	return prelude + "\n" + head + body
}

// KindSheets lists the kinds that have a sheet statement of their own
// (KindSheet), whether or not they are in the catalog.
func KindSheets() []string {
	entries, err := fs.ReadDir(files, "reports/kinds")
	if err != nil {
		panic(fmt.Sprintf("queries: embedded reports/kinds missing: %v", err))
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, strings.TrimSuffix(e.Name(), ".sql"))
	}
	return kinds
}

// Kinds returns the finding kinds in the order of Checks.
func Kinds() []string {
	var kinds []string
	for _, c := range Checks() {
		kinds = append(kinds, c.Kind)
	}
	return kinds
}

// leadingComment reads the file's opening "--" lines as prose: the
// description, then, from a line starting "Action:", what to do. Lines
// starting "Title:", "Means:" or "Do:" (with their continuation lines)
// are the finance reader's texts (Check.Title, Means, Do), kept out of
// the description.
func leadingComment(sql string) Check {
	fields := map[string]*[]string{}
	var desc, act, title, means, do []string
	for tag, f := range map[string]*[]string{"Action:": &act, "Title:": &title, "Means:": &means, "Do:": &do} {
		fields[tag] = f
	}
	cur := &desc
	for _, line := range strings.Split(sql, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "--") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "--"))
		for tag, f := range fields {
			if rest, ok := strings.CutPrefix(text, tag); ok {
				cur, text = f, strings.TrimSpace(rest)
				break
			}
		}
		if text == "" {
			continue
		}
		*cur = append(*cur, text)
		if cur == &title || cur == &means || cur == &do {
			// A tag line is one paragraph: what follows it untagged is
			// the description again, unless it is inside Action.
			cur = &desc
		}
	}
	return Check{Description: strings.Join(desc, " "), Action: strings.Join(act, " "),
		Title: strings.Join(title, " "), Means: strings.Join(means, " "), Do: strings.Join(do, " ")}
}

func mustRead(name string) string {
	b, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("queries: embedded %s missing: %v", name, err))
	}
	return string(b)
}
