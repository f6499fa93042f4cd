//go:build linux && amd64

// Package jemalloc tunes, and reads the settings of, the jemalloc that
// DuckDB allocates through: duckdb-go's static library for linux/amd64
// links it under the symbol prefix duckdb_je_ (elsewhere this package does
// nothing: see other.go). internal/runtimetune says why a run tunes
// it.
package jemalloc

/*
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

extern int duckdb_je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

static int readSsize(const char *name, ssize_t *v) {
	size_t len = sizeof(*v);
	return duckdb_je_mallctl(name, v, &len, NULL, 0);
}

static int writeSsize(const char *name, ssize_t v) {
	return duckdb_je_mallctl(name, NULL, NULL, &v, sizeof(v));
}

// allocated refreshes jemalloc's statistics and reads the bytes it has
// allocated to the application (stats.allocated).
static int allocated(size_t *v) {
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);
	int err = duckdb_je_mallctl("epoch", &epoch, &len, &epoch, len);
	if (err != 0) {
		return err;
	}
	len = sizeof(*v);
	return duckdb_je_mallctl("stats.allocated", v, &len, NULL, 0);
}

static int narenas(unsigned *n) {
	size_t len = sizeof(*n);
	return duckdb_je_mallctl("arenas.narenas", n, &len, NULL, 0);
}

// setDecay sets the decay times of every arena jemalloc has made, and the
// defaults of those it makes later. An arena not made yet (error EFAULT)
// is passed over: it will take the defaults.
static int setDecay(ssize_t dirty, ssize_t muzzy) {
	int err = writeSsize("arenas.dirty_decay_ms", dirty);
	if (err == 0) {
		err = writeSsize("arenas.muzzy_decay_ms", muzzy);
	}
	if (err != 0) {
		return err;
	}
	unsigned n = 0;
	if ((err = narenas(&n)) != 0) {
		return err;
	}
	char name[64];
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "arena.%u.dirty_decay_ms", i);
		writeSsize(name, dirty);
		snprintf(name, sizeof(name), "arena.%u.muzzy_decay_ms", i);
		writeSsize(name, muzzy);
	}
	return 0;
}

*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"

	_ "github.com/duckdb/duckdb-go/v2" // links the library that holds jemalloc
)

// Linked says whether DuckDB's jemalloc is there to tune and read.
const Linked = true

// SetDecay sets how long jemalloc keeps freed pages dirty (in the process,
// ready for reuse) and then muzzy (given back with MADV_FREE, reclaimed by
// the kernel only when it runs short, so still in the RSS), in every arena,
// in milliseconds (jemalloc's dirty_decay_ms and muzzy_decay_ms).
func SetDecay(dirty, muzzy time.Duration) error {
	if rc := C.setDecay(C.ssize_t(dirty.Milliseconds()), C.ssize_t(muzzy.Milliseconds())); rc != 0 {
		return fmt.Errorf("set jemalloc's decay times: error %d", int(rc))
	}
	return nil
}

// Option is the value of one of jemalloc's ssize_t settings, such as
// "arenas.dirty_decay_ms" or "arena.0.muzzy_decay_ms".
func Option(name string) (int64, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var v C.ssize_t
	if rc := C.readSsize(cs, &v); rc != 0 {
		return 0, fmt.Errorf("jemalloc setting %s: error %d", name, int(rc))
	}
	return int64(v), nil
}

// Allocated is how many bytes DuckDB holds allocated through jemalloc now
// (stats.allocated): its buffer pool, which duckdb_memory() counts and
// memory_limit bounds, and what it allocates beside it, which neither does.
func Allocated() (uint64, error) {
	var v C.size_t
	if rc := C.allocated(&v); rc != 0 {
		return 0, fmt.Errorf("jemalloc stats.allocated: error %d", int(rc))
	}
	return uint64(v), nil
}

// Arenas is the number of arenas jemalloc may make (arenas.narenas): its
// arenas are numbered from 0 to one less, made as threads need them.
func Arenas() (int, error) {
	var n C.unsigned
	if rc := C.narenas(&n); rc != 0 {
		return 0, fmt.Errorf("jemalloc arenas.narenas: error %d", int(rc))
	}
	return int(n), nil
}
