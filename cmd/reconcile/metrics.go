package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/notify"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports"
	"github.com/reconcile/reconcile/store"
)

// runMetrics is what the metrics file reports of one run.
type runMetrics struct {
	shard       string
	status      string // ok, partial, failed, interrupted
	exitCode    int
	started     time.Time
	finished    time.Time
	date        time.Time // business date; zero if it could not be read
	known       bool      // the run got as far as a result: the counts below are real
	membersOK   int
	failed      int
	skipped     int
	requests    int64
	retries     int64
	findings    map[string]map[string]int64 // state -> kind -> count
	stages      map[string]time.Duration
	rows        int64
	versionStr  string
	source      string                    // reports.SourcePlatform or reports.SourceSandbox
	alarms      []reports.Alarm           // every alarm checked (--alarms), raised or not
	deliveries  []notify.Delivery         // the digests sent (--notify), delivered or not
	mleNotAfter time.Time                 // the response MLE key's expiry; zero: none
	traffic     *outputs.ManifestRequests // the request accounting (accounting.go); nil: none
}

var runStatuses = []string{"ok", "partial", "failed", "interrupted"}

// outcomeMetrics are the metrics of any command's outcome: its shard
// label, status and exit code (from err), and when it ran.
func outcomeMetrics(ctx context.Context, err error, shard string, started, finished time.Time) runMetrics {
	code := exitCodeOf(ctx, err)
	m := runMetrics{
		shard: shard, exitCode: code, started: started, finished: finished, versionStr: buildVersion(),
		status: map[int]string{exitOK: "ok", exitPartial: "partial", exitInterrupted: "interrupted"}[code],
	}
	if m.status == "" {
		m.status = "failed"
	}
	return m
}

func newRunMetrics(ctx context.Context, o runOptions, h *runHooks, err error, started, finished time.Time) runMetrics {
	m := outcomeMetrics(ctx, err, o.shard, started, finished)
	m.source = runSource(o)
	if d, err := businessDate(o.date, started.UTC()); err == nil {
		m.date = d
	}
	if r := h.res; r != nil {
		m.known = true
		counts := memberCounts(r)
		m.membersOK, m.failed, m.skipped = counts[string(store.MemberOK)], counts[string(store.MemberFailed)], counts[alreadyDone]
		m.requests, m.retries, m.rows = r.Requests, r.Retries, r.Rows
		m.traffic = requestAccount(r)
		m.stages = map[string]time.Duration{}
		for _, s := range r.Stages {
			m.stages[s.Name] += s.Duration
		}
	}
	if p := h.pub; p != nil {
		// By state only once published: the publish step counts them so.
		m.findings = p.Findings
	}
	m.alarms, m.deliveries = h.alarms, h.deliveries
	if h != nil {
		m.mleNotAfter = h.mleNotAfter
	}
	return m
}

// mergeShard is the shard label of a merge's metrics, and so its own
// group on the Pushgateway beside the shards' (i/n).
const mergeShard = "merged"

// newMergeMetrics are the metrics of a merge: its outcome, and once it
// published, the merged run's members, findings and alarms. It sends no
// request and loads no record (requests, retries and rows are 0; the
// shards' own metrics have theirs). date is zero if --date did not parse.
func newMergeMetrics(ctx context.Context, w *mergeWatch, date time.Time, err error, started, finished time.Time) runMetrics {
	m := outcomeMetrics(ctx, err, mergeShard, started, finished)
	m.date, m.deliveries = date, w.deliveries
	if r := w.res; r != nil {
		m.known = true
		m.source, m.alarms, m.findings = r.Run.Source, r.Run.Alarms, r.Published.Findings
		m.membersOK, m.failed = r.Run.Members[string(store.MemberOK)], r.Run.Members[string(store.MemberFailed)]
	}
	return m
}

// emitMetrics writes m to the metrics file and pushes it to the
// Pushgateway, each if asked; neither failure changes the command's
// outcome (a stale file shows by its age, node_textfile_mtime_seconds).
func emitMetrics(ctx context.Context, e env, log *slog.Logger, file, push string, m runMetrics) {
	if file != "" {
		if err := writeMetricsFile(file, m); err != nil {
			fmt.Fprintf(e.stderr, "reconcile: %s\n", errorText(err))
		}
	}
	if push != "" {
		if err := pushMetrics(context.WithoutCancel(ctx), push, m); err != nil {
			// Like a digest: logged, never the command's failure.
			log.Warn("metrics not pushed", "error", err.Error())
		}
	}
}

