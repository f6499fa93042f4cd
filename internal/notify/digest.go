package notify

import (
	"context"
	"database/sql"
	"fmt"
	"net/mail"
	"os"
	"path/filepath"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/queries"
	"github.com/reconcile/reconcile/reports"
)

// Digest is what one message tells: a run, or one group of it.
//
// Every text in it that came from outside (member IDs, the platform's
// error messages, group names) is already on one line and cut short
// (safetext), with any card number masked (cardmask); the renderers
// escape it for their format (HTML, Slack's mrkdwn) on top of that.
// Findings are counted and summed, never quoted: their details are not
// read at all.
type Digest struct {
	BusinessDate string
	GroupID      string // "" for the whole run
	GroupName    string
	Status       string // ok, partial or failed
	Simulated    bool   // the embedded sandbox's data
	// Error is why a run failed before it published anything (Status
	// failed); the other counts are then zero.
	Error                    string
	Members, MembersOK       int64
	Failed                   []FailedMember // the first maxFailed
	FailedTotal              int64
	New                      []KindNew // in the catalog's order
	NewTotal, Open, Resolved int64
	Acknowledged             int64
	PreviousRun              string
	Alarms                   []reports.Alarm // raised; the whole run's digest only
	Workbook                 string          // where it is
	// Attachment is the workbook to attach ("" none) and AttachNote why
	// one is not (too large), for the e-mail; set by the mailer.
	Attachment string
	AttachNote string
	// attachable says Workbook may go with the e-mail: the whole run's to
	// the run's recipients, a group's own (--split-by group) to its
	// owners, never the whole run's to one group's owners.
	attachable bool
	to         []*mail.Address
	webhook    *Webhook
}

// FailedMember is a member that failed, with the reason.
type FailedMember struct{ MerchantID, Error string }

// KindNew are a kind's findings new today, with their amount per currency
// ("USD 1,234.50"), never added across currencies.
type KindNew struct {
	Kind    string
	Count   int64
	Amounts []string
}

// maxFailed is how many failed members a digest names; the rest are
// counted, and listed on the workbook's Summary.
const maxFailed = 20

// Querier runs the statements of queries/notify.sql.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

var (
	memberCountsSQL  = queries.Must("notify.sql", "MemberCounts")
	failedMembersSQL = queries.Must("notify.sql", "FailedMembers")
	findingStatesSQL = queries.Must("notify.sql", "FindingStates")
	newByKindSQL     = queries.Must("notify.sql", "NewByKind")
	runGroupsSQL     = queries.Must("notify.sql", "RunGroups")
)

// Collect reads the digests of a published run from its database: the
// whole run's, for the recipients of cfg.Email and cfg.Webhook, and one
// per group of cfg.Groups that the run listed, for that group's owners.
// run is what was published (its Alarms included), pub where.
func Collect(ctx context.Context, q Querier, cfg *Config, run reports.Publication, pub *reports.Published) ([]Digest, error) {
	var out []Digest
	if cfg.Webhook != nil || cfg.Email != nil && len(cfg.Email.To) > 0 {
		d, err := collect(ctx, q, run, pub, "", "")
		if err != nil {
			return nil, err
		}
		d.Alarms = reports.RaisedAlarms(run.Alarms)
		d.attachable = true
		d.webhook = cfg.Webhook
		if cfg.Email != nil {
			d.to = cfg.Email.To
		}
		out = append(out, d)
	}
	if len(cfg.Groups) == 0 {
		return out, nil
	}
	groups, err := runGroups(ctx, q, run.RunID)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		route, ok := cfg.Groups[g.id]
		if !ok {
			continue
		}
		d, err := collect(ctx, q, run, pub, g.id, g.name)
		if err != nil {
			return nil, err
		}
		// Its own workbook, if --split-by group wrote one; the whole run's
		// holds other groups' members, so it is named but not attached.
		wb, own := pub.GroupWorkbooks[g.id]
		if own {
			d.Workbook = where(wb)
		}
		d.attachable = own
		d.to, d.webhook = route.To, route.Webhook
		out = append(out, d)
	}
	return out, nil
}

// FailedRun is the digest of a run that failed before it published: its
// date, source and the error, to the whole run's recipients.
func FailedRun(cfg *Config, date, source string, runErr error) []Digest {
	if cfg.Webhook == nil && (cfg.Email == nil || len(cfg.Email.To) == 0) {
		return nil
	}
	d := Digest{BusinessDate: date, Status: "failed", Simulated: source == reports.SourceSandbox,
		Error: safetext.Cut(cardmask.MaskText(runErr.Error()), 500), webhook: cfg.Webhook}
	if cfg.Email != nil {
		d.to = cfg.Email.To
	}
	return []Digest{d}
}

