package cli

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/checks"
	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/secretfile"
	"github.com/reconcile/reconcile/internal/sqlout"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/reports"
)

const ackSynopsis = `Acknowledge a finding: known, handled by its owner, until a date. Until then each run reports it in
state acknowledged (with owner, reason, end date and ticket) instead of new or open, and does not count
it as new or open in the Summary and the metrics; it is open (or new) again the day after the end date,
or as soon as its amount or currency changes. KIND and ENTITY are the finding's kind and ID (the ID
column of the kind's sheet; findings.entity_id), and the finding must be one the latest run reported.
--revoke ends an acknowledgement; --list shows those in force. --from FILE.xlsx takes every row of a
workbook's finding sheets whose Acknowledge columns (reason, owner, until, ticket) finance filled in,
each checked and audited as one reconcile ack; a row that cannot be taken is listed with its sheet, row
and reason, and the others are made. Every change is kept, with who made it,
when, and the acknowledgement before and after, in the table acknowledgement_audit (reconcile sql) and
on the workbook's Acknowledgements sheet. A run's --acknowledgements file makes them too.

It works on the working DuckDB file (--db, as reconcile run; also RECONCILE_DB or the db key of
--config), taking its write lock: while a run holds the file, ack fails at once and changes nothing.`

const ackExamples = `  reconcile ack missed_cycle 6034873819306413101960:4 --merchant 800123 \
      --reason "Customer disputes cycle 4; credit note pending" --owner "Jane Doe" --until 2026-12-15 --ticket FIN-1234
  reconcile ack --from reconcile-2026-11-20-filled.xlsx --by "Jane Doe"
  reconcile ack --list
  reconcile ack --revoke missed_cycle 6034873819306413101960:4 --merchant 800123
  reconcile sql "SELECT * FROM acknowledgement_audit ORDER BY seq"
`

const ackExitCodes = "Exit codes: 0 done; 1 a missing or bad argument, no such finding (with --from: any row refused, the others made), or the database in use by a run."

// ackOptions are the flags of `reconcile ack`.
type ackOptions struct {
	config, db    string
	merchant      string
	reason, owner string
	until, ticket string
	by            string
	list, revoke  bool
	format        string
	from          string // a workbook whose Acknowledge columns to take
	kind, entity  string // the positional arguments
}

func cmdAck(ctx context.Context, args []string, e Env) error {
	o, err := parseAckFlags(args, e)
	if err != nil {
		return err
	}
	a, err := o.acknowledgement()
	if err != nil {
		return err
	}
	// A path that names no file would become a new, empty database.
	if _, err := os.Stat(o.db); err != nil {
		return fmt.Errorf("ack: --db %s: %w (give the working file of the runs, as reconcile run --db)", o.db, secretfile.WithoutPath(err))
	}
	s, err := store.Open(ctx, o.db)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	defer s.Close()
	c := checks.Change{By: o.by, At: time.Now().UTC()}
	switch {
	case o.from != "":
		return ackFromWorkbook(ctx, s, o.from, c, e)
	case o.list:
		return listAcks(ctx, s, o.format, e)
	case o.revoke:
		mid, err := checks.Revoke(ctx, s, o.kind, o.entity, o.merchant, c)
		if err != nil {
			return fmt.Errorf("ack --revoke: %w", err)
		}
		fmt.Fprintf(e.Stdout, "revoked: %s %s of merchant %s\n", o.kind, terminalLine(o.entity), terminalLine(mid))
		return nil
	}
	run, changed, err := checks.Acknowledge(ctx, s, a, c)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	what := "acknowledged"
	if !changed {
		what = "already acknowledged so, unchanged"
	}
	fmt.Fprintf(e.Stdout, "%s: %s %s of merchant %s until %s (a finding of run %s)\n",
		what, o.kind, terminalLine(o.entity), terminalLine(o.merchant), a.Until.Format(time.DateOnly), run)
	return nil
}

