package checks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// Acknowledgements. A finding someone knows about and handles can be
// acknowledged, with a reason, an owner, the last business date it covers
// and a ticket: by `reconcile ack` (Acknowledge, Revoke) or by the file
// a run is given (ReadAcknowledgementFile, SyncAcknowledgementFile). Each
// run then reports that finding in state acknowledged instead of new or
// open (applyAcknowledgements), until the date passes or the finding's
// amount or currency changes: then the acknowledgement ends, and the
// finding is open (or new) again. Findings themselves never change: an
// acknowledgement changes a finding's state, not whether it is reported.
//
// Every change (acknowledge, change, revoke, amount_recorded, expire,
// reopen) is kept in acknowledgement_audit with who made it, when, from
// where, and the acknowledgement before and after.

// Acknowledgement is what a person says about one finding.
type Acknowledgement struct {
	Kind       string // a finding kind of the catalog
	MerchantID string
	EntityID   string // findings.entity_id
	Reason     string
	Owner      string    // who handles it
	Until      time.Time // the last business date it covers
	Ticket     string    // optional
}

// Change says who makes a change and from where, for the audit.
type Change struct {
	By     string    // a person: --by, else the OS user
	At     time.Time // when
	Source string    // "command" or "file <path>"
}

// Limits of an acknowledgement's texts, in characters: beyond them a
// value is a mistake (a file pasted into a flag), not a reason.
const (
	maxIDLength     = 256
	maxReasonLength = 2000
	maxNameLength   = 200
)

// ErrNoFinding means an acknowledgement names a finding the latest run
// did not report.
var ErrNoFinding = errors.New("no such finding")

// Validate checks an acknowledgement's fields: a kind of the catalog,
// merchant, entity, reason and owner given, no text longer than its limit
// or holding a control character or card data, a date. Texts are taken as they are;
// surrounding white space is the caller's to trim.
func (a Acknowledgement) Validate() error {
	if !slices.Contains(queries.Kinds(), a.Kind) {
		return fmt.Errorf("kind %q: not a finding kind (reconcile sql \"SELECT kind FROM finding_kinds\" lists them)", a.Kind)
	}
	for _, f := range []struct {
		name, value string
		max         int
		required    bool
	}{
		{"merchant", a.MerchantID, maxIDLength, true},
		{"entity", a.EntityID, maxIDLength, true},
		{"reason", a.Reason, maxReasonLength, true},
		{"owner", a.Owner, maxNameLength, true},
		{"ticket", a.Ticket, maxNameLength, false},
	} {
		switch n := utf8.RuneCountInString(f.value); {
		case !utf8.ValidString(f.value):
			return fmt.Errorf("%s: not UTF-8 text", f.name)
		case n == 0 && f.required:
			return fmt.Errorf("%s: missing", f.name)
		case n > f.max:
			return fmt.Errorf("%s: %d characters, at most %d", f.name, n, f.max)
		case strings.IndexFunc(f.value, unicode.IsControl) >= 0:
			return fmt.Errorf("%s: holds a control character (a line break, a tab, an escape)", f.name)
		case f.name == "entity" && cardmask.IsPlatformID(f.value):
			// The platform's id of a finding's entity, as stored: kept
			// though its digits may pass for a card number (cardmask's
			// fields.go).
		case cardmask.MaskText(f.value) != f.value:
			// Stored and published as typed: card data is refused, not
			// masked, so that the text says what its writer meant.
			return fmt.Errorf("%s: holds card data (a full card number, a security code); write at most a card's first six and last four digits", f.name)
		}
	}
	if a.Until.IsZero() {
		return errors.New("until: missing")
	}
	return nil
}

// Statements of queries/acknowledgements.sql.
var (
	snapshotAcknowledgements = queries.Must("acknowledgements.sql", "SnapshotAcknowledgements")
	auditChanged             = queries.Must("acknowledgements.sql", "AuditChanged")
	auditEnded               = queries.Must("acknowledgements.sql", "AuditEnded")
	deleteExpired            = queries.Must("acknowledgements.sql", "DeleteExpired")
	recordAmounts            = queries.Must("acknowledgements.sql", "RecordAmounts")
	deleteReopened           = queries.Must("acknowledgements.sql", "DeleteReopened")
	markAcknowledged         = queries.Must("acknowledgements.sql", "MarkAcknowledged")
	latestRunSQL             = queries.Must("acknowledgements.sql", "LatestRun")
	findingSQL               = queries.Must("acknowledgements.sql", "Finding")
	upsertAcknowledgement    = queries.Must("acknowledgements.sql", "Upsert")
	deleteAcknowledgement    = queries.Must("acknowledgements.sql", "Delete")
	merchantsOfSQL           = queries.Must("acknowledgements.sql", "MerchantsOf")
	fileEntriesNotListed     = queries.Must("acknowledgements.sql", "FileEntriesNotListed")
	reopenedAsSaid           = queries.Must("acknowledgements.sql", "ReopenedAsSaid")
	listAcknowledgements     = queries.Must("acknowledgements.sql", "List")
)

