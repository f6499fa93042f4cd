// Package metrics renders what a run (or a merge) tells monitoring: the
// Prometheus text exposition of its outcome, counts, alarms and digests,
// written to a file for node_exporter's textfile collector (WriteFile) or
// pushed to a Pushgateway (Push).
package metrics

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile/reconcile/internal/notify"
	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/outputs"
	"github.com/reconcile/reconcile/reports"
)

// Report is what the metrics say of one run (or merge).
type Report struct {
	Shard       string
	Status      string // ok, partial, failed, interrupted
	ExitCode    int
	Started     time.Time
	Finished    time.Time
	Date        time.Time // business date; zero if it could not be read
	Known       bool      // the run got as far as a result: the counts below are real
	MembersOK   int
	Failed      int
	Skipped     int
	Requests    int64
	Retries     int64
	Findings    map[string]map[string]int64 // state -> kind -> count
	Stages      map[string]time.Duration
	Rows        int64
	Version     string
	Source      string            // reports.SourcePlatform or reports.SourceSandbox
	Alarms      []reports.Alarm   // every alarm checked (--alarms), raised or not
	Deliveries  []notify.Delivery // the digests sent (--notify), delivered or not
	MLENotAfter time.Time         // the response MLE key's expiry; zero: none
	// Traffic is the run's request accounting (what the manifest's
	// "requests" says); nil: none.
	Traffic *outputs.ManifestRequests
}

var statuses = []string{"ok", "partial", "failed", "interrupted"}

