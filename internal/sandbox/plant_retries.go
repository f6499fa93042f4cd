package sandbox

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// The card-network retry plantings (retry_after_do_not_retry,
// reattempts_over_network_limit), after the area calls, from streams of
// their own: the rest of the data set is unchanged but for the ids of the
// calls after them.
//
// Per member, one or two runs of attempts on a card after a decline
// (weights in retryRunWeights), each a customer-initiated sale storing the
// card a day or more before, then sales on it:
//
//   - recovered: a soft decline, one to three reattempts hours apart, the
//     last approved;
//   - later: a decline advising to try again later (Mastercard merchant
//     advice 01, 02, 24-30; Visa advice 2), retried after the time advised
//     (a near-miss of retry_after_do_not_retry);
//   - refused: a do-not-retry decline (Visa category 1, Mastercard 03 or
//     21), retried once or twice all the same (retry_after_do_not_retry);
//   - Visa 21 or 22 reattempts in 21 days (the 21st and 22nd are over 20 in
//     30 days), or exactly 20 (at the limit); a Visa card retried 14 times
//     by the merchant and 10 times by the customer (counted apart, neither
//     is over; together they would be); 15 reattempts, an approval, then 9
//     more (the approval resets the count);
//   - Mastercard 11 reattempts within 22 hours (the 11th is over 10 in a
//     day), or 11 whose first and last are exactly 24 hours apart (10 in any
//     day); 36 reattempts in 29 days, at most 2 a day (over 35 in 30 days);
//   - American Express 25 reattempts in two days (no limit for the network).
//
// Pairs of members (1 and 2, 3 and 4, ...) share, in a fifth of pairs, a
// Mastercard card each retries 6 times within a day: 12 together, 6 per
// merchant (the count is per merchant). And around the billing engine's
// declines of subscriptions (cards from the subscription; authorizations,
// so that no Level III finding comes of a commercial card; health cards
// left out): after half of the do-not-retry declines (reason 205) in the
// planting range, the customer tries the same card a few hours later, and
// is refused again; before a tenth of the other first declines of a
// cycle, the customer's own authorization on the card was refused
// do-not-retry, so the billing engine's attempt (and its retries) follow a
// refusal; and on half of the Mastercard subscriptions with a retry in the
// planting range, the customer tried the card 11 times in the day before
// the retry. One planting per subscription at most.
//
// Member 1 is topped up so that both kinds and every near-miss occur on
// the business day, and its pair shares a card.
const (
	rateRetryShared         = 0.2 // of member pairs
	rateRetryAfterRefusal   = 0.5 // of the billing engine's do-not-retry declines
	rateRefusalBeforeBilled = 0.1 // of its other first declines of a cycle
	rateRetriesBeforeRetry  = 0.5 // of Mastercard subscriptions' retries
)

// Stream purposes of the retry plantings.
const (
	streamRetries uint64 = 192 + iota
	streamRetryPairs
	streamForceRetries
)

// Kinds of runs of attempts.
const (
	runRecovered = iota
	runLater
	runRefused
	runVisaOver
	runVisaAtLimit
	runVisaApart
	runVisaReset
	runMCDay
	runMCDayEdge
	runMCMonth
	runAmex
)

var retryRunWeights = []int{runRecovered: 30, runLater: 15, runRefused: 15, runVisaOver: 6, runVisaAtLimit: 5,
	runVisaApart: 5, runVisaReset: 4, runMCDay: 6, runMCDayEdge: 5, runMCMonth: 5, runAmex: 4}

// attemptStep is one attempt of a run: how long after the run's first attempt,
// how the issuer declined it (nil: approved), and whether the customer
// rather than the merchant initiated it.
type attemptStep struct {
	after    time.Duration
	decline  *issuerDecline
	customer bool
}

