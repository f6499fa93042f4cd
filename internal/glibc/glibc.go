//go:build linux && cgo

// Package glibc tunes the C library's malloc when it is glibc's, as the
// process starts: importing it (the binary does, through internal/runtimetune) is what tunes it.
//
// DuckDB's buffer memory comes from its own jemalloc (internal/jemalloc),
// but the rest of its C++ code (hash table directories, strings, query
// state) allocates through the C library's malloc, on whichever thread
// calls into DuckDB: its worker threads and the Go runtime's threads a cgo
// call happens to run on. glibc gives each thread that allocates an arena
// of its own, up to eight per core, and each arena keeps what its thread
// freed; blocks served from an arena's heap go back to the system only from
// the heap's top, and glibc raises the size from which it maps a block on
// its own (and unmaps it when freed) from 128 KiB up to 32 MiB as mapped
// blocks are freed. So a constructor, run by the C runtime before the Go
// runtime starts its threads (a limit on arenas set later is a limit on
// arenas not made yet), sets at most ArenaMax arenas and a fixed 1 MiB
// mmap threshold, unless the operator set glibc's own variables
// (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ or GLIBC_TUNABLES), which then
// rule. internal/runtimetune has the measurements. Where the C
// library is not glibc, this package does nothing (Linked is false).
package glibc

/*
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_MAX 2
#define MMAP_THRESHOLD (1 << 20)

// tuned is 1 once the constructor has set both options, 0 when the
// operator's variables rule, -1 when mallopt refused.
static int tuned = 0;

static int tunedState(void) { return tuned; }

#ifdef __GLIBC__
static int glibcLinked(void) { return 1; }

// inUse is the bytes malloc has handed out and not had back: from its
// arenas, and mapped on their own (mallinfo2, glibc 2.33 and later).
static size_t inUse(void) {
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

__attribute__((constructor)) static void tune(void) {
	if (getenv("MALLOC_ARENA_MAX") || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("GLIBC_TUNABLES")) {
		return;
	}
	int ok = mallopt(M_ARENA_MAX, ARENA_MAX) == 1;
	ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 && ok;
	tuned = ok ? 1 : -1;
}

// arenas counts the arenas malloc has made, from malloc_info's report (one
// <heap nr="..."> element each).
static int arenas(void) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) {
		return -1;
	}
	int rc = malloc_info(0, f);
	fclose(f);
	if (rc != 0) {
		free(buf);
		return -1;
	}
	int n = 0;
	for (char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++) {
		n++;
	}
	free(buf);
	return n;
}
#else
static int glibcLinked(void) { return 0; }
static size_t inUse(void) { return 0; }
static int arenas(void) { return -1; }
#endif

// onThreads has n threads of their own, all alive at once, each allocate
// and free a small block: a thread's first malloc takes an arena of its
// own while glibc may make more.
static void *touch(void *barrier) {
	pthread_barrier_wait((pthread_barrier_t *)barrier);
	free(malloc(64));
	pthread_barrier_wait((pthread_barrier_t *)barrier);
	return NULL;
}

static int onThreads(int n) {
	pthread_barrier_t barrier;
	pthread_t threads[64];
	if (n > 64 || pthread_barrier_init(&barrier, NULL, (unsigned)n) != 0) {
		return -1;
	}
	int started = 0;
	for (; started < n; started++) {
		if (pthread_create(&threads[started], NULL, touch, &barrier) != 0) {
			break;
		}
	}
	if (started < n) { // the barrier would never open: give up (the process ends)
		return -1;
	}
	for (int i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
	}
	pthread_barrier_destroy(&barrier);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
)

// Linked says whether the C library's malloc is glibc's, which this
// package tunes.
var Linked = C.glibcLinked() == 1

var errNotGlibc = errors.New("the C library's malloc is not glibc's")

// ArenaMax is the most arenas the constructor lets malloc make.
const ArenaMax = C.ARENA_MAX

// Refused is an error when mallopt refused the constructor's settings; nil
// when it took them, when the operator's variables rule, or when the C
// library is not glibc.
func Refused() error {
	if C.tunedState() == -1 {
		return errors.New("glibc's mallopt refused the arena limit or the mmap threshold")
	}
	return nil
}

// InUse is how many bytes the C library's malloc has handed out and not had
// back (glibc's mallinfo2): DuckDB's C++ objects, mostly; 0 where malloc
// is not glibc's.
func InUse() uint64 { return uint64(C.inUse()) }

// Arenas is the number of arenas malloc has made (from malloc_info).
func Arenas() (int, error) {
	if !Linked {
		return 0, errNotGlibc
	}
	n := C.arenas()
	if n < 0 {
		return 0, errors.New("read malloc's arenas: malloc_info failed")
	}
	return int(n), nil
}

// AllocateOnThreads has n new threads, alive at once, each allocate and
// free a block through malloc: as many threads as DuckDB's workers and Go's
// threads calling into DuckDB, for a test to see how many arenas they get.
func AllocateOnThreads(n int) error {
	if C.onThreads(C.int(n)) != 0 {
		return fmt.Errorf("allocate on %d threads: could not start them", n)
	}
	return nil
}
