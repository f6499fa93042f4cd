// Package docs holds the user's documentation (docs/*.md), the maintainers'
// notes (docs/dev/) and this test, which keeps the README short, the user
// docs free of history, and every link between them working.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// root is the repository, seen from this package's folder.
const root = ".."

// maxReadmeLines is what a new user reads in five minutes (issue 37).
const maxReadmeLines = 300

// TestReadmeIsShort fails when README.md grows past what a new user reads
// in five minutes: details belong in docs/, measurements in docs/dev/.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move the details to docs/ (users) or docs/dev/ (maintainers) and link them", n, maxReadmeLines)
	}
}

// userDocs are README.md and docs/*.md: what users read, which describes
// the product as it is. docs/dev/ (the maintainers' notes) is not in it.
func userDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found: is the test run from docs/?")
	}
	return append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, docs...)
}

var (
	// hexToken is a word of 7 to 40 lowercase hexadecimal characters: the
	// length of an abbreviated or a full commit hash. A word glued to a
	// letter, a digit, '-', '_', '.' or '/' is not one (a UUID's parts, a
	// key id like 0a1b2c3d-..., a path, a version).
	hexToken = regexp.MustCompile(`(?:^|[^0-9A-Za-z_./-])([0-9a-f]{7,40})(?:[^0-9A-Za-z_-]|$)`)
	letter   = regexp.MustCompile(`[a-f]`)
	digit    = regexp.MustCompile(`[0-9]`)
	// namedCommit is a hash the text calls one, all digits included
	// ("at commit 1884038").
	namedCommit = regexp.MustCompile(`(?i)\bcommits?\s+([0-9a-f]{7,40})\b`)
)

// commitHashes returns what in text looks like a commit hash: a hex word
// with both letters and digits (a platform id of 22 digits, an amount, a
// BIN or a year has no letter; a word like "defaced" has no digit), or any
// hex word the text names a commit.
func commitHashes(text string) []string {
	var found []string
	for _, line := range strings.Split(text, "\n") {
		for _, m := range hexToken.FindAllStringSubmatch(line, -1) {
			if letter.MatchString(m[1]) && digit.MatchString(m[1]) {
				found = append(found, m[1])
			}
		}
		for _, m := range namedCommit.FindAllStringSubmatch(line, -1) {
			found = append(found, m[1])
		}
	}
	return found
}

// TestUserDocsCarryNoCommitHash fails when README.md or a user doc names a
// commit: user docs describe the product as it is, and the history of a
// measurement or a decision belongs in the commit log.
func TestUserDocsCarryNoCommitHash(t *testing.T) {
	for _, p := range userDocs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if h := commitHashes(string(b)); len(h) > 0 {
			t.Errorf("%s carries what looks like commit hashes %q: user docs describe the product as it is; history goes in commit messages", rel(p), h)
		}
	}
}

// TestCommitHashPattern keeps the pattern honest on both sides: the ids the
// docs show in examples are not hashes, the forms history took are.
func TestCommitHashPattern(t *testing.T) {
	for _, s := range []string{
		"`6512628085536163703211`", "6034873819306413101960:4", "BIN 520082",
		"--key-id 0a1b2c3d-...", "2026-11-20", "`sha256`", "reconcile-2026-11-20.xlsx",
		"aa5f03e1-2b7c-4b1a-9d1e-0c5e2a7f9b11", "defaced", "v0.10.6",
		"1030012 requests", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
	} {
		if h := commitHashes(s); len(h) > 0 {
			t.Errorf("%q: %q taken for a commit hash", s, h)
		}
	}
	for _, s := range []string{
		"at commit c5c2c73, the last", "(48% at 1f139aa, 53% at 758e50c)",
		"the bench at e794c60: 497", "two runs at commit 1884038", "see 04536ad.",
		"2f9d1c0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
	} {
		if h := commitHashes(s); len(h) == 0 {
			t.Errorf("%q: no commit hash found", s)
		}
	}
}

var (
	// link is a Markdown inline link or image: [text](target).
	link = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// inlineCode is a code span, where a link is only text.
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// linksOf returns the targets of the links of a Markdown file, outside
// code fences and code spans.
func linksOf(text string) []string {
	var out []string
	for _, line := range outsideFences(text) {
		spans := inlineCode.FindAllStringIndex(line, -1)
	next:
		for _, m := range link.FindAllStringSubmatchIndex(line, -1) {
			for _, s := range spans {
				if m[0] > s[0] && m[1] <= s[1] {
					continue next // a link written inside a code span is text
				}
			}
			out = append(out, line[m[2]:m[3]])
		}
	}
	return out
}

// outsideFences returns the lines of text outside ``` fences.
func outsideFences(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// TestRelativeLinksResolve fails on a relative link of README.md, docs/*.md
// or docs/dev/*.md whose file does not exist, or whose #anchor names no
// heading of the Markdown file it points at: a moved or renamed file must
// take its links with it.
func TestRelativeLinksResolve(t *testing.T) {
	dev, err := filepath.Glob(filepath.Join(root, "docs", "dev", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range append(userDocs(t), dev...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range linksOf(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := p
			if file != "" {
				dest = filepath.Join(filepath.Dir(p), filepath.FromSlash(file))
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s links to %s: %s does not exist", rel(p), target, rel(dest))
				continue
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !hasAnchor(t, dest, anchor) {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", rel(p), target, rel(dest), anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the link pattern no longer reads the docs")
	}
}

var (
	heading = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	// notInSlug is what GitHub drops from a heading to make its anchor.
	notInSlug = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
)

// hasAnchor reports whether the Markdown file has a heading whose GitHub
// anchor is anchor (lowercase, punctuation dropped, spaces as '-'; a
// repeated heading's anchors numbered -1, -2, ...).
func hasAnchor(t *testing.T, path, anchor string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, line := range outsideFences(string(b)) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := strings.ToLower(m[1])
		slug = notInSlug.ReplaceAllString(slug, "")
		slug = strings.ReplaceAll(slug, " ", "-")
		if n := seen[slug]; n > 0 {
			seen[slug] = n + 1
			slug = slug + "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		if slug == anchor {
			return true
		}
	}
	return false
}

// rel names a file from the repository's root, as the docs do.
func rel(p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}
