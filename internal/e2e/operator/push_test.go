package operator

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cli"
	"github.com/reconcile/reconcile/internal/cli/clitest"
	"github.com/reconcile/reconcile/internal/metrics"
	"github.com/reconcile/reconcile/reports"
)

// pushgateway starts Prometheus' Pushgateway (Debian's
// prometheus-pushgateway) on a free loopback port until the test ends, or
// skips the test where it is not installed (CI installs it and sets
// RECONCILE_REQUIRE_PUSHGATEWAY, which makes a missing one a failure).
func pushgateway(t *testing.T) string {
	t.Helper()
	var bin string
	for _, name := range []string{"prometheus-pushgateway", "pushgateway"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		msg := "no Pushgateway installed (apt-get install prometheus-pushgateway): the push is tested against a local receiver only"
		if os.Getenv("RECONCILE_REQUIRE_PUSHGATEWAY") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--persistence.file="+filepath.Join(t.TempDir(), "store"))
	logs := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	url := "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Pushgateway at %s did not get ready: %v\n%s", addr, err, logs)
		}
	}
}

// scrape is what Prometheus would read of the gateway's pushed groups (its
// reconcile_* and push_* metrics, not its own), parsed strictly.
func scrape(t *testing.T, url string) []clitest.PromSample {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var kept []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if strings.HasPrefix(name, "reconcile_") || strings.HasPrefix(name, "push_") {
			kept = append(kept, line)
		}
	}
	path := filepath.Join(t.TempDir(), "scrape.prom")
	os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o600)
	return clitest.ParseProm(t, path)
}

// The metrics of a run, pushed to a real Pushgateway: accepted, grouped by
// job and shard (two shards side by side), and replaced whole by the
// shard's next push (an alarm that cleared reads 0).
func TestMetricsPushToPushgateway(t *testing.T) {
	url := pushgateway(t)
	now := time.Now()
	m := metrics.Report{Shard: "2/4", Status: "partial", ExitCode: cli.ExitPartial, Started: now.Add(-time.Minute), Finished: now,
		Date: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Known: true, MembersOK: 5, Failed: 1, Version: "test",
		Source: reports.SourcePlatform, Findings: map[string]map[string]int64{"new": {"skipped_cycle": 3}},
		Alarms: []reports.Alarm{{Name: "members_lost", Raised: true}, {Name: "kind_count", Kind: "skipped_cycle"}}}
	if err := metrics.Push(context.Background(), url, m); err != nil {
		t.Fatal(err)
	}
	other := m
	other.Shard, other.Status, other.ExitCode, other.Alarms = "3/4", "ok", cli.ExitOK, nil
	if err := metrics.Push(context.Background(), url, other); err != nil {
		t.Fatal(err)
	}
	samples := scrape(t, url)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"reconcile_run_exit_code", []string{"job", "reconcile", "shard", "2/4"}, 3},
		{"reconcile_run_exit_code", []string{"job", "reconcile", "shard", "3/4"}, 0},
		{"reconcile_alarm", []string{"job", "reconcile", "shard", "2/4", "name", "members_lost"}, 1},
		{"reconcile_alarm", []string{"shard", "2/4", "name", "kind_count", "kind", "skipped_cycle"}, 0},
		{"reconcile_findings", []string{"shard", "2/4", "kind", "skipped_cycle", "state", "new"}, 3},
		{"push_failure_time_seconds", []string{"job", "reconcile", "shard", "2/4"}, 0},
	} {
		if v, ok := clitest.PromValue(samples, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
	// The shard's next run: its push replaces the last one whole.
	m.Alarms = []reports.Alarm{{Name: "members_lost"}}
	if err := metrics.Push(context.Background(), url, m); err != nil {
		t.Fatal(err)
	}
	samples = scrape(t, url)
	if v, _ := clitest.PromValue(samples, "reconcile_alarm", "shard", "2/4", "name", "members_lost"); v != 0 {
		t.Errorf("after the next push, members_lost = %v, want 0", v)
	}
	if _, ok := clitest.PromValue(samples, "reconcile_alarm", "shard", "2/4", "name", "kind_count"); ok {
		t.Error("a series the last push no longer has is still there: the push must replace the group (PUT)")
	}
	// A refused push is an error that says so.
	if err := metrics.Push(context.Background(), url+"/nowhere", m); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("push to a wrong path: %v", err)
	}
}