// Text renders m in the Prometheus text exposition format (version
// 0.0.4), as node_exporter's textfile collector reads it. Every series
// carries the run's shard, so two shards on one host (two files) never
// publish the same series. Values of one run are gauges: the file is
// replaced by each run, and a counter would reset with it anyway.
func Text(m Report) []byte {
	var b bytes.Buffer
	shard := `shard="` + escapeLabel(m.Shard) + `"`
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
	sample("reconcile_run_success", "", b01(m.Status == "ok"))
	metric("reconcile_run_status", "Outcome of the last run: 1 for its status (ok, partial, failed, interrupted), 0 for the others.")
	for _, s := range statuses {
		sample("reconcile_run_status", `status="`+s+`"`, b01(m.Status == s))
	}
	metric("reconcile_run_exit_code", "Exit code of the last run (0 ok, 1 failed, 3 partial, 130 interrupted).")
	sample("reconcile_run_exit_code", "", float64(m.ExitCode))
	metric("reconcile_run_duration_seconds", "Wall-clock duration of the last run, publishing included.")
	sample("reconcile_run_duration_seconds", "", m.Finished.Sub(m.Started).Seconds())
	metric("reconcile_run_finished_timestamp_seconds", "When the last run finished, as a Unix time: alert when it is more than a day old.")
	sample("reconcile_run_finished_timestamp_seconds", "", float64(m.Finished.UnixMilli())/1000)
	if !m.Date.IsZero() {
		metric("reconcile_run_business_date_timestamp_seconds", "Business date of the last run (00:00 UTC), as a Unix time.")
		sample("reconcile_run_business_date_timestamp_seconds", "", float64(m.Date.Unix()))
	}
	metric("reconcile_run_simulated", "Whether the last run reconciled the embedded sandbox's simulated data (1) instead of the platform's (0): alert on 1 where production runs.")
	sample("reconcile_run_simulated", "", b01(m.Source == reports.SourceSandbox))
	if !m.MLENotAfter.IsZero() {
		metric("reconcile_response_mle_key_expiry_timestamp_seconds", "When the response MLE key's certificate expires, as a Unix time: alert well before (the platform stops encrypting for it; a new key is generated in the merchant portal).")
		sample("reconcile_response_mle_key_expiry_timestamp_seconds", "", float64(m.MLENotAfter.Unix()))
	}
	metric("reconcile_run_info", "The reconcile version of the last run (value 1).")
	sample("reconcile_run_info", `version="`+escapeLabel(m.Version)+`"`, 1)
	if len(m.Deliveries) > 0 {
		metric("reconcile_notify_deliveries", "Digests the last run sent by channel (email, webhook; digest: not read from the database) and result (ok, failed): a failed delivery never fails the run.")
		counts := map[string]int{}
		for _, d := range m.Deliveries {
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
	if len(m.Alarms) > 0 {
		metric("reconcile_alarm", "Alarms of the last run (--alarms): 1 raised, 0 checked and clear; kind and currency for the finding kinds' rules.")
		for _, a := range m.Alarms {
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
	if !m.Known {
		return b.Bytes()
	}
	metric("reconcile_members", "Members of the last run by outcome: ok (reconciled for the date, by this attempt or an earlier one it resumed), failed.")
	sample("reconcile_members", `status="ok"`, float64(m.MembersOK))
	sample("reconcile_members", `status="failed"`, float64(m.Failed))
	metric("reconcile_members_already_done", "Of the last run's ok members, those an earlier attempt of the date reconciled (a resumed or repeated run).")
	sample("reconcile_members_already_done", "", float64(m.Skipped))
	metric("reconcile_run_requests", "HTTP requests the last run sent to the platform, retries included.")
	sample("reconcile_run_requests", "", float64(m.Requests))
	metric("reconcile_run_retries", "Requests of the last run that were retries (429, 5xx, network errors).")
	sample("reconcile_run_retries", "", float64(m.Retries))
	metric("reconcile_run_rows", "Records the last run loaded from the platform.")
	sample("reconcile_run_rows", "", float64(m.Rows))
	if m.Traffic != nil {
		counter := func(name, help string) {
			fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		}
		requestMetrics(m.Traffic, metric, counter, sample)
	}
	if len(m.Stages) > 0 {
		metric("reconcile_run_stage_duration_seconds", "Duration of each stage of the last run.")
		for _, s := range sortedKeys(m.Stages) {
			sample("reconcile_run_stage_duration_seconds", `stage="`+escapeLabel(s)+`"`, m.Stages[s].Seconds())
		}
	}
	if len(m.Findings) == 0 {
		return b.Bytes()
	}
	metric("reconcile_findings", "Findings of the last run by kind and state: new (not in the previous run), open (in it too), acknowledged (new or open, but known and handled until a date: not counted as new or open), resolved (in it, gone now). The run's findings are new + open + acknowledged.")
	states := make([]string, 0, len(m.Findings))
	for s := range m.Findings {
		states = append(states, s)
	}
	sort.Strings(states)
	for _, s := range states {
		for _, k := range sortedKeys(m.Findings[s]) {
			sample("reconcile_findings", `kind="`+escapeLabel(k)+`",state="`+escapeLabel(s)+`"`, float64(m.Findings[s][k]))
		}
	}
	return b.Bytes()
}

// escapeLabel escapes a label value: backslash, double quote and newline.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// WriteFile replaces path with m's metrics through a temp file in the
// same directory and a rename, so the collector never reads half a file
// (it reads *.prom only; the temp name does not end so).
func WriteFile(path string, m Report) error {
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
	if _, err := f.Write(Text(m)); err != nil {
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

// PushURL is where a shard's metrics go on the Pushgateway at base: the
// group of job "reconcile" and label shard, PUT so that each push replaces
// the shard's previous one whole (a series a run no longer has does not
// linger). The shard ("0/4") holds a slash, so its value is written in
// the Pushgateway's base64 form (shard@base64/MC80), which the gateway
// decodes to the same shard="0/4" the metrics carry. A URL with
// credentials in it is refused: a flag's value shows in process listings.
func PushURL(base, shard string) (string, error) {
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

// Push PUTs the run's metrics, in the text exposition format, to
// the Pushgateway at base, as Prometheus recommends for batch jobs: the
// gateway keeps the last push of each shard for Prometheus to scrape.
func Push(ctx context.Context, base string, m Report) error {
	target, err := PushURL(base, m.Shard)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(Text(m)))
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
		return fmt.Errorf("push metrics to %s: %s: %s", req.URL.Host, resp.Status, safetext.Line(strings.TrimSpace(string(body))))
	}
	return nil
}

// sortedKeys are m's keys in order, so that the file's lines are too.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
