package cardmask

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reconcile/reconcile/internal/cardmask/cardmasktest"
)

// TestMaskRecordKeepsPlatformIDs: ids of every year from 2019 to 2030 come
// out of the masking of an answer and of a journal line as written, in
// every identifier field and link, while MaskLine (the pattern) alters
// those that begin as card numbers.
func TestMaskRecordKeepsPlatformIDs(t *testing.T) {
	altered := 0
	for _, id := range cardmasktest.PlatformIDs() {
		if MaskText(id) != id {
			altered++
		}
		// A transaction summary and a recurring-billing payment, with a
		// card number in free text beside the ids.
		rec := `{"id":"` + id + `","submitTimeUtc":"2022-04-29T20:06:49Z","reconciliationId":"` + id + `",` +
			`"clientReferenceInformation":{"code":"order 4111 1111 1111 1111"},"transactionID":"` + id + `",` +
			`"transactionId":"` + id + `","requestId":"` + id + `","subscriptionId":"` + id + `","planId":"` + id + `",` +
			`"_links":{"self":{"href":"/tss/v2/transactions/` + id + `","method":"GET"},` +
			`"related":[{"href":"https://api.cybersource.com/rbs/v1/subscriptions/` + id + `/payments?offset=0&limit=10"}]}}`
		got := string(MaskRecord([]byte(rec)))
		if want := strings.ReplaceAll(rec, "4111 1111 1111 1111", "411111XXXXXX1111"); got != want {
			t.Errorf("MaskRecord(%s)\n = %s\nwant %s", rec, got, want)
		}
		line := `{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments/` + id + `/captures",` +
			`"request":{"paymentInformation":{"card":{"number":"4111111111111111"}}},"status":201,` +
			`"response":{"id":"` + id + `","reconciliationId":"` + id + `","_links":{"self":{"href":"/pts/v2/captures/` + id + `"}}}}`
		got = string(MaskJournalLine([]byte(line)))
		if want := strings.ReplaceAll(line, "4111111111111111", "411111XXXXXX1111"); got != want {
			t.Errorf("MaskJournalLine(%s)\n = %s\nwant %s", line, got, want)
		}
		// A capture: the path names the payment, the response the capture.
		capture := `{"time":"2026-11-20T10:00:00Z","merchantId":"m1","method":"POST","path":"/pts/v2/payments/` + id + `/captures",` +
			`"request":{},"status":201,"response":{"id":"6941234567000010000002","status":"PENDING"}}`
		if got := string(MaskJournalLine([]byte(capture))); got != capture {
			t.Errorf("MaskJournalLine(%s)\n = %s", capture, got)
		}
		if got := MaskPath("/pts/v2/payments/"+id+"/captures", 201, `{}`, `{"id":"6941234567000010000002"}`); got != "/pts/v2/payments/"+id+"/captures" {
			t.Errorf("MaskPath altered %s: %s", id, got)
		}
		if got := MaskPath("/tss/v2/transactions/"+id, 200, `{}`, `{"id":"`+id+`"}`); got != "/tss/v2/transactions/"+id {
			t.Errorf("MaskPath altered %s: %s", id, got)
		}
		if got, want := MaskPath("/tss/v2/transactions/"+id, 404, `{}`, `{"id":"6941234567000010000002"}`), MaskText("/tss/v2/transactions/"+id); got != want {
			t.Errorf("MaskPath kept %s that no id field names: %s", id, got)
		}
	}
	if altered < 6 {
		t.Fatalf("only %d of the ids begin as card numbers do and pass the Luhn check: the test proves nothing", altered)
	}
}