// Sources of acknowledgements (acknowledgements.source) and of audit rows.
const (
	sourceCommand = "command"
	sourceFile    = "file"
	sourceRun     = "run"
	byReconcile   = "reconcile" // who makes the changes a run makes by itself
)

// audit says how a change to the acknowledgements is audited: who makes
// it (Change), the run making it ("" for a command), the action of an
// acknowledgement that changed (one made is always "acknowledge") and of
// one that ended; "" for a kind of change the step does not make.
type audit struct {
	Change
	runID          string
	changed, ended string
}

// run makes change between a snapshot of the acknowledgements and the
// audit rows of what it changed.
func (au audit) run(ctx context.Context, tx *store.Tx, change func() error) error {
	if _, err := tx.Exec(ctx, snapshotAcknowledgements); err != nil {
		return fmt.Errorf("snapshot the acknowledgements: %w", err)
	}
	if err := change(); err != nil {
		return err
	}
	var run any // NULL for a command
	if au.runID != "" {
		run = au.runID
	}
	for _, a := range []struct{ stmt, action string }{{auditChanged, au.changed}, {auditEnded, au.ended}} {
		if a.action == "" {
			continue
		}
		if _, err := tx.Exec(ctx, a.stmt, au.At, au.By, a.action, au.Source, run); err != nil {
			return fmt.Errorf("audit the acknowledgements: %w", err)
		}
	}
	return nil
}

// exec is run for one statement.
func (au audit) exec(ctx context.Context, tx *store.Tx, stmt string, args ...any) error {
	return au.run(ctx, tx, func() error {
		_, err := tx.Exec(ctx, stmt, args...)
		return err
	})
}

// applyAcknowledgements gives run runID's findings (business date
// businessDate) their acknowledgements, in the run's last transaction of
// the findings: acknowledgements past their date end (expire); those
// made before their finding existed take its amount (amount_recorded);
// those whose finding's amount or currency changed end (reopen); the new
// and open findings under the others become acknowledged. at is when.
func applyAcknowledgements(ctx context.Context, tx *store.Tx, runID string, businessDate, at time.Time) error {
	c := Change{By: byReconcile, At: at, Source: sourceRun}
	if err := (audit{Change: c, runID: runID, ended: "expire"}).exec(ctx, tx, deleteExpired, businessDate); err != nil {
		return fmt.Errorf("expire acknowledgements (run %s): %w", runID, err)
	}
	if err := (audit{Change: c, runID: runID, changed: "amount_recorded"}).exec(ctx, tx, recordAmounts, runID, at); err != nil {
		return fmt.Errorf("record acknowledged amounts (run %s): %w", runID, err)
	}
	if err := (audit{Change: c, runID: runID, ended: "reopen"}).exec(ctx, tx, deleteReopened, runID); err != nil {
		return fmt.Errorf("reopen acknowledgements whose amount changed (run %s): %w", runID, err)
	}
	if _, err := tx.Exec(ctx, markAcknowledged, runID); err != nil {
		return fmt.Errorf("acknowledged findings of run %s: %w", runID, err)
	}
	return nil
}

// latestRun is the latest run that finished ok or partial, the findings
// acknowledgements are made against, or "" when none has.
func latestRun(ctx context.Context, s *store.Store) (runID string, businessDate time.Time, err error) {
	err = s.Conn().QueryRowContext(ctx, latestRunSQL).Scan(&runID, &businessDate)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("find the latest run: %w", err)
	}
	return runID, businessDate, nil
}

// Acknowledge makes (or changes) the acknowledgement of a finding the
// latest run reported, recording the finding's amount and currency: a
// later run reporting another amount ends it. An end date before the
// latest run's business date is refused, as is a finding the latest run
// did not report (ErrNoFinding). It returns the run it looked in and
// whether anything changed.
func Acknowledge(ctx context.Context, s *store.Store, a Acknowledgement, c Change) (runID string, changed bool, err error) {
	c.Source = sourceCommand
	return acknowledge(ctx, s, a, c)
}

// refusal is an acknowledgement refused for what it says (a field, its
// date, no finding to acknowledge yet), not for a failure of the
// database: reconcile ack --from lists such a row and goes on.
type refusal struct{ error }

func (r refusal) Unwrap() error { return r.error }