// parseAckFlags parses ack's flags, which may come before, between or
// after KIND and ENTITY, and checks which ones go together.
func parseAckFlags(args []string, e Env) (ackOptions, error) {
	var o ackOptions
	fs := newFlagSetCodes("ack KIND ENTITY --merchant MID --reason TEXT --owner NAME --until YYYY-MM-DD [--ticket REF]\n"+
		"       reconcile ack --list\n       reconcile ack --revoke KIND ENTITY [--merchant MID]",
		ackSynopsis, ackExamples, ackExitCodes, e)
	fs.StringVar(&o.config, "config", e.Getenv("RECONCILE_CONFIG"), "YAML config file of the run; its db key names the database")
	fs.StringVar(&o.db, "db", "reconcile.duckdb", "DuckDB working file")
	fs.StringVar(&o.merchant, "merchant", "", "merchant ID (MID) of the finding")
	fs.StringVar(&o.reason, "reason", "", "why the finding is known and what is being done (at most 2000 characters)")
	fs.StringVar(&o.owner, "owner", "", "who handles it")
	fs.StringVar(&o.until, "until", "", "the last business date the acknowledgement covers, YYYY-MM-DD")
	fs.StringVar(&o.ticket, "ticket", "", "ticket or case reference (optional)")
	fs.StringVar(&o.by, "by", "", "who makes the change, for the audit (default: the OS user)")
	fs.BoolVar(&o.list, "list", false, "list the acknowledgements in force")
	fs.BoolVar(&o.revoke, "revoke", false, "end the acknowledgement of KIND ENTITY")
	fs.StringVar(&o.format, "format", "table", "--list output: table, csv or json")
	fs.StringVar(&o.from, "from", "", "a workbook (.xlsx) whose finding sheets' Acknowledge columns were filled in: make those acknowledgements")
	positional, err := cliflags.ParseInterspersed(fs, args)
	if err != nil {
		return o, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["db"] { // RECONCILE_DB, else the db key of --config (the run's), else the default
		if db, ok, err := cliflags.Layered("db", e.Getenv, o.config); err != nil {
			return o, err
		} else if ok {
			o.db = db
		}
	}
	if o.by == "" {
		o.by = checks.OSUser(e.Getenv)
	}
	ackOnly := []string{"reason", "owner", "until", "ticket"}
	switch {
	case set["from"]:
		if o.from == "" {
			return o, errors.New("ack --from: give the workbook's path")
		}
		if len(positional) > 0 {
			return o, fmt.Errorf("ack --from: unexpected argument %q (the workbook's rows name their findings)", positional[0])
		}
		if given := givenOf(set, append(ackOnly, "merchant", "list", "revoke", "format")...); given != "" {
			return o, fmt.Errorf("ack --from: %s does not go with --from (the workbook's rows give them)", given)
		}
		return o, nil
	case o.list && o.revoke:
		return o, errors.New("ack: --list and --revoke do not go together")
	case o.list:
		if len(positional) > 0 {
			return o, fmt.Errorf("ack --list: unexpected argument %q", positional[0])
		}
		if given := givenOf(set, append(ackOnly, "merchant", "by")...); given != "" {
			return o, fmt.Errorf("ack --list: %s is for making or revoking an acknowledgement", given)
		}
		if o.format != "table" && o.format != "csv" && o.format != "json" {
			return o, fmt.Errorf("ack --list: --format %q: want table, csv or json", o.format)
		}
		return o, nil
	case len(positional) != 2:
		fs.Usage()
		return o, fmt.Errorf("ack: give KIND and ENTITY (got %d argument(s)), or --list", len(positional))
	}
	o.kind, o.entity = positional[0], positional[1]
	if set["format"] {
		return o, errors.New("ack: --format is for --list")
	}
	if o.revoke {
		if given := givenOf(set, ackOnly...); given != "" {
			return o, fmt.Errorf("ack --revoke: %s is for making an acknowledgement", given)
		}
		return o, nil
	}
	for _, name := range []string{"merchant", "reason", "owner", "until"} {
		if !set[name] {
			return o, fmt.Errorf("ack: --%s is required to acknowledge a finding", name)
		}
	}
	return o, nil
}

// acknowledgement is the acknowledgement the options make (zero for
// --list and --revoke), checked.
func (o ackOptions) acknowledgement() (checks.Acknowledgement, error) {
	if o.list || o.revoke || o.from != "" {
		return checks.Acknowledgement{}, nil
	}
	until, err := time.Parse(time.DateOnly, o.until)
	if err != nil {
		return checks.Acknowledgement{}, fmt.Errorf("ack: --until %q: want a date, YYYY-MM-DD", o.until)
	}
	a := checks.Acknowledgement{Kind: o.kind, MerchantID: o.merchant, EntityID: o.entity, Reason: strings.TrimSpace(o.reason),
		Owner: strings.TrimSpace(o.owner), Until: until, Ticket: strings.TrimSpace(o.ticket)}
	if err := a.Validate(); err != nil {
		return a, fmt.Errorf("ack: %w", err)
	}
	return a, nil
}

// givenOf names the first of the flags that was given, as --name, or "".
func givenOf(set map[string]bool, names ...string) string {
	for _, n := range names {
		if set[n] {
			return "--" + n
		}
	}
	return ""
}

// listAcks prints the acknowledgements in force.
func listAcks(ctx context.Context, s *store.Store, format string, e Env) error {
	return checks.ListAcknowledgements(ctx, s, func(rows *sql.Rows) error {
		if err := sqlout.WriteRows(rows, sqlout.New(format, false, e.Stdout)); err != nil {
			return fmt.Errorf("ack --list: %w", err)
		}
		return nil
	})
}

// ackFromWorkbook makes the acknowledgements of a workbook's filled rows
// (checks.ReadWorkbookAcknowledgements), prints each row refused with its
// sheet, row and reason and a line of counts, and fails when a row was
// refused, after making the others.
func ackFromWorkbook(ctx context.Context, s *store.Store, path string, c checks.Change, e Env) error {
	rows, rejects, err := checks.ReadWorkbookAcknowledgements(path, reports.KindSheetEntityHeader)
	if err != nil {
		return fmt.Errorf("ack --from: %w", err)
	}
	res, err := checks.AcknowledgeFromWorkbook(ctx, s, path, rows, c)
	rejects = append(rejects, res.Rejected...)
	for _, r := range rejects {
		fmt.Fprintf(e.Stdout, "refused: %s\n", terminalLine(r.String()))
	}
	fmt.Fprintf(e.Stdout, "acknowledged %d, unchanged %d, refused %d (of %d filled rows in %s)\n",
		res.Acknowledged, res.Unchanged, len(rejects), len(rows)+len(rejects)-len(res.Rejected), terminalLine(path))
	if err != nil {
		return fmt.Errorf("ack --from: %w", err)
	}
	if len(rejects) > 0 {
		return fmt.Errorf("ack --from: %d row(s) refused (listed above); the other rows were taken", len(rejects))
	}
	return nil
}
