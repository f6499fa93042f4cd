package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var readFile = os.ReadFile

// panLike finds digit runs of 13 to 19 digits not part of a longer run.
var panLike = regexp.MustCompile(`(^|[^0-9])([0-9]{13,19})([^0-9]|$)`)

func panRuns(b []byte) []string {
	var out []string
	for _, m := range panLike.FindAllSubmatch(b, -1) {
		out = append(out, string(m[2]))
	}
	return out
}

// cents reads an amount as minor units of its currency, whose decimals
// it is written with: "12.34" (USD) 1234, "12.345" (KWD) 12345, "1000"
// (JPY) 1000.
func cents(t *testing.T, s string) int64 {
	t.Helper()
	if s == "" {
		return 0
	}
	whole, frac, dot := strings.Cut(s, ".")
	w, err1 := strconv.ParseInt(whole+frac, 10, 64)
	if err1 != nil || (dot && len(frac) != 2 && len(frac) != 3) || (!dot && strings.HasPrefix(whole, "0") && whole != "0") {
		t.Fatalf("amount %q", s)
	}
	return w
}

type tJournalLine struct {
	Time, MerchantID, Method, Path string
	Status                         int
	Request                        map[string]any
	Response                       map[string]any
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// readJournals parses every journal file; rejects holds the lines that do
// not parse or lack merchantId, by file and line.
func readJournals(t *testing.T, paths []string) (lines map[string]tJournalLine, rejects map[string]string, raw map[string][]byte) {
	lines, rejects, raw = map[string]tJournalLine{}, map[string]string{}, map[string][]byte{}
	for _, p := range paths {
		b, err := readFile(p)
		if err != nil {
			t.Fatal(err)
		}
		raw[filepath.Base(p)] = b
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			key := fmt.Sprintf("%s:%d", filepath.Base(p), n)
			var l tJournalLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				rejects[key] = sc.Text()
				continue
			}
			if l.MerchantID == "" || l.Path == "" || l.Status == 0 {
				rejects[key] = sc.Text()
				continue
			}
			id, _ := l.Response["id"].(string)
			lines[id] = l
		}
	}
	return lines, rejects, raw
}

func TestEveryKindInsideTheWindow(t *testing.T) {
	for _, lookback := range []int{-1, 0} { // a lookback of 0 days and the default 3
		s, err := New(Config{Seed: 7, BusinessDate: testDate, Lookback: lookback})
		if err != nil {
			t.Fatal(err)
		}
		gt, err := s.GroundTruth()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range Kinds() {
			// A session must be older than a day at the cut-off to be
			// stale: with no lookback the window holds none.
			if len(gt.Findings[k]) == 0 && !(k == KindBNPLSessionStale && s.Config().Lookback == 0) {
				t.Errorf("lookback %d: no %s", s.Config().Lookback, k)
			}
		}
		for k, list := range gt.Findings {
			for i := 1; i < len(list); i++ {
				a, b := list[i-1], list[i]
				if a.MerchantID > b.MerchantID || (a.MerchantID == b.MerchantID && a.EntityID >= b.EntityID) {
					t.Errorf("%s not sorted at %d", k, i)
				}
			}
		}
	}
}

