package platform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// BIN lookup outcomes (the response's status).
const (
	BINCompleted = "COMPLETED"
	BINMultiple  = "MULTIPLE"
	BINNoMatch   = "NO MATCH"
)

// BINQuery names the card to look up. Exactly one field must be set.
//
// CardPrefix must be 6 to 8 digits: the lookup accepts a full card number,
// but this project never sends one, and LookupBIN refuses anything longer
// before any request is made.
type BINQuery struct {
	CardPrefix             string
	CustomerID             string
	InstrumentIdentifierID string
	PaymentInstrumentID    string
}

// BINResult is the answer of a BIN lookup. Only Status (and ID, SubmitTimeUTC)
// are set for MULTIPLE and NO MATCH, which carry no record.
type BINResult struct {
	Status        string // COMPLETED, MULTIPLE, NO MATCH
	ID            string
	SubmitTimeUTC string

	// paymentAccountInformation.card
	CardType       string
	BrandName      string
	CardCurrency   string
	CredentialType string // PAN or TOKEN
	MaxLength      string

	// paymentAccountInformation.features
	FundingSource        string // CREDIT, DEBIT, PREPAID, DEFERRED DEBIT, CHARGE
	FundingSourceSubType string
	CardPlatform         string // BUSINESS, CONSUMER, CORPORATE, COMMERCIAL, GOVERNMENT (SDK model TmsBinLookupPaymentAccountInformationFeatures)
	CardProduct          string
	HealthCard           *bool
	// Level II/III eligibility (commercialCardLevel2/3: booleans in the SDK
	// model, "Y"/"N" accepted too); nil
	// when the answer does not say.
	CommercialCardLevel2 *bool
	CommercialCardLevel3 *bool

	// payoutInformation.pushFunds of a payout inquiry: fast funds
	// eligibility (moneyTransferFastFundsDomestic/CrossBorder, "Y"/"N").
	FastFundsDomestic    *bool
	FastFundsCrossBorder *bool

	// issuerInformation
	IssuerName    string
	IssuerCountry string
	BINLength     string
	AccountPrefix string

	Raw json.RawMessage `json:"-"`
}

type binWire struct {
	ID                        flexString `json:"id"`
	SubmitTimeUTC             flexString `json:"submitTimeUtc"`
	Status                    flexString `json:"status"`
	PaymentAccountInformation struct {
		Card struct {
			Type           flexString `json:"type"`
			BrandName      flexString `json:"brandName"`
			Currency       flexString `json:"currency"`
			CredentialType flexString `json:"credentialType"`
			MaxLength      flexString `json:"maxLength"`
		} `json:"card"`
		Features struct {
			AccountFundingSource        flexString `json:"accountFundingSource"`
			AccountFundingSourceSubType flexString `json:"accountFundingSourceSubType"`
			CardPlatform                flexString `json:"cardPlatform"`
			CardProduct                 flexString `json:"cardProduct"`
			HealthCard                  flexBool   `json:"healthCard"`
			CommercialCardLevel2        flexBool   `json:"commercialCardLevel2"`
			CommercialCardLevel3        flexBool   `json:"commercialCardLevel3"`
		} `json:"features"`
	} `json:"paymentAccountInformation"`
	PayoutInformation struct {
		PushFunds struct {
			MoneyTransferFastFundsDomestic    flexBool `json:"moneyTransferFastFundsDomestic"`
			MoneyTransferFastFundsCrossBorder flexBool `json:"moneyTransferFastFundsCrossBorder"`
		} `json:"pushFunds"`
	} `json:"payoutInformation"`
	IssuerInformation struct {
		Name          flexString `json:"name"`
		Country       flexString `json:"country"`
		BinLength     flexString `json:"binLength"`
		AccountPrefix flexString `json:"accountPrefix"`
	} `json:"issuerInformation"`
}

