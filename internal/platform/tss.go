package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"
)

// tssPageSize is the largest page Transaction Search allows: "The default
// is 20, the maximum is 2500" (SDK src/model/CreateSearchRequest.js, limit).
const tssPageSize = 2500

// searchTimezone is the search's time zone. The value must be one of the
// Transaction Search guide's "Supported Time Zones" (API column), which lists
// GMT and not UTC. It does not move the window: the window is written in
// epoch milliseconds (or date math on the platform's UTC clock).
const searchTimezone = "GMT"

// SearchTimeForm is how the submitTimeUtc range of a Transaction Search is
// written. The guide ("Filtering Using the submitTimeUtc Field") documents
// epoch milliseconds (submitTimeUtc:[1556712000000 TO 1556757600000]) and
// date math ([NOW/DAY-1DAY TO NOW/DAY}); ISO timestamps appear in it only as
// a single value, never as range ends.
type SearchTimeForm string

const (
	// SearchTimeEpoch writes [<from ms> TO <to ms>}: documented, and
	// absolute (the default).
	SearchTimeEpoch SearchTimeForm = "epoch"
	// SearchTimeISO writes [2026-11-17T00:00:00Z TO 2026-11-21T00:00:00Z}:
	// the form sent before; undocumented as range ends (unverified).
	SearchTimeISO SearchTimeForm = "iso"
	// SearchTimeDateMath writes [NOW/DAY-4DAYS TO NOW/DAY} (whole UTC days)
	// or [NOW/MINUTE-…MINUTES TO …}: documented, but relative to the
	// platform's clock when it reads the query, so a search sent across a
	// midnight (or minute) on the platform's clock shifts the window.
	SearchTimeDateMath SearchTimeForm = "datemath"
)

// ParseSearchTimeForm reads epoch, iso or datemath (case-insensitive).
func ParseSearchTimeForm(s string) (SearchTimeForm, error) {
	switch f := SearchTimeForm(strings.ToLower(strings.TrimSpace(s))); f {
	case SearchTimeEpoch, SearchTimeISO, SearchTimeDateMath:
		return f, nil
	case "":
		return SearchTimeEpoch, nil
	}
	return "", fmt.Errorf("search time form %q: want epoch, iso or datemath", s)
}

// WithSearchTimeForm sets how Transaction Search windows are written (epoch
// milliseconds when not given).
func WithSearchTimeForm(f SearchTimeForm) Option {
	return func(c *Client) { c.searchTimeForm = f }
}

// searchRange writes the submitTimeUtc range [from, to) in form f; now is the
// client's clock, for date math.
func searchRange(f SearchTimeForm, from, to, now time.Time) string {
	from, to, now = from.UTC(), to.UTC(), now.UTC()
	switch f {
	case SearchTimeISO:
		return "submitTimeUtc:[" + from.Format(searchTimeLayout) + " TO " + to.Format(searchTimeLayout) + "}"
	case SearchTimeDateMath:
		day := func(t time.Time) bool { return t.Equal(t.Truncate(24 * time.Hour)) }
		if day(from) && day(to) {
			today := now.Truncate(24 * time.Hour)
			return "submitTimeUtc:[" + dateMath("DAY", int(today.Sub(from)/(24*time.Hour))) + " TO " +
				dateMath("DAY", int(today.Sub(to)/(24*time.Hour))) + "}"
		}
		// Ends not on a minute are rounded down to theirs.
		min := now.Truncate(time.Minute)
		return "submitTimeUtc:[" + dateMath("MINUTE", int(min.Sub(from.Truncate(time.Minute))/time.Minute)) + " TO " +
			dateMath("MINUTE", int(min.Sub(to.Truncate(time.Minute))/time.Minute)) + "}"
	default:
		return "submitTimeUtc:[" + strconv.FormatInt(from.UnixMilli(), 10) + " TO " + strconv.FormatInt(to.UnixMilli(), 10) + "}"
	}
}

// dateMath is NOW/<unit> shifted back by ago units (forward when negative).
func dateMath(unit string, ago int) string {
	switch {
	case ago > 0:
		return fmt.Sprintf("NOW/%s-%d%sS", unit, ago, unit)
	case ago < 0:
		return fmt.Sprintf("NOW/%s+%d%sS", unit, -ago, unit)
	}
	return "NOW/" + unit
}

