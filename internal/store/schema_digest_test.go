package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/reconcile/reconcile/internal/store"
)

// TestOpenSkipsTheSchemaItRecorded: a file opened once records the digest
// of the schema applied; opened again at the same schema, it is not given
// the schema again (a comment changed in between stays changed), and its
// times are still read in UTC; a file whose recorded digest differs (an
// older version's schema) is given the schema again, and the new digest.
func TestOpenSkipsTheSchemaItRecorded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.duckdb")
	exec := func(s *store.Store, q string) {
		t.Helper()
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	read := func(s *store.Store, q string) string {
		t.Helper()
		var v string
		if err := s.Conn().QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	const comment = `SELECT comment FROM duckdb_tables() WHERE table_name = 'runs'`
	open := func() *store.Store {
		t.Helper()
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	s := open()
	digest := read(s, `SELECT string_agg(digest, ',') FROM schema_digest`)
	if len(digest) != 64 {
		t.Fatalf("schema_digest after the first open: %q, want one SHA-256", digest)
	}
	schemaComment := read(s, comment)
	exec(s, `COMMENT ON TABLE runs IS 'changed by hand'`)
	s.Close()

	s = open()
	if got := read(s, comment); got != "changed by hand" {
		t.Errorf("a file at this schema was given the schema again: the runs comment is %q", got)
	}
	if tz := read(s, `SELECT current_setting('TimeZone')`); tz != "UTC" {
		t.Errorf("TimeZone after an open that skipped the schema: %q, want UTC", tz)
	}
	exec(s, `UPDATE schema_digest SET digest = 'an older schema'`)
	s.Close()

	s = open()
	defer s.Close()
	if got := read(s, comment); got != schemaComment {
		t.Errorf("a file of an older schema was not given this one: the runs comment is %q, want %q", got, schemaComment)
	}
	if got := read(s, `SELECT string_agg(digest, ',') FROM schema_digest`); got != digest {
		t.Errorf("schema_digest after the schema was applied again: %q, want %q", got, digest)
	}
}

// TestOpenMakesAgainATableDroppedByHand: a file at this schema whose
// table or view was dropped by hand (a careless analyst with a writable
// DuckDB CLI) is given the schema again on the next open, as every open
// did before opens skipped it, instead of failing in the middle of a run.
func TestOpenMakesAgainATableDroppedByHand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.duckdb")
	for _, drop := range []string{`DROP TABLE plans`, `DROP VIEW current_findings`} {
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Conn().ExecContext(ctx, drop); err != nil {
			t.Fatalf("%s: %v", drop, err)
		}
		s.Close()
		s, err = store.Open(ctx, path)
		if err != nil {
			t.Fatalf("open after %s: %v", drop, err)
		}
		var n int
		if err := s.Conn().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM plans) + (SELECT count(*) FROM current_findings)`).Scan(&n); err != nil {
			t.Errorf("after %s and an open: %v", drop, err)
		}
		s.Close()
	}
}