// plantRetries adds member m's retry plantings (above) to its calls.
func (g *generator) plantRetries(m *member) {
	r := g.stream(m.index, streamRetries, 0)
	for n := 1 + r.IntN(2); n > 0; n-- {
		// The run's last attempt: a day of the planting range, 08:00-20:00.
		last := g.plantStart.AddDate(0, 0, r.IntN(plantDays)).Add(time.Duration(8*3600+r.IntN(12*3600)) * time.Second)
		m.calls = append(m.calls, g.attemptRun(r, pickBin(r, retryRunWeights), last)...)
	}
	pair := g.stream(m.index/2, streamRetryPairs, 0)
	if pair.Float64() < rateRetryShared || m.index/2 == 0 {
		m.calls = append(m.calls, g.sharedCardRun(r, pair, m.index%2)...)
	}
	if m.index == 0 {
		g.forceRetries(m)
	} else {
		g.billingRetries(m, r, false)
	}
	sortCalls(m.calls)
}

// forceRetries gives member 1 every run on the business day (its last
// attempt there), and the billing engine's plantings wherever its data
// allows.
func (g *generator) forceRetries(m *member) {
	r := g.stream(m.index, streamForceRetries, 0)
	for run := range retryRunWeights {
		last := g.business.Add(time.Duration(22*3600+r.IntN(3600)) * time.Second) // 22:00-23:00: a day's run fits the day
		m.calls = append(m.calls, g.attemptRun(r, run, last)...)
	}
	g.billingRetries(m, r, true)
}

// attemptRun plants a run of the given kind whose last attempt is at last.
func (g *generator) attemptRun(r *rand.Rand, run int, last time.Time) []*call {
	var cd card
	var steps []attemptStep
	hours := func(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }
	declines := func(cd *card, from, n int, every time.Duration) {
		for i := 0; i < n; i++ {
			steps = append(steps, attemptStep{after: time.Duration(from+i) * every, decline: softDecline(r, cd)})
		}
	}
	switch run {
	case runRecovered:
		cd = newCard(r, []int{binConsumerCredit, binConsumerDebit, binPrepaid}[r.IntN(3)], false)
		declines(&cd, 0, 1+r.IntN(3), hours(2+r.Float64()*4))
		steps = append(steps, attemptStep{after: steps[len(steps)-1].after + hours(1+r.Float64()*3)})
	case runLater:
		cd = newCard(r, []int{binConsumerCredit, binPrepaid}[r.IntN(2)], false)
		d := softDecline(r, &cd)
		steps = []attemptStep{{decline: d}, {after: adviceWait(d) + minutes(r, 5, 120)}}
	case runRefused:
		cd = newCard(r, []int{binConsumerCredit, binConsumerDebit, binPrepaid}[r.IntN(3)], false)
		steps = []attemptStep{{decline: doNotRetryDecline(r, &cd)}, {after: hours(1 + r.Float64()*40), decline: doNotRetryDecline(r, &cd)}}
		if r.IntN(2) == 0 {
			steps = append(steps, attemptStep{after: steps[1].after + hours(2+r.Float64()*20), decline: softDecline(r, &cd)})
		}
	case runVisaOver, runVisaAtLimit:
		cd = newCard(r, []int{binConsumerCredit, binConsumerDebit}[r.IntN(2)], false)
		n := 21 // the first attempt and 20 reattempts
		if run == runVisaOver {
			n = 22 + r.IntN(2)
		}
		declines(&cd, 0, n, hours(23))
	case runVisaApart:
		cd = newCard(r, binConsumerCredit, false)
		declines(&cd, 0, 15, hours(23))
		for i := 0; i < 11; i++ {
			steps = append(steps, attemptStep{after: hours(23*float64(i) + 5), decline: softDecline(r, &cd), customer: true})
		}
	case runVisaReset:
		cd = newCard(r, binConsumerDebit, false)
		declines(&cd, 0, 16, hours(22))
		steps = append(steps, attemptStep{after: hours(22*16 + 1)})
		declines(&cd, 17, 10, hours(22))
	case runMCDay:
		cd = newCard(r, binPrepaid, false)
		declines(&cd, 0, 12, hours(2))
	case runMCDayEdge:
		// Reattempts 1 and 11 exactly a day apart: 10 in any day.
		cd = newCard(r, binPrepaid, false)
		declines(&cd, 0, 11, hours(2.4))
		steps = append(steps, attemptStep{after: steps[1].after + 24*time.Hour, decline: softDecline(r, &cd)})
	case runMCMonth:
		cd = newCard(r, binPrepaid, false)
		declines(&cd, 0, 37, hours(19))
	case runAmex:
		cd = newCard(r, binAmex, false)
		declines(&cd, 0, 26, hours(1.8))
	}
	slices.SortStableFunc(steps, func(a, b attemptStep) int { return cmp.Compare(a.after, b.after) })
	return g.planRun(r, &cd, last.Add(-steps[len(steps)-1].after), steps)
}

