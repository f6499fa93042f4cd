package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Decoded shapes for the billing checks (helpers_test.go's are minimal).
type tSubTerms struct {
	ID              string
	PlanInformation struct {
		BillingPeriod struct{ Length, Unit string }
		BillingCycles struct{ Total string }
	}
	SubscriptionInformation struct{ PlanID, StartDate, Status string }
	OrderInformation        struct {
		AmountDetails struct{ Currency, BillingAmount, SetupFee string }
	}
}

type tPlanTerms struct {
	ID               string
	OrderInformation struct {
		AmountDetails struct{ Currency, BillingAmount string }
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// billingThroughHTTP recomputes the billing kinds of member mid from what
// the API shows (plans, subscriptions, payment lists), checks them entity
// by entity against the ground truth, both ways, and counts them into
// found. It is called by TestGroundTruthThroughHTTP for every member.
func billingThroughHTTP(t *testing.T, c *tclient, mid string, w0, w1 time.Time, truth map[string]map[string]Finding, found map[string]int) {
	t.Helper()
	in := func(tm time.Time) bool { return !tm.Before(w0) && tm.Before(w1) }
	var planPage struct{ Plans []tPlanTerms }
	if !c.rbsNotEnabled("/rbs/v1/plans?limit=100", mid) {
		c.call("GET", "/rbs/v1/plans?limit=100", mid, nil, 200, &planPage)
	}
	plans := map[string]tPlanTerms{}
	for _, p := range planPage.Plans {
		plans[p.ID] = p
	}
	subs := allSubscriptions[tSubTerms](c, mid)
	got := map[string]Finding{} // kind/entity
	add := func(kind, entity string, amount int64, currency string) {
		got[kind+"/"+entity] = Finding{MerchantID: mid, EntityID: entity, Amount: money(amount), Currency: currency}
	}
	for _, sub := range subs {
		unit, length := sub.PlanInformation.BillingPeriod.Unit[0], atoi(sub.PlanInformation.BillingPeriod.Length)
		total, status := atoi(sub.PlanInformation.BillingCycles.Total), sub.SubscriptionInformation.Status
		amount, cur := cents(t, sub.OrderInformation.AmountDetails.BillingAmount), sub.OrderInformation.AmountDetails.Currency
		start := mustTime(t, sub.SubscriptionInformation.StartDate)
		pays, _ := c.payments(mid, sub.ID)
		type pay struct {
			tPayment
			at     time.Time
			number int
			total  int64
		}
		byCycle := map[int][]pay{}
		var processed []pay
		last := 0
		for _, p := range pays {
			q := pay{p, mustTime(t, p.Date), atoi(p.PaymentNumber),
				cents(t, p.BillingAmount) + cents(t, p.SetupFee) + cents(t, p.SurchargeAmount)}
			cy := atoi(p.BillingCycle)
			byCycle[cy] = append(byCycle[cy], q)
			switch p.Status {
			case payPaid, payFailed:
				processed = append(processed, q)
				last = max(last, cy)
			case payPastSkipped:
				last = max(last, cy)
			}
			if p.Status == payPaid && in(q.at) {
				pl, ok := plans[sub.SubscriptionInformation.PlanID]
				onPlan := ok && p.BillingAmount == pl.OrderInformation.AmountDetails.BillingAmount && p.Currency == pl.OrderInformation.AmountDetails.Currency
				if !(cents(t, p.BillingAmount) == amount && p.Currency == cur) && !onPlan {
					add(KindPlanAmountMismatch, p.ID, cents(t, p.BillingAmount), p.Currency)
				}
			}
		}
		sorted := func(ps []pay) []pay {
			ps = append([]pay{}, ps...)
			sort.SliceStable(ps, func(i, j int) bool {
				if !ps[i].at.Equal(ps[j].at) {
					return ps[i].at.Before(ps[j].at)
				}
				return ps[i].number < ps[j].number
			})
			return ps
		}
		for cy := 1; total == 0 || cy <= total; cy++ {
			if !addPeriods(start, unit, length, cy-1).Before(w1) {
				break
			}
			expected := status == subActive || status == subDelinquent || status == subCompleted || status == subPending ||
				((status == subSuspended || status == subCancelled) && cy <= last)
			if expected && len(byCycle[cy]) == 0 {
				fee := int64(0)
				if cy == 1 {
					fee = cents(t, sub.OrderInformation.AmountDetails.SetupFee)
				}
				add(KindMissedCycle, sub.ID+":"+strconv.Itoa(cy), amount+fee, cur)
			}
		}
		for cy, list := range byCycle {
			list = sorted(list)
			var paid, retries []pay
			var base *pay
			for i, p := range list {
				if p.Status == payPaid {
					paid = append(paid, p)
				}
				if base == nil && p.PaymentType == payStandard && p.Status == payFailed {
					base = &list[i]
				}
				if p.PaymentType == payRetry && (p.Status == payPaid || p.Status == payFailed) {
					retries = append(retries, p)
				}
			}
			entity := sub.ID + ":" + strconv.Itoa(cy)
			if len(paid) > 1 {
				var extra int64
				inWindow := false
				for _, p := range paid[1:] {
					extra += p.total
					inWindow = inWindow || in(p.at)
				}
				if inWindow {
					add(KindDoubleCharge, entity, extra, paid[1].Currency)
				}
			}
			if base == nil || len(retries) == 0 {
				continue
			}
			limit, every := retrySchedule(unit)
			breach, retryIn, prev := len(retries) > limit, false, base.at
			for _, r := range retries {
				if d := r.at.Sub(prev) - every; d > every/10 || d < -every/10 {
					breach = true
				}
				prev, retryIn = r.at, retryIn || in(r.at)
			}
			if breach && retryIn {
				add(KindRetryScheduleBreach, entity, base.total, base.Currency)
			}
			if len(retries) >= limit && len(paid) == 0 && in(retries[len(retries)-1].at) {
				add(KindRetriesExhausted, entity, base.total, base.Currency)
			}
		}
		if status != subCancelled && status != subCompleted {
			processed = sorted(processed)
			gap := len(processed) >= 2 && processed[len(processed)-1].at.After(twelveMonthsAfter(processed[len(processed)-2].at, start.Day()))
			if !withinAYear(unit, length) || gap {
				add(KindIntervalExceeds12Months, sub.ID, amount, cur)
			}
		}
	}
	for _, kind := range billingKinds() {
		for key, f := range truth[kind] {
			if f.MerchantID != mid {
				continue
			}
			if g, ok := got[kind+"/"+f.EntityID]; !ok || g != f {
				t.Errorf("%s %s: the ground truth has %+v, the API shows %+v", kind, key, f, g)
			}
		}
	}
	for key, g := range got {
		kind := key[:len(key)-len(g.EntityID)-1]
		if f, ok := truth[kind][mid+"/"+g.EntityID]; !ok || f != g {
			t.Errorf("%s %s/%s: the API shows %+v, the ground truth has %+v", kind, mid, g.EntityID, g, f)
			continue
		}
		found[kind]++
	}
}

// TestBillingMatchThroughHTTP recomputes the three-way match from what a
// client sees (payment lists, Transaction Search, the billing journals on
// disk) and compares it with the ground truth's exceptions.
func TestBillingMatchThroughHTTP(t *testing.T) {
	s, c := newTestServer(t, Config{Seed: 7})
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := s.WriteJournals(dir); err != nil {
		t.Fatal(err)
	}
	w0, w1 := mustTime(t, gt.WindowStart), mustTime(t, gt.WindowEnd)
	type notice struct {
		MerchantID string
		Path       string
		Status     int
		Request    struct{ Event, BillingAmount, SetupFee, Currency, TransactionID string }
	}
	want := map[BillingException]bool{}
	for _, e := range gt.BillingMatch {
		want[e] = true
	}
	got := map[BillingException]bool{}
	classes := map[string]int{}
	for _, mid := range s.Members() {
		b, err := os.ReadFile(filepath.Join(dir, billingJournalName(mid)))
		if err != nil {
			t.Fatal(err)
		}
		notices := map[string]notice{}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var n notice
			if err := json.Unmarshal(sc.Bytes(), &n); err != nil || n.MerchantID != mid || n.Path != billingNoticePath || n.Status != 200 {
				t.Fatalf("billing journal of %s: line %s (%v)", mid, sc.Text(), err)
			}
			notices[n.Request.TransactionID] = n
		}
		txns := map[string]tSummary{}
		for _, x := range c.searchAll(mid, w0, w1, 2000) {
			txns[x.ID] = x
		}
		for _, sub := range c.subscriptions(mid) {
			pays, _ := c.payments(mid, sub.ID)
			for _, p := range pays {
				at := mustTime(t, p.Date)
				if (p.Status != payPaid && p.Status != payFailed) || at.Before(w0) || !at.Before(w1) {
					continue
				}
				absent := ClassLate
				if at.Before(w0.Add(24 * time.Hour)) {
					absent = ClassMissing
				}
				add := func(leg, class string) {
					got[BillingException{MerchantID: mid, PaymentID: p.ID, Leg: leg, Class: class}] = true
					classes[leg+" "+class]++
				}
				charged := cents(t, p.BillingAmount) + cents(t, p.SetupFee) + cents(t, p.SurchargeAmount)
				if x, ok := txns[p.TransactionID]; !ok {
					add(LegTransaction, absent)
				} else if cents(t, x.OrderInformation.AmountDetails.TotalAmount) != charged || x.OrderInformation.AmountDetails.Currency != p.Currency ||
					(x.Status == "DECLINED") != (p.Status == payFailed) {
					add(LegTransaction, ClassMismatch)
				}
				billed := cents(t, p.BillingAmount) + cents(t, p.SetupFee)
				if n, ok := notices[p.TransactionID]; !ok {
					add(LegJournal, absent)
				} else if cents(t, n.Request.BillingAmount)+cents(t, n.Request.SetupFee) != billed || n.Request.Currency != p.Currency ||
					(n.Request.Event == noticeSuccess) != (p.Status == payPaid) {
					add(LegJournal, ClassMismatch)
				}
			}
		}
	}
	for e := range want {
		if !got[e] {
			t.Errorf("ground truth exception %+v: the API and journals show none", e)
		}
	}
	for e := range got {
		if !want[e] {
			t.Errorf("the API and journals show exception %+v, the ground truth does not", e)
		}
	}
	if len(want) == 0 || classes[LegJournal+" "+ClassMismatch] == 0 {
		t.Errorf("exceptions by class %v: the comparison proves little", classes)
	}
	for i := 1; i < len(gt.BillingMatch); i++ {
		a, b := gt.BillingMatch[i-1], gt.BillingMatch[i]
		if a.MerchantID > b.MerchantID || a.MerchantID == b.MerchantID && (a.PaymentID > b.PaymentID || a.PaymentID == b.PaymentID && a.Leg >= b.Leg) {
			t.Errorf("billingMatch not sorted at %d", i)
		}
	}
}

// The billing plantings come at their documented rates, across members,
// not only as the first member's forced ones.
func TestBillingPlantingRates(t *testing.T) {
	scale, err := ParseScale("members=40,subscriptions=100,groups=4")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Seed: 11, BusinessDate: testDate, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	gt, err := s.GroundTruth()
	if err != nil {
		t.Fatal(err)
	}
	members := map[string]map[string]bool{}
	for _, k := range billingKinds() {
		members[k] = map[string]bool{}
		for _, f := range gt.Findings[k] {
			members[k][f.MerchantID] = true
		}
		if len(members[k]) < 3 {
			t.Errorf("%s: %d findings on %d members; planted at a rate, it should reach several", k, len(gt.Findings[k]), len(members[k]))
		}
	}
	var subs int
	for i := range s.Members() {
		s.withMember(i, func(m *member) { subs += len(m.subs) })
	}
	if missed := len(gt.Findings[KindMissedCycle]); missed < subs/200 || missed > subs/20 {
		t.Errorf("%d missed cycles over %d subscriptions", missed, subs)
	}
	// Legacy plans, per member: over many small members.
	scale, _ = ParseScale("members=300,subscriptions=2,groups=3")
	s, err = New(Config{Seed: 11, BusinessDate: testDate, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	legacy := 0
	for i := range s.Members() {
		s.withMember(i, func(m *member) {
			for _, p := range m.plans {
				if !withinAYear(p.unit, p.length) {
					legacy++
				}
			}
		})
	}
	if legacy < 40 || legacy > 80 {
		t.Errorf("%d legacy plans over 300 members, want about 60 (20%%)", legacy)
	}
}

// TestTwelveMonthsAfter pins the month ends and leap days of
// interval_exceeds_12_months's "12 months after the payment before": the
// schedule's clamp, and the start's day for a payment on a clamped month
// end (docs/billing.md).
func TestTwelveMonthsAfter(t *testing.T) {
	day := func(s string) time.Time { return mustTime(t, s+"T10:30:00Z") }
	for _, c := range []struct {
		payment  string
		startDay int
		want     string
	}{
		{"2023-02-28", 29, "2024-02-29"}, // started 29 February: the common year's payment stands for the 29th
		{"2024-02-29", 29, "2025-02-28"}, // from the leap day: February 2025 has no 29th
		{"2023-02-28", 28, "2024-02-28"}, // started on the 28th: no clamp, no leap day
		{"2023-02-28", 31, "2024-02-29"}, // monthly from 31 January
		{"2023-04-30", 31, "2024-04-30"},
		{"2023-02-27", 31, "2024-02-27"}, // not a month end: a retry or a late payment keeps its day
		{"2023-01-31", 31, "2024-01-31"},
		{"2023-06-15", 31, "2024-06-15"},
	} {
		if got := twelveMonthsAfter(day(c.payment), c.startDay); !got.Equal(day(c.want)) {
			t.Errorf("twelveMonthsAfter(%s, start day %d) = %s, want %s at 10:30", c.payment, c.startDay, got, c.want)
		}
	}
}
