package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every command answers -h and --help with its usage, examples and exit
// codes, and exits 0: operators read these at 2 a.m.
func TestHelpOnEveryCommand(t *testing.T) {
	for _, cmd := range []string{"run", "schedule", "merge", "sandbox", "sql", "ack", "version"} {
		for _, flag := range []string{"-h", "--help"} {
			code, stdout, stderr := runCLI(t, nil, cmd, flag)
			out := stdout + stderr
			if code != ExitOK {
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
	if code != ExitOK || !strings.Contains(stdout, "reconcile schedule") || !strings.Contains(stdout, "Exit codes:") {
		t.Errorf("help: exit %d\n%s", code, stdout)
	}
	for _, flag := range []string{"-metrics-file", "-split-by", "-progress", "-log-level", "-acknowledgements", "-alarms", "-notify", "-metrics-push"} {
		if _, _, stderr := runCLI(t, nil, "run", "-h"); !strings.Contains(stderr, flag) {
			t.Errorf("run -h does not document %s", flag)
		}
	}
	for _, flag := range []string{"-metrics-file", "-alarms", "-notify", "-metrics-push", "-allow-partial"} {
		if _, _, stderr := runCLI(t, nil, "merge", "-h"); !strings.Contains(stderr, flag) {
			t.Errorf("merge -h does not document %s", flag)
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
		{[]string{"merge"}, "--from is required"},
		{[]string{"merge", "--from", "out/shard=*", "--split-by", "merchant"}, "--split-by"},
		{[]string{"merge", "--from", "out/shard=*", "--date", "1999-12-31"}, "--date"},
		{[]string{"merge", "--from", "out/shard=*", "--log-level", "loud"}, "--log-level"},
		{[]string{"merge", "--from", "out/shard=*", "--metrics-push", "ftp://gateway"}, "--metrics-push"},
		{[]string{"merge", "--from", "out/shard=*", "--alarms", "no-such-alarms.yaml"}, "no-such-alarms.yaml"},
	} {
		code, _, stderr := runCLI(t, nil, tc.args...)
		if code != ExitFailed || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a message naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// The documented example configuration is valid for run and for schedule:
// every key is a flag, every value parses.
func TestExampleConfig(t *testing.T) {
	for _, cmd := range []string{"run", "schedule"} {
		o, err := parseRunFlags(cmd, "", "", "", []string{"--config", "../../reconcile.example.yaml"},
			Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }},
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

// TestMistypedFlagsAreNamed: a mistyped flag or config key gets "did you
// mean" and a short usage, not the whole help; reconcile help COMMAND shows
// that command's help.
func TestMistypedFlagsAreNamed(t *testing.T) {
	for args, want := range map[string]string{
		"run --daet 2026-11-20":  "unknown flag --daet (did you mean --date?)",
		"run --concurency 4":     "unknown flag --concurency (did you mean --concurrency?)",
		"sql --forma csv":        "unknown flag --forma (did you mean --format?)",
		"run --frobnicate":       "unknown flag --frobnicate\n",
		"run --concurrency many": `invalid value "many" for flag -concurrency`,
		"merge --form out":       "unknown flag --form (did you mean --from?)",
	} {
		code, stdout, stderr := runCLI(t, nil, strings.Fields(args)...)
		if code != ExitFailed || !strings.Contains(stderr, want) {
			t.Errorf("reconcile %s: exit %d, stderr %q; want 1 and %q", args, code, stderr, want)
		}
		if lines := strings.Count(stderr, "\n"); lines > 3 || stdout != "" {
			t.Errorf("reconcile %s: %d lines on stderr, stdout %q; want the mistake and a usage line, not the whole help:\n%s", args, lines, stdout, stderr)
		}
		if !strings.Contains(stderr, "every flag: reconcile help "+strings.Fields(args)[0]) {
			t.Errorf("reconcile %s: the usage line does not say where the whole help is:\n%s", args, stderr)
		}
	}
	config := filepath.Join(t.TempDir(), "reconcile.yaml")
	if err := os.WriteFile(config, []byte("concurency: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "run", "--config", config); code != ExitFailed ||
		!strings.Contains(stderr, "unknown setting(s) concurency (did you mean concurrency?)") {
		t.Errorf("a mistyped config key: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr := runCLI(t, nil, "help", "run")
	if code != ExitOK || !strings.Contains(stderr, "Usage: reconcile run") || !strings.Contains(stderr, "-memory-limit") {
		t.Errorf("reconcile help run: exit %d, want run's help with its flags:\n%s", code, stderr)
	}
}
