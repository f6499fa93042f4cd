package cardmask

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
)

// unicodeForms writes a card number as people and programs write it
// beyond ASCII: grouped by each kind of Unicode space, dash and format
// character, broken over lines, and in each script's decimal digits
// (written apart from fold, so a shared mistake does not hide a card).
func unicodeForms(pan string) map[string]string {
	group := func(sep string) string {
		return pan[0:4] + sep + pan[4:8] + sep + pan[8:12] + sep + pan[12:]
	}
	digits := func(zero rune) string {
		var b strings.Builder
		for _, c := range pan {
			b.WriteRune(zero + c - '0')
		}
		return b.String()
	}
	return map[string]string{
		"no-break spaces":                  group("\u00a0"),
		"narrow no-break spaces":           group("\u202f"),
		"thin spaces":                      group("\u2009"),
		"ideographic spaces":               group("\u3000"),
		"en dashes":                        group("\u2013"),
		"em dashes":                        group("\u2014"),
		"minus signs":                      group("\u2212"),
		"zero-width spaces":                group("\u200b"),
		"soft hyphens":                     group("\u00ad"),
		"word joiners":                     group("\u2060"),
		"line breaks":                      group("\n"),
		"CR LF":                            group("\r\n"),
		"line separators":                  group("\u2028"),
		"full-width digits":                digits('\uff10'),
		"Arabic-Indic digits":              digits('\u0660'),
		"Eastern Arabic digits":            digits('\u06f0'),
		"Devanagari digits":                digits('\u0966'),
		"Bengali digits":                   digits('\u09e6'),
		"mathematical bold digits":         digits('\U0001d7ce'),
		"mathematical sans digits":         digits('\U0001d7e2'),
		"full-width, NBSP groups":          strings.Join([]string{digits('\uff10')[0:12], digits('\uff10')[12:24], digits('\uff10')[24:36], digits('\uff10')[36:]}, "\u00a0"),
		"JSON-escaped NBSP":                group(`\u00a0`),
		"JSON-escaped line breaks":         group(`\n`),
		"zero-width and a JSON line break": strings.Replace(group("\u200b"), "\u200b", `\r\n`, 1),
		"JSON-escaped line sep":            group(`\u2028`),
		"JSON-escaped full-width":          jsonEscapedDigits(pan, '\uff10'),
	}
}

func jsonEscapedDigits(pan string, zero rune) string {
	var b strings.Builder
	for _, c := range pan {
		fmt.Fprintf(&b, `\u%04x`, zero+c-'0')
	}
	return b.String()
}

// digitZeros are the zeros of the scripts the tests write digits in.
var digitZeros = []rune{'0', '\uff10', '\u0660', '\u06f0', '\u0966', '\u09e6', '\U0001d7ce', '\U0001d7e2'}

// asciiDigits is every decimal digit of s (of digitZeros' scripts) in
// ASCII, every other character dropped: the number a person reads,
// whatever its script or grouping. Written apart from fold's digitValue.
func asciiDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		for _, z := range digitZeros {
			if r >= z && r < z+10 {
				b.WriteRune('0' + r - z)
				break
			}
		}
	}
	return b.String()
}

// TestMaskLineUnicodeDisguises: a card number grouped by any Unicode
// space, dash or format character, broken over lines, or written in any
// script's digits (raw or JSON-escaped), in free text or in a JSON
// journal line, is masked: no reading of the result holds it.
func TestMaskLineUnicodeDisguises(t *testing.T) {
	pans := []string{"4111111111111111", "5555555555554444", "6011000990139424"}
	for _, pan := range pans {
		for name, form := range unicodeForms(pan) {
			for _, line := range []string{
				"card " + form + " declined",
				`{"note":"card ` + form + ` declined","id":"1795000000000010000002"}`,
			} {
				got := string(MaskLine([]byte(line)))
				if strings.Contains(asciiDigits(got), pan) {
					t.Errorf("%s: MaskLine(%q) = %q still holds %s", name, line, got, pan)
				}
				folded, _ := fold([]byte(got))
				if runs := cardmasktest.LuhnRuns(strings.ReplaceAll(string(folded), " ", "")); len(runs) > 0 && strings.Contains(runs[0], pan[6:12]) {
					t.Errorf("%s: %q still reads as a card number", name, got)
				}
				if strings.HasPrefix(line, "{") && !json.Valid([]byte(got)) {
					t.Errorf("%s: MaskLine(%q) = %q is no longer JSON", name, line, got)
				}
				if !strings.Contains(got, pan[:6]) || !strings.Contains(got, pan[12:]) {
					t.Errorf("%s: MaskLine(%q) = %q does not keep the first six and last four", name, line, got)
				}
			}
		}
	}
}