// collect reads one digest; groupID "" is the whole run.
func collect(ctx context.Context, q Querier, run reports.Publication, pub *reports.Published, groupID, groupName string) (Digest, error) {
	d := Digest{BusinessDate: run.BusinessDate.Format("2006-01-02"), GroupID: safetext.Cut(groupID, 64),
		GroupName: safetext.Cut(groupName, 80), Status: run.Status, Simulated: run.Source == reports.SourceSandbox,
		PreviousRun: pub.PreviousRun, Workbook: where(pub.Workbook)}
	var group any // SQL NULL: the whole run
	if groupID != "" {
		group = groupID
	}
	what := "digest of run " + run.RunID
	if groupID != "" {
		what += " for group " + groupID
	}
	err := scanOne(ctx, q, memberCountsSQL, []any{run.RunID, group}, &d.Members, &d.MembersOK, &d.FailedTotal)
	if err == nil {
		err = scanOne(ctx, q, findingStatesSQL, []any{run.RunID, group}, &d.NewTotal, &d.Open, &d.Resolved, &d.Acknowledged)
	}
	if err == nil {
		d.Failed, err = failedMembers(ctx, q, run.RunID, group)
	}
	if err == nil {
		d.New, err = newByKind(ctx, q, run.RunID, group)
	}
	if err != nil {
		return Digest{}, fmt.Errorf("%s: %w", what, err)
	}
	return d, nil
}

func scanOne(ctx context.Context, q Querier, query string, args []any, dest ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
	}
	return rows.Err()
}

func failedMembers(ctx context.Context, q Querier, runID string, group any) ([]FailedMember, error) {
	rows, err := q.QueryContext(ctx, failedMembersSQL, runID, group, maxFailed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FailedMember
	for rows.Next() {
		var m FailedMember
		if err := rows.Scan(&m.MerchantID, &m.Error); err != nil {
			return nil, err
		}
		m.MerchantID = safetext.Cut(m.MerchantID, 64)
		m.Error = safetext.Cut(cardmask.MaskText(m.Error), 300)
		out = append(out, m)
	}
	return out, rows.Err()
}

func newByKind(ctx context.Context, q Querier, runID string, group any) ([]KindNew, error) {
	rows, err := q.QueryContext(ctx, newByKindSQL, runID, group, queries.Kinds())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []KindNew
	for rows.Next() {
		var kind string
		var cur, amount sql.NullString
		var n int64
		if err := rows.Scan(&kind, &cur, &n, &amount); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Kind != kind {
			out = append(out, KindNew{Kind: kind})
		}
		k := &out[len(out)-1]
		k.Count += n
		if cur.Valid && amount.Valid {
			k.Amounts = append(k.Amounts, safetext.Cut(cur.String, 8)+" "+amount.String)
		}
	}
	return out, rows.Err()
}

type runGroup struct{ id, name string }

func runGroups(ctx context.Context, q Querier, runID string) ([]runGroup, error) {
	rows, err := q.QueryContext(ctx, runGroupsSQL, runID)
	if err != nil {
		return nil, fmt.Errorf("the groups of run %s: %w", runID, err)
	}
	defer rows.Close()
	var out []runGroup
	for rows.Next() {
		var g runGroup
		if err := rows.Scan(&g.id, &g.name); err != nil {
			return nil, fmt.Errorf("the groups of run %s: %w", runID, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// where is a published file's path as a digest names it: absolute, since
// its reader is not in the run's working directory.
func where(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return safetext.Line(path)
}

// attachment decides whether the digest's workbook goes with the e-mail:
// only when it is no larger than max (0: never).
func (d *Digest) attachment(max int64) {
	if d.Workbook == "" || max <= 0 {
		return
	}
	if !d.attachable {
		d.AttachNote = "the whole run's workbook, not attached to a group's digest (--split-by group writes the group's own)"
		return
	}
	fi, err := os.Stat(d.Workbook)
	switch {
	case err != nil:
		d.AttachNote = "not attached: " + safetext.Cut(err.Error(), 200)
	case fi.Size() > max:
		d.AttachNote = fmt.Sprintf("not attached: %s is over the %s limit", sizeText(fi.Size()), sizeText(max))
	default:
		d.Attachment = d.Workbook
		d.AttachNote = "attached: " + filepath.Base(d.Workbook)
	}
}

// sizeText writes a size for people: 512 KB, 23.4 MB.
func sizeText(n int64) string {
	switch {
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}
