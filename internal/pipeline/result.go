package pipeline

// What a run's Result says, as every output states it: the request
// accounting, the members by outcome, the log line of a finished run; and
// the business date a run is for.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/memstat"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports"
)

// RequestAccount is the run's request accounting as the manifest, the
// metrics file and the summary line all state it: computed once, rounded
// once, so that the three agree to the digit (docs/operations.md, "A
// night's requests"). Nil for a nil Result.
func (res *Result) RequestAccount() *outputs.ManifestRequests {
	if res == nil {
		return nil
	}
	a := &outputs.ManifestRequests{Total: res.Requests, Retries: res.Retries, ByFamily: map[string]int64{},
		MembersPulled: res.Members - res.Skipped, RecordsLoaded: res.Rows}
	for _, f := range platform.AccountedFamilies {
		a.ByFamily[string(f)] = 0
	}
	if t := res.Traffic; t != nil {
		for f, n := range t.ByFamily() {
			a.ByFamily[string(f)] = n
		}
		a.NothingNew, a.RateLimited = t.NothingNew.Load(), t.RateLimited.Load()
		if t.Latencies != nil {
			a.LatencyP95Ms = round(float64(t.Latencies.Quantile(0.95))/float64(time.Millisecond), 1)
		}
	}
	if a.MembersPulled > 0 {
		a.PerMember = round(float64(a.Total)/float64(a.MembersPulled), 2)
	}
	if a.RecordsLoaded > 0 {
		a.Per1000Records = round(float64(a.Total)*1000/float64(a.RecordsLoaded), 2)
	}
	if a.Total > 0 {
		a.NothingNewShare = round(float64(a.NothingNew)/float64(a.Total), 4)
		a.RateLimitedShare = round(float64(a.RateLimited)/float64(a.Total), 4)
	}
	r := res.Rate
	a.Rate = outputs.ManifestRate{Ceiling: round(r.Ceiling, 2), Lowest: round(r.Lowest, 2), Final: round(r.Current, 2),
		Decreases: r.Decreases, HeldSeconds: round(r.Held.Seconds(), 3)}
	return a
}

func round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}

// RequestsLine is the summary's line of the run's request accounting:
//
//	requests: 52.00 a member, 87.37 per 1,000 records; 3.21 % brought nothing new, 0.64 % answered 429; p95 41.2 ms; rate 5000/s (lowest 18, final 20.5); by family: recurring billing 200, ...
func RequestsLine(a *outputs.ManifestRequests) string {
	var fams []string
	for _, f := range platform.AccountedFamilies {
		if n := a.ByFamily[string(f)]; n > 0 {
			fams = append(fams, fmt.Sprintf("%s %d", f, n))
		}
	}
	rate := ""
	if a.Rate.Ceiling > 0 {
		rate = fmt.Sprintf("; rate %g/s (lowest %g, final %g)", a.Rate.Ceiling, a.Rate.Lowest, a.Rate.Final)
	}
	return fmt.Sprintf("requests: %.2f a member, %.2f per 1,000 records; %.2f %% brought nothing new, %.2f %% answered 429; p95 %.1f ms%s; by family: %s",
		a.PerMember, a.Per1000Records, a.NothingNewShare*100, a.RateLimitedShare*100, a.LatencyP95Ms, rate, strings.Join(fams, ", "))
}

// Publication is the run as the publish step states it (reports.Publication),
// from what the Result knows; the command adds its own settings (version,
// shard, settings, split, source).
func (res *Result) Publication() reports.Publication {
	return reports.Publication{RunID: res.RunID, BusinessDate: res.BusinessDate, Window: res.Window, StartedAt: res.StartedAt,
		FinishedAt: res.FinishedAt, Status: string(res.Status), Members: res.MemberCounts(), Requests: res.RequestAccount()}
}

// MemberCounts are the run's members by outcome as every output states
// them (the manifest, the summary line, the metrics, runs): ok counts each
// member reconciled for the date, by this attempt or by an earlier one it
// resumed; already_done says how many of those the earlier attempt did, so
// a re-run of a finished date says 6 of 6 reconciled, not 0.
func (res *Result) MemberCounts() map[string]int {
	counts := map[string]int{
		string(store.MemberOK):     res.MembersOK + res.Skipped,
		string(store.MemberFailed): len(res.Failed),
	}
	if res.Skipped > 0 { // only a resumed attempt has any: a first run's manifest is as a merge's
		counts[AlreadyDone] = res.Skipped
	}
	return counts
}

