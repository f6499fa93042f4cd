package queries

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/sandbox"
)

// kindParts are the parts of a complete finding kind (CONTRIBUTING.md,
// "Adding a finding kind"), each with where it lives and how to tell it is
// there. A kind is whatever any of them names: a part left behind by a
// removed kind is reported too.
func kindParts(t *testing.T) []kindPart {
	t.Helper()
	checks := map[string]Check{}
	for _, c := range Checks() {
		checks[c.Kind] = c
	}
	s, err := sandbox.New(sandbox.Config{Seed: 7, BusinessDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	truth, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	fileIn := func(dir, name string) func(string) bool {
		return func(kind string) bool {
			_, err := os.Stat(filepath.Join(dir, strings.ReplaceAll(name, "KIND", kind)))
			return err == nil
		}
	}
	dirs := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, e.Name())
			}
		}
		return out
	}
	return []kindPart{
		{"its check, queries/findings/KIND.sql", Kinds(), func(k string) bool { _, ok := checks[k]; return ok }},
		{"its meaning, the leading comment of queries/findings/KIND.sql (the Legend sheet's and finding_kinds' text)", nil,
			func(k string) bool { return checks[k].Description != "" }},
		{"what to do, the \"-- Action:\" paragraph that ends that comment (the Legend sheet's and finding_kinds' text)", nil,
			func(k string) bool { return checks[k].Action != "" }},
		{"its fixture, queries/testdata/KIND/fixture.sql", dirs("testdata"), fileIn("testdata", "KIND/fixture.sql")},
		{"its expected findings, at least one, in queries/testdata/KIND/want.csv (go test ./queries -run TestCheckFixtures/KIND -update writes it; the workbook tests show the first)", nil,
			func(k string) bool {
				b, err := os.ReadFile(filepath.Join("testdata", k, "want.csv"))
				return err == nil && strings.Count(strings.TrimSpace(string(b)), "\n") >= 1
			}},
		{"its sheet's columns, queries/reports/kinds/KIND.sql", KindSheets(), func(k string) bool { _, ok := KindSheet(k); return ok }},
		{"the \"-- When: \" and \"-- ID: \" lines of queries/reports/kinds/KIND.sql (docs/workbook.md's table is written from them)", nil,
			func(k string) bool {
				sheet, _ := KindSheet(k)
				return strings.Contains(sheet, "\n-- When: ") && strings.Contains(sheet, "\n-- ID: ")
			}},
		{"its planted case in the sandbox (sandbox.Kinds lists it)", sandbox.Kinds(), func(k string) bool { return slices.Contains(sandbox.Kinds(), k) }},
		{"a planted finding in the sandbox's default world (seed 7): its ground truth holds none", nil,
			func(k string) bool { return len(truth.Findings[k]) > 0 }},
	}
}

type kindPart struct {
	what  string
	names []string          // the kinds this part names, if it can name kinds
	has   func(string) bool // whether kind has this part
}

// TestEveryKindIsComplete: every finding kind has each of its parts (its
// check with its meaning and action, its fixture and expected findings,
// its sheet's columns, its planted case in the sandbox), and the failure
// names, per kind, what it lacks. A kind is added in these places and no
// others (CONTRIBUTING.md); the Summary, Legend, manifest, Parquet and
// finding_kinds follow from them.
func TestEveryKindIsComplete(t *testing.T) {
	parts := kindParts(t)
	all := map[string]bool{}
	for _, p := range parts {
		for _, k := range p.names {
			all[k] = true
		}
	}
	kinds := make([]string, 0, len(all))
	for k := range all {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	if len(kinds) < len(Kinds()) || len(Kinds()) == 0 {
		t.Fatalf("found %d kinds, the catalog has %d", len(kinds), len(Kinds()))
	}
	for _, k := range kinds {
		var lacks []string
		for _, p := range parts {
			if !p.has(k) {
				lacks = append(lacks, strings.ReplaceAll(p.what, "KIND", k))
			}
		}
		if len(lacks) > 0 {
			t.Errorf("finding kind %s lacks:\n  - %s", k, strings.Join(lacks, "\n  - "))
		}
	}
}
