package metrics

import (
	"github.com/reconcile/reconcile/internal/platform"
	"github.com/reconcile/reconcile/outputs"
)

// requestMetrics writes the run's request accounting in the metrics
// file's format (metricsText's helpers).
func requestMetrics(a *outputs.ManifestRequests, metric func(name, help string), counter func(name, help string),
	sample func(name, labels string, v float64)) {
	counter("reconcile_requests_total", "Requests the last run sent to the platform by endpoint family (recurring billing, transaction search, BIN lookup, reporting, group management, other), retries included; their sum is reconcile_run_requests.")
	for _, f := range platform.AccountedFamilies {
		sample("reconcile_requests_total", `family="`+escapeLabel(string(f))+`"`, float64(a.ByFamily[string(f)]))
	}
	metric("reconcile_requests_per_member", "Requests of the last run for each member it pulled.")
	sample("reconcile_requests_per_member", "", a.PerMember)
	metric("reconcile_requests_per_1000_records", "Requests of the last run for each 1,000 records it loaded.")
	sample("reconcile_requests_per_1000_records", "", a.Per1000Records)
	metric("reconcile_requests_nothing_new_ratio", "Share of the last run's requests that were listing pages adding no record (empty, or records an earlier page of the listing gave).")
	sample("reconcile_requests_nothing_new_ratio", "", a.NothingNewShare)
	counter("reconcile_requests_rate_limited_total", "Requests of the last run answered 429 (the platform's rate limit).")
	sample("reconcile_requests_rate_limited_total", "", float64(a.RateLimited))
	metric("reconcile_requests_rate_limited_ratio", "Share of the last run's requests answered 429.")
	sample("reconcile_requests_rate_limited_ratio", "", a.RateLimitedShare)
	metric("reconcile_request_duration_p95_seconds", "95th percentile of the last run's request durations, sending to the answer's last byte.")
	sample("reconcile_request_duration_p95_seconds", "", a.LatencyP95Ms/1000)
	if a.Rate.Ceiling > 0 {
		metric("reconcile_request_rate", "The last run's request rate in requests a second: ceiling (--rate), lowest (after 429s), final.")
		sample("reconcile_request_rate", `bound="ceiling"`, a.Rate.Ceiling)
		sample("reconcile_request_rate", `bound="lowest"`, a.Rate.Lowest)
		sample("reconcile_request_rate", `bound="final"`, a.Rate.Final)
		metric("reconcile_request_rate_held_seconds", "How long Retry-After answers held every request of the last run, in all.")
		sample("reconcile_request_rate_held_seconds", "", a.Rate.HeldSeconds)
	}
}
