package cardmask

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
	"github.com/reconcile/reconcile/internal/sandbox"
)

// TestMaskLineDisguises: a card number is masked however it is written,
// wherever it is in a line.
func TestMaskLineDisguises(t *testing.T) {
	const pan = "4111111111111111"
	cases := []struct{ name, in, want string }{
		{"alone", pan, "411111XXXXXX1111"},
		{"JSON string", `{"number":"4111111111111111","x":1}`, `{"number":"411111XXXXXX1111","x":1}`},
		{"JSON number", `{"number":4111111111111111,"x":1}`, `{"number":"411111XXXXXX1111","x":1}`},
		{"negative JSON number with a fraction", `[-4111111111111111.5]`, `["411111XXXXXX1111"]`},
		{"JSON key", `{"4111111111111111":1}`, `{"411111XXXXXX1111":1}`},
		{"spaces", "card 4111 1111 1111 1111 used", "card 411111XXXXXX1111 used"},
		{"two spaces", "4111  1111  1111  1111", "411111XXXXXX1111"},
		{"dashes", "4111-1111-1111-1111", "411111XXXXXX1111"},
		{"dots", "4111.1111.1111.1111", "411111XXXXXX1111"},
		{"slashes", "4111/1111/1111/1111", "411111XXXXXX1111"},
		{"underscores", "4111_1111_1111_1111", "411111XXXXXX1111"},
		{"plus signs", "4111+1111+1111+1111", "411111XXXXXX1111"},
		{"tabs", "4111\t1111\t1111\t1111", "411111XXXXXX1111"},
		{"three separators", "4111 - 1111 - 1111 - 1111", "411111XXXXXX1111"},
		{"odd groups", "41 1111 11111 11111", "411111XXXXXX1111"},
		{"15-digit Amex", "3782 822463 10005", "378282XXXXX0005"},
		{"after a short number", "ref 12 4111 1111 1111 1111", "ref 12 411111XXXXXX1111"},
		{"two cards", "a 5555555555554444 b 4012888888881881", "a 555555XXXXXX4444 b 401288XXXXXX1881"},
		{"path segment", `{"path":"/pts/v2/payments/4111111111111111/captures"}`, `{"path":"/pts/v2/payments/411111XXXXXX1111/captures"}`},
		{"URL-encoded spaces", `{"path":"/p?card=4111%201111%201111%201111&x=1"}`, `{"path":"/p?card=411111XXXXXX1111&x=1"}`},
		{"URL-encoded digits", `{"q":"%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31"}`, `{"q":"411111XXXXXX1111"}`},
		{"URL-encoded twice", `{"q":"%2534%2531%2531%25311111%25311111111"}`, `{"q":"411111XXXXXX1111"}`},
		{"plus in a query", `{"path":"/p?card=4111+1111+1111+1111"}`, `{"path":"/p?card=411111XXXXXX1111"}`},
		{"JSON digit escapes", `{"n":"\u0034\u0031\u0031\u0031 1111 1111 1111"}`, `{"n":"411111XXXXXX1111"}`},
		{"JSON escaped slashes", `{"n":"4111\/1111\/1111\/1111"}`, `{"n":"411111XXXXXX1111"}`},
		{"JSON escaped tabs", `{"n":"4111\t1111\t1111\t1111"}`, `{"n":"411111XXXXXX1111"}`},
		{"URL-encoded in JSON escapes", `{"n":"\u00254111111111111111"}`, `{"n":"\u0025411111XXXXXX1111"}`},
		{"JSON inside a JSON string", `{"request":"{\"n\":\"\\u0034111111111111111\"}"}`, `{"request":"{\"n\":\"411111XXXXXX1111\"}"}`},
		{"glued to an expiry", "41111111111111111229", "411111XXXXXX11111229"},
		{"glued to a security code", "4111111111111111737", "411111XXXXXX1111737"},
		{"glued to expiry and code", "{\"d\":\"41111111111111111229737\"}", "{\"d\":\"411111XXXXXX11111229737\"}"},
		{"grouped and glued", "4111 1111 1111 11111229", "411111XXXXXX11111229"},
		{"track 1", "%B4111111111111111^DOE/JOHN^2512101000000000000000000?", "%B411111XXXXXX1111^REMOVED"},
		{"track 1 in JSON", `{"t":"%B4111111111111111^DOE\/JOHN^25121010000000?"}`, `{"t":"%B411111XXXXXX1111^REMOVED"}`},
		{"track 2", ";4111111111111111=25121010000000000000?", ";411111XXXXXX1111=REMOVED"},
		{"track 2 EMV", "57:4111111111111111D25121010000000000000F", "57:411111XXXXXX1111DREMOVED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(MaskLine([]byte(c.in))); got != c.want {
				t.Errorf("MaskLine(%s)\n got %s\nwant %s", c.in, got, c.want)
			}
			if cardmasktest.IsJSONObject(c.in) && !json.Valid(MaskLine([]byte(c.in))) {
				t.Errorf("MaskLine(%s) is no longer JSON", c.in)
			}
		})
	}
}

