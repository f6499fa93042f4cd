package queries

import (
	"strings"
	"testing"
)

// Every kind brings its own description and advice: the workbook's Legend
// sheet, the finding_kinds table and docs/findings.md read them from here, so a
// new .sql file without them would ship a kind nobody can act on.
func TestEveryCheckHasDescriptionAndAction(t *testing.T) {
	checks := Checks()
	if len(checks) < 8 {
		t.Fatalf("%d checks, want at least the 8 first kinds of docs/findings.md's table", len(checks))
	}
	for _, c := range checks {
		if len(c.Description) < 20 {
			t.Errorf("%s: description %q: give the .sql file a leading comment saying what the finding means", c.Kind, c.Description)
		}
		if len(c.Action) < 10 {
			t.Errorf("%s: action %q: add a \"-- Action: ...\" paragraph to the leading comment of findings/%s.sql", c.Kind, c.Action, c.Kind)
		}
		if strings.Contains(c.Description, "Action:") {
			t.Errorf("%s: the action leaked into the description: %q", c.Kind, c.Description)
		}
	}
}

func TestLeadingComment(t *testing.T) {
	desc, action := leadingComment("-- A thing\n--  that happened.\n-- Action: fix it\n-- soon.\n--\nSELECT 1 -- not this\n-- nor this")
	if desc != "A thing that happened." || action != "fix it soon." {
		t.Errorf("got %q / %q", desc, action)
	}
	desc, action = leadingComment("SELECT 1")
	if desc != "" || action != "" {
		t.Errorf("no comment: got %q / %q", desc, action)
	}
}
