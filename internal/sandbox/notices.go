package sandbox

import (
	"net/http"
	"strconv"
	"time"
)

// The recurring billing service emails customers, at the address stored on
// the customer token, for three payment events (spec: Events). The
// sandbox sends no email: the billing engine records each notification it
// would send, readable at GET /sandbox/v1/merchants/{mid}/notifications
// (portfolio key) and with Server.Notifications. Only what the engine
// processes after the data's as-of time is recorded, and nothing while the
// merchant has notifications disabled.

// prepaymentNotice is how long before a payment the prepayment
// notification goes out; the lead time is not shown, three days is
// plausible.
const prepaymentNotice = 72 * time.Hour

// Notification events.
const (
	noticePrepayment = "PREPAYMENT"
	noticeSuccess    = "PAYMENT_SUCCESS"
	noticeFailure    = "PAYMENT_FAILURE"
)

// Notification is one email, with the spec's substitution values.
type Notification struct {
	Event            string `json:"event"`
	SentTime         string `json:"sentTime"`
	Email            string `json:"email"`
	PaymentDate      string `json:"paymentDate"`
	SubscriptionID   string `json:"subscriptionId"`
	SubscriptionName string `json:"subscriptionName"`
	BillingAmount    string `json:"billingAmount"`
	Currency         string `json:"currency"`
	SetupFee         string `json:"setupFee,omitempty"`
	MerchantName     string `json:"merchantName"`
	TransactionID    string `json:"transactionId,omitempty"` // success and failure only
}

// notify records a notification unless the merchant disabled them.
func notify(m *member, sub *subscription, pm *payment, event string, at time.Time) {
	if m.settings.NotificationsDisabled {
		return
	}
	n := Notification{Event: event, SentTime: ts(at), Email: lower(sub.firstName) + "." + lower(sub.lastName) + "@example.com",
		PaymentDate: ts(pm.date), SubscriptionID: sub.id, SubscriptionName: sub.name, BillingAmount: moneyIn(pm.amount, pm.currency),
		Currency: pm.currency, SetupFee: optMoney(pm.setupFee), MerchantName: "Sandbox Merchant " + strconv.Itoa(m.index+1)}
	if event != noticePrepayment {
		n.TransactionID = pm.txnID
	}
	m.notices = append(m.notices, n)
}

// Notifications returns the emails sent to a member's customers so far.
func (s *Server) Notifications(mid string) ([]Notification, error) {
	idx, ok := s.memberIndex(mid)
	if !ok {
		return nil, errUnknownMerchant(mid)
	}
	m := s.cache.get(idx)
	m.mu.Lock()
	defer m.mu.Unlock()
	s.advance(m, s.Clock())
	return append([]Notification{}, m.notices...), nil
}

func (s *Server) getNotifications(x *exchange, _ noBody) answer {
	mid := x.r.PathValue("mid")
	list, err := s.Notifications(mid)
	if err != nil {
		return x.notFound(err.Error())
	}
	return reply(http.StatusOK, map[string]any{"merchantId": mid, "count": len(list), "notifications": list})
}
