package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Finding kinds of DESIGN.md that the sandbox plants and reports.
const (
	KindLevel3NotTransmitted        = "level3_not_transmitted"
	KindCommercialCardWithoutLevel3 = "commercial_card_without_level3"
	KindSkippedCycle                = "skipped_cycle"
	KindSubscriptionDelinquent      = "subscription_delinquent"
	KindSubscriptionSuspended       = "subscription_suspended"
	KindPaidWithoutTransaction      = "paid_without_transaction"
	KindAmountMismatch              = "amount_mismatch"
	KindBinUnresolved               = "bin_unresolved"
)

// Kinds lists every finding kind of the ground truth.
func Kinds() []string {
	return append([]string{KindLevel3NotTransmitted, KindCommercialCardWithoutLevel3, KindSkippedCycle,
		KindSubscriptionDelinquent, KindSubscriptionSuspended, KindPaidWithoutTransaction,
		KindAmountMismatch, KindBinUnresolved, KindMissedCycle, KindDoubleCharge, KindPlanAmountMismatch,
		KindRetryScheduleBreach, KindRetriesExhausted, KindIntervalExceeds12Months}, areaKinds()...)
}

// GroundTruth is what a correct reconciliation of the generated data over
// the Config window must report.
type GroundTruth struct {
	Seed           int64                `json:"seed"`
	Scale          string               `json:"scale"`
	OrganizationID string               `json:"organizationId"`
	BusinessDate   string               `json:"businessDate"` // 2026-11-20
	Lookback       int                  `json:"lookback"`
	WindowStart    string               `json:"windowStart"` // RFC3339
	WindowEnd      string               `json:"windowEnd"`
	Groups         []TruthGroup         `json:"groups"`
	Findings       map[string][]Finding `json:"findings"`       // every kind present, possibly empty; each list sorted by merchantId, entityId
	JournalRejects []JournalReject      `json:"journalRejects"` // the planted bad journal lines
	// BillingMatch holds the exceptions of the three-way match of
	// subscription payments (docs/billing.md), sorted by merchantId,
	// paymentId, leg.
	BillingMatch []BillingException `json:"billingMatch"`
}

// TruthGroup is a group of the organization and its members.
type TruthGroup struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// Finding is one entity a correct reconciliation reports.
type Finding struct {
	MerchantID string `json:"merchantId"`
	EntityID   string `json:"entityId"`
	Amount     string `json:"amount,omitempty"` // "12.34"
	Currency   string `json:"currency,omitempty"`
}

// JournalReject is a journal line a correct import rejects.
type JournalReject struct {
	File   string `json:"file"` // base name
	Line   int    `json:"line"` // 1-based
	Reason string `json:"reason"`
}

// Positions of the planted bad lines in the first member's journal.
const (
	rejectInvalidLine   = 3
	rejectNoMerchantLin = 7
)

func (s *Server) windowBounds() (time.Time, time.Time) {
	end := s.cfg.BusinessDate.AddDate(0, 0, 1)
	return s.cfg.BusinessDate.AddDate(0, 0, -s.cfg.Lookback), end
}

func journalName(mid string) string { return "journal-" + mid + ".ndjson" }

