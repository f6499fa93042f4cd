package queries

import (
	"strings"
	"testing"
)

func TestParseNamed(t *testing.T) {
	got, err := parseNamed("-- header of the file\n\n-- name: A\n-- what A is\nSELECT 1\n\n-- name: B\nSELECT 2;\n")
	if err != nil {
		t.Fatal(err)
	}
	if got["A"] != "-- what A is\nSELECT 1" || got["B"] != "SELECT 2;" || len(got) != 2 {
		t.Errorf("got %q", got)
	}
	for _, bad := range []string{
		"-- name: A\n-- only a comment\n",
		"-- name: A\nSELECT 1\n-- name: A\nSELECT 2",
		"-- name: two words\nSELECT 1",
		"-- name:\nSELECT 1",
	} {
		if _, err := parseNamed(bad); err == nil {
			t.Errorf("parseNamed(%q) accepted it", bad)
		}
	}
}

func TestNamedUnknown(t *testing.T) {
	if _, err := Named("nowhere.sql", "Nothing"); err == nil || !strings.Contains(err.Error(), "Nothing") {
		t.Errorf("an unknown statement: err %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Must of an unknown statement did not panic")
		}
	}()
	Must("nowhere.sql", "Nothing")
}
