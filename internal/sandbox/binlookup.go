package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
)

type binLookupRequest struct {
	PaymentInformation struct {
		Card                 struct{ Number string } `json:"card"`
		Customer             struct{ ID string }     `json:"customer"`
		InstrumentIdentifier struct{ ID string }     `json:"instrumentIdentifier"`
		PaymentInstrument    struct{ ID string }     `json:"paymentInstrument"`
	} `json:"paymentInformation"`
	TokenInformation struct {
		JTI               string `json:"jti"`
		TransientTokenJwt string `json:"transientTokenJwt"`
	} `json:"tokenInformation"`
	ProcessingInformation struct {
		PayoutOptions struct {
			PayoutInquiry flexBool `json:"payoutInquiry"`
		} `json:"payoutOptions"`
	} `json:"processingInformation"`
}

// flexBool accepts a JSON boolean or the strings "true"/"false".
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	switch strings.Trim(strings.ToLower(string(b)), `"`) {
	case "true":
		*f = true
	case "false", "null", "":
		*f = false
	default:
		return fmt.Errorf("not a boolean: %s", b)
	}
	return nil
}

type binCardJSON struct {
	Type           string `json:"type"`
	BrandName      string `json:"brandName"`
	MaxLength      string `json:"maxLength"`
	Currency       string `json:"currency"`
	CredentialType string `json:"credentialType"`
}

type binFeaturesJSON struct {
	AccountFundingSource        string `json:"accountFundingSource"`
	AccountFundingSourceSubType string `json:"accountFundingSourceSubType,omitempty"`
	CardProduct                 string `json:"cardProduct"`
	CardPlatform                string `json:"cardPlatform"`
	HealthCard                  bool   `json:"healthCard"`
	ATMEnabled                  bool   `json:"atmEnabled"`
	EcomEnabled                 bool   `json:"ecomEnabled"`
	FleetCard                   bool   `json:"fleetCard"`
	POSEnabled                  bool   `json:"posEnabled"`
	// The Level II/III eligibility flags: JSON booleans, as the SDK's
	// model types them (TmsBinLookupPaymentAccountInformationFeatures,
	// commercialCardLevel2/3 Boolean; its reader would take "N" for true).
	CommercialCardLevel2 bool `json:"commercialCardLevel2"`
	CommercialCardLevel3 bool `json:"commercialCardLevel3"`
}

// yn is a flag as the platform writes it.
func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

type binIssuerJSON struct {
	Name          string `json:"name"`
	Country       string `json:"country"`
	BinLength     string `json:"binLength"`
	AccountPrefix string `json:"accountPrefix"`
	PhoneNumber   string `json:"phoneNumber"`
}

// issuerPhone is a fictitious phone number of a BIN's issuer, written with
// separators so that it is never a run of digits.
func issuerPhone(prefix string) string { return "+1-555-" + prefix[:3] + "-" + prefix[3:6] }

