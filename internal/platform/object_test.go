package platform

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// decodePaymentReflective is how payments were decoded before eachMember:
// the reflective decoder every other record still takes.
func decodePaymentReflective(raw json.RawMessage) (Payment, error) {
	w, err := decodeRecord[paymentWire]("subscription payment", raw)
	if err != nil {
		return Payment{}, err
	}
	return w.payment(raw), nil
}

// decodePaymentStd decodes a payment with encoding/json: the reference
// decodePayment is held to.
func decodePaymentStd(raw json.RawMessage) (Payment, error) {
	var w paymentWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Payment{}, err
	}
	return w.payment(raw), nil
}

// paymentSeeds are records a platform sends, and records an attacker or a
// broken proxy would: odd spellings, escapes, nesting, broken grammar.
var paymentSeeds = []string{
	string(benchPayment),
	`{}`, `null`, ` {"id":"a"} `, `{"id":"a","id":null}`, `{"id":"a","ID":"b"}`,
	`{"\u0069d":"a"}`, `{"transactionid":"x"}`, `{"TRANSACTIONID":"x"}`, `{"transactionId":"y","transactionID":"x"}`,
	`{"transactionID":"x","transactionId":"y"}`, `{"transactionId":"y","transactionid":"x"}`, `{"billingcycle":3}`, `{"ID":"a"}`, `{"ſtatus":"a"}`, `{"TransactionId":"y"}`, `{"id":"a","Id":"b"}`, `{"Id":"b","id":"a"}`,
	`{"id":"a\tb"}`, `{"id":"\u00e9\ud800"}`, "{\"id\":\"\xff\"}", "{\"id\":\"\\u00e9\xff\"}", `{"id":1e5}`, `{"id":-0.5E+3}`,
	`{"id":{"a":1}}`, `{"id":[1]}`, `{"id":true}`, `{"modifiable":"Y"}`, `{"modifiable":"maybe"}`, `{"modifiable":{}}`,
	`{"billingCycle":"4111 1111 1111 1111"}`, `{"x":[1,{"y":[true,false,null,"s\"q"]}],"id":"c"}`,
	`{"id":tru}`, `{"id":"c"} x`, `{"id":"c",}`, `{"id":"c"}}`, `[]`, `{"id":"a" "b":1}`, "{\"x\":\"\x01\",\"id\":\"c\"}",
	`{"x":[1 2],"id":"c"}`, `{"x":{"a" 1},"id":"c"}`, `{"x":"\u12","id":"c"}`, `{"x":"\q","id":"c"}`, `{"x":1e,"id":"c"}`,
	`{"x":-01,"id":"c"}`, `{"id":01}`, `{"id":1.}`, `{"id":-}`, `{"x":+1,"id":"c"}`, `{"id":"c"`, `{"id":"c`, `{"id":`, `{`,
	``, ` `, `{"id":"c",}`, `{,}`, `{"a":1,,"b":2}`, strings.Repeat("[", 20) + strings.Repeat("]", 20),
	// Nesting at encoding/json's limit (maxDepth containers, the record's
	// own object counted) and one past it.
	`{"x":` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `}`,
	`{"x":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
	`{"x":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
	// A key given again: plain after escaped, escaped after plain, and
	// more times than the record has fields.
	`{"id":"a","id":"\u0062"}`, `{"id":"\u0061","id":"b"}`, `{"id":"a","id":"\u0062","id":"c","status":"s"}`,
	`{` + strings.Repeat(`"id":"a","status":"\u0073",`, 20) + `"id":"z","currency":5}`,
	`{` + strings.Repeat(`"id":"a",`, 40) + `"id":"\u007a"}`,
}

// FuzzDecodePayment holds decodePayment to encoding/json on every record
// that is JSON, and to an error on every record that is not.
func FuzzDecodePayment(f *testing.F) {
	for _, s := range paymentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodePayment(raw)
		agreesWithStd(t, raw, got, err, func() (Payment, error) { return decodePaymentStd(raw) })
	})
}

// TestDecodePaymentRejectsWhatIsNotJSON: a record the reflective decoder
// let through although it is not JSON (a value skipped over without being
// read) is refused, and the record of a valid payment decodes in full.
func TestDecodePaymentRejectsWhatIsNotJSON(t *testing.T) {
	for _, raw := range []string{`{"x":[1 2],"id":"c"}`, `{"x":"\q","id":"c"}`, `{"id":01}`, `{"id":-}`, "{\"id\":\"a\tb\"}"} {
		if _, err := decodePaymentReflective(json.RawMessage(raw)); err != nil {
			t.Fatalf("the reflective decoder refuses %q (%v): pick a record it lets through", raw, err)
		}
		if p, err := decodePayment(json.RawMessage(raw)); !errors.Is(err, ErrInvalidData) {
			t.Errorf("%q: got %+v, %v; want ErrInvalidData", raw, p, err)
		}
	}
	p, err := decodePayment(benchPayment)
	if err != nil {
		t.Fatal(err)
	}
	modifiable := false
	want := Payment{ID: "1795166009000010000012", Status: "PAID", PaymentType: "STANDARD", TransactionID: "1795166009000010000013",
		Date: "2026-11-20T10:15:00Z", Currency: "USD", BillingStartDate: "2026-11-20T10:15:00Z", BillingEndDate: "2026-12-20T10:15:00Z",
		BillingCycle: "7", PaymentNumber: "7", BillingAmount: "369.61", SetupFee: "23.65", Modifiable: &modifiable, Raw: benchPayment}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got  %+v\nwant %+v", p, want)
	}
}

