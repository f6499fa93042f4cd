package merge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/groups"
	"github.com/reconcile/reconcile/internal/store/storetest"
	"github.com/reconcile/reconcile/outputs"
)

// Every table of the schema is merged: a table added to schema.sql
// without its statement in queries/merge.sql (and its place in tables)
// would be left empty in every merged publication.
func TestEverySchemaTableIsMerged(t *testing.T) {
	s := storetest.Open(t)
	rows, err := s.Conn().QueryContext(context.Background(),
		`SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var schema []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		schema = append(schema, name)
	}
	// runs is merged on its own; schema_digest is the file's own record
	// of its schema (store.Open writes it into the merged file too).
	merged := append(slices.Clone(tables), "runs", "schema_digest")
	slices.Sort(merged)
	if !slices.Equal(schema, merged) {
		t.Errorf("the schema's tables %v; the merge copies %v (and runs)", schema, tables)
	}
}

func pub(shard string, settings map[string]string, version string) *publication {
	s, _ := groups.ParseShard(shard)
	return &publication{root: "out/shard=" + shard[:1], shard: s, known: true, manifest: outputs.Manifest{
		RunID: "2026-11-20", Source: "platform", Shard: shard, Settings: settings,
		Versions: map[string]string{"reconcile": version},
	}}
}

// agree names every setting the shards differ in, with each value and
// the shards that had it; a setting one shard did not record counts as a
// difference.
func TestAgreeNamesEachDifference(t *testing.T) {
	base := map[string]string{"lookback": "3", "interchange-rates": "sha256:aa", "journal": "/j/*.ndjson"}
	other := map[string]string{"lookback": "2", "interchange-rates": "sha256:aa"}
	if err := agree([]*publication{pub("0/3", base, "v1"), pub("1/3", base, "v1"), pub("2/3", base, "v1")}); err != nil {
		t.Fatalf("shards run alike: %v", err)
	}
	err := agree([]*publication{pub("0/3", base, "v1"), pub("1/3", other, "v1"), pub("2/3", base, "v2")})
	if err == nil {
		t.Fatal("shards run with different settings and versions agree")
	}
	for _, want := range []string{
		`--lookback: "2" in 1/3; "3" in 0/3, 2/3`,
		`--journal: "(not recorded)" in 1/3; "/j/*.ndjson" in 0/3, 2/3`,
		`version: "v1" in 0/3, 1/3; "v2" in 2/3`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "interchange-rates") {
		t.Errorf("the refusal names a setting the shards share:\n%v", err)
	}
}

// The merge never writes into a folder --from matched, however --out
// names it: the folder itself, a folder inside it, or through a symbolic
// link.
func TestOutsideShards(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard=0")
	if err := os.MkdirAll(shard, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shard, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	pubs := []*publication{{root: shard}}
	for _, out := range []string{shard, filepath.Join(shard, "merged"), filepath.Join(dir, "link", "merged", "deeper"),
		filepath.Join(shard, "..", "shard=0")} {
		if err := outsideShards(out, pubs); err == nil || !strings.Contains(err.Error(), "never writes into a shard's folder") {
			t.Errorf("--out %s: %v", out, err)
		}
	}
	for _, out := range []string{dir, filepath.Join(dir, "merged"), filepath.Join(dir, "shard=01")} {
		if err := outsideShards(out, pubs); err != nil {
			t.Errorf("--out %s refused: %v", out, err)
		}
	}
}
