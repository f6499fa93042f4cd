package cli

import (
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/safetext"
	"github.com/reconcile/reconcile/internal/store"
)

// Text from outside (a platform's error message, a member ID, a cell of
// `reconcile sql`'s table) is printed to a terminal only through
// terminalLine or terminalText, which escape every control character
// (package safetext says why).

// terminalLine is s for one line of a terminal: every control character,
// line breaks included, is escaped; a tab becomes a space.
func terminalLine(s string) string { return safetext.Line(s) }

// terminalText is s for a terminal where s may span lines (an error
// message): line feeds are kept, every other control character escaped.
func terminalText(s string) string { return safetext.Text(s) }

// pathText is a file's path for a terminal: card numbers masked (a
// folder named after a card, or digits that pass for one, as the paths the
// run stores are: ingest.JournalImport.File), then as terminalLine.
func pathText(p string) string { return terminalLine(cardmask.MaskText(p)) }

// errorText is an error for a terminal: card data masked (it may quote a
// platform's answer or a journal line), then as terminalText.
func errorText(err error) string {
	return terminalText(cardmask.MaskText(store.WithoutStackTrace(err.Error())))
}