// TestGroundTruthThroughHTTP checks, entity by entity, that what the
// ground truth says is what a client reads through the API and journals.
func TestGroundTruthThroughHTTP(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	w0, _ := time.Parse(time.RFC3339, gt.WindowStart)
	w1, _ := time.Parse(time.RFC3339, gt.WindowEnd)
	if !w1.Equal(testDate.AddDate(0, 0, 1)) || !w0.Equal(testDate.AddDate(0, 0, -3)) {
		t.Fatalf("window %s..%s", gt.WindowStart, gt.WindowEnd)
	}
	inWindow := func(s string) bool {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return !tm.Before(w0) && tm.Before(w1)
	}
	truth := map[string]map[string]Finding{} // kind -> mid/entity -> finding
	for k, list := range gt.Findings {
		truth[k] = map[string]Finding{}
		for _, f := range list {
			truth[k][f.MerchantID+"/"+f.EntityID] = f
		}
	}
	found := map[string]int{}
	paths, err := s.WriteJournals(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	journal, _, _ := readJournals(t, paths)
	binCache := map[string]string{}
	lookupBin := func(prefix string) string {
		if v, ok := binCache[prefix]; ok {
			return v
		}
		binCache[prefix] = c.binLookup(cardLookup(prefix))
		return binCache[prefix]
	}

	for _, mid := range s.Members() {
		billingThroughHTTP(t, c, mid, w0, w1, truth, found)
		areasThroughHTTP(t, c, mid, w0, w1, truth, found, journal, lookupBin)
		retriesThroughHTTP(t, c, mid, w0, w1, truth, found, journal)
		disputesThroughHTTP(t, c, mid, w0, w1, truth, found)
		txns := c.searchAll(mid, w0, w1, 2000)
		searched := map[string]bool{}
		for _, s := range txns {
			searched[s.ID] = true
		}
		// Subscription states.
		for _, sub := range c.subscriptions(mid) {
			key := mid + "/" + sub.ID
			st := sub.SubscriptionInformation.Status
			_, del := truth[KindSubscriptionDelinquent][key]
			_, sus := truth[KindSubscriptionSuspended][key]
			if del != (st == subDelinquent) || sus != (st == subSuspended) {
				t.Errorf("%s: status %s, truth delinquent %v suspended %v", key, st, del, sus)
			}
			if del {
				found[KindSubscriptionDelinquent]++
			}
			if sus {
				found[KindSubscriptionSuspended]++
			}
			pays, skip := c.payments(mid, sub.ID)
			skipped := map[int]bool{}
			for _, cy := range skip {
				skipped[cy] = true
			}
			scheduledAfter := false
			for _, p := range pays {
				pk := mid + "/" + p.ID
				cycle, _ := strconv.Atoi(p.BillingCycle)
				if f, ok := truth[KindSkippedCycle][pk]; ok {
					found[KindSkippedCycle]++
					if p.Status != paySkipped || !skipped[cycle] || f.Amount != p.BillingAmount || f.Currency != p.Currency {
						t.Errorf("skipped_cycle %s: payment %+v, truth %+v, billingCyclesToSkip %v", pk, p, f, skip)
					}
				} else if p.Status == paySkipped {
					t.Errorf("%s is SCHEDULED_SKIPPED but not in the truth", pk)
				}
				if p.Status == payScheduled || p.Status == paySkipped {
					scheduledAfter = true
				}
				if p.Status == paySkipped && st != subActive {
					t.Errorf("%s skipped on a %s subscription", pk, st)
				}
			}
			if scheduledAfter && (st == subSuspended || st == subCancelled || st == subCompleted) {
				t.Errorf("%s: %s subscription has scheduled payments", key, st)
			}
			if st == subDelinquent {
				last := pays[0]
				for _, p := range pays {
					if p.Status == payPaid || p.Status == payFailed {
						last = p
					}
				}
				if last.Status != payFailed {
					t.Errorf("%s: DELINQUENT but last processed payment is %s", key, last.Status)
				}
			}

			// Paid payments in the window against Transaction Search.
			for _, p := range pays {
				if p.Status != payPaid || !inWindow(p.Date) {
					continue
				}
				pk := mid + "/" + p.ID
				want := cents(t, p.BillingAmount) + cents(t, p.SetupFee) + cents(t, p.SurchargeAmount)
				var detail struct {
					OrderInformation struct {
						AmountDetails struct{ TotalAmount, Currency string }
					}
				}
				if f, ok := truth[KindPaidWithoutTransaction][pk]; ok {
					found[KindPaidWithoutTransaction]++
					if searched[p.TransactionID] {
						t.Errorf("paid_without_transaction %s: transaction %s found by search", pk, p.TransactionID)
					}
					c.call("GET", "/tss/v2/transactions/"+p.TransactionID, mid, nil, 404, nil)
					if cents(t, f.Amount) != want || f.Currency != p.Currency {
						t.Errorf("paid_without_transaction %s: truth %+v, want %d %s", pk, f, want, p.Currency)
					}
					continue
				}
				if !searched[p.TransactionID] {
					t.Errorf("%s: transaction %s of a PAID payment missing from the search", pk, p.TransactionID)
				}
				c.call("GET", "/tss/v2/transactions/"+p.TransactionID, mid, nil, 200, &detail)
				got := detail.OrderInformation.AmountDetails
				differs := cents(t, got.TotalAmount) != want || got.Currency != p.Currency
				if f, ok := truth[KindAmountMismatch][pk]; ok {
					found[KindAmountMismatch]++
					if !differs || cents(t, f.Amount) != want || f.Currency != p.Currency {
						t.Errorf("amount_mismatch %s: truth %+v, transaction %+v, expected %d %s", pk, f, got, want, p.Currency)
					}
				} else if differs {
					t.Errorf("%s: transaction %+v differs from %d %s but is not in the truth", pk, got, want, p.Currency)
				}
			}
		}

		// BINs of the transactions in the window.
		byPrefix := map[string][]tSummary{}
		for _, s := range txns {
			if s.PaymentInformation.Card.Prefix == "" {
				continue // a buy-now-pay-later payment: no card
			}
			byPrefix[s.PaymentInformation.Card.Prefix] = append(byPrefix[s.PaymentInformation.Card.Prefix], s)
		}
		for prefix, list := range byPrefix {
			res := lookupBin(prefix)
			if strings.HasPrefix(res, "COMPLETED") {
				continue
			}
			resolved := false
			for _, s := range list {
				if s.PaymentInformation.Customer != nil &&
					strings.HasPrefix(c.binLookup(tokenLookup("customer", s.PaymentInformation.Customer.CustomerID)), "COMPLETED") {
					resolved = true
				}
			}
			_, inTruth := truth[KindBinUnresolved][mid+"/"+prefix]
			if inTruth == resolved {
				t.Errorf("bin %s of %s: lookup %s, resolved by token %v, in truth %v", prefix, mid, res, resolved, inTruth)
			}
			if inTruth {
				found[KindBinUnresolved]++
				if res != "MULTIPLE" && res != "NO MATCH" {
					t.Errorf("bin_unresolved %s looks up %s", prefix, res)
				}
			}
		}

		// Journal-based kinds: both directions over the member's journal.
		for id, l := range journal {
			if l.MerchantID != mid || !inWindow(l.Time) || !isPaymentCall(l.Path) {
				continue
			}
			capture := strings.HasSuffix(l.Path, "/captures")
			sale := l.Path == "/pts/v2/payments" && dig(l.Request, "processingInformation", "capture") == true
			credit := l.Path == "/pts/v2/credits"
			l3 := dig(l.Request, "processingInformation", "purchaseLevel") == "3"
			items, _ := dig(l.Request, "orderInformation", "lineItems").([]any)
			status := dig(l.Response, "orderInformation", "invoiceDetails", "level3TransmissionStatus")
			amount := dig(l.Request, "orderInformation", "amountDetails", "totalAmount")
			currency := dig(l.Request, "orderInformation", "amountDetails", "currency")
			sentL3 := l3 || len(items) > 0
			// level3_not_transmitted: Level III sent, N back. N on a call
			// that sent none means only that none was sent (the SDK's
			// level3TransmissionStatus), and credits are answered none.
			notTransmitted := (capture || sale) && sentL3 && (status == "N" || status == false)
			if credit && status != nil || (capture || sale) && sentL3 && status == nil {
				t.Errorf("%s: level3TransmissionStatus %v on a credit %v with purchaseLevel %v, %d items", id, status, credit, l3, len(items))
			}
			if f, ok := truth[KindLevel3NotTransmitted][mid+"/"+id]; ok != notTransmitted {
				t.Errorf("%s: status %v, in level3_not_transmitted %v", id, status, ok)
			} else if ok {
				found[KindLevel3NotTransmitted]++
				if f.Amount != amount || f.Currency != currency || !l3 || len(items) == 0 {
					t.Errorf("level3_not_transmitted %s: truth %+v, request %v %v", id, f, amount, currency)
				}
			}
			var detail tSummary
			c.call("GET", "/tss/v2/transactions/"+id, mid, nil, 200, &detail)
			commercial := false
			if p := detail.PaymentInformation.Card.Prefix; p != "" {
				switch lookupBin(p) {
				case "COMPLETED/BUSINESS", "COMPLETED/CORPORATE", "COMPLETED/COMMERCIAL", "COMPLETED/GOVERNMENT":
					commercial = true
				}
			}
			flag := (capture || sale) && commercial && !l3 && len(items) == 0
			if f, ok := truth[KindCommercialCardWithoutLevel3][mid+"/"+id]; ok != flag {
				t.Errorf("%s: capture %v sale %v commercial %v level3 %v, in commercial_card_without_level3 %v", id, capture, sale, commercial, l3, ok)
			} else if ok {
				found[KindCommercialCardWithoutLevel3]++
				if f.Amount != amount || f.Currency != currency || (status != nil && status != "N") {
					t.Errorf("commercial_card_without_level3 %s: truth %+v, request %v %v, status %v", id, f, amount, currency, status)
				}
			}
		}
	}
	settlementThroughHTTP(t, c, gt, w0, w1, truth, found)
	for _, k := range Kinds() {
		if found[k] != len(gt.Findings[k]) {
			t.Errorf("%s: truth lists %d, the API shows %d", k, len(gt.Findings[k]), found[k])
		}
	}
}

func TestJournals(t *testing.T) {
	s, err := New(Config{Seed: 7, BusinessDate: testDate})
	if err != nil {
		t.Fatal(err)
	}
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := s.WriteJournals(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(s.Members()) {
		t.Fatalf("%d journals for %d members", len(paths), len(s.Members()))
	}
	lines, rejects, raw := readJournals(t, paths)
	want := map[string]string{}
	for _, r := range gt.JournalRejects {
		want[fmt.Sprintf("%s:%d", r.File, r.Line)] = r.Reason
	}
	if len(rejects) != len(want) || len(want) != 2 {
		t.Fatalf("rejects %v, want %v", rejects, want)
	}
	for key, text := range rejects {
		reason, ok := want[key]
		if !ok {
			t.Errorf("unplanned reject %s: %s", key, text)
		}
		if reason == "invalid JSON" && !strings.Contains(text, "4111111111111111") {
			t.Errorf("invalid line holds no full card number: %s", text)
		}
	}
	for _, l := range lines {
		if l.Method != "POST" || l.Status != 201 || l.Response["id"] == nil {
			t.Fatalf("line %+v", l)
		}
	}
	for i, p := range paths {
		b := raw[filepath.Base(p)]
		careless := i%carelessEvery == 0
		for _, run := range panRuns(b) {
			if !careless && !(i == 0 && run == "4111111111111111") {
				t.Errorf("%s: %s looks like a card number", filepath.Base(p), run)
			}
			if careless && !luhnValid(run) {
				t.Errorf("%s: a %d-digit run that is not a card number: %s", filepath.Base(p), len(run), run)
			}
		}
		sawFull := false
		for _, l := range lines {
			if l.MerchantID != memberID(i) {
				continue
			}
			num, _ := dig(l.Request, "paymentInformation", "card", "number").(string)
			if num == "" {
				num, _ = dig(l.Request, "paymentInformation", "tokenizedCard", "number").(string)
			}
			if num == "" {
				if !carriesNoCardNumber(l) {
					t.Errorf("%s: no card number on %s", memberID(i), l.Path)
				}
				continue
			}
			if careless {
				if !luhnValid(num) {
					t.Errorf("%s: careless member logged %q", memberID(i), num)
				}
				sawFull = true
			} else if !strings.Contains(num, "XXXX") || luhnValid(num) {
				t.Errorf("%s: careful member logged %q", memberID(i), num)
			}
		}
		if careless && !sawFull {
			t.Errorf("%s: careless but no full card number", memberID(i))
		}
	}
}

// TestIdentifiersAreNotCardNumbers scans API answers for 13-19 digit runs.
func TestIdentifiersAreNotCardNumbers(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 5})
	mid := memberID(1)
	check := func(path string, body any) {
		resp, b, err := c.do(map[bool]string{true: "POST", false: "GET"}[body != nil], path, mid, body)
		if err != nil || resp.StatusCode >= 300 {
			t.Fatalf("%s: %v %v", path, err, resp)
		}
		if runs := panRuns(b); len(runs) > 0 {
			t.Errorf("%s: card-number-like runs %v", path, runs[:min(3, len(runs))])
		}
	}
	subs := c.subscriptions(mid)
	check("/rbs/v1/plans?limit=100", nil)
	check("/rbs/v1/subscriptions?limit=100", nil)
	check("/rbs/v1/subscriptions/"+subs[0].ID, nil)
	check("/rbs/v1/subscriptions/"+subs[0].ID+"/payments?limit=100&scheduledPaymentsCount=9999", nil)
	check("/tss/v2/searches", map[string]any{"query": "submitTimeUtc:[* TO *]", "limit": 2000})
	txns := c.searchAll(mid, testDate.AddDate(0, 0, -3), testDate.AddDate(0, 0, 1), 100)
	check("/tss/v2/transactions/"+txns[0].ID, nil)
}

