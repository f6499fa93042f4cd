package sandbox

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// isPaymentCall: a journal line whose answer is a transaction (not a
// buy-now-pay-later session, not an installment plan call).
func isPaymentCall(path string) bool {
	return strings.HasPrefix(path, "/pts/v2/") && path != "/pts/v2/payment-references"
}

// carriesNoCardNumber: a call that pays with no card number of its own: a
// follow-on, a token, wallet data, buy-now-pay-later, an installment plan.
func carriesNoCardNumber(l tJournalLine) bool {
	if !isPaymentCall(l.Path) || strings.Contains(l.Path, "/captures") || strings.Contains(l.Path, "/reversals") || strings.HasSuffix(l.Path, "/refunds") {
		return true
	}
	pi := dig(l.Request, "paymentInformation")
	return dig(pi, "customer", "id") != nil || dig(pi, "fluidData") != nil || dig(pi, "paymentType", "name") == "INVOICE"
}

func jstr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func jtime(t *testing.T, s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return tm
}

// line is a journal line with what the checks below read of it.
type line struct {
	tJournalLine
	id   string
	time time.Time
}

func (l line) req(path ...string) string  { return jstr(dig(l.Request, path...)) }
func (l line) resp(path ...string) string { return jstr(dig(l.Response, path...)) }
func (l line) amount() string             { return l.req("orderInformation", "amountDetails", "totalAmount") }
func (l line) currency() string           { return l.req("orderInformation", "amountDetails", "currency") }
func (l line) initiator() string {
	return strings.ToLower(l.req("processingInformation", "authorizationOptions", "initiator", "type"))
}
func (l line) mit(field string) string {
	return l.req("processingInformation", "authorizationOptions", "initiator", "merchantInitiatedTransaction", field)
}
func (l line) authOrSale() bool {
	return l.Path == "/pts/v2/payments" && l.req("paymentInformation", "paymentType", "name") == ""
}
func (l line) captureSaleCredit() bool {
	return (strings.HasSuffix(l.Path, "/captures") || l.Path == "/pts/v2/credits" ||
		l.Path == "/pts/v2/payments" && dig(l.Request, "processingInformation", "capture") == true)
}
func (l line) actions() []string {
	var out []string
	list, _ := dig(l.Request, "processingInformation", "actionList").([]any)
	for _, a := range list {
		out = append(out, jstr(a))
	}
	return out
}
func (l line) storesCredential() bool {
	return l.authOrSale() && l.initiator() == "customer" && approvedStatus(l.resp("status")) &&
		(dig(l.Request, "processingInformation", "authorizationOptions", "initiator", "credentialStoredOnFile") == true ||
			slicesContains(l.actions(), "TOKEN_CREATE"))
}

