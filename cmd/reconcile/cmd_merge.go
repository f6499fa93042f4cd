package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/checks"
	"github.com/reconcile/reconcile/merge"
	"github.com/reconcile/reconcile/reports"
	"github.com/reconcile/reconcile/store"
)

// mergeOptions are the flags of `reconcile merge`; those it shares with
// run (--date, --out, --split-by, --memory-limit, --log-level) mean the
// same there.
type mergeOptions struct {
	date         string
	from         string
	out          string
	allowPartial bool
	splitBy      string
	memoryLimit  string
	logLevel     string
}

const mergeExamples = `  reconcile merge --date 2026-11-20 --from '/shared/reconcile/shard=*' --out /shared/reconcile/merged
  reconcile merge --from 'out/shard=*' --out out/merged          # yesterday's shards
  reconcile merge --from 'out/shard=*' --out out/merged --allow-partial   # without a shard that failed
`

const mergeExitCodes = `Exit codes: 0 every shard present and ok, published; 1 refused or failed, nothing published
(a shard missing, shards of different n, run with different settings or versions, a snapshot that
does not match its manifest, --out inside a shard's folder); 3 partial: published, but a shard was
partial, or missing under --allow-partial; 130 interrupted.`

// cmdMerge is `reconcile merge`: one publication from the shards of a
// business date (package merge).
func cmdMerge(ctx context.Context, args []string, e env) error {
	var o mergeOptions
	fs := newFlagSetCodes("merge --from GLOB [flags]",
		`Publish the shards of a business date (runs with --shard i/n, each with its own --out) as one run:
one workbook, one manifest listing every shard and its status, the Parquet datasets and one DuckDB
snapshot, into --out/<date>/, as a run over every member would have. The shards' snapshots are read,
read-only; nothing is written into a shard's folder. Refused unless every shard 0..n-1 of the date is
published, once, by runs of one n with the same settings and version; --allow-partial publishes
without the missing shards (marked partial; their members count as failed).`,
		mergeExamples, mergeExitCodes, e)
	fs.StringVar(&o.date, "date", "", "business day, UTC (YYYY-MM-DD), as the shards ran it (default yesterday)")
	fs.StringVar(&o.from, "from", "", `glob of the shards' output folders (their --out), e.g. 'out/shard=*' (required)`)
	fs.StringVar(&o.out, "out", "out", "output folder of the merged publication (not a shard's)")
	fs.BoolVar(&o.allowPartial, "allow-partial", false, "publish without the shards that are missing (their run failed or has not finished), marked partial")
	fs.StringVar(&o.splitBy, "split-by", "", `"group": also write one workbook per group`)
	fs.StringVar(&o.memoryLimit, "memory-limit", "256MB", "DuckDB's buffer memory for the merge; data beyond it goes to disk")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("merge: unexpected argument %q", fs.Arg(0))
	}
	if o.from == "" {
		return fmt.Errorf("merge: --from is required: the shards' output folders, e.g. --from 'out/shard=*'")
	}
	if !reports.ValidSplitBy(o.splitBy) {
		return fmt.Errorf("--split-by %q: want group, or nothing for the whole run's workbook only", o.splitBy)
	}
	date, err := businessDate(o.date, time.Now().UTC())
	if err != nil {
		return err
	}
	log, err := newLogger(e.stderr, o.logLevel)
	if err != nil {
		return err
	}
	res, err := runMerge(ctx, o, date, log)
	if err != nil {
		return err
	}
	printMergeSummary(e, res)
	if res.Run.Status != string(store.RunOK) {
		return fmt.Errorf("%w: %s", errPartial, mergeProblems(res))
	}
	return nil
}

