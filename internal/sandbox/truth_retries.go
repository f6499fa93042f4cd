package sandbox

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// Finding kinds of card-network retry compliance (docs/payments-audit.md),
// computed here from the generated data by the definitions in the leading
// comments of queries/findings/retry_after_do_not_retry.sql and
// reattempts_over_network_limit.sql, never from the planting decisions of
// plant_retries.go.
const (
	KindRetryAfterDoNotRetry       = "retry_after_do_not_retry"
	KindReattemptsOverNetworkLimit = "reattempts_over_network_limit"
)

func retryKinds() []string {
	return []string{KindRetryAfterDoNotRetry, KindReattemptsOverNetworkLimit}
}

// refusalWindow is how long after a do-not-retry decline a charge of the
// same card is reported.
const refusalWindow = 30 * 24 * time.Hour

// networkLimit is a card network's limit on reattempts: the documented
// default of reconcile's --retry-limits, which the ground truth is
// written for.
type networkLimit struct {
	network string
	allowed int
	window  time.Duration
	apart   bool // customer- and merchant-initiated reattempts counted apart
}

var networkLimits = []networkLimit{
	{"MASTERCARD", 10, 24 * time.Hour, false},
	{"MASTERCARD", 35, 30 * 24 * time.Hour, false},
	{"VISA", 20, 30 * 24 * time.Hour, true},
}

// Visa's category 1 response codes: the issuer will never approve.
var visaNeverCodes = []string{"04", "07", "12", "14", "15", "41", "43", "46", "57", "R0", "R1", "R3"}

// attempt is one charge of a card, as a run over the window sees it.
type attempt struct {
	id       string
	at       time.Time
	card     string // BIN and last four
	network  string
	merchant bool // merchant-initiated (every subscription payment)
	declined bool
	refused  bool // declined do-not-retry
	amount   int64
	currency string
}

// cardNetwork is the network a run names the card by: its BIN's brand,
// else its card type's.
func cardNetwork(cd *card) string {
	if e := cd.entry(); len(e.records) > 0 && (e.outcome == binCompleted || e.outcome == binMultipleResolvable) {
		return strings.ToUpper(e.records[0].brand)
	}
	return map[string]string{"001": "VISA", "002": "MASTERCARD", "003": "AMERICAN EXPRESS", "004": "DISCOVER"}[cd.cardType()]
}

// refuses reports whether a decline on a card of network says never to
// try the card again, by its answer's codes, or by its reason code in
// Transaction Search when the run holds its transaction (searched).
func refuses(d *issuerDecline, network string, searched bool) bool {
	if searched && (d.reason == reasonStolenLost || d.reason == "231") {
		return true
	}
	if network == "VISA" {
		return d.advice == "1" || d.advice == "01" || slices.Contains(visaNeverCodes, d.responseCode)
	}
	return slices.Contains([]string{"3", "03", "21"}, d.advice) || slices.Contains([]string{"3", "03", "21"}, d.adviceRaw)
}

// cardAttempts lists member m's attempts a run over [w0, w1) sees: the
// journaled authorizations and sales, on the card they sent, else (by
// token, by wallet data) on their transaction's when Transaction Search
// returns it in the window; and the processed subscription payments whose
// transaction it returns. Sorted by time, then id.
func cardAttempts(m *member, w0, w1 time.Time) []attempt {
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	var out []attempt
	for _, c := range m.calls {
		if (c.kind != callAuth && c.kind != callSale) || c.card == nil {
			continue
		}
		sendsNumber := c.x == nil || !(c.x.byToken || c.x.fluid != nil)
		if !sendsNumber && !in(c.time) {
			continue
		}
		a := attempt{id: c.respID, at: c.time, card: c.card.prefix() + c.card.suffix(), network: cardNetwork(c.card),
			merchant: c.initiator() == "merchant", amount: c.amount, currency: c.currency}
		if c.x != nil && c.x.decline != nil {
			a.declined = true
			a.refused = refuses(c.x.decline, a.network, in(c.time))
		}
		out = append(out, a)
	}
	for _, sub := range m.subs {
		for _, pm := range sub.payments {
			if pm.status != payPaid && pm.status != payFailed {
				continue
			}
			t, ok := m.txnByID[pm.txnID]
			if !ok || !in(t.time) || t.card == nil {
				continue
			}
			out = append(out, attempt{id: t.id, at: t.time, card: t.card.prefix() + t.card.suffix(), network: cardNetwork(t.card),
				merchant: true, declined: pm.status == payFailed, refused: t.doNotRetry, amount: t.amount, currency: t.currency})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].id < out[j].id
	})
	return out
}