// TransactionSummary is one record of a Transaction Search
// (_embedded.transactionSummaries[]), flattened.
type TransactionSummary struct {
	ID            string
	SubmitTimeUTC string // submitTimeUtc; a transaction detail's submitTimeUTC
	MerchantID    string
	Status        string // status, at the summary's top level: AUTHORIZED, DECLINED, PENDING, TRANSMITTED, ...

	// applicationInformation
	ReasonCode   string
	RCode        string // 1 success, 0 decline, -1 error
	RFlag        string
	Applications []Application

	TotalAmount string
	Currency    string

	CardPrefix string // first 6 digits
	CardSuffix string // last 4 digits
	CardType   string // 3-digit card type code

	// CustomerID is paymentInformation.customer.customerId in a summary
	// (SDK Ptsv2refreshpaymentstatusidPaymentInformationCustomer); a
	// transaction detail has customer.customerId and customer.id (SDK
	// TssV2TransactionsGet200ResponsePaymentInformationCustomer).
	CustomerID string
	// InstrumentIdentifierID is in transaction details only
	// (paymentInformation.instrumentIdentifier.id); summaries never have it.
	InstrumentIdentifierID string

	PaymentSolution       string
	CommerceIndicator     string
	BusinessApplicationID string

	ClientReference string
	Raw             json.RawMessage `json:"-"`
}

// Application is one service the platform ran for a transaction (ics_auth,
// ics_bill, ics_credit, ...).
type Application struct {
	Name             string
	ReasonCode       string
	RCode            string
	RFlag            string
	ReconciliationID string
	RMessage         string
}

type applicationWire struct {
	Name             flexString `json:"name"`
	ReasonCode       flexString `json:"reasonCode"`
	RCode            flexString `json:"rCode"`
	RFlag            flexString `json:"rFlag"`
	ReconciliationID flexString `json:"reconciliationId"`
	RMessage         flexString `json:"rMessage"`
}

// The parts of a transaction a summary and a detail write alike.
type (
	txnOrderWire struct {
		AmountDetails struct {
			TotalAmount flexString `json:"totalAmount"`
			Currency    flexString `json:"currency"`
		} `json:"amountDetails"`
	}
	txnCardWire struct {
		Prefix flexString `json:"prefix"`
		Suffix flexString `json:"suffix"`
		Type   flexString `json:"type"`
	}
	txnProcessingWire struct {
		PaymentSolution       flexString `json:"paymentSolution"`
		CommerceIndicator     flexString `json:"commerceIndicator"`
		BusinessApplicationID flexString `json:"businessApplicationId"`
	}
	txnReferenceWire struct {
		Code flexString `json:"code"`
	}
)

type summaryWire struct {
	ID                     flexString `json:"id"`
	SubmitTimeUTC          flexString `json:"submitTimeUtc"`
	MerchantID             flexString `json:"merchantId"`
	Status                 flexString `json:"status"`
	ApplicationInformation struct {
		ReasonCode   flexString        `json:"reasonCode"`
		RCode        flexString        `json:"rCode"`
		RFlag        flexString        `json:"rFlag"`
		Applications []applicationWire `json:"applications"`
	} `json:"applicationInformation"`
	OrderInformation   txnOrderWire `json:"orderInformation"`
	PaymentInformation struct {
		Card     txnCardWire `json:"card"`
		Customer struct {
			CustomerID flexString `json:"customerId"`
		} `json:"customer"`
	} `json:"paymentInformation"`
	ProcessingInformation      txnProcessingWire `json:"processingInformation"`
	ClientReferenceInformation txnReferenceWire  `json:"clientReferenceInformation"`
}

// detailWire is what the client reads of GET /tss/v2/transactions/{id}
// (SDK TssV2TransactionsGet200Response): the fields it shares with a
// summary, under the detail's own names where they differ (submitTimeUTC,
// applicationInformation.status, customer.id beside customerId), and the
// instrument identifier, which summaries do not carry.
type detailWire struct {
	ID                     flexString `json:"id"`
	SubmitTimeUTC          flexString `json:"submitTimeUTC"`
	MerchantID             flexString `json:"merchantId"`
	Status                 flexString `json:"status"`
	ApplicationInformation struct {
		Status       flexString        `json:"status"`
		ReasonCode   flexString        `json:"reasonCode"`
		RCode        flexString        `json:"rCode"`
		RFlag        flexString        `json:"rFlag"`
		Applications []applicationWire `json:"applications"`
	} `json:"applicationInformation"`
	OrderInformation   txnOrderWire `json:"orderInformation"`
	PaymentInformation struct {
		Card     txnCardWire `json:"card"`
		Customer struct {
			CustomerID flexString `json:"customerId"`
			ID         flexString `json:"id"`
		} `json:"customer"`
		InstrumentIdentifier struct {
			ID flexString `json:"id"`
		} `json:"instrumentIdentifier"`
	} `json:"paymentInformation"`
	ProcessingInformation      txnProcessingWire `json:"processingInformation"`
	ClientReferenceInformation txnReferenceWire  `json:"clientReferenceInformation"`
}