func TestBinLookup(t *testing.T) {
	_, c := newTestServer(t, Config{Seed: 1})
	pan := func(prefix string, n int) string {
		d := []byte(prefix)
		for len(d) < n-1 {
			d = append(d, '3')
		}
		return string(append(d, luhnDigit(d)))
	}
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{cardLookup("411111"), "COMPLETED/CONSUMER"},
		{cardLookup("55554412"), "COMPLETED/COMMERCIAL"},
		{cardLookup("448590"), "COMPLETED/COMMERCIAL"},
		{cardLookup(pan("378282", 15)), "COMPLETED/CONSUMER"},
		{cardLookup("431940"), "MULTIPLE"},
		{cardLookup("4319401"), "MULTIPLE"},
		{cardLookup("43194012"), "COMPLETED/CONSUMER"},
		{cardLookup(pan("431940", 16)), "COMPLETED/CONSUMER"},
		{cardLookup("520082"), "MULTIPLE"},
		{cardLookup(pan("520082", 16)), "MULTIPLE"},
		{cardLookup("601179"), "NO MATCH"},
		{cardLookup("999999"), "NO MATCH"},
		{tokenLookup("customer", strings.Repeat("AB", 16)), "NO MATCH"},
		{tokenLookup("instrumentIdentifier", "nonsense"), "NO MATCH"},
	} {
		if got := c.binLookup(tc.body); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.body, got, tc.want)
		}
	}
	// A token of a card on the resolvable MULTIPLE BIN resolves, whatever
	// merchant asks.
	for _, sub := range c.subscriptions(memberID(0)) {
		if got := c.binLookup(tokenLookup("customer", sub.PaymentInformation.Customer.ID)); !strings.HasPrefix(got, "COMPLETED") {
			t.Errorf("subscription token %s: %s", sub.PaymentInformation.Customer.ID, got)
		}
	}
	for _, bad := range []map[string]any{
		cardLookup("4111111111111112"), cardLookup("41111"), cardLookup("41111a"), {},
		{"paymentInformation": map[string]any{"card": map[string]any{"number": "411111"}, "customer": map[string]any{"id": "X"}}},
	} {
		c.call("POST", "/bin/v1/binlookup", memberID(0), bad, 400, nil)
	}
}