// AlreadyDone is the manifest's count of members an earlier attempt of the
// date completed (a subset of ok).
const AlreadyDone = "already_done"

// FirstBusinessDate is the earliest --date accepted.
var FirstBusinessDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// BusinessDate parses --date, or returns yesterday (UTC). A date before
// 2000-01-01 or after tomorrow (UTC) is refused: out/current.duckdb points
// at the newest date's snapshot, so a run for 9999-12-31 would pin it there
// for good.
func BusinessDate(s string, now time.Time) (time.Time, error) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if s == "" {
		return today.AddDate(0, 0, -1), nil
	}
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		var pe *time.ParseError
		if errors.As(err, &pe) && strings.Contains(pe.Message, "out of range") {
			// The form is right, the day is not (2026-11-31, 2026-02-29).
			return time.Time{}, fmt.Errorf("--date %s: no such date", s)
		}
		return time.Time{}, fmt.Errorf("--date %q: want YYYY-MM-DD", s)
	}
	if last := today.AddDate(0, 0, 1); d.Before(FirstBusinessDate) || d.After(last) {
		return time.Time{}, fmt.Errorf("--date %s: want a date from %s to %s (tomorrow, UTC)",
			s, FirstBusinessDate.Format("2006-01-02"), last.Format("2006-01-02"))
	}
	return d, nil
}

// LogFinished logs the run's outcome and its stages' times, with the
// publish step's (took, the memory then and peak) that the command ran
// after Run on db into output, and at debug level their memory.
func (res *Result) LogFinished(ctx context.Context, log *slog.Logger, db *store.Store, output string,
	took time.Duration, peak memstat.Process) {
	allStages := append(res.Stages[:len(res.Stages):len(res.Stages)], Stage{Name: "publish",
		Duration: took, Memory: ReadMemory(ctx, db), Peak: peak})
	stages := make([]any, 0, 2*len(allStages))
	memory := make([]any, 0, 2*len(allStages))
	peaks := make([]any, 0, 2*len(allStages))
	// The requests of each stage, so that a stage's cost in requests (the
	// reports' three a member) shows in the log and in the bench.
	stageRequests := make([]any, 0, 2*len(allStages))
	for _, st := range allStages {
		stages = append(stages, st.Name, st.Duration.Round(time.Millisecond).String())
		stageRequests = append(stageRequests, st.Name, st.Requests)
		memory = append(memory, st.Name, memoryText(st.Memory))
		peaks = append(peaks, st.Name, peakText(st.Peak))
	}
	log.Info("run finished", "run_id", res.RunID, "status", res.Status, "members", res.Members,
		"rows", res.Rows, slog.Group("stages", stages...), slog.Group("stage_requests", stageRequests...),
		"members_ok", res.MembersOK, "members_failed", len(res.Failed), "requests", res.Requests,
		"retries", res.Retries, "settlement_requests", res.SettlementRequests, "output", output)
	// The memory of each stage is for whoever tunes --memory-limit or
	// chases a leak (docs/dev), not for the nightly log.
	log.Debug("run memory", "run_id", res.RunID, slog.Group("memory", memory...), slog.Group("memory_at_peak", peaks...))
}

// memoryText is a stage's memory at its end for the log, in MiB: the peak
// RSS so far, the RSS and its anonymous part now, Go's heap objects and
// mapped total, DuckDB's buffer memory, what DuckDB's jemalloc has
// allocated (those buffers and what DuckDB allocates beside them) and what
// the C library's malloc has.
func memoryText(m Memory) string {
	return "peak_rss=" + mib(m.PeakRSS) + " rss=" + mib(m.RSS) + " anon=" + mib(m.Anon) +
		" go_heap=" + mib(m.GoHeap) + " go_total=" + mib(m.GoTotal-m.GoReleased) + " duckdb=" + mib(uint64(max(m.DuckDB, 0))) +
		" jemalloc=" + mib(m.Jemalloc) + " malloc=" + mib(m.Malloc) + " MiB"
}

// peakText is a stage's memory at its highest resident memory sampled, for
// the log, in MiB: as memoryText, without the buffer memory DuckDB reports
// only when asked (its jemalloc's count holds it).
func peakText(p memstat.Process) string {
	return "rss=" + mib(p.RSS) + " anon=" + mib(p.Anon) + " go_heap=" + mib(p.GoHeap) +
		" go_total=" + mib(p.GoTotal-p.GoReleased) + " jemalloc=" + mib(p.Jemalloc) + " malloc=" + mib(p.Malloc) + " MiB"
}

func mib(b uint64) string { return strconv.FormatUint(b>>20, 10) }
