package sandbox

import (
	"testing"
	"time"
)

// The search query and the Signature header are outside input: they must
// never panic, whatever they hold.

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"submitTimeUtc:[2026-11-20T00:00:00Z TO 2026-11-21T00:00:00Z}",
		"submitTimeUtc:[NOW/DAY-1DAY TO NOW/DAY} AND merchantId:sbxmid000001",
		`clientReferenceInformation.code:"ORD 1" OR id:{1 TO *]`,
		"id:", "[", "submitTimeUtc:NOW+", "AND", "id:1 AND",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := parseQuery(s, now)
		if err == nil && len(q) == 0 {
			t.Fatalf("%q: no error and no terms", s)
		}
	})
}

func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{
		`keyid="k", algorithm="HmacSHA256", headers="host date request-target v-c-merchant-id", signature="YWJj"`,
		`keyid=k,algorithm=HmacSHA256,headers="a b",signature=x`,
		`keyid="`, `=`, `,,,`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseSignature(s)
	})
}

func FuzzParseFilters(f *testing.F) {
	for _, s := range []string{
		"planInformation.status:ACTIVE", `name:"Gold plan" AND currency:USD`, "PLN-001", "status:ACTIVE OR status:DRAFT",
		"AND", `"`, "code:", ":x", "a AND AND b",
	} {
		f.Add(s)
	}
	p := &plan{code: "PLN-001", name: "Gold monthly", status: planActive, planTerms: planTerms{unit: 'M', length: 1, amount: 1000, currency: "USD"}}
	f.Fuzz(func(t *testing.T, s string) {
		terms, err := parseFilters(s)
		if err == nil {
			if len(terms) == 0 {
				t.Fatalf("%q: no error and no terms", s)
			}
			matchFilters(terms, p)
		}
	})
}
