//go:build !(linux && cgo)

package glibc

import "errors"

// Linked says whether the C library's malloc is glibc's: not known here.
var Linked = false

var errNotGlibc = errors.New("the C library's malloc is not glibc's")

// ArenaMax is the most arenas the constructor lets malloc make where it is
// glibc's.
const ArenaMax = 2

// Refused is nil here: nothing was asked of malloc.
func Refused() error { return nil }

// InUse is not known here: 0.
func InUse() uint64 { return 0 }

// Arenas is not known here.
func Arenas() (int, error) { return 0, errNotGlibc }

// AllocateOnThreads is not available here.
func AllocateOnThreads(n int) error { return errNotGlibc }