// TestMaskLineCardAfterJoinedNumbers: a card number that separators join
// on to other digits (an id, a folder, a reference) is masked whatever
// those digits are. A number read from the first of them can pass for a
// card number that ends inside this one (a Diners Club number of 17
// digits ending "…003 4111", about one prefix in sixteen): its kept last
// four and the rest of the group must not spell the card number out.
func TestMaskLineCardAfterJoinedNumbers(t *testing.T) {
	const pan = "4111119070000001"
	r := rand.New(rand.NewPCG(1, 2))
	forms := []string{"ref %d/003 %s", "/tmp/Test%d/003/%s/rates.csv", "%d-%d %s", `{"note":"%d %d.%s"}`}
	for _, form := range forms {
		leaks := 0
		for range 5000 {
			var in string
			if strings.Count(form, "%d") == 2 {
				in = fmt.Sprintf(form, r.Uint32(), r.IntN(1000), pan)
			} else {
				in = fmt.Sprintf(form, r.Uint32(), pan)
			}
			got := string(MaskLine([]byte(in)))
			if strings.Contains(got, pan) || len(cardmasktest.LuhnRuns(got)) > 0 {
				if leaks++; leaks <= 3 {
					t.Errorf("MaskLine(%q) = %q: the card number survives", in, got)
				}
			}
		}
		if leaks > 3 {
			t.Errorf("form %q: %d more of 5000 leak", form, leaks-3)
		}
	}
	// Track data after such a card number is removed as after any other:
	// its expiry, service code and discretionary data, or the
	// cardholder's name, are card data too.
	for _, track := range []string{"=25121011234567890?", "D25121011234567890", "^DOE/JOHN^25121011234567?"} {
		leaks := 0
		for range 1000 {
			in := fmt.Sprintf("ref %d/003 %s%s end", r.Uint32(), pan, track)
			got := string(MaskLine([]byte(in)))
			if strings.Contains(got, "2512101") || strings.Contains(got, "DOE/JOHN") || !strings.HasSuffix(got, " end") {
				if leaks++; leaks <= 3 {
					t.Errorf("MaskLine(%q) = %q: the track data survives", in, got)
				}
			}
		}
		if leaks > 3 {
			t.Errorf("track %q: %d more of 1000 leak", track, leaks-3)
		}
	}
}

// TestMaskLineNearMisses: numbers that are no card numbers stay as they
// are: dates, times, amounts, addresses, phone numbers, identifiers.
func TestMaskLineNearMisses(t *testing.T) {
	for _, s := range []string{
		"4111111111111112",                             // fails the Luhn check
		"411111XXXXXX1111",                             // masked already
		"411111111111",                                 // 12 digits
		"2026-11-20", "2026-11-20T10:00:00.123456789Z", // dates and times
		"20/11/2026 10.30.00", "2026-11-20 - 2026-11-21",
		"12.34", "1234567.89", "1,234,567.89", "12.34 56.78 9.10",
		"192.168.100.200", "10.0.0.1 10.0.0.2", "2001:db8::8a2e:370:7334",
		"+1 415-555-0100", "+44 20 7946 0958", "(415) 555-0100",
		"1795000000000010000001", "1795000000000010000001/1795000000000010000002", // the sandbox's ids
		"6192112872526176101960", "6034873819306413101960", // the spec's
		"12345678901234567890", // a network transaction id
		"3f2504e0-4f89-11d3-9a0c-0305e82c3301",
		`{"securityCodeIndicator":"1","trackingNumber":"1Z999AA10123456784"}`,
		`{"shipping":{"track":"UPS 1Z999AA1"}}`,
		`{"cvv":"","cid":null,"cvc":true,"x":"cvv:","y":1}`,
	} {
		if got := string(MaskLine([]byte(s))); got != s {
			t.Errorf("MaskLine(%s) = %s, want it unchanged", s, got)
		}
	}
}