// retryFindings applies the two kinds' definitions to one member.
func retryFindings(m *member, w0, w1 time.Time, add func(kind, entity string, amount int64, currency string)) {
	afterRefusal, overLimit := judgeRetries(cardAttempts(m, w0, w1), func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) })
	for _, a := range afterRefusal {
		add(KindRetryAfterDoNotRetry, a.id, a.amount, a.currency)
	}
	for _, a := range overLimit {
		add(KindReattemptsOverNetworkLimit, a.id, a.amount, a.currency)
	}
}

// judgeRetries finds, among a member's attempts (sorted by time, then id),
// those in the window (in) that follow a refusal of their card, and the
// reattempts over a network's limit.
func judgeRetries(attempts []attempt, in func(time.Time) bool) (afterRefusal, overLimit []attempt) {
	byCard := map[string][]attempt{}
	var cards []string
	for _, a := range attempts {
		if _, ok := byCard[a.card]; !ok {
			cards = append(cards, a.card)
		}
		byCard[a.card] = append(byCard[a.card], a)
	}
	for _, key := range cards {
		seq := byCard[key]
		for _, a := range seq {
			if in(a.at) && followsRefusal(seq, a) {
				afterRefusal = append(afterRefusal, a)
			}
		}
		over := map[string]bool{}
		for _, l := range networkLimits {
			for _, counter := range counters(seq, l) {
				for _, id := range reattemptsOver(counter, l, in) {
					over[id] = true
				}
			}
		}
		for _, a := range seq {
			if over[a.id] {
				overLimit = append(overLimit, a)
			}
		}
	}
	return afterRefusal, overLimit
}

// followsRefusal: a card's attempt a comes less than 30 days after a
// refusal of the card, with no approval after the refusal and before a.
func followsRefusal(seq []attempt, a attempt) bool {
	var approved time.Time // the latest approval before a
	for _, p := range seq {
		if p.at.Before(a.at) && !p.declined && p.at.After(approved) {
			approved = p.at
		}
	}
	for _, p := range seq {
		if p.refused && p.at.Before(a.at) && a.at.Sub(p.at) < refusalWindow && !p.at.Before(approved) {
			return true
		}
	}
	return false
}

// counters splits a card's attempts into the sequences limit l counts
// separately: those of its network, customer- and merchant-initiated apart
// when it counts them so.
func counters(seq []attempt, l networkLimit) [][]attempt {
	var all, cit, mit []attempt
	for _, a := range seq {
		switch {
		case a.network != l.network:
		case !l.apart:
			all = append(all, a)
		case a.merchant:
			mit = append(mit, a)
		default:
			cit = append(cit, a)
		}
	}
	return [][]attempt{all, cit, mit}
}

// reattemptsOver returns the reattempts in the window beyond limit l in one
// counter: a reattempt follows a declined attempt, and is over when the
// reattempts since the last approval, less than the window before it and
// itself included, are more than allowed.
func reattemptsOver(seq []attempt, l networkLimit, in func(time.Time) bool) []string {
	var out []string
	var since []attempt // the reattempts since the last approval
	for i, a := range seq {
		if i > 0 && seq[i-1].declined {
			since = append(since, a)
			n := 0
			for _, p := range since {
				if a.at.Sub(p.at) < l.window {
					n++
				}
			}
			if n > l.allowed && in(a.at) {
				out = append(out, a.id)
			}
		}
		if !a.declined {
			since = nil
		}
	}
	return out
}
