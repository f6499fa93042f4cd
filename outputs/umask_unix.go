//go:build unix

package outputs

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processUmask is the process's umask, read once as the program starts,
// before any goroutine could create a file. Linux (4.7 and later) shows it
// in /proc/self/status; elsewhere it can only be read by setting a new one
// and putting the old one back, meanwhile the strictest, so that a file
// created in that instant would be private rather than open.
var processUmask = readUmask()

func readUmask() os.FileMode {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return os.FileMode(m) & os.ModePerm
				}
			}
		}
	}
	old := syscall.Umask(0o077)
	syscall.Umask(old)
	return os.FileMode(old) & os.ModePerm
}
