package platform

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"
)

// tssPageSize is the largest page Transaction Search allows.
const tssPageSize = 2000

// TransactionSummary is one record of a Transaction Search
// (_embedded.transactionSummaries[]), flattened.
type TransactionSummary struct {
	ID            string
	SubmitTimeUTC string // submitTimeUtc; a transaction detail's submitTimeUTC
	MerchantID    string

	// applicationInformation
	Status       string // AUTHORIZED, DECLINED, PENDING, TRANSMITTED, ...
	ReasonCode   string
	RCode        string // 1 success, 0 decline, -1 error
	RFlag        string
	Applications []Application

	TotalAmount string
	Currency    string

	CardPrefix string // first 6 digits
	CardSuffix string // last 4 digits
	CardType   string // 3-digit card type code

	CustomerID             string
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

type summaryWire struct {
	ID                     flexString `json:"id"`
	SubmitTimeUTC          flexString `json:"submitTimeUtc"`
	DetailSubmitTimeUTC    flexString `json:"submitTimeUTC"` // so spelled by GET /tss/v2/transactions/{id}
	MerchantID             flexString `json:"merchantId"`
	ApplicationInformation struct {
		Status       flexString        `json:"status"`
		ReasonCode   flexString        `json:"reasonCode"`
		RCode        flexString        `json:"rCode"`
		RFlag        flexString        `json:"rFlag"`
		Applications []applicationWire `json:"applications"`
	} `json:"applicationInformation"`
	OrderInformation struct {
		AmountDetails struct {
			TotalAmount flexString `json:"totalAmount"`
			Currency    flexString `json:"currency"`
		} `json:"amountDetails"`
	} `json:"orderInformation"`
	PaymentInformation struct {
		Card struct {
			Prefix flexString `json:"prefix"`
			Suffix flexString `json:"suffix"`
			Type   flexString `json:"type"`
		} `json:"card"`
		Customer struct {
			ID flexString `json:"id"`
		} `json:"customer"`
		InstrumentIdentifier struct {
			ID flexString `json:"id"`
		} `json:"instrumentIdentifier"`
	} `json:"paymentInformation"`
	ProcessingInformation struct {
		PaymentSolution       flexString `json:"paymentSolution"`
		CommerceIndicator     flexString `json:"commerceIndicator"`
		BusinessApplicationID flexString `json:"businessApplicationId"`
	} `json:"processingInformation"`
	ClientReferenceInformation struct {
		Code flexString `json:"code"`
	} `json:"clientReferenceInformation"`
}

func decodeSummary(raw json.RawMessage) (TransactionSummary, error) {
	w, err := decodeRecord[summaryWire]("transaction summary", raw)
	if err != nil {
		return TransactionSummary{}, err
	}
	ai, pi := w.ApplicationInformation, w.PaymentInformation
	s := TransactionSummary{
		ID:                     string(w.ID),
		SubmitTimeUTC:          string(firstNonEmpty(w.SubmitTimeUTC, w.DetailSubmitTimeUTC)),
		MerchantID:             string(w.MerchantID),
		Status:                 string(ai.Status),
		ReasonCode:             string(ai.ReasonCode),
		RCode:                  string(ai.RCode),
		RFlag:                  string(ai.RFlag),
		TotalAmount:            string(w.OrderInformation.AmountDetails.TotalAmount),
		Currency:               string(w.OrderInformation.AmountDetails.Currency),
		CardPrefix:             string(pi.Card.Prefix),
		CardSuffix:             string(pi.Card.Suffix),
		CardType:               string(pi.Card.Type),
		CustomerID:             string(pi.Customer.ID),
		InstrumentIdentifierID: string(pi.InstrumentIdentifier.ID),
		PaymentSolution:        string(w.ProcessingInformation.PaymentSolution),
		CommerceIndicator:      string(w.ProcessingInformation.CommerceIndicator),
		BusinessApplicationID:  string(w.ProcessingInformation.BusinessApplicationID),
		ClientReference:        string(w.ClientReferenceInformation.Code),
		Raw:                    raw,
	}
	if len(ai.Applications) > 0 {
		s.Applications = make([]Application, len(ai.Applications))
		for i, a := range ai.Applications {
			s.Applications[i] = Application{
				Name:             string(a.Name),
				ReasonCode:       string(a.ReasonCode),
				RCode:            string(a.RCode),
				RFlag:            string(a.RFlag),
				ReconciliationID: string(a.ReconciliationID),
				RMessage:         string(a.RMessage),
			}
		}
	}
	return s, nil
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
// [from, to) (UTC, whole seconds), through Transaction Search in pages of
// 2000 sorted on id.
//
// Offsets over live data drift, so the records are de-duplicated by id (an id
// is yielded once), and after the last page the number of distinct ids is
// compared with the largest totalCount seen (tally): fewer yields a final
// error wrapping ErrShortfall that gives both numbers, after every record
// that was found. Query closed windows (to in the past) to keep drift away.
func (m *Merchant) SearchTransactions(ctx context.Context, from, to time.Time) iter.Seq2[TransactionSummary, error] {
	return func(yield func(TransactionSummary, error) bool) {
		f, t := from.UTC().Format(searchTimeLayout), to.UTC().Format(searchTimeLayout)
		what := fmt.Sprintf("search transactions of merchant %s submitted in [%s, %s)", m.id, f, t)
		if !to.After(from) {
			yield(TransactionSummary{}, fmt.Errorf("%s: the window is empty", what))
			return
		}
		req := searchRequest{
			Name:     "reconcile",
			Timezone: "UTC",
			Query:    "submitTimeUtc:[" + f + " TO " + t + "}",
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
			for _, raw := range recs {
				s, err := decodeSummary(raw)
				if err != nil {
					yield(TransactionSummary{}, fmt.Errorf("%s at offset %d: %w", what, req.Offset, err))
					return
				}
				if !count.first(s.ID) {
					continue
				}
				if !yield(s, nil) {
					return
				}
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