func decodeSummary(raw json.RawMessage) (TransactionSummary, error) {
	w, err := decodeRecord[summaryWire]("transaction summary", raw)
	if err != nil {
		return TransactionSummary{}, err
	}
	return w.summary(raw), nil
}

// summary is the wire record as a TransactionSummary.
func (w *summaryWire) summary(raw json.RawMessage) TransactionSummary {
	ai, pi := w.ApplicationInformation, w.PaymentInformation
	return TransactionSummary{
		ID:                    string(w.ID),
		SubmitTimeUTC:         string(w.SubmitTimeUTC),
		MerchantID:            string(w.MerchantID),
		Status:                string(w.Status),
		ReasonCode:            string(ai.ReasonCode),
		RCode:                 string(ai.RCode),
		RFlag:                 string(ai.RFlag),
		TotalAmount:           string(w.OrderInformation.AmountDetails.TotalAmount),
		Currency:              string(w.OrderInformation.AmountDetails.Currency),
		CardPrefix:            string(pi.Card.Prefix),
		CardSuffix:            string(pi.Card.Suffix),
		CardType:              string(pi.Card.Type),
		CustomerID:            string(pi.Customer.CustomerID),
		PaymentSolution:       string(w.ProcessingInformation.PaymentSolution),
		CommerceIndicator:     string(w.ProcessingInformation.CommerceIndicator),
		BusinessApplicationID: string(w.ProcessingInformation.BusinessApplicationID),
		ClientReference:       string(w.ClientReferenceInformation.Code),
		Applications:          applications(ai.Applications),
		Raw:                   raw,
	}
}

// decodeDetail reads a transaction detail into the summary's shape: the
// fields the two share, then the detail's own (its status may be under
// applicationInformation, its customer token under customer.id, and it
// names the instrument identifier).
func decodeDetail(raw json.RawMessage) (TransactionSummary, error) {
	d, err := decodeRecord[detailWire]("transaction detail", raw)
	if err != nil {
		return TransactionSummary{}, err
	}
	w := summaryWire{ID: d.ID, SubmitTimeUTC: d.SubmitTimeUTC, MerchantID: d.MerchantID,
		Status:                     firstNonEmpty(d.Status, d.ApplicationInformation.Status),
		OrderInformation:           d.OrderInformation,
		ProcessingInformation:      d.ProcessingInformation,
		ClientReferenceInformation: d.ClientReferenceInformation}
	ai, pi := d.ApplicationInformation, d.PaymentInformation
	w.ApplicationInformation.ReasonCode, w.ApplicationInformation.RCode = ai.ReasonCode, ai.RCode
	w.ApplicationInformation.RFlag, w.ApplicationInformation.Applications = ai.RFlag, ai.Applications
	w.PaymentInformation.Card = pi.Card
	w.PaymentInformation.Customer.CustomerID = firstNonEmpty(pi.Customer.CustomerID, pi.Customer.ID)
	s := w.summary(raw)
	s.InstrumentIdentifierID = string(pi.InstrumentIdentifier.ID)
	return s, nil
}

func applications(ws []applicationWire) []Application {
	if len(ws) == 0 {
		return nil
	}
	out := make([]Application, len(ws))
	for i, a := range ws {
		out[i] = Application{
			Name:             string(a.Name),
			ReasonCode:       string(a.ReasonCode),
			RCode:            string(a.RCode),
			RFlag:            string(a.RFlag),
			ReconciliationID: string(a.ReconciliationID),
			RMessage:         string(a.RMessage),
		}
	}
	return out
}

