//go:build !(linux && cgo)

package glibc

import "errors"

// Linked says whether the C library's malloc is glibc's: not known here.
var Linked = false

var errNotGlibc = errors.New("the C library's malloc is not glibc's")

// The settings the constructor gives malloc where it is glibc's.
const (
	ArenaMax      = 2
	MmapThreshold = 1 << 20
)

// Tuned is false here: nothing was tuned.
func Tuned() (bool, error) { return false, nil }

// Arenas is not known here.
func Arenas() (int, error) { return 0, errNotGlibc }

// AllocateOnThreads is not available here.
func AllocateOnThreads(n int) error { return errNotGlibc }