// withMember runs fn on member idx as generated: the cached copy while it
// is still pristine, else a fresh generation that is not cached, so
// streaming over every member leaves the cache alone. Writes and the
// clock change a member; the ground truth and the journals describe the
// data as generated.
func (s *Server) withMember(idx int, fn func(m *member)) {
	m := s.cache.peek(idx)
	if m != nil {
		m.mu.Lock()
		ok := m.pristine(s.gen.asOf)
		m.mu.Unlock()
		if !ok {
			m = nil
		}
	}
	if m == nil {
		m = s.gen.member(idx)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	fn(m)
}

// forEachMember runs fn over every member on a few goroutines.
func (s *Server) forEachMember(fn func(idx int) error) error {
	n := s.cfg.Scale.Members
	idx := make(chan int)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < min(workers(), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				errs[i] = fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		idx <- i
	}
	close(idx)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// GroundTruth computes the findings by the definitions of DESIGN.md over
// the Config window, streaming over the members. It is the truth of the
// data as generated, groups included: writes through the API and moving
// the clock change the data but not the ground truth, so a test that
// writes computes its own expectations.
func (s *Server) GroundTruth() (*GroundTruth, error) {
	w0, w1 := s.windowBounds()
	gt := &GroundTruth{Seed: s.cfg.Seed, Scale: s.cfg.Scale.String(), OrganizationID: s.cfg.OrganizationID,
		BusinessDate: s.cfg.BusinessDate.Format(time.DateOnly), Lookback: s.cfg.Lookback,
		WindowStart: ts(w0), WindowEnd: ts(w1), Findings: map[string][]Finding{}}
	for _, g := range s.initial {
		gt.Groups = append(gt.Groups, TruthGroup{ID: g.ID, Name: g.Name, Members: append([]string{}, g.Members...)})
	}
	per := make([]map[string][]Finding, s.cfg.Scale.Members)
	match := make([][]BillingException, s.cfg.Scale.Members)
	err := s.forEachMember(func(i int) error {
		s.withMember(i, func(m *member) { per[i], match[i] = memberFindings(m, w0, w1), s.gen.billingMatch(m, w0, w1) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range Kinds() {
		list := []Finding{}
		for _, f := range per {
			list = append(list, f[k]...)
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].MerchantID != list[j].MerchantID {
				return list[i].MerchantID < list[j].MerchantID
			}
			return list[i].EntityID < list[j].EntityID
		})
		gt.Findings[k] = list
	}
	gt.BillingMatch = []BillingException{}
	for _, list := range match {
		gt.BillingMatch = append(gt.BillingMatch, list...)
	}
	sortExceptions(gt.BillingMatch)
	file := journalName(memberID(0))
	gt.JournalRejects = []JournalReject{
		{File: file, Line: rejectInvalidLine, Reason: "invalid JSON"},
		{File: file, Line: rejectNoMerchantLin, Reason: "missing merchantId"},
	}
	return gt, nil
}

// memberFindings applies each finding kind's definition to one member.
func memberFindings(m *member, w0, w1 time.Time) map[string][]Finding {
	in := func(t time.Time) bool { return !t.Before(w0) && t.Before(w1) }
	out := map[string][]Finding{}
	add := func(kind, entity string, amount int64, currency string) {
		out[kind] = append(out[kind], Finding{MerchantID: m.id, EntityID: entity, Amount: money(amount), Currency: currency})
	}
	for _, sub := range m.subs {
		switch sub.status {
		case subDelinquent:
			add(KindSubscriptionDelinquent, sub.id, sub.terms.amount, sub.terms.currency)
		case subSuspended:
			add(KindSubscriptionSuspended, sub.id, sub.terms.amount, sub.terms.currency)
		}
		for _, pm := range sub.payments {
			if pm.status == paySkipped {
				add(KindSkippedCycle, pm.id, pm.amount, pm.currency)
			}
			if pm.status != payPaid || !in(pm.date) {
				continue
			}
			t, ok := m.txnByID[pm.txnID]
			switch {
			case !ok:
				add(KindPaidWithoutTransaction, pm.id, pm.expected(), pm.currency)
			case t.amount != pm.expected() || t.currency != pm.currency:
				add(KindAmountMismatch, pm.id, pm.expected(), pm.currency)
			}
		}
	}
	billingFindings(m, w0, w1, add)
	areaFindings(m, w0, w1, add)
	for _, c := range m.calls {
		if !in(c.time) {
			continue
		}
		if flagsCommercialWithoutL3(c) {
			add(KindCommercialCardWithoutLevel3, c.respID, c.amount, c.currency)
		}
		if flagsL3NotTransmitted(c) {
			add(KindLevel3NotTransmitted, c.respID, c.amount, c.currency)
		}
	}
	// bin_unresolved: BINs on in-window transactions (the journal calls are
	// transactions too) whose prefix lookup is not COMPLETED and that no
	// token on the member's transactions resolves.
	resolved := map[string]bool{}
	for _, t := range m.txns {
		if t.card != nil && t.card.record() != nil {
			resolved[t.card.prefix()] = true
		}
	}
	seen := map[string]bool{}
	for _, t := range m.txns {
		if t.card == nil {
			continue
		}
		p := t.card.prefix()
		if !in(t.time) || seen[p] {
			continue
		}
		seen[p] = true
		if outcome, _, _ := lookupPrefixOrPAN(p); outcome == binCompleted || resolved[p] {
			continue
		}
		out[KindBinUnresolved] = append(out[KindBinUnresolved], Finding{MerchantID: m.id, EntityID: p})
	}
	return out
}

// WriteGroundTruth writes the ground truth as indented JSON, to a temporary
// name first and then renamed, so a reader never sees half a file.
func (s *Server) WriteGroundTruth(path string) error {
	gt, err := s.GroundTruth()
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(gt, "", "  ")
	if err != nil {
		return fmt.Errorf("encode ground truth: %w", err)
	}
	return writeAtomic(path, append(b, '\n'))
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, errorsJoin(werr, cerr))
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// WriteJournals writes one NDJSON journal per member into dir (created if
// needed) and returns their paths in member order. Beside each it writes
// the member's billing journal (journal-billing-<mid>.ndjson: the payment
// notifications it recorded, plant_billing.go), which the returned paths
// leave out.
func (s *Server) WriteJournals(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal dir: %w", err)
	}
	paths := make([]string, s.cfg.Scale.Members)
	err := s.forEachMember(func(i int) error {
		var data, billing []byte
		var err, berr error
		s.withMember(i, func(m *member) { data, err = s.journal(m); billing, berr = s.billingJournal(m) })
		if err != nil || berr != nil {
			return errorsJoin(err, berr)
		}
		if err := writeAtomic(filepath.Join(dir, billingJournalName(memberID(i))), billing); err != nil {
			return err
		}
		paths[i] = filepath.Join(dir, journalName(memberID(i)))
		return writeAtomic(paths[i], data)
	})
	if err != nil {
		return nil, err
	}
	return paths, nil
}

// journalLine is one line of a merchant journal (DESIGN.md).
type journalLine struct {
	Time       string         `json:"time"`
	MerchantID string         `json:"merchantId,omitempty"`
	Method     string         `json:"method"`
	Path       string         `json:"path"`
	Request    map[string]any `json:"request"`
	Status     int            `json:"status"`
	Response   map[string]any `json:"response"`
}

// journal renders a member's journal. The first member's also carries two
// planted bad lines: a truncated line holding a full test card number, and
// a copy of one of its authorizations without merchantId (a duplicate, so
// rejecting it loses no finding).
func (s *Server) journal(m *member) ([]byte, error) {
	lines := make([][]byte, 0, len(m.calls)+2)
	var firstAuth *call
	for _, c := range m.calls {
		b, err := marshal(c.journalLine(m.id, m.careless))
		if err != nil {
			return nil, fmt.Errorf("journal of %s: %w", m.id, err)
		}
		lines = append(lines, b)
		if firstAuth == nil && c.kind == callAuth {
			firstAuth = c
		}
	}
	if m.index == 0 {
		insert := func(at int, b []byte) {
			at = min(at-1, len(lines))
			lines = append(lines[:at], append([][]byte{b}, lines[at:]...)...)
		}
		src := firstAuth
		if src == nil && len(m.calls) > 0 {
			src = m.calls[0]
		}
		bad := journalLine{Time: ts(s.gen.business.Add(9 * time.Hour)), MerchantID: m.id, Method: http.MethodPost, Path: "/pts/v2/payments",
			Request: map[string]any{"paymentInformation": map[string]any{"card": map[string]any{
				"number": "4111111111111111", "expirationMonth": "12", "expirationYear": "2030", "type": "001"}}}}
		b, _ := marshal(bad)
		cut := bytes.Index(b, []byte("4111111111111111")) + len("4111111111111111") + 24
		insert(rejectInvalidLine, b[:min(cut, len(b)-2)])
		if src != nil {
			nl := src.journalLine(m.id, m.careless)
			nl.MerchantID = ""
			b, err := marshal(nl)
			if err != nil {
				return nil, err
			}
			insert(rejectNoMerchantLin, b)
		}
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

const methodPost = http.MethodPost

// rate is part/whole as a decimal rate with two places ("0.05"), the way
// the spec writes rates (1 percent is 0.01).
func rate(part, whole int64) string {
	if whole <= 0 {
		return "0.00"
	}
	r := (part*100 + whole/2) / whole
	return fmt.Sprintf("%d.%02d", r/100, r%100)
}

func (c *call) path() string {
	if c.x != nil {
		if p := c.x.path(c); p != "" {
			return p
		}
	}
	switch c.kind {
	case callCapture:
		return "/pts/v2/payments/" + c.auth.respID + "/captures"
	case callCredit:
		return "/pts/v2/credits"
	default:
		return "/pts/v2/payments"
	}
}

func (c *call) journalLine(mid string, careless bool) journalLine {
	return journalLine{Time: ts(c.time), MerchantID: mid, Method: methodPost, Path: c.path(),
		Request: c.request(careless), Status: 201, Response: c.response()}
}

// request is the body the merchant sent, as the spec shows it.
func (c *call) request(careless bool) map[string]any {
	if c.x != nil && c.x.custom(c) {
		return c.x.request(c, careless)
	}
	req := map[string]any{"clientReferenceInformation": map[string]any{"code": c.code}}
	proc := map[string]any{}
	order := map[string]any{"amountDetails": map[string]any{"totalAmount": money(c.amount), "currency": c.currency}}
	switch c.kind {
	case callAuth:
		proc["capture"], proc["commerceIndicator"] = false, "internet"
	case callSale:
		proc["capture"], proc["commerceIndicator"] = true, "internet"
	case callCredit:
		proc["commerceIndicator"] = "internet"
	}
	if c.kind != callCapture {
		num := c.card.masked()
		if careless {
			num = c.card.pan
		}
		pay := map[string]any{"card": map[string]any{"number": num, "expirationMonth": fmt.Sprintf("%02d", c.card.expMonth),
			"expirationYear": fmt.Sprint(c.card.expYear), "type": c.card.cardType()}}
		if c.card.customerID != "" {
			pay["customer"] = map[string]any{"id": c.card.customerID}
		}
		req["paymentInformation"] = pay
		b := c.bill
		order["billTo"] = map[string]any{"firstName": b.first, "lastName": b.last, "address1": b.address, "locality": b.city,
			"administrativeArea": b.state, "postalCode": b.postal, "country": b.country, "email": b.email}
	}
	if c.level3 {
		// Level III: line items, and the tax and shipping fields that go
		// with them, all derived from the items (no extra draws, so the
		// rest of the data does not move).
		proc["purchaseLevel"] = "3"
		items := make([]map[string]any, len(c.items))
		var tax int64
		for i, it := range c.items {
			gross := int64(it.quantity) * it.unitPrice
			items[i] = map[string]any{"productCode": it.productCode, "productName": it.productName, "quantity": it.quantity,
				"unitPrice": money(it.unitPrice), "unitOfMeasure": it.unitOfMeasure, "commodityCode": it.commodityCode,
				"discountAmount": money(it.discount), "discountRate": rate(it.discount, gross), "taxAmount": money(it.tax),
				"taxDetails": []map[string]any{{"rate": "0.08", "amount": money(it.tax)}}, "totalAmount": money(it.total)}
			tax += it.tax
		}
		order["lineItems"] = items
		order["amountDetails"].(map[string]any)["taxDetails"] = []map[string]any{{"amount": money(tax), "rate": "0.08"}}
		order["shippingDetails"] = map[string]any{"shipFromPostalCode": "78701"}
		if c.kind != callCapture {
			order["shipTo"] = map[string]any{"administrativeArea": c.bill.state, "country": c.bill.country, "postalCode": c.bill.postal}
		}
	}
	if c.po != "" {
		// Level II: the purchase order and the customer's references.
		inv := map[string]any{"purchaseOrderNumber": c.po, "purchaseOrderDate": c.time.Format("20060102")}
		if c.level3 && len(c.items) > 0 {
			inv["commodityCode"] = c.items[0].commodityCode
		}
		order["invoiceDetails"] = inv
		req["buyerInformation"] = map[string]any{"vatRegistrationNumber": "US-VAT-" + c.po[3:]}
	}
	if len(proc) > 0 {
		req["processingInformation"] = proc
	}
	req["orderInformation"] = order
	if c.x != nil {
		c.x.decorateRequest(c, req, careless)
	}
	return req
}

// response is the body the platform answered, as the spec shows it.
func (c *call) response() map[string]any {
	if c.x != nil && c.x.custom(c) {
		return c.x.response(c)
	}
	id := c.respID
	var self, status string
	links := map[string]any{}
	amounts := map[string]any{"totalAmount": money(c.amount), "currency": c.currency}
	switch c.kind {
	case callAuth:
		self, status = "/pts/v2/payments/"+id, "AUTHORIZED"
		links["capture"] = link{Href: self + "/captures", Method: methodPost}
		links["authReversal"] = link{Href: self + "/reversals", Method: methodPost}
		amounts["authorizedAmount"] = money(c.amount)
	case callSale:
		self, status = "/pts/v2/payments/"+id, "AUTHORIZED"
		links["void"] = link{Href: self + "/voids", Method: methodPost}
		amounts["authorizedAmount"] = money(c.amount)
	case callCapture:
		self, status = "/pts/v2/captures/"+id, "PENDING"
		links["void"] = link{Href: self + "/voids", Method: methodPost}
	case callCredit:
		self, status = "/pts/v2/credits/"+id, "PENDING"
		links["void"] = link{Href: self + "/voids", Method: methodPost}
	}
	links["self"] = link{Href: self, Method: "GET"}
	order := map[string]any{"amountDetails": amounts}
	resp := map[string]any{"_links": links, "id": id, "status": status, "submitTimeUtc": ts(c.time),
		"reconciliationId": c.reconcileID, "clientReferenceInformation": map[string]any{"code": c.code},
		"orderInformation": order,
		"processorInformation": map[string]any{"approvalCode": c.approval, "networkTransactionId": c.networkID,
			"transactionId": c.networkID, "responseCode": "00"}}
	if c.kind == callCredit {
		// A credit answers its amount as the platform's SDK models it.
		delete(order, "amountDetails")
		resp["creditAmountDetails"] = map[string]any{"creditAmount": money(c.amount), "currency": c.currency}
	}
	if c.l3Status != nil {
		order["invoiceDetails"] = map[string]any{"level3TransmissionStatus": c.l3Status}
	}
	if len(order) == 0 {
		delete(resp, "orderInformation")
	}
	if c.kind == callAuth || c.kind == callSale {
		resp["paymentAccountInformation"] = map[string]any{"card": map[string]any{"type": c.card.cardType()}}
		resp["processorInformation"].(map[string]any)["avs"] = map[string]any{"code": "Y", "codeRaw": "Y"}
	}
	if c.x != nil {
		c.x.decorateResponse(c, resp)
	}
	return resp
}
