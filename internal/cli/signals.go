package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/reconcile/reconcile/internal/runtimetune"
)

// Main is the reconcile binary: it runs the command of os.Args, tuned for
// it (runtimetune), with SIGINT and SIGTERM relayed to the command's stages
// of stopping, and returns the exit code. v is the version the build set
// (-ldflags "-X main.version=..."), or empty.
func Main(v string) int {
	version = v
	runtimetune.Start(runsTheJob(os.Args[1:]), os.Getenv, os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stops := &signalStages{stages: []func(){cancel}}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go stops.relay(sigs, os.Stderr, os.Exit)
	return Run(ctx, os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, stops: stops})
}

// signalStages turns each SIGINT or SIGTERM into the next stage of stopping.
// The first cancels the command's context: a run stops cleanly (what was
// pulled is committed, the run is recorded as failed) and exits 130. A
// command may add stages (schedule: the first signal stops scheduling, the
// second interrupts the running job). A signal after the last stage ends
// the process at once with 130, for a clean stop that takes too long or
// hangs: an operator's second Ctrl-C always works.
type signalStages struct {
	mu     sync.Mutex
	stages []func()
}

// then adds a stage after the others. Nil-safe: tests run commands with no
// signals.
func (s *signalStages) then(stage func()) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stages = append(s.stages, stage)
}

// relay runs a stage for each signal received, then exits on the next.
func (s *signalStages) relay(sigs <-chan os.Signal, stderr io.Writer, exit func(int)) {
	for sig := range sigs {
		s.mu.Lock()
		var stage func()
		if len(s.stages) > 0 {
			stage, s.stages = s.stages[0], s.stages[1:]
		}
		s.mu.Unlock()
		if stage == nil {
			fmt.Fprintf(stderr, "reconcile: %v again: exiting at once\n", sig)
			exit(ExitInterrupted)
			return
		}
		stage()
	}
}

// runsTheJob says whether the command of args runs the job (run, schedule,
// merge): the commands whose memory is sized for it.
func runsTheJob(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "run", "schedule", "merge":
		return true
	}
	return false
}
