package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// The simulated merchants' journals (the journal format of docs/journal.md): each
// member's log of its own calls to the payments API, and its billing
// journal of the recurring billing service's notifications. The calls'
// answers are those the endpoints give (call.response), so a merchant's
// log of a live call looks like a generated one; the area calls' shapes
// are in journal_areas.go.

// Positions of the planted bad lines in the first member's journal.
const (
	rejectInvalidLine   = 3
	rejectNoMerchantLin = 7
)

func journalName(mid string) string { return "journal-" + mid + ".ndjson" }

// WriteJournals writes one NDJSON journal per member into dir (created if
// needed) and returns their paths in member order. Beside each it writes
// the member's billing journal (journal-billing-<mid>.ndjson: the payment
// notifications it recorded, plant_billing.go), which the returned paths
// leave out.
func (s *Server) WriteJournals(dir string) ([]string, error) {
	return s.WriteJournalsOn(dir, s.cfg.BusinessDate)
}

// WriteJournalsOn writes the journals as WriteJournals does, of the
// members as a later night of the world finds them (nights.go): the
// billing journal then holds the notifications of the payments the
// billing engine processed up to that night's data clock.
func (s *Server) WriteJournalsOn(dir string, night time.Time) ([]string, error) {
	night, err := s.checkNight(night)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal dir: %w", err)
	}
	paths := make([]string, s.cfg.Scale.Members)
	err = s.forEachMember(func(i int) error {
		var data, billing []byte
		var err, berr error
		s.withMemberOn(i, night, func(m *member) { data, err = s.journal(m); billing, berr = s.billingJournal(m) })
		if err != nil || berr != nil {
			return errors.Join(err, berr)
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

// journalLine is one line of a merchant journal (docs/journal.md).
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

// path is the path the call was sent to.
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
	return journalLine{Time: ts(c.time), MerchantID: mid, Method: http.MethodPost, Path: c.path(),
		Request: c.request(careless), Status: 201, Response: c.response()}
}

// request is the body the merchant sent, as the spec shows it.
func (c *call) request(careless bool) map[string]any {
	if c.x != nil && c.x.custom(c) {
		return c.x.request(c, careless)
	}
	req := map[string]any{"clientReferenceInformation": map[string]any{"code": c.code}}
	proc := map[string]any{}
	order := map[string]any{"amountDetails": map[string]any{"totalAmount": moneyIn(c.amount, c.currency), "currency": c.currency}}
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
				"unitPrice": moneyIn(it.unitPrice, c.currency), "unitOfMeasure": it.unitOfMeasure, "commodityCode": it.commodityCode,
				"discountAmount": moneyIn(it.discount, c.currency), "discountRate": rate(it.discount, gross), "taxAmount": moneyIn(it.tax, c.currency),
				"taxDetails": []map[string]any{{"rate": "0.08", "amount": moneyIn(it.tax, c.currency)}}, "totalAmount": moneyIn(it.total, c.currency)}
			tax += it.tax
		}
		order["lineItems"] = items
		order["amountDetails"].(map[string]any)["taxDetails"] = []map[string]any{{"amount": moneyIn(tax, c.currency), "rate": "0.08"}}
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
	if c.x != nil && c.x.decline != nil {
		return c.x.decline.answer(c.respID, c.reconcileID, c.code, c.networkID, c.time)
	}
	id := c.respID
	var self, status string
	links := map[string]any{}
	amounts := map[string]any{"totalAmount": moneyIn(c.amount, c.currency), "currency": c.currency}
	switch c.kind {
	case callAuth:
		self, status = "/pts/v2/payments/"+id, "AUTHORIZED"
		links["capture"] = link{Href: self + "/captures", Method: http.MethodPost}
		links["authReversal"] = link{Href: self + "/reversals", Method: http.MethodPost}
		amounts["authorizedAmount"] = moneyIn(c.amount, c.currency)
	case callSale:
		self, status = "/pts/v2/payments/"+id, "AUTHORIZED"
		links["void"] = link{Href: self + "/voids", Method: http.MethodPost}
		amounts["authorizedAmount"] = moneyIn(c.amount, c.currency)
	case callCapture:
		self, status = "/pts/v2/captures/"+id, "PENDING"
		links["void"] = link{Href: self + "/voids", Method: http.MethodPost}
	case callCredit:
		self, status = "/pts/v2/credits/"+id, "PENDING"
		links["void"] = link{Href: self + "/voids", Method: http.MethodPost}
	}
	if (c.kind == callAuth || c.kind == callSale) && c.x != nil && c.x.status != "" {
		// One of the other statuses the SDK lists (plantPaymentStatuses).
		status = c.x.status
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
		resp["creditAmountDetails"] = map[string]any{"creditAmount": moneyIn(c.amount, c.currency), "currency": c.currency}
	}
	if c.l3Status != nil && (c.kind == callCapture || c.kind == callSale) {
		// Payments and captures only (SDK models
		// PtsV2PaymentsPost201ResponseOrderInformationInvoiceDetails,
		// PtsV2PaymentsCapturesPost201ResponseOrderInformationInvoiceDetails).
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

// billingJournalName is the file of a member's billing journal, beside
// its call journal (journalName).
func billingJournalName(mid string) string { return "journal-billing-" + mid + ".ndjson" }

// billingNoticePath is where the simulated merchants receive the recurring
// billing service's payment notifications. The journal is the merchant's
// record of them, in the journal format of docs/journal.md: the platform sends
// the spec's substitution values (Events), the merchant's endpoint answers
// 200.
const billingNoticePath = "/notifications/recurring-billing"

// billingJournal renders member m's billing journal: one line per payment
// notification of the planting range that the merchant recorded, in time
// order.
func (s *Server) billingJournal(m *member) ([]byte, error) {
	type entry struct {
		at   time.Time
		id   string
		line journalLine
	}
	var entries []entry
	for _, sub := range m.subs {
		for _, pm := range sub.payments {
			f := s.gen.noticeFate(m, pm)
			if !f.journaled {
				continue
			}
			event := noticeSuccess
			if (pm.status == payPaid) == f.flipped {
				event = noticeFailure
			}
			cur := pm.currency
			if f.currency != "" {
				cur = f.currency
			}
			req := map[string]any{"event": event, "paymentDate": ts(pm.date), "subscriptionId": sub.id,
				"subscriptionName": sub.name, "billingAmount": moneyIn(pm.amount+f.amountDelta, cur), "currency": cur,
				"merchantName": "Sandbox Merchant " + strconv.Itoa(m.index+1), "transactionId": pm.txnID}
			if pm.setupFee != 0 {
				req["setupFee"] = moneyIn(pm.setupFee, cur)
			}
			entries = append(entries, entry{pm.date, pm.id, journalLine{Time: ts(pm.date), MerchantID: m.id,
				Method: http.MethodPost, Path: billingNoticePath, Request: req, Status: http.StatusOK,
				Response: map[string]any{"received": true}}})
		}
	}
	sort.Slice(entries, func(i, j int) bool {
		if !entries[i].at.Equal(entries[j].at) {
			return entries[i].at.Before(entries[j].at)
		}
		return entries[i].id < entries[j].id
	})
	var buf bytes.Buffer
	for _, e := range entries {
		b, err := marshal(e.line)
		if err != nil {
			return nil, fmt.Errorf("billing journal of %s: %w", m.id, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}
