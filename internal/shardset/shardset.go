// Package shardset names the settings of a run that the shards of a
// business date must share for `reconcile merge` to combine them
// (outputs.Manifest.Settings): what decides which members and data a shard
// sees and what its checks report.
package shardset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/checks"
)

// Options are what a run was given that its shards must share. Its fields are
// the flags of the same names (the organization as the run resolved it:
// the embedded sandbox's when none was given).
type Options struct {
	OrganizationID   string
	GroupIDs         []string // --groups
	Merchants        []string // --merchants, as read
	Lookback         int
	Journal          string
	InterchangeRates *checks.RateTable       // nil: the documented table
	RetryLimits      *checks.RetryLimitTable // nil: the documented table
	BNPLSessionAge   time.Duration
	BINRefreshAge    time.Duration
	ChargebackShare  float64
	SettlementDays   int
	BaseURL          string // "": the embedded sandbox, of SandboxSeed and SandboxScale
	SandboxSeed      int64
	SandboxScale     string
}

// Settings are the settings of a run that the shards of a date must
// share for `reconcile merge` to combine them (outputs.Manifest.Settings),
// by flag name: what decides which members and data a shard sees and
// what its checks report. Settings that change only how a run goes
// (--concurrency, --rate, --force, --memory-limit, ...) are not among them.
// The base URL is kept without user information, query or fragment, and
// the rate table is named by its content's hash, not its file's path. The
// journal glob and the base URL are written into the manifest, so card
// numbers in them are masked (cardmask.MaskText), as the journal files'
// names are (ingest.JournalImport.File).
func (o Options) Settings() map[string]string {
	groupIDs := slices.Clone(o.GroupIDs)
	slices.Sort(groupIDs)
	s := map[string]string{
		"organization-id":   o.OrganizationID,
		"groups":            strings.Join(groupIDs, ","),
		"lookback":          strconv.Itoa(o.Lookback),
		"journal":           cardmask.MaskText(o.Journal),
		"interchange-rates": rateTableHash(o.InterchangeRates),
		"retry-limits":      retryLimitsHash(o.RetryLimits),
		"bnpl-session-age":  o.BNPLSessionAge.String(),
		"bin-refresh-age":   o.BINRefreshAge.String(),
		"chargeback-share":  strconv.FormatFloat(o.ChargebackShare, 'f', -1, 64),
		"settlement-days":   strconv.Itoa(o.SettlementDays),
	}
	if len(o.Merchants) > 0 {
		// Shards of one date must name the same members.
		mids := slices.Clone(o.Merchants)
		slices.Sort(mids)
		s["merchants"] = linesHash(mids)
	}
	if o.BaseURL == "" {
		s["sandbox-seed"] = strconv.FormatInt(o.SandboxSeed, 10)
		s["sandbox-scale"] = o.SandboxScale
	} else if u, err := url.Parse(o.BaseURL); err == nil {
		u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
		s["base-url"] = cardmask.MaskText(u.String())
	}
	return s
}

// rateTableHash names a rate table by its content: "sha256:" and the hash
// of its rates, one "network,level2,level3" line each in network order.
func rateTableHash(t *checks.RateTable) string {
	if t == nil {
		t = checks.DefaultInterchangeRates()
	}
	lines := make([]string, 0, len(t.Rates))
	for _, r := range t.Rates {
		lines = append(lines, r.Network+","+strconv.FormatFloat(r.Level2, 'g', -1, 64)+","+strconv.FormatFloat(r.Level3, 'g', -1, 64))
	}
	return linesHash(lines)
}

// retryLimitsHash names a retry-limit table by its content, as
// rateTableHash a rate table: one "network,reattempts,window,cit_mit_apart"
// line per limit.
func retryLimitsHash(t *checks.RetryLimitTable) string {
	if t == nil {
		t = checks.DefaultRetryLimits()
	}
	lines := make([]string, 0, len(t.Limits))
	for _, l := range t.Limits {
		lines = append(lines, fmt.Sprintf("%s,%d,%s,%t", l.Network, l.Reattempts, l.Window, l.CITMITApart))
	}
	return linesHash(lines)
}

// linesHash is "sha256:" and the hash of lines, sorted, one a line: a
// table's content whatever its order in its file.
func linesHash(lines []string) string {
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}