// runMerge merges and logs the outcome; the published result is what a
// digest of the merge reads.
func runMerge(ctx context.Context, o mergeOptions, date time.Time, log *slog.Logger) (*merge.Result, error) {
	res, err := merge.Merge(ctx, merge.Options{
		Date:         date,
		From:         o.from,
		Out:          o.out,
		AllowPartial: o.allowPartial,
		SplitBy:      o.splitBy,
		MemoryLimit:  o.memoryLimit,
		Version:      buildVersion(),
		Logger:       log,
	})
	if err != nil {
		return nil, err
	}
	log.Info("merge finished", "run_id", res.Run.RunID, "status", res.Run.Status, "shards", len(res.Run.Shards),
		"missing", strings.Join(res.Missing(), ","), "output", res.Published.Dir)
	return res, nil
}

func printMergeSummary(e env, res *merge.Result) {
	run, pub := res.Run, res.Published
	reconciled, members := run.Members[string(store.MemberOK)], run.Members[string(store.MemberOK)]+run.Members[string(store.MemberFailed)]
	fmt.Fprintf(e.stdout, "merge %s (%s): %d of %d shards, %d of %d members reconciled; source: %s\n",
		run.RunID, run.Status, len(run.Shards)-len(res.Missing()), len(run.Shards), reconciled, members, reports.SourceLabel(run.Source))
	for _, s := range run.Shards {
		where := terminalLine(s.Folder)
		if s.Status == merge.StatusMissing {
			where = terminalLine(s.Reason)
		}
		fmt.Fprintf(e.stdout, "  shard %-9s %-8s %s\n", s.Shard, s.Status, where)
	}
	current := map[string]int64{}
	var total int64
	for _, state := range []store.FindingState{store.FindingNew, store.FindingOpen} {
		for kind, n := range pub.Findings[string(state)] {
			current[kind] += n
			total += n
		}
	}
	fmt.Fprintf(e.stdout, "findings: %d\n", total)
	for _, k := range sortedKeys(current) {
		fmt.Fprintf(e.stdout, "  %-32s %d\n", k, current[k])
	}
	fmt.Fprintf(e.stdout, "workbook: %s\nmanifest: %s\nsnapshot: %s (also %s)\n", pub.Workbook, pub.Manifest, pub.Snapshot, pub.Current)
	printPublishedExtras(e.stdout, pub)
}

// mergeProblems says why a published merge is partial.
func mergeProblems(res *merge.Result) string {
	var parts []string
	if missing := res.Missing(); len(missing) > 0 {
		parts = append(parts, "shards missing: "+strings.Join(missing, ", "))
	}
	for _, s := range res.Run.Shards {
		if s.Status == string(store.RunPartial) {
			parts = append(parts, "shard "+s.Shard+" partial")
		}
	}
	if n := res.Run.Members[string(store.MemberFailed)]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d members not reconciled", n))
	}
	return strings.Join(parts, "; ")
}

// shardSettings are the settings of a run that the shards of a date must
// share for `reconcile merge` to combine them (outputs.Manifest.Settings),
// by flag name: what decides which members and data a shard sees and
// what its checks report. Settings that change only how a run goes
// (--concurrency, --rate, --force, --memory-limit, ...) are not among them.
// The base URL is kept without user information, query or fragment, and
// the rate table is named by its content's hash, not its file's path.
func shardSettings(o runOptions, org string, rates *checks.RateTable) map[string]string {
	groupIDs := splitList(o.groups)
	slices.Sort(groupIDs)
	s := map[string]string{
		"organization-id":   org,
		"groups":            strings.Join(groupIDs, ","),
		"lookback":          strconv.Itoa(o.lookback),
		"journal":           o.journal,
		"interchange-rates": rateTableHash(rates),
		"bnpl-session-age":  o.bnplSessionAge.String(),
		"bin-refresh-age":   o.binRefreshAge.String(),
	}
	if o.baseURL == "" {
		s["sandbox-seed"] = strconv.FormatInt(o.sandboxSeed, 10)
		s["sandbox-scale"] = o.sandboxScale
	} else if u, err := url.Parse(o.baseURL); err == nil {
		u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
		s["base-url"] = u.String()
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
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}
