// Package cardmasktest writes card numbers the way careless merchants log
// them, and reads text the way a consumer could, for the tests of the card
// masking and of what the journal import keeps. Its readings (NormalForms,
// Luhn) are written apart from cardmask's, so that a mistake the two share
// cannot hide a card number.
package cardmasktest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// cardNetworks are the IINs and lengths the card numbers are drawn from
// (cardmask.go's cardNetworkLengths).
var cardNetworks = []struct {
	prefixes []string
	lengths  []int
}{
	{[]string{"4"}, []int{13, 16, 19}},
	{[]string{"51", "53", "55", "2221", "2720", "2500"}, []int{16}},
	{[]string{"34", "37"}, []int{15}},
	{[]string{"6011", "644", "649", "65"}, []int{16, 17, 18, 19}},
	{[]string{"3528", "3589"}, []int{16, 19}},
	{[]string{"300", "305", "36", "38", "39"}, []int{14, 16, 19}},
	{[]string{"62"}, []int{16, 19}},
}

// PAN is a Luhn-valid card number of a real network, drawn from rng;
// network and length choose among the networks and their lengths.
func PAN(rng *rand.Rand, network, length int) string {
	nw := cardNetworks[network%len(cardNetworks)]
	b := []byte(nw.prefixes[rng.IntN(len(nw.prefixes))])
	n := nw.lengths[length%len(nw.lengths)]
	for len(b) < n-1 {
		b = append(b, byte('0'+rng.IntN(10)))
	}
	for d := byte('0'); d <= '9'; d++ {
		if Luhn(string(append(b, d))) {
			return string(append(b, d))
		}
	}
	panic("no Luhn digit")
}

// The disguises a card number is written in, and the places of a journal
// line it is written at.
const (
	plainDigits = iota
	groupedSeparators
	urlEncodedDigits
	urlEncodedSeparators
	plusSeparators
	jsonEscapedDigits
	jsonEscapedSeparators
	urlEncodedTwice
	gluedExpiry
	gluedCode
	gluedExpiryAndCode
	// Track1 writes the number as track 1 data.
	Track1
	track2
	// Disguises is the number of disguises.
	Disguises
)

const (
	inRequest = iota
	inResponse
	inPathSegment
	// InQuery writes it in the query string of the path.
	InQuery
	asJSONNumber
	asKey
	inNestedJSON
	inMerchantID
	inTruncatedLine
	// Places is the number of places.
	Places
)

// Disguise writes pan as disguise d (of Disguises), with choices drawn
// from rng; the result is JSON string text (escapes meant as escapes).
func Disguise(rng *rand.Rand, pan string, d int) string {
	const seps = " \t-+./_"
	groups := func(sep func() string) string {
		var b strings.Builder
		for i := 0; i < len(pan); {
			n := min(1+rng.IntN(6), len(pan)-i)
			if i > 0 {
				b.WriteString(sep())
			}
			b.WriteString(pan[i : i+n])
			i += n
		}
		return b.String()
	}
	sepRun := func(one func() string) func() string {
		return func() string { return strings.Repeat(one(), 1+rng.IntN(3)) }
	}
	digitsEach := func(f func(c byte) string) string {
		var b strings.Builder
		for i := range len(pan) {
			if rng.IntN(2) == 0 {
				b.WriteString(f(pan[i]))
			} else {
				b.WriteByte(pan[i])
			}
		}
		return b.String()
	}
	expiry := fmt.Sprintf("%02d%02d", 1+rng.IntN(12), 26+rng.IntN(10))
	code := strconv.Itoa(100 + rng.IntN(9900))
	switch d % Disguises {
	case groupedSeparators:
		return groups(sepRun(func() string {
			c := seps[rng.IntN(len(seps))]
			if c == '\t' {
				return `\t`
			}
			return string(c)
		}))
	case urlEncodedDigits:
		return digitsEach(func(c byte) string { return fmt.Sprintf("%%%02X", c) })
	case urlEncodedSeparators:
		return groups(sepRun(func() string { return fmt.Sprintf("%%%02X", seps[rng.IntN(len(seps))]) }))
	case plusSeparators:
		return groups(sepRun(func() string { return "+" }))
	case jsonEscapedDigits:
		return digitsEach(func(c byte) string { return fmt.Sprintf(`\u%04x`, c) })
	case jsonEscapedSeparators:
		return groups(sepRun(func() string { return []string{`\/`, `\t`, `\u0020`, `\u002d`}[rng.IntN(4)] }))
	case urlEncodedTwice:
		return digitsEach(func(c byte) string { return fmt.Sprintf("%%25%02X", c) })
	case gluedExpiry:
		return pan + expiry
	case gluedCode:
		return pan + code
	case gluedExpiryAndCode:
		return pan + expiry + code
	case Track1:
		return "%B" + pan + "^DOE/JOHN^" + expiry + "1010000000" + code + "000?"
	case track2:
		return ";" + pan + "=" + expiry + "101" + code + "0000?"
	}
	return pan
}