// TestMaskRecordMasksCardNumbersInIDFields: a card number in an identifier
// field or a link is masked when the value is not an id's shape, and card
// data elsewhere is masked as MaskLine masks it.
func TestMaskRecordMasksCardNumbersInIDFields(t *testing.T) {
	const pan = "4111111111111111"
	for _, v := range []string{
		pan, pan + "123", "4111 1111 1111 1111", `\u0034111111111111111`, pan + "12345", pan + "1234567",
		"6512628085536163703", // 19 digits of an id's start: a card number's length
		`651262808553616370321\u0031`, "x" + pan, "%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31",
	} {
		for _, doc := range []string{
			`{"id":"` + v + `"}`, `{"transactionID":"` + v + `","x":1}`, `{"a":[{"reconciliationId":"` + v + `"}]}`,
			`{"_links":{"self":{"href":"/tss/v2/transactions/` + v + `"}}}`,
		} {
			got := string(MaskRecord([]byte(doc)))
			if got != string(MaskLine([]byte(doc))) || got == doc {
				t.Errorf("MaskRecord(%s) = %s, want %s", doc, got, MaskLine([]byte(doc)))
			}
		}
	}
	// An id's digits joined to others in a link are read with them, and a
	// journal's path keeps only the ids the line names elsewhere.
	for _, path := range []string{
		"/pts/v2/payments/6512628085536163703211/captures", "/pts/v2/payments?card=6512628085536163703211",

		"/p/4111111111/116512628085536163703211", "/p/41111111111111/6512628085536163703211",
		"/p/6512628085536163703211/1111", "/p/4111%2F6512628085536163703211", "/p/4-6512628085536163703211",
	} {
		line := `{"merchantId":"m","path":"` + path + `","status":200}`
		if got, want := string(MaskJournalLine([]byte(line))), string(MaskLine([]byte(line))); got != want {
			t.Errorf("MaskJournalLine(%s) = %s, want %s", line, got, want)
		}
	}
	// Nor is a path's id kept on a refusal, or when the response names no
	// id of the platform's shape (only the request does).
	const path = `"path":"/pts/v2/payments/6512628085536163703211/captures"`
	for _, line := range []string{
		`{"merchantId":"m",` + path + `,"status":400,"response":{"id":"6941234567000010000002"}}`,
		`{"merchantId":"m",` + path + `,"status":201,"response":{"id":"69412345670000100000023"}}`,
		`{"merchantId":"m",` + path + `,"status":201,"request":{"id":"6941234567000010000002"}}`,
	} {
		got, want := string(MaskJournalLine([]byte(line))), string(MaskLine([]byte(line)))
		if got != want || strings.Contains(got, "6512628085536163703211") {
			t.Errorf("MaskJournalLine(%s) = %s, want %s", line, got, want)
		}
	}
	// A card-number field is masked whatever its check digit.
	for _, c := range []struct{ in, want string }{
		{`{"paymentInformation":{"card":{"number":"4111111111111112","expirationYear":"2031"}}}`,
			`{"paymentInformation":{"card":{"number":"411111XXXXXX1112","expirationYear":"2031"}}}`},
		{`{"tokenizedCard":{"number":"4111 1111 1111 1112"}}`, `{"tokenizedCard":{"number":"4111 11XX XXXX 1112"}}`},
		{`{"invoice":{"number":"4111111111111112"}}`, `{"invoice":{"number":"4111111111111112"}}`},
		{`{"card":{"number":"411111XXXXXX1111"}}`, `{"card":{"number":"411111XXXXXX1111"}}`},
	} {
		if got := string(MaskRecord([]byte(c.in))); got != c.want {
			t.Errorf("MaskRecord(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// Not JSON: by pattern.
	for _, s := range []string{`{"id":"6512628085536163703211"`, "6512628085536163703211", `{"id":"6512628085536163703211","x":` + "\x01" + `}`} {
		if got, want := string(MaskRecord([]byte(s))), string(MaskLine([]byte(s))); got != want {
			t.Errorf("MaskRecord(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestMaskRecordDisguises: every disguise of the journal tests, at every
// place, leaves no card number through MaskJournalLine, and what it
// returns has nothing more to mask.
func TestMaskRecordDisguises(t *testing.T) {
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 5))
		for d := range cardmasktest.Disguises {
			for p := range cardmasktest.Places {
				pan := cardmasktest.PAN(rng, seed, seed/7)
				line := cardmasktest.JournalLine(cardmasktest.Disguise(rng, pan, d), p, "note")
				got := MaskJournalLine([]byte(line))
				for _, s := range []string{string(got), string(MaskRecord([]byte(line)))} {
					for _, form := range cardmasktest.NormalForms(s) {
						if strings.Contains(form, pan) {
							t.Fatalf("%s\n masked %s\n still holds %s", line, s, pan)
						}
					}
				}
				if again := MaskJournalLine(got); string(again) != string(got) {
					t.Fatalf("MaskJournalLine is not idempotent: %s then %s", got, again)
				}
				if cardmasktest.IsJSONObject(line) && !json.Valid(got) {
					t.Fatalf("MaskJournalLine(%s) = %s is no longer JSON", line, got)
				}
			}
		}
	}
}
