package sandbox

import (
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
					b = c.brand(tokenLookup("customer", s.PaymentInformation.Customer.ID))
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
