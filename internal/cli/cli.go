package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/reconcile/reconcile/internal/buildinfo"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/cliflags"
	"github.com/reconcile/reconcile/internal/pipeline"
	"github.com/reconcile/reconcile/internal/store"
)

// Exit codes (a contract: cron and schedulers read them).
const (
	ExitOK          = 0
	ExitFailed      = 1   // the run failed: bad config, no credentials, database locked, ...
	ExitPartial     = 3   // some members failed; the rest were loaded and reported
	ExitInterrupted = 130 // SIGINT or SIGTERM
)

// errPartial marks a run that finished with part of its work not done:
// some members failed, or a journal file or a BIN lookup did. Its text is
// the reasons alone (partialError), not "some members failed", which was
// printed when only a journal file had failed.
var errPartial = errors.New("partial")

// partialError is a partial run's error: why, wrapping errPartial.
type partialError struct{ why string }

func (e partialError) Error() string { return e.why }
func (e partialError) Unwrap() error { return errPartial }

// version is the one cmd/reconcile's main was built with (-ldflags "-X
// main.version=v1.2.3", given to Main); without it the version comes from
// the build information (buildinfo.Version).
var version = ""

// buildVersion is the one version string of this binary: `reconcile
// version`, the manifest, the metrics' reconcile_run_info, the workbook and
// the User-Agent of every request all print it.
func buildVersion() string { return buildinfo.Version(version) }

// Env is the process environment a command runs in: Main passes the
// process's own; tests pass theirs.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// HTTPClient, when set, is what the platform client sends through
	// (platform.WithHTTPClient). Tests only: it injects faults below the
	// client that no server can cause, such as a panic.
	HTTPClient *http.Client
	// stops is where a command adds stages to what SIGINT and SIGTERM do
	// (Main); nil in tests, which send no signals.
	stops *signalStages
}

const usage = `reconcile: reporting and reconciliation for the payments platform

Usage:
  reconcile run       one batch run (what cron calls)
  reconcile schedule  stay up and run on a cron spec; never overlaps itself
  reconcile doctor    check, read-only, that a run would work with an account
  reconcile merge     one publication from the shards (--shard i/n) of a date
  reconcile sandbox   serve the simulated platform on an address
  reconcile sql       read-only ad-hoc SQL over a DuckDB file
  reconcile ack       acknowledge a finding (known, handled, until a date); --list, --revoke
  reconcile version   print the version

Run "reconcile <command> -h" for a command's flags, examples and exit codes.

Examples:
  reconcile run                                   # the embedded sandbox, yesterday
  reconcile run --config /etc/reconcile/reconcile.yaml --metrics-file /var/lib/node_exporter/reconcile.prom
  reconcile schedule --cron "0 2 * * *" --config /etc/reconcile/reconcile.yaml
  reconcile sql --tables

Exit codes:
  0    all members reconciled
  1    the run failed (bad config, no credentials, database locked, every member failed, ...)
  3    partial: some members failed, the rest were loaded and reported
  130  interrupted
`

// runExitCodes is the exit-code text of the commands that run the job.
const runExitCodes = "Exit codes: 0 ok, 1 failed, 3 partial (some members failed), 130 interrupted."

// run is the whole CLI, callable in-process by tests.
func Run(ctx context.Context, args []string, e Env) int {
	if len(args) == 0 {
		fmt.Fprint(e.Stderr, usage)
		return ExitFailed
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		err = cmdRun(ctx, rest, e)
	case "doctor":
		err = cmdDoctor(ctx, rest, e)
	case "sandbox":
		err = cmdSandbox(ctx, rest, e)
	case "sql":
		err = cmdSQL(ctx, rest, e)
	case "ack":
		err = cmdAck(ctx, rest, e)
	case "schedule":
		err = cmdSchedule(ctx, rest, e)
	case "merge":
		err = cmdMerge(ctx, rest, e)
	case "version", "--version", "-version":
		if len(rest) > 0 {
			fs := newFlagSetCodes("version", "Print the version of reconcile (and the commit it was built from).",
				"  reconcile version\n", "Exit codes: 0 ok, 1 an unexpected argument.", e)
			if err = cliflags.Parse(fs, rest); err == nil && fs.NArg() > 0 {
				err = fmt.Errorf("version: unexpected argument %q", fs.Arg(0))
			}
			break
		}
		fmt.Fprintln(e.Stdout, "reconcile", buildVersion())
	case "help", "-h", "--help":
		if len(rest) > 0 && cmd == "help" && rest[0] != "help" {
			// reconcile help run: run's own help, as reconcile run -h.
			return Run(ctx, []string{rest[0], "-h"}, e)
		}
		fmt.Fprint(e.Stdout, usage)
	default:
		fmt.Fprintf(e.Stderr, "reconcile: unknown command %q\n\n%s", cardmask.MaskText(cmd), usage)
		return ExitFailed
	}
	return exitCode(ctx, err, e.Stderr)
}

// exitCodeOf is the exit code a command's error maps to, without the
// message exitCode prints (the scheduler logs it instead).
func exitCodeOf(ctx context.Context, err error) int {
	return exitCode(ctx, err, io.Discard)
}

// exitCode maps a command's error to the process exit code, in one place.
// An error may carry the platform's text, so it is printed through
// errorText.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, errPartial):
		fmt.Fprintln(stderr, "reconcile: partial run:", errorText(err))
		return ExitPartial
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		var stopped *pipeline.Interrupted
		if errors.As(err, &stopped) {
			fmt.Fprintln(stderr, "reconcile:", stopped.Error())
		} else {
			fmt.Fprintln(stderr, "reconcile: interrupted")
		}
		return ExitInterrupted
	case errors.Is(err, store.ErrDatabaseLocked):
		fmt.Fprintln(stderr, "reconcile:", errorText(err))
		fmt.Fprintln(stderr, "reconcile: another reconcile run (or a program with the file open for writing) holds the database; wait for it to finish")
		return ExitFailed
	default:
		fmt.Fprintln(stderr, "reconcile:", errorText(err))
		return ExitFailed
	}
}

// newLogger writes JSON lines when stderr is not a terminal (cron, files,
// log collectors) and readable text on a terminal.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	return newLoggerTo(w, isTerminal(w), level)
}

// newLoggerTo is newLogger for a writer that wraps the terminal (the
// progress display), whose kind the caller knows.
func newLoggerTo(w io.Writer, terminal bool, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: cardmask.SlogAttr}
	if terminal {
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return slog.New(slog.NewJSONHandler(w, opts)), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage with examples and the run's exit codes to the command's
// stderr.
func newFlagSet(name, synopsis, examples string, e Env) *flag.FlagSet {
	return newFlagSetCodes(name, synopsis, examples, runExitCodes, e)
}

// newFlagSetCodes is newFlagSet for a command with its own exit codes.
func newFlagSetCodes(name, synopsis, examples, exitCodes string, e Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.Stderr, "Usage: reconcile %s\n\n%s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(e.Stderr, "\nExamples:\n%s", examples)
		}
		fmt.Fprintf(e.Stderr, "\n%s\n", exitCodes)
	}
	return fs
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