// searchRequest is the body of POST /tss/v2/searches; the field order is the
// one of docs/platform.md (Transaction Search).
type searchRequest struct {
	Save     bool   `json:"save"`
	Name     string `json:"name"`
	Timezone string `json:"timezone"`
	Query    string `json:"query"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
	Sort     string `json:"sort"`
}

type searchPage struct {
	TotalCount flexInt `json:"totalCount"`
	Count      flexInt `json:"count"`
	Embedded   struct {
		TransactionSummaries []json.RawMessage `json:"transactionSummaries"`
	} `json:"_embedded"`
}

const searchTimeLayout = "2006-01-02T15:04:05Z"

// SearchTransactions yields every transaction of the merchant submitted in
// [from, to) (UTC, whole milliseconds), through Transaction Search in pages
// of 2500 sorted on id, in time zone GMT, the range written in the client's
// SearchTimeForm (epoch milliseconds by default).
//
// Offsets over live data drift, so the records are de-duplicated by id (an id
// is yielded once), and after the last page the number of distinct ids is
// compared with the largest totalCount seen (tally): fewer yields a final
// error wrapping ErrShortfall that gives both numbers, after every record
// that was found. Query closed windows (to in the past) to keep drift away.
func (m *Merchant) SearchTransactions(ctx context.Context, from, to time.Time) iter.Seq2[TransactionSummary, error] {
	return m.searchTransactions(ctx, "", "", from, to)
}

// searchTransactions is SearchTransactions, with "AND field:value" after
// the window when field is not empty (SearchAcross).
func (m *Merchant) searchTransactions(ctx context.Context, field, value string, from, to time.Time) iter.Seq2[TransactionSummary, error] {
	return func(yield func(TransactionSummary, error) bool) {
		f, t := from.UTC().Format(searchTimeLayout), to.UTC().Format(searchTimeLayout)
		what := fmt.Sprintf("search transactions of merchant %s submitted in [%s, %s)", m.id, f, t)
		if field != "" {
			what = fmt.Sprintf("search transactions of %s %s (acting for %s) submitted in [%s, %s)", field, value, m.id, f, t)
		}
		form := m.c.timeForm()
		if !to.After(from) {
			yield(TransactionSummary{}, fmt.Errorf("%s: the window is empty", what))
			return
		}
		query := searchRange(form, from, to, m.c.now())
		if field != "" {
			query += " AND " + field + ":" + value
		}
		req := searchRequest{
			Name:     "reconcile",
			Timezone: searchTimezone,
			Query:    query,
			Limit:    tssPageSize,
			Sort:     "id:asc,submitTimeUtc:asc",
		}
		var count tally
		for {
			body, err := json.Marshal(req)
			if err != nil {
				yield(TransactionSummary{}, fmt.Errorf("%s: encode request: %w", what, err))
				return
			}
			resp, err := m.send(ctx, "POST", "/tss/v2/searches", body, true, searchPageLimit)
			if err != nil {
				yield(TransactionSummary{}, fmt.Errorf("%s at offset %d: %w", what, req.Offset, err))
				return
			}
			page, err := decodePage[searchPage]("transaction search", resp)
			if err != nil {
				yield(TransactionSummary{}, fmt.Errorf("%s at offset %d: %w", what, req.Offset, err))
				return
			}
			count.page(int(page.TotalCount))
			recs := page.Embedded.TransactionSummaries
			fresh := 0
			for _, raw := range recs {
				s, err := decodeSummary(raw)
				if err != nil {
					yield(TransactionSummary{}, fmt.Errorf("%s at offset %d: %w", what, req.Offset, err))
					return
				}
				if !count.first(s.ID) {
					continue
				}
				fresh++
				if !yield(s, nil) {
					return
				}
			}
			if fresh == 0 {
				noteNothingNew(ctx)
			}
			req.Offset += len(recs)
			if len(recs) == 0 || req.Offset >= count.total {
				break
			}
		}
		if err := count.shortfall("transactions"); err != nil {
			yield(TransactionSummary{}, fmt.Errorf("%s: %w", what, err))
		}
	}
}

// TransactionDetail reads GET /tss/v2/transactions/{id} (SDK
// TransactionDetailsApi.getTransaction, model TssV2TransactionsGet200Response):
// the one place the instrument identifier of a transaction shows
// (paymentInformation.instrumentIdentifier.id). The guide warns that it "may
// exceed 2 minutes" in exceptional periods: it has its own time-out
// (detailLimit). The answer is read into the summary's shape (detailWire).
func (m *Merchant) TransactionDetail(ctx context.Context, id string) (TransactionSummary, error) {
	what := fmt.Sprintf("read transaction %s of merchant %s", id, m.id)
	if id == "" || strings.ContainsAny(id, "/?#%") {
		return TransactionSummary{}, fmt.Errorf("%s: not a transaction id", what)
	}
	resp, err := m.send(ctx, "GET", "/tss/v2/transactions/"+id, nil, true, detailLimit)
	if err != nil {
		return TransactionSummary{}, fmt.Errorf("%s: %w", what, err)
	}
	s, err := decodeDetail(resp)
	if err != nil {
		return TransactionSummary{}, fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// timeForm is the form search windows are written in: WithSearchTimeForm's,
// epoch milliseconds by default.
func (c *Client) timeForm() SearchTimeForm {
	if c.searchTimeForm == "" {
		return SearchTimeEpoch
	}
	return c.searchTimeForm
}
