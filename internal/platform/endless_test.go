package platform

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestListingStopsAtAPageWithNothingNew: a plan list whose pages repeat
// the same plans, each with a next link and no totalCount, ends at the
// first page that brings no plan not seen before: two requests, not paging
// until the member's time-out.
func TestListingStopsAtAPageWithNothingNew(t *testing.T) {
	var requests atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		if n > 50 {
			http.Error(w, "paged too long", http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"_links":{"next":{"href":"/rbs/v1/plans?offset=%d&limit=100"}},"plans":[{"id":"p1"},{"id":"p2"}]}`, n*2)
	})
	var ids []string
	for p, err := range c.Merchant("m1").Plans(context.Background()) {
		if err != nil {
			t.Fatalf("after %d requests: %v", requests.Load(), err)
		}
		ids = append(ids, p.ID)
	}
	if got := requests.Load(); got != 2 || len(ids) != 2 {
		t.Errorf("%d requests, plans %v; want 2 requests (the second page brought nothing new) and p1, p2", got, ids)
	}
}

// TestUnsendableMerchantIDIsNotRetried: a merchant ID that cannot be a
// header's value (a line break in it) fails at once with the reason, and
// the platform is never called: Go's transport would refuse every attempt.
func TestUnsendableMerchantIDIsNotRetried(t *testing.T) {
	var requests atomic.Int64
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { requests.Add(1) })
	var stats Stats
	ctx := WithStats(context.Background(), &stats)
	for _, err := range c.Merchant("m1\r\nX-Evil: 1").Plans(ctx) {
		if err == nil || !strings.Contains(err.Error(), "cannot be sent in the v-c-merchant-id header") {
			t.Errorf("error %v; want the merchant id refused", err)
		}
		break
	}
	if requests.Load() != 0 || stats.Retries.Load() != 0 {
		t.Errorf("%d requests reached the platform, %d retries; want none", requests.Load(), stats.Retries.Load())
	}
}

// TestErrorBodyNeverCutInsideANumber: a non-JSON error body is quoted up
// to 200 bytes, but never cut inside a number: a card number across the
// cut is left out whole, not kept to its 15th digit (which the masker
// downstream would no longer recognise as a card).
func TestErrorBodyNeverCutInsideANumber(t *testing.T) {
	for pad := 180; pad <= 199; pad++ {
		body := strings.Repeat("x", pad) + " 4111 1111 1111 1111 declined"
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, body)
		})
		_, err := c.Merchant("m1").LookupBIN(context.Background(), BINQuery{CardPrefix: "411111"})
		if err == nil {
			t.Fatal("want the 400's error")
		}
		if msg := err.Error(); strings.Contains(msg, "4111 1111 1111 111") && !strings.Contains(msg, "4111 1111 1111 1111") {
			t.Errorf("pad %d: the quote keeps 15 digits of the card: %q", pad, msg)
		}
	}
}

// TestQuotesNeverCutInsideANumber walks the places the client quotes
// outside text up to a bound (an error body, a redirect's Location, an
// amount in an error): a card number at every offset across the bound is
// quoted whole or not at all, never to its 15th digit, which the masker
// downstream would no longer recognise as a card.
func TestQuotesNeverCutInsideANumber(t *testing.T) {
	const pan = "4111111111111111"
	quoters := map[string]struct {
		quote func(string) string
		bound int
	}{
		"error body (firstBytes 200)": {func(s string) string { return firstBytes(s, 200) }, 200},
		"amount (quoteShort 40)":      {quoteShort, 40},
	}
	for name, q := range quoters {
		for pad := q.bound - len(pan) - 2; pad <= q.bound+2; pad++ {
			text := strings.Repeat("x", max(pad, 0)) + pan + " tail"
			got := q.quote(text)
			for cut := 13; cut < len(pan); cut++ {
				if strings.Contains(got, pan[:cut]) && !strings.Contains(got, pan) {
					t.Errorf("%s, card at %d: %q keeps %d of its digits", name, pad, got, cut)
					break
				}
			}
		}
	}
}