// acknowledge is Acknowledge with the audit's source c.Source (the
// command, or the workbook a row came from).
func acknowledge(ctx context.Context, s *store.Store, a Acknowledgement, c Change) (runID string, changed bool, err error) {
	if err := a.Validate(); err != nil {
		return "", false, refusal{err}
	}
	runID, date, err := latestRun(ctx, s)
	if err != nil {
		return "", false, err
	}
	if runID == "" {
		return "", false, refusal{errors.New("no run has finished in this database yet: a finding can be acknowledged once a run reported it")}
	}
	if a.Until.Before(date) {
		return runID, false, refusal{fmt.Errorf("until %s: before the business date of the latest run (%s); an acknowledgement covers that date or later",
			a.Until.Format(time.DateOnly), date.Format(time.DateOnly))}
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		amount, currency, found, err := findingAmount(ctx, tx, runID, a)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: run %s reports no %s finding %q of merchant %q (the entity is the finding's ID on the kind's sheet, or findings.entity_id)",
				ErrNoFinding, runID, a.Kind, a.EntityID, a.MerchantID)
		}
		changed, err = upsert(ctx, tx, a, true, amount, currency, sourceCommand, audit{Change: c})
		return err
	})
	return runID, changed, err
}

// findingAmount reads the amount (decimal text, nil for none) and
// currency of the finding a names in run runID, and whether it is there.
func findingAmount(ctx context.Context, tx *store.Tx, runID string, a Acknowledgement) (amount, currency *string, found bool, err error) {
	err = tx.QueryRow(ctx, findingSQL, runID, a.Kind, a.MerchantID, a.EntityID).Scan(&amount, &currency)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil, false, nil
	case err != nil:
		return nil, nil, false, fmt.Errorf("read finding %s %s of %s: %w", a.Kind, a.EntityID, a.MerchantID, err)
	}
	return amount, currency, true, nil
}

// upsert makes or changes one acknowledgement between a snapshot and its
// audit, and tells whether anything changed. With amountKnown false an
// existing acknowledgement keeps the amount it recorded.
func upsert(ctx context.Context, tx *store.Tx, a Acknowledgement, amountKnown bool, amount, currency *string,
	source string, au audit) (bool, error) {
	var changed int64
	au.changed = "change"
	err := au.run(ctx, tx, func() error {
		var ticket any // NULL for none
		if a.Ticket != "" {
			ticket = a.Ticket
		}
		res, err := tx.Exec(ctx, upsertAcknowledgement, a.Kind, a.MerchantID, a.EntityID, a.Reason, a.Owner, a.Until, ticket,
			amountKnown, amount, currency, source, au.At, au.By)
		if err != nil {
			return fmt.Errorf("acknowledge %s %s of %s: %w", a.Kind, a.EntityID, a.MerchantID, err)
		}
		changed, _ = res.RowsAffected()
		return nil
	})
	return changed > 0, err
}

// Revoke ends the acknowledgement of kind and entity of merchant; with
// merchant "", of the one merchant that has one (more than one is an
// error naming them). It returns the merchant whose acknowledgement
// ended.
func Revoke(ctx context.Context, s *store.Store, kind, entity, merchant string, c Change) (string, error) {
	c.Source = sourceCommand
	err := s.Transact(ctx, func(tx *store.Tx) error {
		if merchant == "" {
			mids, err := merchantsOf(ctx, tx, kind, entity)
			if err != nil {
				return err
			}
			switch len(mids) {
			case 0:
				return fmt.Errorf("no acknowledgement of %s %q (reconcile ack --list shows them)", kind, entity)
			case 1:
				merchant = mids[0]
			default:
				return fmt.Errorf("%s %q is acknowledged for %d merchants (%s): say which with --merchant",
					kind, entity, len(mids), strings.Join(mids, ", "))
			}
		}
		return revoke(ctx, tx, kind, merchant, entity, audit{Change: c})
	})
	return merchant, err
}

// revoke deletes one acknowledgement between a snapshot and its audit; an
// acknowledgement that is not there is an error.
func revoke(ctx context.Context, tx *store.Tx, kind, merchant, entity string, au audit) error {
	au.ended = "revoke"
	return au.run(ctx, tx, func() error {
		res, err := tx.Exec(ctx, deleteAcknowledgement, kind, merchant, entity)
		if err != nil {
			return fmt.Errorf("revoke %s %s of %s: %w", kind, entity, merchant, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("no acknowledgement of %s %q of merchant %q (reconcile ack --list shows them)", kind, entity, merchant)
		}
		return nil
	})
}

func merchantsOf(ctx context.Context, tx *store.Tx, kind, entity string) ([]string, error) {
	rows, err := tx.Query(ctx, merchantsOfSQL, kind, entity)
	if err != nil {
		return nil, fmt.Errorf("find the acknowledgements of %s %s: %w", kind, entity, err)
	}
	defer rows.Close()
	var mids []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		mids = append(mids, m)
	}
	return mids, rows.Err()
}

