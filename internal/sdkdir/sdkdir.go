// Package sdkdir finds, and installs when needed, the platform vendor's
// Node.js SDK (npm cybersource-rest-client, pinned by
// internal/sandbox/testdata/sdk/package-lock.json) that the tests comparing this
// project with the vendor read: the SDK contract test (package sandbox)
// and the field guard (package platform). One installation serves both;
// a lock keeps two test binaries, which go test runs at once, from
// running npm ci over each other. It is for tests only.
package sdkdir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RequireEnv, when set (CI sets it), makes a missing Node.js or npm fail
// the tests that need the SDK rather than skip them.
const RequireEnv = "RECONCILE_REQUIRE_SDK_TEST"

// stampName is the file, in node_modules, holding the SHA-256 of the
// package-lock.json it was installed from.
const stampName = ".reconcile-lock-sha256"

// Dir is internal/sandbox/testdata/sdk of the module the working directory is in
// (a test's working directory is its package's), found by going up to the
// directory holding go.mod.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the SDK directory: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "internal", "sandbox", "testdata", "sdk"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("find the SDK directory: no go.mod above %s", wd)
		}
	}
}

// Tools finds node and npm, or skips the test saying how to install them
// (and fails it when RequireEnv is set).
func Tools(t testing.TB) (node, npm string) {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNPM := exec.LookPath("npm")
	if errNode != nil || errNPM != nil {
		msg := "the SDK tests need Node.js and npm: apt-get install nodejs npm"
		if os.Getenv(RequireEnv) != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, npm
}

// Install runs npm ci in dir when node_modules is missing or was installed
// from another package-lock.json, holding dir's lock meanwhile.
func Install(t testing.TB, npm, dir string) {
	t.Helper()
	unlock, err := lock(filepath.Join(dir, ".npm-ci.lock"))
	if err != nil {
		t.Fatalf("lock %s for npm ci: %v", dir, err)
	}
	defer unlock()
	lockFile, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lockFile)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", stampName)
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, b)
	}
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Source installs the SDK if needed and returns its src directory (src/api
// names every operation and its answer's model, src/model every field).
func Source(t testing.TB) string {
	t.Helper()
	_, npm := Tools(t)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	Install(t, npm, dir)
	return filepath.Join(dir, "node_modules", "cybersource-rest-client", "src")
}