// BenchmarkDecodePaymentReflective is BenchmarkDecodePayment's record
// decoded the way it was before eachMember, for comparison.
func BenchmarkDecodePaymentReflective(b *testing.B) {
	b.SetBytes(int64(len(benchPayment)))
	for b.Loop() {
		if _, err := decodePaymentReflective(benchPayment); err != nil {
			b.Fatal(err)
		}
	}
}

// pageSeeds are payment-list pages, well formed and not.
var pageSeeds = []string{
	`{"_links":{"self":{"href":"/x"},"next":{"href":"/y","method":"GET"}},"totalCount":2,"submitTimeUtc":"2026-11-20T00:00:00Z",` +
		`"cyclesCompletedCount":{"3":1},"billingCyclesToSkip":[2,"4"],"subscriptionPayment":[` + string(benchPayment) + `, {"id":"b"} ]}`,
	`{}`, `null`, `{"subscriptionPayment":null}`, `{"subscriptionPayment":[]}`, `{"subscriptionPayment":[null,1,"x",[]]}`,
	`{"subscriptionPayment":{}}`, `{"subscriptionPayment":"x"}`, `{"subscriptionPayment":[{"id":"a"}],"subscriptionPayment":[{"id":"b"}]}`,
	`{"subscriptionpayment":[{"id":"a"}]}`, `{"SubscriptionPayment":[{"id":"a"}]}`, `{"totalcount":"3"}`, `{"totalCount":3.5}`,
	`{"totalCount":{}}`, `{"plans":5}`, `{"plans":[1],"subscriptions":[{}]}`, `{"_links":[]}`, `{"_links":{"next":null}}`,
	`{"cyclesCompletedCount":{"1":1},"cyclesCompletedCount":{"2":2}}`, `{"billingCyclesToSkip":[1],"billingCyclesToSkip":[2]}`,
	`{"subscriptionPayment":[1 2]}`, `{"subscriptionPayment":[1,]}`, `{"subscriptionPayment":[`, `{"x":[1 2]}`, `{"totalCount":01}`,
	// Nesting at encoding/json's limit inside a payment and inside the
	// page's array, and one past it.
	`{"subscriptionPayment":[{"x":` + strings.Repeat("[", maxDepth-3) + strings.Repeat("]", maxDepth-3) + `}]}`,
	`{"subscriptionPayment":[{"x":` + strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2) + `}]}`,
	`{"subscriptionPayment":[` + strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2) + `]}`,
	`{"subscriptionPayment":[` + strings.Repeat("[", maxDepth-1) + strings.Repeat("]", maxDepth-1) + `]}`,
	`{"totalCount":4,"_links":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`,
	`{"\u0074otalCount":4}`, ` {"totalCount":4} `, `[]`, ``, `{"TOTALCOUNT":4}`, `{"_LINKS":{"NEXT":{"HREF":"/n"}}}`,
}

// FuzzDecodePaymentPage holds decodePaymentPage to encoding/json on every
// page that is JSON, and to an error on every page that is not.
func FuzzDecodePaymentPage(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := decodePaymentPage(body)
		agreesWithStd(t, body, got, err, func() (rbsPage, error) {
			var want rbsPage
			err := json.Unmarshal(body, &want)
			return want, err
		})
	})
}

// agreesWithStd fails t unless a decoder's answer on input, got and err,
// is encoding/json's (std): ErrInvalidData for input that is not JSON,
// and else the same value, or an error (ErrInvalidData) where std has one.
func agreesWithStd[T any](t *testing.T, input []byte, got T, err error, std func() (T, error)) {
	t.Helper()
	if !json.Valid(input) {
		if err == nil {
			t.Fatalf("%q is not JSON, decoded as %+v", input, got)
		}
		if !errors.Is(err, ErrInvalidData) {
			t.Fatalf("%q: %v is not ErrInvalidData", input, err)
		}
		return
	}
	want, wantErr := std()
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", input, err, wantErr)
	}
	if err != nil {
		if !errors.Is(err, ErrInvalidData) {
			t.Fatalf("%q: %v is not ErrInvalidData", input, err)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %#v\n want %#v", input, got, want)
	}
}

// benchPage is a payment-list page of rbsPageSize payments.
var benchPage = func() []byte {
	payments := make([]string, rbsPageSize)
	for i := range payments {
		payments[i] = string(benchPayment)
	}
	return []byte(`{"_links":{"self":{"href":"/rbs/v1/subscriptions/1/payments?offset=0&limit=100"}},"totalCount":100,` +
		`"submitTimeUtc":"2026-11-20T10:15:00Z","cyclesCompletedCount":{"7":1},"subscriptionPayment":[` +
		strings.Join(payments, ",") + `]}`)
}()

// BenchmarkDecodePaymentPage measures decoding a page of payments and
// every payment on it, as SubscriptionPayments does.
func BenchmarkDecodePaymentPage(b *testing.B) {
	b.SetBytes(int64(len(benchPage)))
	for b.Loop() {
		page, err := decodePaymentPage(benchPage)
		if err != nil {
			b.Fatal(err)
		}
		for _, raw := range page.Payments {
			if _, err := decodePayment(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodePaymentPageReflective is BenchmarkDecodePaymentPage the
// way it was before eachMember, for comparison.
func BenchmarkDecodePaymentPageReflective(b *testing.B) {
	b.SetBytes(int64(len(benchPage)))
	for b.Loop() {
		page, err := decodePage[rbsPage]("subscription payment list", benchPage)
		if err != nil {
			b.Fatal(err)
		}
		for _, raw := range page.Payments {
			if _, err := decodePaymentReflective(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}