// FileSync says what a file changed.
type FileSync struct {
	Changed int // acknowledgements made or changed
	Revoked int // acknowledgements the file made and no longer lists
	// Past lists the entries whose date is before the run's business
	// date: they acknowledge nothing any more (the file may drop them).
	Past []Acknowledgement
	// Reopened lists the entries a run ended because their finding's
	// amount changed: the file makes them again only once the entry
	// changes (a new reason, date, owner or ticket), since nobody has
	// acknowledged the new amount.
	Reopened []Acknowledgement
}

// SyncAcknowledgementFile makes the acknowledgements a file's entries
// say, for a run of businessDate, in one transaction: the file owns the
// acknowledgements it lists (taking over one `reconcile ack` made for the
// same finding) and those it made before; one it made and no longer
// lists is revoked. An entry whose date is before businessDate is left
// out, as if not listed (FileSync.Past), and so is one whose
// acknowledgement a run ended because the amount changed, until the entry
// changes (FileSync.Reopened). An entry's amount is its finding's in the
// latest run, or, for a finding no run has reported yet, the first run
// that reports it. c.By is who runs the run, c.Source names the file;
// runID is the run it is given to.
func SyncAcknowledgementFile(ctx context.Context, s *store.Store, entries []Acknowledgement, businessDate time.Time,
	c Change, runID string) (FileSync, error) {
	var sync FileSync
	latest, _, err := latestRun(ctx, s) // "" before the first run: amounts are recorded by it
	if err != nil {
		return sync, err
	}
	err = s.Transact(ctx, func(tx *store.Tx) error {
		sync = FileSync{}
		var kinds, mids, ents []string
		for _, a := range entries {
			if a.Until.Before(businessDate) {
				sync.Past = append(sync.Past, a)
				continue
			}
			reopened, err := reopenedAsListed(ctx, tx, a)
			if err != nil {
				return err
			}
			if reopened {
				sync.Reopened = append(sync.Reopened, a)
				continue
			}
			kinds, mids, ents = append(kinds, a.Kind), append(mids, a.MerchantID), append(ents, a.EntityID)
			amount, currency, found, err := findingAmount(ctx, tx, latest, a)
			if err != nil {
				return err
			}
			changed, err := upsert(ctx, tx, a, found, amount, currency, sourceFile, audit{Change: c, runID: runID})
			if err != nil {
				return err
			}
			if changed {
				sync.Changed++
			}
		}
		gone, err := notListed(ctx, tx, kinds, mids, ents)
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := revoke(ctx, tx, k[0], k[1], k[2], audit{Change: c, runID: runID}); err != nil {
				return err
			}
			sync.Revoked++
		}
		return nil
	})
	return sync, err
}

// reopenedAsListed tells whether the last change to a's acknowledgement
// was a run reopening it (its finding's amount changed) while it said
// what a says.
func reopenedAsListed(ctx context.Context, tx *store.Tx, a Acknowledgement) (bool, error) {
	var reopened bool
	err := tx.QueryRow(ctx, reopenedAsSaid, a.Kind, a.MerchantID, a.EntityID, a.Owner, a.Until.Format(time.DateOnly),
		a.Reason, a.Ticket).Scan(&reopened)
	if err != nil {
		return false, fmt.Errorf("read the changes to %s %s of %s: %w", a.Kind, a.EntityID, a.MerchantID, err)
	}
	return reopened, nil
}

// notListed is the keys (kind, merchant, entity) of the acknowledgements
// a file made that are not among the keys given.
func notListed(ctx context.Context, tx *store.Tx, kinds, mids, ents []string) ([][3]string, error) {
	rows, err := tx.Query(ctx, fileEntriesNotListed, kinds, mids, ents)
	if err != nil {
		return nil, fmt.Errorf("find the acknowledgements the file no longer lists: %w", err)
	}
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var k [3]string
		if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// ListAcknowledgements runs fn on the rows of the acknowledgements in
// force (statement List of queries/acknowledgements.sql: by kind, merchant
// and entity), for a caller that prints them.
func ListAcknowledgements(ctx context.Context, s *store.Store, fn func(*sql.Rows) error) error {
	rows, err := s.Conn().QueryContext(ctx, listAcknowledgements)
	if err != nil {
		return fmt.Errorf("list the acknowledgements: %w", err)
	}
	defer rows.Close()
	if err := fn(rows); err != nil {
		return err
	}
	return rows.Err()
}
