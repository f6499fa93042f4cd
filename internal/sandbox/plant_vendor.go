package sandbox

import (
	"math/rand/v2"
	"time"
)

// plantVendorCases plants on member 1's business day what the vendor's
// SDK defines beyond the generated world, each with its near-miss: the
// other business card platforms and the Level III answers
// (plantPlatformsAndLevel3), the wider payment statuses
// (plantPaymentStatuses) and the healthcare amount types of both networks
// (plantHealthcareTypes). It runs after every other planting, from a
// stream of its own, so that what they drew stays as it was.
func (g *generator) plantVendorCases(m *member) {
	r := g.stream(m.index, streamPlatforms, 0)
	at := func() time.Time { return g.business.Add(time.Duration(9*3600+r.IntN(9*3600)) * time.Second) }
	g.plantPlatformsAndLevel3(m, r, at)
	g.plantPaymentStatuses(m, r, at)
	g.plantHealthcareTypes(m, r, at)
	sortCalls(m.calls)
}

// plantPlatformsAndLevel3 plants: a
// sale without Level III on a BUSINESS, a CORPORATE and a GOVERNMENT card
// (commercial_card_without_level3), a GOVERNMENT sale with Level III and
// a CONSUMER sale without it (neither); a capture that sent no
// purchaseLevel answered N, on a consumer card (no finding: Level III not
// sent is not a transmission failure) and on a government card
// (commercial_card_without_level3 only); a capture with purchaseLevel 3
// answered N on a business card (level3_not_transmitted); and a
// commercial credit with Level III, which is answered no status.
func (g *generator) plantPlatformsAndLevel3(m *member, r *rand.Rand, at func() time.Time) {
	no, yes := false, true
	for _, b := range []int{binBusiness, binCorporatePlatform, binGovernment, binConsumerCredit} {
		m.calls = append(m.calls, g.callSet(r, at(), setSale, callOpts{bin: b, level3: &no})...)
	}
	m.calls = append(m.calls, g.callSet(r, at(), setSale, callOpts{bin: binGovernment, level3: &yes, l3Status: "Y"})...)
	m.calls = append(m.calls, g.callSet(r, at(), setAuthCapture, callOpts{bin: binConsumerCredit, level3: &no, l3Status: "N"})...)
	m.calls = append(m.calls, g.callSet(r, at(), setAuthCapture, callOpts{bin: binGovernment, level3: &no, l3Status: "N"})...)
	m.calls = append(m.calls, g.callSet(r, at(), setAuthCapture, callOpts{bin: binBusiness, level3: &yes, l3Status: "N"})...)
	m.calls = append(m.calls, g.callSet(r, at(), setCredit, callOpts{bin: binCorporatePlatform, level3: &yes, l3Status: "N"})...)
}

// paymentStatusCITs are the statuses of an authorization's or sale's
// answer (SDK model PtsV2PaymentsPost201Response) that do not approve it:
// a CIT answered one of them stored no card, so the MIT that follows is
// mit_without_prior_cit; and one that does (PARTIAL_AUTHORIZED), whose
// MIT is no finding.
var paymentStatusCITs = []string{"PENDING_AUTHENTICATION", "PENDING_REVIEW", "AUTHORIZED_PENDING_REVIEW",
	"AUTHORIZED_RISK_DECLINED", "PARTIAL_AUTHORIZED"}

// plantPaymentStatuses plants a CIT answered each of paymentStatusCITs,
// each followed by an MIT on its card, and a contactless sale at one
// terminal answered each status the SDK lists (terminal_activity counts
// them by what they mean).
func (g *generator) plantPaymentStatuses(m *member, r *rand.Rand, at func() time.Time) {
	for _, st := range paymentStatusCITs {
		calls := g.credentialed(r, at(), mitNormal)
		calls[0].x.status = st // the CIT
		m.calls = append(m.calls, calls...)
	}
	terminal := "TRM-" + alnum(r, 6)
	for _, st := range append([]string{"AUTHORIZED"}, paymentStatusCITs...) {
		c := g.contactless(r, at(), terminal)
		c.x.status = st
		m.calls = append(m.calls, c)
	}
}

// plantHealthcareTypes plants healthcare payments with the amount types
// of the SDK's list (Ptsv2paymentsHealthCareInformationAmountDetails)
// that the generated ones do not use, none of them a finding: on the
// Mastercard health card eligible-total (the total) alone, and with a
// prescription part (the two are not added: their sum is above the total
// without either being so); on the Visa health card healthcare-transit (a
// part, sent alone).
func (g *generator) plantHealthcareTypes(m *member, r *rand.Rand, at func() time.Time) {
	add := func(bin int, health func(amount int64) []healthAmount) {
		cd := newCard(r, bin, false)
		amount := approvedAmount(r, 2000, 40000)
		c := g.areaCall(r, callSale, at(), &cd, amount, "USD")
		c.x.health = health(amount)
		m.calls = append(m.calls, c)
	}
	add(binHealthMastercard, func(a int64) []healthAmount { return []healthAmount{{"eligible-total", a}} })
	add(binHealthMastercard, func(a int64) []healthAmount {
		return []healthAmount{{"eligible-total", a}, {"prescription", a * 60 / 100}}
	})
	add(binHealth, func(a int64) []healthAmount { return []healthAmount{{"healthcare-transit", a * 70 / 100}} })
}

// statusOutcome is what the status of an authorization's or sale's answer
// means: the product's classification (payment_status_outcome in
// queries/views.sql), from the SDK's list of statuses.
func statusOutcome(status string) string {
	switch status {
	case "AUTHORIZED", "PARTIAL_AUTHORIZED":
		return "approved"
	case "AUTHORIZED_PENDING_REVIEW", "PENDING_REVIEW", "PENDING_AUTHENTICATION", "PENDING":
		return "pending"
	case "DECLINED", "AUTHORIZED_RISK_DECLINED", "INVALID_REQUEST", "FAILED":
		return "declined"
	}
	return "unknown"
}