// binLookup answers 201 for all three outcomes; MULTIPLE and NO MATCH carry
// no record body (docs/dev/wire.md).
func (s *Server) binLookup(x *exchange, req binLookupRequest) answer {
	pi := req.PaymentInformation
	creds := map[string]string{
		"paymentInformation.card.number":             strings.TrimSpace(pi.Card.Number),
		"paymentInformation.customer.id":             strings.TrimSpace(pi.Customer.ID),
		"paymentInformation.instrumentIdentifier.id": strings.TrimSpace(pi.InstrumentIdentifier.ID),
		"paymentInformation.paymentInstrument.id":    strings.TrimSpace(pi.PaymentInstrument.ID),
		"tokenInformation.jti":                       strings.TrimSpace(req.TokenInformation.JTI),
		"tokenInformation.transientTokenJwt":         strings.TrimSpace(req.TokenInformation.TransientTokenJwt),
	}
	var field, value string
	n := 0
	for f, v := range creds {
		if v != "" {
			field, value, n = f, v, n+1
		}
	}
	if n != 1 {
		return x.validationError(fmt.Sprintf("exactly one credential is required, got %d", n),
			errorDetail{Field: "paymentInformation", Reason: "exactly one of card.number, customer.id, instrumentIdentifier.id, paymentInstrument.id, tokenInformation.jti, tokenInformation.transientTokenJwt"})
	}
	payout := bool(req.ProcessingInformation.PayoutOptions.PayoutInquiry)
	outcome, entry, rec := binNoMatch, (*binEntry)(nil), (*binRecord)(nil)
	credential := "PAN"
	switch field {
	case "paymentInformation.card.number":
		num := strings.ReplaceAll(value, " ", "")
		allDigits := num != "" && strings.Trim(num, "0123456789") == ""
		switch {
		case allDigits && len(num) >= 6 && len(num) <= 8:
			if payout {
				// Fast funds: only with a full PAN or a token (spec).
				return x.invalid("payoutInquiry needs a full card number or a token, not a prefix",
					errorDetail{Field: "processingInformation.payoutOptions.payoutInquiry", Reason: "INVALID_DATA"})
			}
		case allDigits && len(num) >= 13 && len(num) <= 19 && luhnValid(num):
		default:
			return x.invalid("card number must be a 6-8 digit prefix or a valid full card number",
				errorDetail{Field: field, Reason: "INVALID_DATA"})
		}
		outcome, entry, rec = lookupPrefixOrPAN(num)
	case "paymentInformation.customer.id", "paymentInformation.instrumentIdentifier.id", "paymentInformation.paymentInstrument.id":
		kind := map[string]byte{"paymentInformation.customer.id": tokenCustomer,
			"paymentInformation.instrumentIdentifier.id": tokenInstrument,
			"paymentInformation.paymentInstrument.id":    tokenPaymentInstrument}[field]
		if b, sub, ok := decodeToken(value, kind); ok {
			entry = &binTable[b]
			switch entry.outcome {
			case binCompleted:
				outcome, rec = binCompleted, &entry.records[0]
			case binMultipleResolvable:
				outcome, rec = binCompleted, &entry.records[sub]
			default:
				outcome = entry.outcome
			}
		}
	default:
		// Transient tokens and JTIs are never issued by the sandbox.
	}
	// The lookup's id is in the platform's format (resourceID): the Unix
	// second without its leading 1, then 13 digits, random here.
	resp := map[string]any{"id": fmt.Sprintf("%09d%013d", s.cfg.Now().Unix()%1_000_000_000, rand.Uint64()%10_000_000_000_000),
		"submitTimeUtc": s.now()}
	switch outcome {
	case binCompleted:
		resp["status"] = "COMPLETED"
		resp["paymentAccountInformation"] = map[string]any{
			"card": binCardJSON{Type: entry.cardType, BrandName: rec.brand, MaxLength: fmt.Sprint(entry.length),
				Currency: rec.currency, CredentialType: credential},
			"features": binFeaturesJSON{AccountFundingSource: rec.fundingSource, AccountFundingSourceSubType: rec.fundingSubType,
				CardProduct: rec.product, CardPlatform: rec.platform, HealthCard: rec.health,
				ATMEnabled: rec.fundingSource == "DEBIT", EcomEnabled: true, POSEnabled: true,
				CommercialCardLevel2: businessPlatform(rec.platform), CommercialCardLevel3: businessPlatform(rec.platform)},
		}
		resp["issuerInformation"] = binIssuerJSON{Name: rec.issuer, Country: rec.country, BinLength: "6", AccountPrefix: entry.prefix,
			PhoneNumber: issuerPhone(entry.prefix)}
		if payout {
			// Fast-funds eligibility, with the names and Y/N values of the
			// platform's payout inquiry (the spec gives none). Debit and
			// prepaid cards take pushed funds, credit cards do not.
			push := rec.fundingSource == "DEBIT" || rec.fundingSource == "PREPAID"
			resp["payoutInformation"] = map[string]any{
				"pushFunds": map[string]any{"domesticParticipant": yn(push), "crossBorderParticipant": yn(push && rec.country == "US"),
					"moneyTransferDomestic": yn(push), "moneyTransferCrossBorder": yn(push && rec.country == "US"),
					"moneyTransferFastFundsDomestic": yn(push), "moneyTransferFastFundsCrossBorder": "N"},
				"pullFunds": map[string]any{"domesticParticipant": "Y", "crossBorderParticipant": "Y"}}
		}
	case binMultipleResolvable, binMultipleUnresolvable:
		resp["status"] = "MULTIPLE"
	default:
		resp["status"] = "NO MATCH"
	}
	return reply(http.StatusCreated, resp)
}
