package sandbox

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// retriesThroughHTTP checks the card-network retry kinds of one member,
// both ways, against the attempts a client reads: the member's journal
// (the card a call sent and how it was answered), Transaction Search (the
// card of a call by token, the reason code of a decline, the card of a
// subscription payment), the payment lists and BIN lookups (the network).
// The counting is the ground truth's (judgeRetries); what this checks is
// that the truth's attempts are those a client sees.
func retriesThroughHTTP(t *testing.T, c *tclient, mid string, w0, w1 time.Time, truth map[string]map[string]Finding,
	found map[string]int, journal map[string]tJournalLine) {
	t.Helper()
	in := func(tm time.Time) bool { return !tm.Before(w0) && tm.Before(w1) }
	searched := map[string]tSummary{}
	for _, s := range c.searchAll(mid, w0, w1, 2000) {
		searched[s.ID] = s
	}
	brands := map[string]string{}
	network := func(prefix, cardType string) string {
		b, ok := brands[prefix]
		if !ok {
			b = c.brand(cardLookup(prefix))
			for _, s := range searched {
				if b == "" && s.PaymentInformation.Card.Prefix == prefix && s.PaymentInformation.Customer != nil {
					b = c.brand(tokenLookup("customer", s.PaymentInformation.Customer.CustomerID))
				}
			}
			brands[prefix] = b
		}
		if b != "" {
			return strings.ToUpper(b)
		}
		return map[string]string{"001": "VISA", "002": "MASTERCARD", "003": "AMERICAN EXPRESS", "004": "DISCOVER"}[cardType]
	}
	var attempts []attempt
	for id, l := range journal {
		ln := line{tJournalLine: l, id: id, time: jtime(t, l.Time)}
		if l.MerchantID != mid || l.Status/100 != 2 || !ln.authOrSale() || ln.resp("status") == "FAILED" {
			continue
		}
		s, isSearched := searched[id]
		prefix, last4 := s.PaymentInformation.Card.Prefix, s.PaymentInformation.Card.Suffix
		for _, f := range []string{"card", "tokenizedCard"} {
			if n := ln.req("paymentInformation", f, "number"); len(n) >= 10 {
				prefix, last4 = n[:6], n[len(n)-4:]
				break
			}
		}
		if prefix == "" {
			continue // by token outside the window: no card known
		}
		cardType := s.PaymentInformation.Card.Type
		for _, v := range []string{ln.req("paymentInformation", "tokenizedCard", "type"), ln.req("paymentInformation", "card", "type"),
			ln.resp("paymentInformation", "tokenizedCard", "type"), ln.resp("paymentInformation", "card", "type"),
			ln.resp("paymentAccountInformation", "card", "type")} {
			if v != "" {
				cardType = v
			}
		}
		a := attempt{id: id, at: ln.time, card: prefix + last4, network: network(prefix, cardType), merchant: ln.initiator() == "merchant",
			amount: cents(t, ln.amount()), currency: ln.currency()}
		if ln.resp("status") == "DECLINED" {
			a.declined = true
			a.refused = refuses(&issuerDecline{responseCode: ln.resp("processorInformation", "responseCode"),
				advice: ln.resp("processorInformation", "merchantAdvice", "code"), adviceRaw: ln.resp("processorInformation", "merchantAdvice", "codeRaw"),
				reason: s.ApplicationInformation.ReasonCode}, a.network, isSearched)
		}
		attempts = append(attempts, a)
	}
	for _, sub := range c.subscriptions(mid) {
		pays, _ := c.payments(mid, sub.ID)
		for _, p := range pays {
			s, ok := searched[p.TransactionID]
			if (p.Status != payPaid && p.Status != payFailed) || !ok || s.PaymentInformation.Card.Prefix == "" {
				continue
			}
			card := s.PaymentInformation.Card
			reason := s.ApplicationInformation.ReasonCode
			attempts = append(attempts, attempt{id: s.ID, at: jtime(t, s.SubmitTimeUtc), card: card.Prefix + card.Suffix,
				network: network(card.Prefix, card.Type), merchant: true, declined: p.Status == payFailed,
				refused: p.Status == payFailed && (reason == reasonStolenLost || reason == "231"),
				amount:  cents(t, s.OrderInformation.AmountDetails.TotalAmount), currency: s.OrderInformation.AmountDetails.Currency})
		}
	}
	sort.Slice(attempts, func(i, j int) bool {
		if !attempts[i].at.Equal(attempts[j].at) {
			return attempts[i].at.Before(attempts[j].at)
		}
		return attempts[i].id < attempts[j].id
	})
	afterRefusal, overLimit := judgeRetries(attempts, in)
	for kind, got := range map[string][]attempt{KindRetryAfterDoNotRetry: afterRefusal, KindReattemptsOverNetworkLimit: overLimit} {
		seen := map[string]bool{}
		for _, a := range got {
			seen[a.id] = true
			f, ok := truth[kind][mid+"/"+a.id]
			if !ok {
				t.Errorf("%s %s/%s: the journal and the API show it, the ground truth does not", kind, mid, a.id)
				continue
			}
			found[kind]++
			if f.Amount != money(a.amount) || f.Currency != a.currency {
				t.Errorf("%s %s/%s: truth %s %s, the API says %s %s", kind, mid, a.id, f.Amount, f.Currency, money(a.amount), a.currency)
			}
		}
		for key := range truth[kind] {
			if id, ok := strings.CutPrefix(key, mid+"/"); ok && !seen[id] {
				t.Errorf("%s %s: in the ground truth, not in the journal or the API", kind, key)
			}
		}
	}
}