func decodeBIN(raw json.RawMessage) (*BINResult, error) {
	w, err := decodeRecord[binWire]("BIN lookup", raw)
	if err != nil {
		return nil, err
	}
	card, feat, iss := w.PaymentAccountInformation.Card, w.PaymentAccountInformation.Features, w.IssuerInformation
	return &BINResult{
		Status:               string(w.Status),
		ID:                   string(w.ID),
		SubmitTimeUTC:        string(w.SubmitTimeUTC),
		CardType:             string(card.Type),
		BrandName:            string(card.BrandName),
		CardCurrency:         string(card.Currency),
		CredentialType:       string(card.CredentialType),
		MaxLength:            string(card.MaxLength),
		FundingSource:        string(feat.AccountFundingSource),
		FundingSourceSubType: string(feat.AccountFundingSourceSubType),
		CardPlatform:         string(feat.CardPlatform),
		CardProduct:          string(feat.CardProduct),
		HealthCard:           feat.HealthCard.ptr(),
		CommercialCardLevel2: feat.CommercialCardLevel2.ptr(),
		CommercialCardLevel3: feat.CommercialCardLevel3.ptr(),
		FastFundsDomestic:    w.PayoutInformation.PushFunds.MoneyTransferFastFundsDomestic.ptr(),
		FastFundsCrossBorder: w.PayoutInformation.PushFunds.MoneyTransferFastFundsCrossBorder.ptr(),
		IssuerName:           string(iss.Name),
		IssuerCountry:        string(iss.Country),
		BINLength:            string(iss.BinLength),
		AccountPrefix:        string(iss.AccountPrefix),
		Raw:                  raw,
	}, nil
}

type idWire struct {
	ID string `json:"id"`
}

type binRequest struct {
	PaymentInformation struct {
		Card *struct {
			Number string `json:"number"`
		} `json:"card,omitempty"`
		Customer             *idWire `json:"customer,omitempty"`
		InstrumentIdentifier *idWire `json:"instrumentIdentifier,omitempty"`
		PaymentInstrument    *idWire `json:"paymentInstrument,omitempty"`
	} `json:"paymentInformation"`
}

// request validates q and builds the request body. Errors never repeat the
// card field, which may hold a full card number.
func (q BINQuery) request() (*binRequest, error) {
	set := 0
	for _, v := range []string{q.CardPrefix, q.CustomerID, q.InstrumentIdentifierID, q.PaymentInstrumentID} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("BIN query must set exactly one of card prefix, customer id, instrument identifier id, payment instrument id (%d set)", set)
	}
	var r binRequest
	switch {
	case q.CardPrefix != "":
		if n := len(q.CardPrefix); n < 6 || n > 8 || strings.Trim(q.CardPrefix, "0123456789") != "" {
			return nil, fmt.Errorf("BIN query: card prefix must be 6 to 8 digits (got %d characters); a full card number is never sent", n)
		}
		r.PaymentInformation.Card = &struct {
			Number string `json:"number"`
		}{q.CardPrefix}
	case q.CustomerID != "":
		r.PaymentInformation.Customer = &idWire{q.CustomerID}
	case q.InstrumentIdentifierID != "":
		r.PaymentInformation.InstrumentIdentifier = &idWire{q.InstrumentIdentifierID}
	default:
		r.PaymentInformation.PaymentInstrument = &idWire{q.PaymentInstrumentID}
	}
	return &r, nil
}

// LookupBIN looks up the card account attributes of a card prefix or token:
// POST /bin/v1/binlookup. The platform answers 201 (200 is accepted too) with
// status COMPLETED, MULTIPLE (the prefix matched several ranges; retry with a
// token) or NO MATCH. A 404 whose body status is NO MATCH is also a NO MATCH
// result, not an error (docs/dev/wire.md).
func (m *Merchant) LookupBIN(ctx context.Context, q BINQuery) (*BINResult, error) {
	what := "BIN lookup for merchant " + m.id
	req, err := q.request()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", what, err)
	}
	resp, err := m.send(ctx, "POST", "/bin/v1/binlookup", body, true, binLimit)
	if err != nil {
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.HTTPStatus == http.StatusNotFound &&
			strings.EqualFold(strings.TrimSpace(apiErr.Status), BINNoMatch) {
			raw := json.RawMessage(append([]byte(nil), apiErr.body...))
			res, derr := decodeBIN(raw)
			if derr != nil {
				res = &BINResult{SubmitTimeUTC: apiErr.SubmitTime, Raw: raw}
			}
			res.Status = BINNoMatch
			return res, nil
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	res, err := decodeBIN(resp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return res, nil
}