// TestMaskLineDoesNotAllocate: a line with nothing to mask (digit runs,
// ids, colons and equals signs but no card data) is returned as it is,
// without a copy.
func TestMaskLineDoesNotAllocate(t *testing.T) {
	// A merchant-initiated sale by token, as the journal tests' fixture has it.
	line := []byte(`{"time":"2026-11-20T11:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments", ` +
		`"request":{"processingInformation":{"capture":true,"commerceIndicator":"recurring","authorizationOptions":{"initiator":{"type":"merchant", ` +
		`"storedCredentialUsed":true,"merchantInitiatedTransaction":{"reason":"7"}}}},"paymentInformation":{"customer":{"id":"C1"}}, ` +
		`"orderInformation":{"amountDetails":{"totalAmount":"9.99","currency":"USD"}}}, ` +
		`"status":201,"response":{"id":"1795000000000010000003","status":"AUTHORIZED","processorInformation":{"networkTransactionId":"12345678901234567890"}}}` +
		` {"path":"/p?a=1&b=2","n":"\"x\""}`)
	if allocs := testing.AllocsPerRun(100, func() { MaskLine(line) }); allocs != 0 {
		t.Errorf("MaskLine allocates %.0f times for a line with nothing to mask", allocs)
	}
	if got := MaskLine(line); &got[0] != &line[0] {
		t.Error("MaskLine copies a line with nothing to mask")
	}
}