// TestMaskLineLeavesOtherUnicodeAlone: a line beyond ASCII with no card
// number in it comes back byte for byte (names, amounts, phone numbers in
// other scripts, a 22-digit id beside them).
func TestMaskLineLeavesOtherUnicodeAlone(t *testing.T) {
	for _, line := range []string{
		"Zoë Müller paid 12,50\u00a0€ — thanks",
		"هاتف ٠١٢٣٤٥٦٧٨٩",
		"दूरभाष ९८७६५४३२१०",
		`{"id":"1795000000000010000002","name":"Ｔａｒｏ"}`,
		"price\u202f1\u202f234,56 EUR\nline two",
	} {
		if got := string(MaskLine([]byte(line))); got != line {
			t.Errorf("MaskLine(%q) = %q, want it unchanged", line, got)
		}
	}
}

// FuzzMaskUnicodePANs: a card number the fuzzer places in any text,
// rewritten with Unicode separators and digits chosen by the fuzzer, is
// masked; the result is valid UTF-8 when the input was, and JSON stays
// JSON.
func FuzzMaskUnicodePANs(f *testing.F) {
	f.Add("x %s y", uint64(0))
	f.Add(`{"a":"%s"}`, uint64(12345))
	f.Add("%s\n%s", uint64(987654321))
	seps := []string{"\u00a0", "\u202f", "\u2013", "\u200b", "\u00ad", "\n", "\u2028", " ", "-", `\u00a0`, `\u2028`}
	zeros := digitZeros
	f.Fuzz(func(t *testing.T, template string, choice uint64) {
		if !strings.Contains(template, "%s") || strings.Count(template, "%") > 4 || !utf8.ValidString(template) || glued(template) {
			return
		}
		pan := "4111111111111111"
		var b strings.Builder
		for i, c := range pan {
			if i > 0 && choice&1 == 1 {
				b.WriteString(seps[(choice>>1)%uint64(len(seps))])
			}
			b.WriteRune(zeros[(choice>>5)%uint64(len(zeros))] + c - '0')
			choice = choice*6364136223846793005 + 1442695040888963407
		}
		line := strings.ReplaceAll(template, "%s", b.String())
		got := string(MaskLine([]byte(line)))
		if strings.Contains(asciiDigits(got), pan) {
			t.Fatalf("MaskLine(%q) = %q still holds the card", line, got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("MaskLine(%q) = %q is not valid UTF-8", line, got)
		}
		if cardmasktest.IsJSONObject(line) && !json.Valid([]byte(got)) {
			t.Fatalf("MaskLine(%q) = %q is no longer JSON", line, got)
		}
	})
}

// glued reports whether a %s of template is joined to digits (or to
// another %s) by nothing or by separators alone: a card number glued after
// other digits is not recognised, by design (cardmask's package comment),
// in ASCII as beyond it.
func glued(template string) bool {
	const seps = " \t-+./_\\"
	parts := strings.Split(template, "%s")
	for i, p := range parts {
		folded, _ := fold([]byte(p))
		f := string(folded)
		between := i > 0 && i < len(parts)-1
		if between && strings.Trim(f, seps) == "" {
			return true
		}
		if i > 0 && strings.IndexAny(strings.TrimLeft(f, seps), "0123456789") == 0 {
			return true
		}
		if t := strings.TrimRight(f, seps); i < len(parts)-1 && t != "" && strings.ContainsAny(t[len(t)-1:], "0123456789") {
			return true
		}
	}
	return false
}
