package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/outputs"
)

// requestAccount is the run's request accounting as the manifest, the
// metrics file and the summary line all state it: computed once, rounded
// once, so that the three agree to the digit (docs/operations.md, "A
// night's requests").
func requestAccount(res *pipeline.Result) *outputs.ManifestRequests {
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

// requestsLine is the summary's line of the run's request accounting:
//
//	requests: 52.00 a member, 87.37 per 1,000 records; 3.21 % brought nothing new, 0.64 % answered 429; p95 41.2 ms; rate 5000/s (lowest 18, final 20.5); by family: recurring billing 200, ...
func requestsLine(a *outputs.ManifestRequests) string {
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