func slicesContains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// areasThroughHTTP checks the payments audit's kinds of one member, both
// ways, against a second reading of the definitions over what a client
// sees: the member's journal, Transaction Search and BIN lookups.
func areasThroughHTTP(t *testing.T, c *tclient, mid string, w0, w1 time.Time, truth map[string]map[string]Finding,
	found map[string]int, journal map[string]tJournalLine, _ func(string) string) {
	t.Helper()
	var lines []line
	for id, l := range journal {
		if l.MerchantID == mid {
			lines = append(lines, line{tJournalLine: l, id: id, time: jtime(t, l.Time)})
		}
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].time.Before(lines[j].time) })
	in := func(tm time.Time) bool { return !tm.Before(w0) && tm.Before(w1) }
	lookups := map[string]binFeaturesJSON{}
	features := func(prefix string) binFeaturesJSON {
		if f, ok := lookups[prefix]; ok {
			return f
		}
		var out struct {
			Status                    string
			PaymentAccountInformation struct{ Features binFeaturesJSON }
		}
		c.call("POST", "/bin/v1/binlookup", mid, cardLookup(prefix), 201, &out)
		lookups[prefix] = out.PaymentAccountInformation.Features
		return lookups[prefix]
	}
	cards := map[string]string{}
	cardOf := func(l line) string { // BIN + last 4, from the call or its transaction
		if n := l.req("paymentInformation", "card", "number"); n != "" {
			return n[:6] + n[len(n)-4:]
		}
		if n := l.req("paymentInformation", "tokenizedCard", "number"); n != "" {
			return n[:6] + n[len(n)-4:]
		}
		if v, ok := cards[l.id]; ok {
			return v
		}
		var d tSummary
		c.call("GET", "/tss/v2/transactions/"+l.id, mid, nil, 200, &d)
		cards[l.id] = d.PaymentInformation.Card.Prefix + d.PaymentInformation.Card.Suffix
		return cards[l.id]
	}
	got := map[string]map[string]string{} // kind -> entity -> amount
	flag := func(kind, entity, amount string) {
		if got[kind] == nil {
			got[kind] = map[string]string{}
		}
		got[kind][entity] = amount
	}
	rateAbove1 := func(v any) bool { f, err := strconv.ParseFloat(jstr(v), 64); return err == nil && f > 1 }
	for _, l := range lines {
		if !in(l.time) {
			continue
		}
		if l.captureSaleCredit() && l.req("processingInformation", "purchaseLevel") == "3" {
			bad := false
			items, _ := dig(l.Request, "orderInformation", "lineItems").([]any)
			bad = len(items) == 0
			for _, it := range items {
				for _, f := range level3ItemFields {
					bad = bad || strings.TrimSpace(jstr(dig(it, f))) == ""
				}
				bad = bad || rateAbove1(dig(it, "discountRate"))
				taxes, _ := dig(it, "taxDetails").([]any)
				for _, tx := range taxes {
					bad = bad || rateAbove1(dig(tx, "rate"))
				}
			}
			taxes, _ := dig(l.Request, "orderInformation", "amountDetails", "taxDetails").([]any)
			for _, tx := range taxes {
				bad = bad || rateAbove1(dig(tx, "rate"))
			}
			if bad {
				flag(KindLevel3Incomplete, l.id, l.amount())
			}
		}
		if l.captureSaleCredit() && l.req("orderInformation", "invoiceDetails", "purchaseOrderNumber") == "" {
			if card := cardOf(l); card != "" && strings.Contains(strings.ToLower(features(card[:6]).CardProduct), "purchas") {
				flag(KindLevel2MissingPO, l.id, l.amount())
			}
		}
		if l.authOrSale() {
			if _, ok := dig(l.Request, "healthCareInformation", "amountDetails").([]any); !ok && features(cardOf(l)[:6]).HealthCard {
				flag(KindHealthcareCardWithoutAmounts, l.id, l.amount())
			}
			var h, d int64
			list, _ := dig(l.Request, "healthCareInformation", "amountDetails").([]any)
			for _, e := range list {
				n := cents(t, jstr(dig(e, "amount")))
				if typ := jstr(dig(e, "amountType")); typ == "healthcare" || typ == "eligible-total" {
					h += n
				} else {
					d += n
				}
			}
			if max(h, d) > cents(t, l.amount()) {
				flag(KindHealthcareAmountsExceedTotal, l.id, l.amount())
			}
		}
		if l.authOrSale() && l.initiator() == "merchant" {
			if l.mit("reason") == "" {
				flag(KindMITMissingReason, l.id, l.amount())
			}
			prev := l.mit("previousTransactionId")
			if prev == "" {
				flag(KindMITMissingPreviousTransaction, l.id, l.amount())
			}
			// cit: the latest earlier CIT that stored the card; last: the
			// latest earlier successful transaction of the credential (the
			// call prev names, an MIT naming prev too, a CIT or MIT on the
			// same card).
			var cit, last *line
			for i := range lines {
				p := &lines[i]
				if !p.time.Before(l.time) {
					break
				}
				if p.storesCredential() && cardOf(*p) == cardOf(l) {
					cit = p
				}
				named := prev != "" && (p.id == prev || p.resp("processorInformation", "networkTransactionId") == prev)
				chain := prev != "" && p.authOrSale() && p.initiator() == "merchant" && p.mit("previousTransactionId") == prev
				card := p.authOrSale() && p.initiator() != "" && cardOf(*p) == cardOf(l)
				st := p.resp("status")
				ok := st != "DECLINED" && st != "FAILED"
				if p.authOrSale() {
					ok = approvedStatus(st)
				}
				if (named || chain || card) && p.Status/100 == 2 && ok {
					last = p
				}
			}
			if cit == nil {
				flag(KindMITWithoutPriorCIT, l.id, l.amount())
			}
			if strings.EqualFold(l.req("processingInformation", "commerceIndicator"), "recurring") && last != nil &&
				last.time.Before(l.time.AddDate(-1, 0, 0)) {
				flag(KindRecurringIntervalOverYear, l.id, l.amount())
			}
		}
		bnplAuth := l.Path == "/pts/v2/payments" && slicesContains(l.actions(), "AP_AUTH")
		if l.Path == "/pts/v2/payment-references" || bnplAuth {
			country := l.req("orderInformation", "billTo", "country")
			if !supportedPair(country, l.currency()) {
				flag(KindBNPLUnsupportedCountryCurrency, l.id, l.amount())
			}
		}
		if l.Path == "/pts/v2/payment-references" && l.resp("status") == "PENDING" && l.time.Before(w1.Add(-24*time.Hour)) {
			used := false
			for _, a := range lines {
				st := a.resp("status")
				used = used || a.req("processorInformation", "preApprovalToken") == l.resp("processorInformation", "token") &&
					(st == "AUTHORIZED" || st == "PENDING") && a.time.Before(w1)
			}
			if !used {
				flag(KindBNPLSessionStale, l.id, l.amount())
			}
		}
		if bnplAuth && l.resp("status") == "AUTHORIZED" {
			followed := false
			for _, f := range lines {
				followed = followed || (f.Path == "/pts/v2/payments/"+l.id+"/captures" || f.Path == "/pts/v2/payments/"+l.id+"/reversals") && f.time.Before(w1)
			}
			if !followed {
				flag(KindBNPLAuthorizedNotCaptured, l.id, l.amount())
			}
		}
	}
	// Installment plans, over the whole journal up to the cut-off.
	for _, acc := range lines {
		if !strings.HasPrefix(acc.Path, "/fin/v1/plan-acceptance") || strings.Contains(acc.Path, "cancel") || !acc.time.Before(w1) {
			continue
		}
		nti := acc.req("processingInformation", "authorizationOptions", "networkTransactionId")
		planID := acc.resp("installmentInformation", "id")
		var auth *line
		for i := range lines {
			if lines[i].authOrSale() && lines[i].resp("processorInformation", "networkTransactionId") == nti {
				auth = &lines[i]
			}
		}
		if auth == nil {
			t.Errorf("plan %s: no authorization with network transaction id %s in the journal", planID, nti)
			continue
		}
		var undone, cancelled bool
		var captured, refunded int64
		var last time.Time
		captures := map[string]bool{}
		for _, e := range lines {
			if !e.time.Before(w1) {
				continue
			}
			switch {
			case e.Path == "/pts/v2/payments/"+auth.id+"/captures":
				captured += cents(t, e.amount())
				captures[e.id] = true
			case e.Path == "/pts/v2/payments/"+auth.id+"/reversals":
				undone = undone || e.time.After(acc.time)
			case strings.HasSuffix(e.Path, "/refunds") && captures[strings.Split(e.Path, "/")[4]]:
				undone = undone || e.time.After(acc.time)
				refunded += cents(t, e.amount())
				last = e.time
			case strings.Contains(e.Path, "/plan-acceptance/cancel") && e.resp("installmentInformation", "id") == planID:
				if r := e.req("processingInformation", "refundOptions", "refundAmount"); r != "" {
					refunded += cents(t, r)
					last = e.time
				} else {
					cancelled = cancelled || e.time.After(acc.time)
				}
			}
		}
		if undone && !cancelled {
			flag(KindInstallmentNotCancelled, planID, auth.amount())
		}
		if refunded > captured && in(last) {
			flag(KindInstallmentRefundsExceed, planID, money(refunded-captured))
		}
	}
	// Live subscriptions charged on a prepaid card in the window.
	charged := map[string]tSummary{}
	for _, s := range c.searchAll(mid, w0, w1, 2000) {
		charged[s.ID] = s
	}
	for _, sub := range c.subscriptions(mid) {
		if st := sub.SubscriptionInformation.Status; st == subCancelled || st == subCompleted {
			continue
		}
		pays, _ := c.payments(mid, sub.ID)
		for _, p := range pays {
			if s, ok := charged[p.TransactionID]; ok && p.TransactionID != "" && s.PaymentInformation.Card.Prefix != "" &&
				features(s.PaymentInformation.Card.Prefix).AccountFundingSource == "PREPAID" {
				flag(KindPrepaidCardOnSubscription, sub.ID, "")
				break
			}
		}
	}
	for _, kind := range areaKinds() {
		for entity, amount := range got[kind] {
			f, ok := truth[kind][mid+"/"+entity]
			if !ok {
				t.Errorf("%s %s/%s: the journal and the API show it, the ground truth does not", kind, mid, entity)
				continue
			}
			found[kind]++
			if amount != "" && f.Amount != amount {
				t.Errorf("%s %s/%s: truth amount %s, the journal says %s", kind, mid, entity, f.Amount, amount)
			}
		}
		for key := range truth[kind] {
			if strings.HasPrefix(key, mid+"/") {
				if _, ok := got[kind][strings.TrimPrefix(key, mid+"/")]; !ok {
					t.Errorf("%s %s: in the ground truth, not in the journal or the API", kind, key)
				}
			}
		}
	}
}