// planRun makes the calls of a run on card cd starting at first: the
// customer's sale that stored the card a day or more before, then one sale
// per step, for the same order; the merchant's are recurring MITs naming
// the stored card's sale.
func (g *generator) planRun(r *rand.Rand, cd *card, first time.Time, steps []attemptStep) []*call {
	cit := g.areaCall(r, callSale, first.Add(-24*time.Hour-minutes(r, 0, 600)), cd, approvedAmount(r, 500, 30000), "USD")
	cit.x.initiator, cit.x.storedOnFile, cit.x.firstRecur = "customer", true, true
	out := []*call{cit}
	amount := approvedAmount(r, 500, 30000)
	for _, s := range steps {
		c := g.areaCall(r, callSale, first.Add(s.after), cd, amount, "USD")
		if len(out) > 1 {
			c.code = out[1].code
		}
		c.x.decline = s.decline
		if s.customer {
			c.x.initiator = "customer"
		} else {
			c.x.initiator, c.x.reason, c.x.commerce, c.x.prevCall = "merchant", "7", "recurring", cit
		}
		out = append(out, c)
	}
	return out
}

// sharedCardRun is half of a pair's run on one Mastercard card: both
// members draw the card and the times from the pair's stream, and each
// makes its own attempts (every other hour) with its own stream r.
func (g *generator) sharedCardRun(r, pair *rand.Rand, half int) []*call {
	cd := newCard(pair, binPrepaid, false)
	first := g.business.Add(time.Duration(1+pair.IntN(8)) * time.Hour)
	var steps []attemptStep
	for i := 0; i < 7; i++ {
		steps = append(steps, attemptStep{after: time.Duration(2*i) * time.Hour, decline: softDecline(pair, &cd)})
	}
	return g.planRun(r, &cd, first.Add(time.Duration(half)*time.Hour), steps)
}

