package platform

import (
	"encoding/json"
	"testing"
)

var benchPayment = json.RawMessage(`{"id":"1795166009000010000012","status":"PAID","paymentType":"STANDARD","transactionID":"1795166009000010000013","date":"2026-11-20T10:15:00Z","currency":"USD","billingStartDate":"2026-11-20T10:15:00Z","billingEndDate":"2026-12-20T10:15:00Z","billingCycle":"7","paymentNumber":"7","billingAmount":"369.61","setupFee":"23.65","modifiable":false}`)

// BenchmarkDecodePayment measures decoding one subscription payment record,
// the most numerous record of a run.
func BenchmarkDecodePayment(b *testing.B) {
	b.SetBytes(int64(len(benchPayment)))
	for b.Loop() {
		if _, err := decodePayment(benchPayment); err != nil {
			b.Fatal(err)
		}
	}
}
