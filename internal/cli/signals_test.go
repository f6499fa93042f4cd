package cli

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestSignalStages: each signal runs the next stage; one after the last
// exits with 130 at once.
func TestSignalStages(t *testing.T) {
	var ran []string
	s := &signalStages{stages: []func(){func() { ran = append(ran, "cancel") }}}
	s.then(func() { ran = append(ran, "interrupt job") })
	sigs := make(chan os.Signal, 3)
	sigs <- syscall.SIGTERM
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT
	close(sigs)
	var stderr strings.Builder
	exited := -1
	s.relay(sigs, &stderr, func(code int) { exited = code })
	if strings.Join(ran, ",") != "cancel,interrupt job" || exited != ExitInterrupted ||
		stderr.String() != "reconcile: interrupt again: exiting at once\n" {
		t.Errorf("stages run %v, exit %d, stderr %q", ran, exited, stderr.String())
	}
	(*signalStages)(nil).then(func() {}) // tests run commands with no signal stages
}
