package groups

import (
	"fmt"
	"strings"

	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/internal/secretfile"
)

// maxMerchantsFile bounds a --merchants @FILE: 10 MiB holds far more MIDs
// than any portfolio (5,000 groups of 10,000).
const maxMerchantsFile = 10 << 20

// ReadMerchants reads --merchants: "MID,MID", or "@FILE" with one MID per
// line. Around each MID whitespace is trimmed; in a file, blank lines and
// lines starting with # are skipped, and the text after a # on a line is a
// comment. A MID named twice is taken once. The MIDs are otherwise kept as
// written (identifiers are never altered). "" is no list; a list naming no
// MID is an error, so an empty file does not silently reconcile nothing.
func ReadMerchants(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var parts []string
	source := "--merchants"
	if path, ok := strings.CutPrefix(strings.TrimSpace(s), "@"); ok {
		source = "--merchants @" + path
		// A regular file only, and bounded: a FIFO would block the run in
		// open(2), a device would be read without end (secretfile.ReadBounded).
		b, err := secretfile.ReadBounded(path, maxMerchantsFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			parts = append(parts, line)
		}
	} else {
		parts = strings.Split(s, ",")
	}
	var mids []string
	seen := map[string]bool{}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" || seen[p] {
			continue
		}
		if strings.IndexFunc(p, func(r rune) bool { return r <= ' ' || r == 0x7f || r == ',' }) >= 0 {
			where := fmt.Sprintf("item %d", i+1)
			if source != "--merchants" {
				where = fmt.Sprintf("line %d", i+1)
			}
			return nil, fmt.Errorf("%s: %s: %q is not one merchant ID (one per line, or separated by commas)", source, where, safetext.Line(cardmask.MaskText(p)))
		}
		seen[p] = true
		mids = append(mids, p)
	}
	if len(mids) == 0 {
		return nil, fmt.Errorf("%s: no merchant ID in it", source)
	}
	return mids, nil
}
