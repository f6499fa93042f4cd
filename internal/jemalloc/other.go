//go:build !(linux && amd64)

package jemalloc

import (
	"errors"
	"time"
)

// Linked says whether DuckDB's jemalloc is there to tune and read: not on
// this platform (DuckDB allocates through the system's allocator, or
// duckdb-go's library for it is not known to link jemalloc).
const Linked = false

var errNotLinked = errors.New("DuckDB's jemalloc is not linked on this platform")

// SetDecay does nothing here.
func SetDecay(dirty, muzzy time.Duration) error { return nil }

// Option is not known here.
func Option(name string) (int64, error) { return 0, errNotLinked }

// Allocated is not known here.
func Allocated() (uint64, error) { return 0, errNotLinked }

// Arenas is not known here.
func Arenas() (int, error) { return 0, errNotLinked }
