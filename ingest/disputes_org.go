package ingest

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// The organization's dispute reports (--dispute-scope organization): the
// three reports read once for the run's organization (organizationId the
// organization, signed for it), whatever the number of members, and each
// record attributed to its member:
//
//  1. an interchange clearing record names its member in organizationId
//     (ReportingV3InterchangeClearingLevelDetailsGet200Response
//     InterchangeClearingLevelDetails), and its processorMerchantId;
//  2. a chargeback or retrieval names only its processorMerchantId and
//     requestId (the SDK's models have no organizationId per record): the
//     processor merchant ID is mapped to a member by tonight's clearing
//     records of every merchant, and by the member's rows loaded on earlier
//     nights (their raw records keep it), else the request id to the member
//     whose transaction it is (the transactions table, any night);
//  3. a record that is still nobody's is not dropped: that report is read
//     again member by member for the night (the member scope's requests),
//     and the log says why. A record of a merchant outside the run's
//     members (another shard, a member of no group reconciled) is ignored,
//     and counted in the log.
//
// A report the organization may not read (the platform's refusal, as
// settlement reads a refused group's members one by one) or that fails is
// read member by member. A member with no record in the organization's
// reports is asked for its own clearing report, one request (one whose
// reports were read on an earlier night only on its day of the week,
// askSilent): a refusal
// records it as not enabled (whether the organization's report leaves out
// or includes a member the key may not read reports for is unverified,
// docs/platform.md), records mean the organization's report left it out, and
// its other reports are read on their own too.

// DisputeScope is how the dispute reports are read (--dispute-scope).
type DisputeScope string

const (
	// DisputeScopeOrganization reads each report once for the organization
	// (the default, also the zero value).
	DisputeScopeOrganization DisputeScope = "organization"
	// DisputeScopeMember reads each report once per member.
	DisputeScopeMember DisputeScope = "member"
)

// String is the scope's flag value.
func (d *DisputeScope) String() string {
	if d == nil || *d == "" {
		return string(DisputeScopeOrganization)
	}
	return string(*d)
}

// Set reads a --dispute-scope value.
func (d *DisputeScope) Set(v string) error {
	switch DisputeScope(v) {
	case DisputeScopeOrganization, DisputeScopeMember:
		*d = DisputeScope(v)
		return nil
	}
	return fmt.Errorf("%q: organization (each report once for the organization) or member (once per member)", v)
}

// reportSet names some of the three reports.
type reportSet uint8

const (
	reportClearing reportSet = 1 << iota
	reportChargebacks
	reportRetrievals
	allReports = reportClearing | reportChargebacks | reportRetrievals
)

func (r reportSet) String() string {
	var out []string
	for _, x := range []struct {
		bit  reportSet
		name string
	}{{reportClearing, "interchange clearing"}, {reportChargebacks, "chargebacks"}, {reportRetrievals, "retrievals"}} {
		if r&x.bit != 0 {
			out = append(out, x.name)
		}
	}
	return strings.Join(out, ", ")
}

var (
	storedProcessorMerchants = queries.Must("ingest.sql", "StoredProcessorMerchants")
	transactionOwners        = queries.Must("ingest.sql", "TransactionOwners")
	disputeReportsRead       = queries.Must("ingest.sql", "DisputeReportsRead")
)

// attribution maps a record to the merchant it belongs to.
type attribution struct {
	pmids   map[string]map[string]bool // processor merchant ID: merchants (masked IDs as stored)
	request map[string]map[string]bool // request id (masked): merchants
}

func (a *attribution) addPMID(pmid, mid string) {
	if pmid == "" || mid == "" {
		return
	}
	if a.pmids[pmid] == nil {
		a.pmids[pmid] = map[string]bool{}
	}
	a.pmids[pmid][mid] = true
}

// one is the single merchant of set, "" when none or several.
func one(set map[string]bool) string {
	if len(set) != 1 {
		return ""
	}
	for m := range set {
		return m
	}
	return ""
}

// of names the merchant (masked ID) of a record: its own organizationId,
// else its processor merchant ID's, else its request id's.
func (a *attribution) of(orgID, pmid, requestID string) string {
	if orgID != "" {
		return maskedID(orgID)
	}
	if m := one(a.pmids[pmid]); m != "" {
		return m
	}
	return one(a.request[maskedID(requestID)])
}