// metricsText renders m in the Prometheus text exposition format (version
// 0.0.4), as node_exporter's textfile collector reads it. Every series
// carries the run's shard, so two shards on one host (two files) never
// publish the same series. Values of one run are gauges: the file is
// replaced by each run, and a counter would reset with it anyway.
func metricsText(m runMetrics) []byte {
	var b bytes.Buffer
	shard := `shard="` + escapeLabel(m.shard) + `"`
	metric := func(name, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
	}
	sample := func(name, labels string, v float64) {
		if labels != "" {
			labels = "," + labels
		}
		fmt.Fprintf(&b, "%s{%s%s} %s\n", name, shard, labels, strconv.FormatFloat(v, 'g', -1, 64))
	}
	b01 := func(ok bool) float64 {
		if ok {
			return 1
		}
		return 0
	}

	metric("reconcile_run_success", "Whether the last run reconciled every member and published its outputs (1) or not (0).")
	sample("reconcile_run_success", "", b01(m.status == "ok"))
	metric("reconcile_run_status", "Outcome of the last run: 1 for its status (ok, partial, failed, interrupted), 0 for the others.")
	for _, s := range runStatuses {
		sample("reconcile_run_status", `status="`+s+`"`, b01(m.status == s))
	}
	metric("reconcile_run_exit_code", "Exit code of the last run (0 ok, 1 failed, 3 partial, 130 interrupted).")
	sample("reconcile_run_exit_code", "", float64(m.exitCode))
	metric("reconcile_run_duration_seconds", "Wall-clock duration of the last run, publishing included.")
	sample("reconcile_run_duration_seconds", "", m.finished.Sub(m.started).Seconds())
	metric("reconcile_run_finished_timestamp_seconds", "When the last run finished, as a Unix time: alert when it is more than a day old.")
	sample("reconcile_run_finished_timestamp_seconds", "", float64(m.finished.UnixMilli())/1000)
	if !m.date.IsZero() {
		metric("reconcile_run_business_date_timestamp_seconds", "Business date of the last run (00:00 UTC), as a Unix time.")
		sample("reconcile_run_business_date_timestamp_seconds", "", float64(m.date.Unix()))
	}
	metric("reconcile_run_simulated", "Whether the last run reconciled the embedded sandbox's simulated data (1) instead of the platform's (0): alert on 1 where production runs.")
	sample("reconcile_run_simulated", "", b01(m.source == reports.SourceSandbox))
	if !m.mleNotAfter.IsZero() {
		metric("reconcile_response_mle_key_expiry_timestamp_seconds", "When the response MLE key's certificate expires, as a Unix time: alert well before (the platform stops encrypting for it; a new key is generated in the merchant portal).")
		sample("reconcile_response_mle_key_expiry_timestamp_seconds", "", float64(m.mleNotAfter.Unix()))
	}
	metric("reconcile_run_info", "The reconcile version of the last run (value 1).")
	sample("reconcile_run_info", `version="`+escapeLabel(m.versionStr)+`"`, 1)
	if len(m.deliveries) > 0 {
		metric("reconcile_notify_deliveries", "Digests the last run sent by channel (email, webhook; digest: not read from the database) and result (ok, failed): a failed delivery never fails the run.")
		counts := map[string]int{}
		for _, d := range m.deliveries {
			result := "ok"
			if d.Err != nil {
				result = "failed"
			}
			counts[`channel="`+escapeLabel(d.Channel)+`",result="`+result+`"`]++
		}
		for _, labels := range sortedKeys(counts) {
			sample("reconcile_notify_deliveries", labels, float64(counts[labels]))
		}
	}
	if len(m.alarms) > 0 {
		metric("reconcile_alarm", "Alarms of the last run (--alarms): 1 raised, 0 checked and clear; kind and currency for the finding kinds' rules.")
		for _, a := range m.alarms {
			labels := `name="` + escapeLabel(a.Name) + `"`
			if a.Kind != "" {
				labels += `,kind="` + escapeLabel(a.Kind) + `"`
			}
			if a.Currency != "" {
				labels += `,currency="` + escapeLabel(a.Currency) + `"`
			}
			sample("reconcile_alarm", labels, b01(a.Raised))
		}
	}
	if !m.known {
		return b.Bytes()
	}
	metric("reconcile_members", "Members of the last run by outcome: ok (reconciled for the date, by this attempt or an earlier one it resumed), failed.")
	sample("reconcile_members", `status="ok"`, float64(m.membersOK))
	sample("reconcile_members", `status="failed"`, float64(m.failed))
	metric("reconcile_members_already_done", "Of the last run's ok members, those an earlier attempt of the date reconciled (a resumed or repeated run).")
	sample("reconcile_members_already_done", "", float64(m.skipped))
	metric("reconcile_run_requests", "HTTP requests the last run sent to the platform, retries included.")
	sample("reconcile_run_requests", "", float64(m.requests))
	metric("reconcile_run_retries", "Requests of the last run that were retries (429, 5xx, network errors).")
	sample("reconcile_run_retries", "", float64(m.retries))
	metric("reconcile_run_rows", "Records the last run loaded from the platform.")
	sample("reconcile_run_rows", "", float64(m.rows))
	if m.traffic != nil {
		counter := func(name, help string) {
			fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		}
		requestMetrics(m.traffic, metric, counter, sample)
	}
	if len(m.stages) > 0 {
		metric("reconcile_run_stage_duration_seconds", "Duration of each stage of the last run.")
		for _, s := range sortedKeys(m.stages) {
			sample("reconcile_run_stage_duration_seconds", `stage="`+escapeLabel(s)+`"`, m.stages[s].Seconds())
		}
	}
	if len(m.findings) == 0 {
		return b.Bytes()
	}
	metric("reconcile_findings", "Findings of the last run by kind and state: new (not in the previous run), open (in it too), acknowledged (new or open, but known and handled until a date: not counted as new or open), resolved (in it, gone now). The run's findings are new + open + acknowledged.")
	states := make([]string, 0, len(m.findings))
	for s := range m.findings {
		states = append(states, s)
	}
	sort.Strings(states)
	for _, s := range states {
		for _, k := range sortedKeys(m.findings[s]) {
			sample("reconcile_findings", `kind="`+escapeLabel(k)+`",state="`+escapeLabel(s)+`"`, float64(m.findings[s][k]))
		}
	}
	return b.Bytes()
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// writeMetricsFile replaces path with m's metrics through a temp file in the
// same directory and a rename, so the collector never reads half a file
// (it reads *.prom only; the temp name does not end so).
func writeMetricsFile(path string, m runMetrics) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("write metrics file %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write metrics file %s: %w", path, err)
	}
	if _, err := f.Write(metricsText(m)); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write metrics file %s: %w", path, err)
	}
	return nil
}