// billingRetries plants the customer's attempts around the billing
// engine's declines of m's subscriptions in the planting range (see the
// top of the file). With force, on the first subscription each planting
// can be made on, whatever the rates draw.
func (g *generator) billingRetries(m *member, r *rand.Rand, force bool) {
	in := func(t time.Time) bool { return !t.Before(g.plantStart) && t.Before(g.plantEnd) }
	done := map[string]bool{}
	plant := func(what string, rate float64) bool {
		if !force {
			return r.Float64() < rate
		}
		if done[what] {
			return false
		}
		done[what] = true
		return true
	}
	for _, sub := range m.subs {
		if sub.card.bin == binHealth {
			continue // a health card's issuer declines without healthcare amounts
		}
		cd := sub.card
		for _, pm := range sub.payments {
			if pm.anomaly == anomalyMissing || !in(pm.date) {
				continue
			}
			var planted []*call
			switch {
			case pm.status == payFailed && pm.doNotRetry:
				if at := pm.date.Add(time.Duration(2+r.IntN(28)) * time.Hour); at.Before(g.plantEnd) && plant("after refusal", rateRetryAfterRefusal) {
					planted = append(planted, g.customerAttempt(r, &cd, at, pm, doNotRetryDecline(r, &cd)))
				}
			case pm.status == payFailed && pm.ptype == payStandard:
				if plant("refusal before", rateRefusalBeforeBilled) {
					at := pm.date.Add(-time.Duration(1+r.IntN(20)) * time.Hour)
					planted = append(planted, g.customerAttempt(r, &cd, at, pm, doNotRetryDecline(r, &cd)))
				}
			case pm.ptype == payRetry && cd.cardType() == cardTypeMastercard:
				if plant("day before retry", rateRetriesBeforeRetry) {
					for k := 11; k > 0; k-- {
						at := pm.date.Add(-time.Duration(2*k)*time.Hour + minutes(r, 0, 100))
						planted = append(planted, g.customerAttempt(r, &cd, at, pm, softDecline(r, &cd)))
					}
				}
			}
			if len(planted) > 0 {
				m.calls = append(m.calls, planted...)
				break // one planting per subscription
			}
		}
	}
}

// customerAttempt is the customer's authorization on a subscription's card
// at at, for the amount of payment pm, declined by d.
func (g *generator) customerAttempt(r *rand.Rand, cd *card, at time.Time, pm *payment, d *issuerDecline) *call {
	c := g.areaCall(r, callAuth, at, cd, pm.amount, pm.currency)
	c.x.initiator, c.x.decline = "customer", d
	return c
}

// softDecline is a decline the card may be tried again after: Visa
// answers a category 2 code (05 do not honor, 51 insufficient funds, 61
// over the limit) with merchant advice 2; Mastercard advises to try again
// later (02; 24-30: after an hour to 10 days) or to update the card (01).
func softDecline(r *rand.Rand, cd *card) *issuerDecline {
	d := cardDecline(cd, false)
	switch cd.cardType() {
	case cardTypeVisa:
		d.responseCode = []string{"05", "51", "61"}[r.IntN(3)]
	case cardTypeMastercard:
		d.advice = []string{"01", "02", "24", "25", "26", "27", "28", "29", "30"}[r.IntN(9)]
		d.adviceRaw = d.advice
	}
	return d
}

// adviceWait is how long a Mastercard merchant advice code says to wait
// before trying again (an hour for the others).
func adviceWait(d *issuerDecline) time.Duration {
	days := map[string]time.Duration{"24": time.Hour, "25": 24 * time.Hour, "26": 48 * time.Hour, "27": 96 * time.Hour,
		"28": 144 * time.Hour, "29": 192 * time.Hour, "30": 240 * time.Hour}
	if w, ok := days[d.advice]; ok {
		return w
	}
	return time.Hour
}

// doNotRetryDecline is a decline saying never to try the card again: on Visa a
// category 1 response code (merchant advice 1 on half of them), on
// Mastercard merchant advice 03 (do not try again) or 21 (payment
// cancelled), on another network the platform's stolen or lost card
// (reason 205).
func doNotRetryDecline(r *rand.Rand, cd *card) *issuerDecline {
	d := cardDecline(cd, true)
	switch cd.cardType() {
	case cardTypeVisa:
		d.responseCode = visaNeverCodes[r.IntN(len(visaNeverCodes))]
		switch d.responseCode {
		case "41", "43":
		case "14":
			d.reason, d.message = "231", "Invalid account number"
		default:
			d.reason, d.message = reasonGeneralDecline, "The issuer will never approve this card: do not retry"
		}
		if r.IntN(2) == 0 {
			d.advice = ""
		}
	case cardTypeMastercard:
		if r.IntN(2) == 0 {
			d.reason, d.message, d.responseCode = reasonGeneralDecline, "Payment cancelled by the cardholder: do not retry", "05"
			d.advice, d.adviceRaw = "21", "21"
		}
	}
	return d
}