// TestMaskLineSecrets: security codes and track data are removed by field
// name, at any depth and in any spelling; the line stays JSON.
func TestMaskLineSecrets(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"card":{"securityCode":"123"}}`, `{"card":{"securityCode":"REMOVED"}}`},
		{`{"CVV":"123","cvv2":123,"CVC2":"1234","cid":"1234"}`, `{"CVV":"REMOVED","cvv2":"REMOVED","CVC2":"REMOVED","cid":"REMOVED"}`},
		{`{"cardVerificationValue":"123","card_verification_code":"123","security-code":"123"}`,
			`{"cardVerificationValue":"REMOVED","card_verification_code":"REMOVED","security-code":"REMOVED"}`},
		{`{"cardSecurityCode":"123","cardCvv":-1.5e3}`, `{"cardSecurityCode":"REMOVED","cardCvv":"REMOVED"}`},
		{`{"a":[{"b":{"cvc":"999"}}],"securityCodeIndicator":"1"}`, `{"a":[{"b":{"cvc":"REMOVED"}}],"securityCodeIndicator":"1"}`},
		{`{"pointOfSaleInformation":{"trackData":"x","track1":{"raw":"y"},"track2":["z"]}}`,
			`{"pointOfSaleInformation":{"trackData":"REMOVED","track1":"REMOVED","track2":"REMOVED"}}`},
		{`{"paymentInformation":{"card":{"track":"secret"},"track":"secret"},"track":"kept"}`,
			`{"paymentInformation":{"card":{"track":"REMOVED"},"track":"REMOVED"},"track":"kept"}`},
		{`{"path":"/pts/v2/payments?cvv=123&x=1"}`, `{"path":"/pts/v2/payments?cvv=REMOVED&x=1"}`},
		{`{"request":"{\"securityCode\":\"123\",\"n\":1}"}`, `{"request":"{\"securityCode\":\"REMOVED\",\"n\":1}"}`},
		{`{"body":"cvv%3D123%26x%3D1"}`, `{"body":"cvv%3DREMOVED%26x%3D1"}`},
		{`{"\u0063vv":"123"}`, `{"\u0063vv":"REMOVED"}`},
		{`{"note":"CVV: 123 given"}`, `{"note":"CVV: REMOVED given"}`},
		{`cvv=123&x=1`, `cvv=REMOVED&x=1`},
		{`{"merchantId":"m","card":{"securityCode":"12`, `{"merchantId":"m","card":{"securityCode":"REMOVED`}, // a truncated line
	}
	for _, c := range cases {
		got := MaskLine([]byte(c.in))
		if string(got) != c.want {
			t.Errorf("MaskLine(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
		if cardmasktest.IsJSONObject(c.in) && !json.Valid(got) {
			t.Errorf("MaskLine(%s) = %s is no longer JSON", c.in, got)
		}
	}
}

// TestMaskLineFalsePositives measures how many identifiers that are no
// card numbers lose digits (cardmask.go's comment quotes the rates): none of
// the sandbox's resource ids, and within bounds for random ids.
func TestMaskLineFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	masked := func(id string) bool {
		line := []byte(`{"id":"` + id + `"}`)
		return !bytes.Equal(MaskLine(line), line)
	}
	randomID := func(prefix string, n int) string {
		b := []byte(prefix)
		for len(b) < n {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		return string(b)
	}
	const samples = 20_000
	cases := []struct {
		name     string
		id       func() string
		min, max float64 // share masked
	}{
		{"22 digits from 17", func() string { return randomID("17", 22) }, 0, 0},
		{"22 digits from 61", func() string { return randomID("61", 22) }, 0, 0},
		{"22 digits from 619", func() string { return randomID("619", 22) }, 0, 0},
		{"22 digits from 641", func() string { return randomID("641", 22) }, 0, 0},
		{"22 digits from 603", func() string { return randomID("603", 22) }, 0, 0},
		{"22 digits from 7", func() string { return randomID("7", 22) }, 0, 0},
		{"22 digits from 644-649", func() string { return randomID(strconv.Itoa(644+rng.IntN(6)), 22) }, 0.30, 0.38},
		{"22 digits from 2221-2720", func() string { return randomID(strconv.Itoa(2221+rng.IntN(500)), 22) }, 0.08, 0.12},
		{"20 random digits", func() string { return randomID(strconv.Itoa(1+rng.IntN(9)), 20) }, 0.05, 0.09},
		{"16 random digits", func() string { return randomID(strconv.Itoa(1+rng.IntN(9)), 16) }, 0.10, 0.135},
	}
	for _, c := range cases {
		n := 0
		for range samples {
			if masked(c.id()) {
				n++
			}
		}
		share := float64(n) / samples
		t.Logf("%-22s %5.2f%% masked", c.name, 100*share)
		if share < c.min || share > c.max {
			t.Errorf("%s: %.2f%% masked, want %.0f%%-%.0f%%", c.name, 100*share, 100*c.min, 100*c.max)
		}
	}

	// The sandbox's own identifiers: every run of 20 digits or more in its
	// journals (resource ids and network transaction ids).
	dir := t.TempDir()
	scale, _ := sandbox.ParseScale("members=3,subscriptions=10,groups=1")
	srv, err := sandbox.New(sandbox.Config{Seed: 7, Scale: scale, BusinessDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.WriteJournals(dir); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	ids := map[int]map[string]bool{20: {}, 22: {}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\d{20,}`).FindAll(b, -1) {
			if ids[len(m)] == nil {
				t.Fatalf("a sandbox id of %d digits: %s", len(m), m)
			}
			ids[len(m)][string(m)] = true
		}
	}
	// The resource ids are in the platform's format, and those created
	// from 2019 to 2022 pass for card numbers by pattern (masked above);
	// the masking of a journal line by field keeps every one.
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			got := MaskJournalLine(line)
			for _, m := range regexp.MustCompile(`\d{22,}`).FindAll(line, -1) {
				if !bytes.Contains(got, m) {
					t.Errorf("MaskJournalLine altered the sandbox's id %s: %s", m, got)
				}
			}
		}
	}
	for n, set := range ids {
		hit := 0
		for id := range set {
			if masked(id) {
				hit++
			}
		}
		t.Logf("sandbox ids of %d digits: %d of %d masked", n, hit, len(set))
		if n == 22 && len(set) < 100 {
			t.Errorf("only %d resource ids in the sandbox's journals", len(set))
		}
		if n == 20 && float64(hit) > 0.12*float64(len(set)) {
			t.Errorf("%d of the sandbox's %d network transaction ids masked", hit, len(set))
		}
	}
}

// FuzzMaskPANs feeds MaskLine arbitrary text: a Luhn-valid run of 13-19
// digits never survives as written (unless the input held it inside a
// longer run, which is left alone), and JSON stays JSON.
func FuzzMaskPANs(f *testing.F) {
	for _, s := range []string{"4111111111111111", "x 4111 1111 1111 1111 y", "6000000000000000000001", "", "1-2 3",
		"ref 3909842531/003 4111119070000001",
		`{"a":4111111111111111}`, `{"cvv":"1"}`, `%B4111111111111111^A B^2512?`} {
		f.Add(s)
	}
	f.Add(`{"id":"6512628085536163703211","path":"/pts/v2/payments/6512628085536163703211/captures","n":"4111111111111111"}`)
	f.Add(`{"_links":{"self":{"href":"/tss/v2/transactions/6512628085536163703211"}},"card":{"number":"4111111111111112"}}`)
	// MaskRecord and MaskJournalLine keep ids of 22 digits (longer runs).
	maskers := []struct {
		name string
		mask func([]byte) []byte
	}{{"MaskLine", MaskLine}, {"MaskRecord", MaskRecord}, {"MaskJournalLine", MaskJournalLine}}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range maskers {
			got := string(m.mask([]byte(s)))
			for _, r := range cardmasktest.LuhnRuns(got) {
				longer := false
				for _, d := range regexp.MustCompile(`\d+`).FindAllString(s, -1) {
					longer = longer || len(d) > 19 && strings.Contains(d, r)
				}
				if !longer {
					t.Fatalf("%s(%q) = %q still holds card-like run %q", m.name, s, got, r)
				}
			}
			if cardmasktest.IsJSONObject(s) && !json.Valid([]byte(got)) {
				t.Fatalf("%s(%q) = %q is no longer JSON", m.name, s, got)
			}
		}
	})
}