// pushTimeout bounds a push to the Pushgateway.
const pushTimeout = 30 * time.Second

// pushURL is where a shard's metrics go on the Pushgateway at base: the
// group of job "reconcile" and label shard, PUT so that each push replaces
// the shard's previous one whole (a series a run no longer has does not
// linger). The shard ("0/4") holds a slash, so its value is written in
// the Pushgateway's base64 form (shard@base64/MC80), which the gateway
// decodes to the same shard="0/4" the metrics carry. A URL with
// credentials in it is refused: a flag's value shows in process listings.
func pushURL(base, shard string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--metrics-push %q: want the Pushgateway's http(s) URL, e.g. http://pushgateway:9091", base)
	}
	if u.User != nil {
		return "", errors.New("--metrics-push: the URL holds credentials; a flag's value shows in process listings")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("--metrics-push %q: want no query or fragment", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/metrics/job/reconcile/shard@base64/" + base64.RawURLEncoding.EncodeToString([]byte(shard))
	u.RawPath = ""
	return u.String(), nil
}

// pushMetrics PUTs the run's metrics, in the text exposition format, to
// the Pushgateway at base, as Prometheus recommends for batch jobs: the
// gateway keeps the last push of each shard for Prometheus to scrape.
func pushMetrics(ctx context.Context, base string, m runMetrics) error {
	target, err := pushURL(base, m.shard)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(metricsText(m)))
	if err != nil {
		return fmt.Errorf("push metrics: %w", err)
	}
	req.Header.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("push metrics to %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("push metrics to %s: %s: %s", req.URL.Host, resp.Status, terminalLine(strings.TrimSpace(string(body))))
	}
	return nil
}