// TestJournalAgreesWithTheAPI: every payment call of the journals is a
// transaction Transaction Search returns with its amount, and its
// answer's self link gives the answer the journal holds.
func TestJournalAgreesWithTheAPI(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	paths, err := s.WriteJournals(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	journal, _, _ := readJournals(t, paths)
	kinds := map[string]int{}
	for id, l := range journal {
		if !isPaymentCall(l.Path) {
			continue
		}
		kind := l.Path[strings.LastIndex(l.Path, "/")+1:]
		if slicesContains(jstrs(dig(l.Request, "processingInformation", "actionList")), "AP_AUTH") {
			kind = "bnpl"
		}
		kinds[kind]++
		var d struct {
			tSummary
			ProcessingInformation struct{ PaymentSolution, CommerceIndicator string }
		}
		c.call("GET", "/tss/v2/transactions/"+id, l.MerchantID, nil, 200, &d)
		want := jstr(dig(l.Request, "orderInformation", "amountDetails", "totalAmount"))
		if want == "" {
			want = jstr(dig(l.Request, "reversalInformation", "amountDetails", "totalAmount"))
		}
		if d.OrderInformation.AmountDetails.TotalAmount != want {
			t.Errorf("%s %s: transaction amount %s, journal %s", l.Path, id, d.OrderInformation.AmountDetails.TotalAmount, want)
		}
		if v := jstr(dig(l.Request, "processingInformation", "paymentSolution")); v != d.ProcessingInformation.PaymentSolution {
			t.Errorf("%s %s: payment solution %q, journal %q", l.Path, id, d.ProcessingInformation.PaymentSolution, v)
		}
		if v := jstr(dig(l.Request, "processingInformation", "commerceIndicator")); v != "" && !strings.EqualFold(v, d.ProcessingInformation.CommerceIndicator) {
			t.Errorf("%s %s: commerce indicator %q, journal %q", l.Path, id, d.ProcessingInformation.CommerceIndicator, v)
		}
		if st := jstr(dig(l.Response, "status")); st == "DECLINED" && d.Status != "DECLINED" {
			t.Errorf("%s %s: declined in the journal, %s in the search", l.Path, id, d.Status)
		}
		self := jstr(dig(l.Response, "_links", "self", "href"))
		var again map[string]any
		c.call("GET", self, l.MerchantID, nil, 200, &again)
		wantResp, _ := json.Marshal(l.Response)
		var norm map[string]any
		json.Unmarshal(wantResp, &norm)
		if !reflect.DeepEqual(again, norm) {
			t.Errorf("GET %s answers\n%v\nthe journal holds\n%v", self, again, norm)
		}
	}
	if len(kinds) < 6 {
		t.Errorf("payment calls on only %v", kinds)
	}
}

func jstrs(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		out = append(out, jstr(x))
	}
	return out
}

// plainCall: an authorization, sale, capture or credit of gen.go's shape,
// with no field of another service area.
func plainCall(l tJournalLine) bool {
	if !isPaymentCall(l.Path) || strings.HasSuffix(l.Path, "/refunds") || strings.HasSuffix(l.Path, "/reversals") {
		return false
	}
	for _, f := range [][]string{{"paymentInformation", "paymentType"}, {"healthCareInformation"},
		{"processingInformation", "authorizationOptions"}, {"processingInformation", "paymentSolution"},
		{"pointOfSaleInformation"}, {"processingInformation", "actionList"}} {
		if dig(l.Request, f...) != nil {
			return false
		}
	}
	return jstr(dig(l.Response, "status")) != "SETTLED"
}

// approvedStatus: an authorization's or sale's status that approves it,
// from the SDK's list (PtsV2PaymentsPost201Response): AUTHORIZED and
// PARTIAL_AUTHORIZED; pending, risk-declined and unknown ones do not.
func approvedStatus(s string) bool { return s == "AUTHORIZED" || s == "PARTIAL_AUTHORIZED" }