// brand is the brand name a BIN lookup answers, "" when it does not
// resolve.
func (c *tclient) brand(body map[string]any) string {
	c.t.Helper()
	var out struct {
		Status                    string
		PaymentAccountInformation struct{ Card struct{ BrandName string } }
	}
	c.call("POST", "/bin/v1/binlookup", DefaultOrganizationID, body, 201, &out)
	if out.Status != "COMPLETED" {
		return ""
	}
	return out.PaymentAccountInformation.Card.BrandName
}

// TestRetryPlantingsAndNearMisses: member 1's data (and its pair's) holds
// both kinds on the business day and every near-miss the definitions must
// not report, each checked on the attempts themselves: a retry after a
// "try again later" decline, reattempts exactly at a limit, a count an
// approval resets, customer- and merchant-initiated reattempts that only
// together exceed Visa's limit, a Mastercard day's reattempts one second
// short of a 24-hour window, and a card over the limit only across two
// merchants. At scale medium, the billing engine's attempts are among the
// findings of both kinds, as charges and as refusals.
func TestRetryPlantingsAndNearMisses(t *testing.T) {
	s, err := New(Config{Seed: 7, BusinessDate: testDate})
	if err != nil {
		t.Fatal(err)
	}
	w0, w1 := s.windowBounds()
	in := func(tm time.Time) bool { return !tm.Before(w0) && tm.Before(w1) }
	var first, second []attempt
	calls := map[string]*call{}
	s.withMember(0, func(m *member) {
		first = cardAttempts(m, w0, w1)
		for _, c := range m.calls {
			calls[c.respID] = c
		}
	})
	s.withMember(1, func(m *member) { second = cardAttempts(m, w0, w1) })
	afterRefusal, overLimit := judgeRetries(first, in)
	reported := map[string]bool{}
	for _, a := range append(afterRefusal, overLimit...) {
		reported[a.id] = true
	}
	onBusinessDay := func(list []attempt) bool {
		for _, a := range list {
			if utcDay(a.at).Equal(testDate) {
				return true
			}
		}
		return false
	}
	if !onBusinessDay(afterRefusal) || !onBusinessDay(overLimit) {
		t.Errorf("member 1 has no finding of one kind on the business day: %d after a refusal, %d over a limit", len(afterRefusal), len(overLimit))
	}

	byCard := func(list []attempt) map[string][]attempt {
		out := map[string][]attempt{}
		for _, a := range list {
			out[a.card] = append(out[a.card], a)
		}
		return out
	}
	cards := byCard(first)
	near := map[string]bool{}
	for key, seq := range cards {
		anyReported := false
		for _, a := range seq {
			anyReported = anyReported || reported[a.id]
		}
		for i, a := range seq {
			if i == 0 || !in(a.at) || reported[a.id] {
				continue
			}
			if p := calls[seq[i-1].id]; p != nil && p.x != nil && p.x.decline != nil &&
				slices.Contains([]string{"01", "02", "24", "25", "26", "27", "28", "29", "30"}, p.x.decline.advice) {
				near["a retry after a try-again-later advice"] = true
			}
		}
		if anyReported {
			continue
		}
		net := seq[0].network
		switch {
		case net == "VISA" && maxCount(seq, 30*24*time.Hour, true, "merchant") == 20:
			near["Visa reattempts at the limit"] = true
		case net == "VISA" && maxCount(seq, 30*24*time.Hour, false, "merchant") > 20:
			near["Visa reattempts the approval resets"] = true
		case net == "VISA" && maxCount(seq, 30*24*time.Hour, true, "") > 20:
			near["Visa reattempts over the limit only together"] = true
		case net == "MASTERCARD" && maxCount(seq, 24*time.Hour, true, "") == 10 && maxCount(seq, 24*time.Hour+time.Second, true, "") == 11:
			near["Mastercard reattempts a second short of a day"] = true
		}
		if other, ok := byCard(second)[key]; ok && net == "MASTERCARD" {
			both := append(slices.Clone(seq), other...)
			sort.Slice(both, func(i, j int) bool { return both[i].at.Before(both[j].at) })
			if maxCount(seq, 24*time.Hour, true, "") <= 10 && maxCount(both, 24*time.Hour, true, "") > 10 {
				near["Mastercard reattempts over the limit only across two merchants"] = true
			}
		}
	}
	for _, want := range []string{"a retry after a try-again-later advice", "Visa reattempts at the limit",
		"Visa reattempts the approval resets", "Visa reattempts over the limit only together",
		"Mastercard reattempts a second short of a day", "Mastercard reattempts over the limit only across two merchants"} {
		if !near[want] {
			t.Errorf("member 1 has no near-miss: %s", want)
		}
	}

	// At scale medium the billing engine's attempts take part in both kinds.
	scale, _ := ParseScale("medium")
	s, err = New(Config{Seed: 7, BusinessDate: testDate, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	billing := map[string]int{}
	for i := 0; i < scale.Members; i++ {
		s.withMember(i, func(m *member) {
			journaled := map[string]bool{}
			for _, c := range m.calls {
				journaled[c.respID] = true
			}
			all := cardAttempts(m, w0, w1)
			afterRefusal, overLimit := judgeRetries(all, in)
			for _, a := range afterRefusal {
				if !journaled[a.id] {
					billing["a charge after a refusal"]++
				}
				for _, p := range all {
					if p.card == a.card && p.refused && p.at.Before(a.at) && !journaled[p.id] {
						billing["a charge after a billing refusal"]++
						break
					}
				}
			}
			for _, a := range overLimit {
				if !journaled[a.id] {
					billing["a reattempt over a limit"]++
				}
			}
		})
	}
	for _, want := range []string{"a charge after a refusal", "a charge after a billing refusal", "a reattempt over a limit"} {
		if billing[want] == 0 {
			t.Errorf("scale medium: no subscription payment is %s", want)
		}
	}
}

// maxCount is the most reattempts of a card's attempts (with initiator
// merchant or customer only, or "" for all) that fall within window of one
// another, counted since the last approval (reset) or across approvals.
func maxCount(seq []attempt, window time.Duration, reset bool, initiator string) int {
	var counter []attempt
	for _, a := range seq {
		if initiator == "" || a.merchant == (initiator == "merchant") {
			counter = append(counter, a)
		}
	}
	most := 0
	var since []attempt
	for i, a := range counter {
		if i > 0 && counter[i-1].declined {
			since = append(since, a)
			n := 0
			for _, p := range since {
				if a.at.Sub(p.at) < window {
					n++
				}
			}
			most = max(most, n)
		}
		if !a.declined && reset {
			since = nil
		}
	}
	return most
}
