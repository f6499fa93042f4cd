package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// Every command answers -h and --help with its usage, examples and exit
// codes, and exits 0: operators read these at 2 a.m.
func TestHelpOnEveryCommand(t *testing.T) {
	for _, cmd := range []string{"run", "schedule", "sandbox", "sql", "version"} {
		for _, flag := range []string{"-h", "--help"} {
			code, stdout, stderr := runCLI(t, nil, cmd, flag)
			out := stdout + stderr
			if code != exitOK {
				t.Errorf("%s %s: exit %d\n%s", cmd, flag, code, out)
			}
			for _, want := range []string{"Usage: reconcile " + cmd, "Examples:", "Exit codes:"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s %s: no %q in\n%s", cmd, flag, want, out)
				}
			}
		}
	}
	code, stdout, _ := runCLI(t, nil, "help")
	if code != exitOK || !strings.Contains(stdout, "reconcile schedule") || !strings.Contains(stdout, "Exit codes:") {
		t.Errorf("help: exit %d\n%s", code, stdout)
	}
	for _, flag := range []string{"-metrics-file", "-split-by", "-progress", "-log-level", "-alarms", "-notify", "-metrics-push"} {
		if _, _, stderr := runCLI(t, nil, "run", "-h"); !strings.Contains(stderr, flag) {
			t.Errorf("run -h does not document %s", flag)
		}
	}
	if _, _, stderr := runCLI(t, nil, "schedule", "-h"); !strings.Contains(stderr, "-cron") || !strings.Contains(stderr, "second signal") ||
		!strings.Contains(stderr, "0 stopped by SIGTERM") {
		t.Errorf("schedule -h does not document --cron and its signals:\n%s", stderr)
	}
}

func TestBadOperatorFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--split-by", "merchant"}, "--split-by"},
		{[]string{"run", "--progress", "sometimes"}, "--progress"},
		{[]string{"run", "--log-level", "loud"}, "--log-level"},
		{[]string{"schedule"}, "--cron is required"},
		{[]string{"schedule", "--cron", "61 * * * *"}, "--cron"},
		{[]string{"sql", "--tables", "a", "b"}, "--tables"},
	} {
		code, _, stderr := runCLI(t, nil, tc.args...)
		if code != exitFailed || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a message naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// The documented example configuration is valid for run and for schedule:
// every key is a flag, every value parses.
func TestExampleConfig(t *testing.T) {
	for _, cmd := range []string{"run", "schedule"} {
		o, err := parseRunFlags(cmd, "", "", "", []string{"--config", "../../reconcile.example.yaml"},
			env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }},
			func(fs *flag.FlagSet) {
				if cmd == "schedule" {
					fs.String("cron", "", "")
				}
			})
		if err != nil {
			t.Fatalf("%s: reconcile.example.yaml: %v", cmd, err)
		}
		if o.splitBy != "group" || o.metricsFile == "" || o.memberTimeout != 15*time.Minute || o.baseURL == "" || o.groups != "" {
			t.Errorf("%s: example config read as %+v", cmd, o)
		}
	}
}