// loadAttribution reads what earlier nights know: the processor merchant
// IDs of stored rows, and the owners of the request ids asked.
func loadAttribution(ctx context.Context, s *store.Store, requestIDs []string) (*attribution, error) {
	a := &attribution{pmids: map[string]map[string]bool{}, request: map[string]map[string]bool{}}
	rows, err := s.Conn().QueryContext(ctx, storedProcessorMerchants)
	if err != nil {
		return nil, fmt.Errorf("processor merchant IDs of stored reports: %w", err)
	}
	for rows.Next() {
		var pmid, mid string
		if err := rows.Scan(&pmid, &mid); err != nil {
			rows.Close()
			return nil, fmt.Errorf("processor merchant IDs of stored reports: %w", err)
		}
		a.addPMID(pmid, mid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("processor merchant IDs of stored reports: %w", err)
	}
	if len(requestIDs) == 0 {
		return a, nil
	}
	rows, err = s.Conn().QueryContext(ctx, transactionOwners, requestIDs)
	if err != nil {
		return nil, fmt.Errorf("members of the reports' request ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, mid string
		if err := rows.Scan(&id, &mid); err != nil {
			return nil, fmt.Errorf("members of the reports' request ids: %w", err)
		}
		if a.request[id] == nil {
			a.request[id] = map[string]bool{}
		}
		a.request[id][mid] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("members of the reports' request ids: %w", err)
	}
	return a, nil
}

// pullOrganization reads the organization's three reports and attributes
// their records to members (see above); a report that cannot be read or
// attributed is read member by member.
func pullOrganization(ctx context.Context, s *store.Store, opts DisputeOptions, members []string) ([]*memberReports, []error, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(members) == 0 {
		return nil, nil, nil
	}
	org := opts.Client.Merchant(opts.OrganizationID)
	octx := ctx
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		octx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	w := opts.Window
	var fallback reportSet
	failed := func(what reportSet, err error) {
		fallback |= what
		why := "failed"
		if _, ok := platform.ReportsNotReadable(err); ok {
			why = "refused"
		}
		log.Warn("dispute report of the organization "+why+": reading it member by member", "report", what.String(), "error", err)
	}
	clearing, err := org.InterchangeClearingLevels(octx, w.Start, w.End)
	if err != nil {
		failed(reportClearing, err)
	}
	chargebacks, err := org.Chargebacks(octx, w.Start, w.End)
	if err != nil {
		failed(reportChargebacks, err)
	}
	retrievals, err := org.Retrievals(octx, w.Start, w.End)
	if err != nil {
		failed(reportRetrievals, err)
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}

	// What the records say, then what earlier nights know.
	var unnamed []string
	for _, c := range clearing {
		if c.OrganizationID == "" && c.RequestID != "" {
			unnamed = append(unnamed, maskedID(c.RequestID))
		}
	}
	for _, d := range append(append([]platform.Dispute{}, chargebacks...), retrievals...) {
		if d.RequestID != "" {
			unnamed = append(unnamed, maskedID(d.RequestID))
		}
	}
	attr, err := loadAttribution(ctx, s, unnamed)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range clearing {
		if c.OrganizationID != "" {
			attr.addPMID(c.ProcessorMerchantID, maskedID(c.OrganizationID))
		}
	}

	idx := make(map[string]int, len(members)) // masked ID: index
	reps := make([]*memberReports, len(members))
	for i, mid := range members {
		idx[maskedID(mid)] = i
		reps[i] = &memberReports{merchantID: mid}
	}
	var ignored int
	unattributed := map[reportSet]int{}
	place := func(what reportSet, orgID, pmid, requestID string, add func(r *memberReports)) {
		m := attr.of(orgID, pmid, requestID)
		switch i, ours := idx[m]; {
		case m == "":
			unattributed[what]++
		case ours:
			add(reps[i])
		default:
			ignored++
		}
	}
	for _, c := range clearing {
		place(reportClearing, c.OrganizationID, c.ProcessorMerchantID, c.RequestID, func(r *memberReports) { r.clearing = append(r.clearing, c) })
	}
	for _, d := range chargebacks {
		place(reportChargebacks, "", d.ProcessorMerchantID, d.RequestID, func(r *memberReports) { r.chargebacks = append(r.chargebacks, d) })
	}
	for _, d := range retrievals {
		place(reportRetrievals, "", d.ProcessorMerchantID, d.RequestID, func(r *memberReports) { r.retrievals = append(r.retrievals, d) })
	}
	for what, n := range unattributed {
		fallback |= what
		log.Warn("dispute report of the organization holds records of no known member: reading it member by member",
			"report", what.String(), "records", n)
	}

	var failures []error
	// merge replaces the reports which of the members by what they answered
	// on their own; a member that failed is not loaded at all.
	merge := func(pulled []*memberReports, which reportSet, at []int, errs []error) {
		failures = append(failures, errs...)
		for j, p := range pulled {
			i := at[j]
			switch {
			case reps[i] == nil || reps[i].notEnabled != nil:
			case p == nil:
				reps[i] = nil
			case p.notEnabled != nil:
				reps[i].notEnabled = p.notEnabled
			default:
				if which&reportClearing != 0 {
					reps[i].clearing = p.clearing
				}
				if which&reportChargebacks != 0 {
					reps[i].chargebacks = p.chargebacks
				}
				if which&reportRetrievals != 0 {
					reps[i].retrievals = p.retrievals
				}
			}
		}
	}
	everyone := make([]int, len(members))
	for i := range everyone {
		everyone[i] = i
	}
	if fallback != 0 {
		pulled, errs, err := pullMembers(ctx, opts, members, fallback)
		if err != nil {
			return nil, failures, err
		}
		merge(pulled, fallback, everyone, errs)
	}
	probes := 0
	if fallback&reportClearing == 0 {
		// A member without a record: may it read reports at all? One whose
		// reports were read on an earlier night is asked on its day of the
		// week only (askSilent), so that a quiet night costs no request a
		// member and a lost permission still shows within a week.
		read, err := readBefore(ctx, s)
		if err != nil {
			return nil, failures, err
		}
		var silent []string
		var at []int
		for i, r := range reps {
			if r != nil && r.notEnabled == nil && len(r.clearing)+len(r.chargebacks)+len(r.retrievals) == 0 &&
				askSilent(members[i], read, opts.Window.End) {
				silent, at = append(silent, members[i]), append(at, i)
			}
		}
		probes = len(silent)
		pulled, errs, err := pullMembers(ctx, opts, silent, reportClearing)
		if err != nil {
			return nil, failures, err
		}
		merge(pulled, reportClearing, at, errs)
		var left []string
		var leftAt []int
		for j, p := range pulled {
			if p != nil && p.notEnabled == nil && len(p.clearing) > 0 {
				left, leftAt = append(left, silent[j]), append(leftAt, at[j])
			}
		}
		if len(left) > 0 {
			rest := allReports &^ reportClearing &^ fallback
			log.Warn("the organization's dispute reports left members out: reading theirs on their own", "members", len(left))
			pulled, errs, err := pullMembers(ctx, opts, left, rest)
			if err != nil {
				return nil, failures, err
			}
			merge(pulled, rest, leftAt, errs)
		}
	}
	log.Info("dispute reports of the organization", "members", len(members), "clearing", len(clearing),
		"chargebacks", len(chargebacks), "retrievals", len(retrievals), "ignored_other_merchants", ignored,
		"read_member_by_member", fallback.String(), "members_without_records_asked", probes)
	return reps, failures, nil
}

// readBefore is the set of members (IDs as stored) with a dispute report
// row from any night.
func readBefore(ctx context.Context, s *store.Store) (map[string]bool, error) {
	rows, err := s.Conn().QueryContext(ctx, disputeReportsRead)
	if err != nil {
		return nil, fmt.Errorf("members whose dispute reports were read: %w", err)
	}
	defer rows.Close()
	read := map[string]bool{}
	for rows.Next() {
		var mid string
		if err := rows.Scan(&mid); err != nil {
			return nil, fmt.Errorf("members whose dispute reports were read: %w", err)
		}
		read[mid] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("members whose dispute reports were read: %w", err)
	}
	return read, nil
}

// askSilent tells whether a member with no record in the organization's
// reports tonight is asked for its own clearing report: always when none of
// its reports was ever read (a new member, or one that may not read them),
// else on one day in seven, the member's own (a hash of its ID), so that a
// permission withdrawn later, which the organization's report may show only
// by leaving the member out, is seen within a week.
func askSilent(mid string, read map[string]bool, windowEnd time.Time) bool {
	if !read[maskedID(mid)] {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(mid))
	day := windowEnd.UTC().Unix() / 86400
	return int64(h.Sum32()%7) == day%7
}