// BenchmarkMaskLine masks the lines of a sandbox's journals (which carry
// a few card numbers, as a careless merchant's log would); MB/s is the
// rate of journal text.
func BenchmarkMaskLine(b *testing.B) { benchmarkJournal(b, MaskLine) }

// BenchmarkMaskJournalLine is BenchmarkMaskLine for the masking by field
// the journal import uses.
func BenchmarkMaskJournalLine(b *testing.B) { benchmarkJournal(b, MaskJournalLine) }

func benchmarkJournal(b *testing.B, mask func([]byte) []byte) {
	scale, _ := sandbox.ParseScale("members=4,subscriptions=20,groups=1")
	srv, err := sandbox.New(sandbox.Config{Seed: 7, Scale: scale})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := srv.WriteJournals(dir); err != nil {
		b.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for l := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
			lines, size = append(lines, l), size+len(l)
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			mask(l)
		}
	}
}

// TestHasDigit checks the eight-bytes-at-a-time digit test against the
// byte-wise one: every byte value in every lane, among neighbours that are
// digits' nearest non-digits ('/', ':') or bytes with the top bit set.
func TestHasDigit(t *testing.T) {
	for _, fill := range []byte{'/', ':', 0xb0, 0xff, 0x00, 'a'} {
		for lane := range 8 {
			for b := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[lane] = byte(b)
				want := isDigit(byte(b)) || isDigit(fill)
				if got := hasDigit(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Fatalf("hasDigit(% x) = %v, want %v", w, got, want)
				}
			}
		}
	}
	line := []byte("ab:cd/ef 7 ghijklmnopqrstuv:/9")
	for i := range line {
		want := i
		for want < len(line) && !isDigit(line[want]) {
			want++
		}
		if got := nextDigit(line, i); got != want {
			t.Errorf("nextDigit(%q, %d) = %d, want %d", line, i, got, want)
		}
	}
}

// TestMaskLineIdempotent: what MaskLine returns has nothing more to mask.
// Masking a card number glued to more digits can leave a card number of
// what was none (the masked number's X start a new digit group), and
// removing track data can bring text next to a masked card number; a line
// masked twice, as an older database's rows are, must read the same as
// once.
func TestMaskLineIdempotent(t *testing.T) {
	const glued = "403911 378282246310005259630.619143 end"
	if got := string(MaskLine([]byte(glued))); got != "403911 378282XXXXX000525XXXXXX9143 end" {
		t.Errorf("MaskLine(%q) = %q; want the card number its mask leaves masked too", glued, got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	pans := []string{"4111111111111111", "5555555555554444", "378282246310005", "4111119070000001"}
	seps := []string{" ", "-", "/", "", "%20", "=", "D", "^X^", ".", ",", `\u0020`}
	fails := 0
	for range 50_000 {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			switch r.IntN(4) {
			case 0:
				b.WriteString(pans[r.IntN(len(pans))])
			case 1:
				fmt.Fprint(&b, r.Uint32()%uint32(1+r.IntN(1_000_000)))
			case 2:
				b.WriteString("XXX")
			}
			b.WriteString(seps[r.IntN(len(seps))])
		}
		once := MaskLine([]byte(b.String()))
		if twice := MaskLine(slices.Clone(once)); !bytes.Equal(once, twice) {
			if fails++; fails <= 3 {
				t.Errorf("MaskLine(%q) = %q, and masked again %q", b.String(), once, twice)
			}
		}
	}
	if fails > 3 {
		t.Errorf("%d more lines of 50,000 read differently masked twice", fails-3)
	}
}