// JournalLine writes s (JSON string text) at place p (of Places) of a
// merchant journal line, with a note.
func JournalLine(s string, p int, note string) string {
	n, _ := json.Marshal(note)
	head := `{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"POST",`
	tail := `,"status":201,"note":` + string(n) + `}`
	switch p % Places {
	case inResponse:
		return head + `"path":"/pts/v2/payments","request":{},"response":{"id":"1795000000000010000002","card":{"suffix":"` + s + `"}}` + tail
	case inPathSegment:
		return head + `"path":"/pts/v2/payments/` + s + `/captures"` + tail
	case InQuery:
		return head + `"path":"/pts/v2/payments?card=` + s + `&x=1"` + tail
	case asJSONNumber:
		if strings.Trim(s, "0123456789") == "" {
			return head + `"path":"/p","request":{"n":` + s + `}` + tail
		}
	case asKey:
		return head + `"path":"/p","request":{"` + s + `":1}` + tail
	case inNestedJSON:
		inner := strings.ReplaceAll(s, `\`, `\\`)
		return head + `"path":"/p","request":{"body":"{\"number\":\"` + inner + `\"}"}` + tail
	case inMerchantID:
		return `{"time":"2026-11-20T10:00:00Z","merchantId":"m` + s + `","method":"POST","path":"/p"` + tail
	case inTruncatedLine:
		return head + `"path":"/p","request":{"paymentInformation":{"card":{"number":"` + s + `","expirationMonth":"1`
	}
	return head + `"path":"/pts/v2/payments","request":{"paymentInformation":{"card":{"number":"` + s + `"}}}` + tail
}

// NormalForms are the readings of s a consumer could make: as written,
// URL-decoded, JSON-unescaped, in either order and twice over, each with
// every separator taken out. (Written apart from MaskLine's decoder, so
// that a shared mistake does not hide a card number.)
func NormalForms(s string) []string {
	jsonEsc := regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|[/t\\"])`)
	urlEsc := regexp.MustCompile(`%[0-9a-fA-F]{2}`)
	unJSON := func(s string) string {
		return jsonEsc.ReplaceAllStringFunc(s, func(m string) string {
			switch m[1] {
			case 'u':
				r, _ := strconv.ParseUint(m[2:], 16, 32)
				return string(rune(r))
			case 't':
				return "\t"
			}
			return m[1:]
		})
	}
	unURL := func(s string) string {
		return urlEsc.ReplaceAllStringFunc(s, func(m string) string {
			b, _ := strconv.ParseUint(m[1:], 16, 8)
			return string([]byte{byte(b)})
		})
	}
	forms := map[string]bool{s: true}
	for range 3 {
		for f := range forms {
			forms[unJSON(f)], forms[unURL(f)] = true, true
		}
	}
	strip := strings.NewReplacer(" ", "", "\t", "", "-", "", "+", "", ".", "", "/", "", "_", "")
	var out []string
	for f := range forms {
		out = append(out, strip.Replace(f))
	}
	return out
}

// IsJSONObject reports whether s is a JSON object or array, as a journal
// line is (MaskLine keeps those valid; a bare number is no journal line).
func IsJSONObject(s string) bool {
	t := strings.TrimSpace(s)
	return json.Valid([]byte(t)) && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["))
}

// LuhnRuns returns the maximal digit runs of s of 13 to 19 digits that pass
// the Luhn check.
func LuhnRuns(s string) []string {
	var found []string
	for _, m := range digitRuns.FindAllString(s, -1) {
		if len(m) >= 13 && len(m) <= 19 && Luhn(m) {
			found = append(found, m)
		}
	}
	return found
}

var digitRuns = regexp.MustCompile(`\d+`)

// Luhn reports whether the decimal digits of number pass the Luhn check:
// from the right, every second digit doubled (its digits summed), the
// total a multiple of ten.
func Luhn(number string) bool {
	total := 0
	for i := range len(number) {
		d := int(number[len(number)-1-i] - '0')
		if i%2 == 1 {
			d = d*2/10 + d*2%10
		}
		total += d
	}
	return total%10 == 0
}

// PlatformID is an id in the platform's format created at t: its Unix
// second without the leading 1 (9 digits), then 13 digits, the first
// seven chosen so that its first 16 digits pass the Luhn check (as one id
// in ten does: those created from 2014 to 2022 then pass for card numbers),
// then tail (6 digits).
func PlatformID(t time.Time, tail string) string {
	head := fmt.Sprintf("%09d", t.Unix()-1_000_000_000) + "000001"
	for d := byte('0'); d <= '9'; d++ {
		if Luhn(head + string(d)) {
			return head + string(d) + tail
		}
	}
	panic("no Luhn digit")
}

// PlatformIDs are ids of the platform's format created in each year from
// 2019 to 2030, and in the windows where they begin as card numbers do
// (55 in early 2019, 6011 on 2020-09-26, 62 in mid-2021, 644-649 and 65 in
// 2022), with the vendor's examples (6512628085536163703211, submitted
// 2022-04-29T20:06:49Z).
func PlatformIDs() []string {
	ids := []string{"6512628085536163703211", "6034873819306413101960", "6192112872526176101960"}
	for y := 2019; y <= 2030; y++ {
		ids = append(ids, PlatformID(time.Date(y, 7, 1, 12, 0, 0, 0, time.UTC), "123456"))
	}
	for _, t := range []time.Time{
		time.Date(2019, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 9, 26, 12, 0, 0, 0, time.UTC),
		time.Date(2021, 6, 15, 8, 0, 0, 0, time.UTC), time.Date(2022, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2022, 4, 29, 20, 6, 49, 0, time.UTC),
	} {
		ids = append(ids, PlatformID(t, "703211"))
	}
	return ids
}
