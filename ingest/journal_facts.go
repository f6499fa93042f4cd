package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/reconcile/reconcile/internal/calls"
	"github.com/reconcile/reconcile/internal/cardmask"
	"github.com/reconcile/reconcile/internal/jsonbody"
	"github.com/reconcile/reconcile/internal/store"
	"github.com/reconcile/reconcile/queries"
)

// JournalInspectVersion is the version of what journalFacts derives from a
// call. Rows imported by an older version (NULL: before the column existed)
// are inspected again from their stored request and response
// (ReinspectJournal), so that a check added later sees the calls of files
// imported earlier, which are never imported twice.
//
// Version 3 reads the amounts of refunds and credits answered in the names
// of the platform's SDK models (refundAmountDetails, creditAmountDetails).
// Version 4 masks card data with cardmask.MaskLine: rows imported before it may
// hold card numbers in their path (and so parent_id) and in disguises the
// earlier masking missed, and security codes, so their path and bodies
// are masked again as they are inspected.
// Version 5 reads what the card-network retry checks need: the card's type
// code, the network's response code and the merchant advice codes.
// Version 6 reads the merchant's order number (client_reference), which the
// retry kinds' sheets show: read from the request and response bodies of
// every journal line, it ran a 5,000-member workbook out of memory.
// Version 7 masks again what the masking of 2026-11-27 masks more: card
// numbers that separators join onto other digits, the track data after
// them, and a line masked until nothing changes.
// Version 8 reads Mastercard's eligible-total as the healthcare total (it
// was summed as a part), and Visa's healthcare-transit as a part.
const JournalInspectVersion = 8

// reinspectRows is how many rows ReinspectJournal takes at a time.
const reinspectRows = 5_000

// journalFactColumns are the journal columns derived from a call's request
// and response by calls.Inspect, in the order journalFacts returns them
// (store.Columns).
const journalFactColumns = "call_kind text, transaction_id text, parent_id text, card_bin text, card_last4 text, " +
	"amount amount, currency text, purchase_level text, line_item_count int32, level3_status text, " +
	"purchase_order_number text, level3_missing text, percent_rates text, " +
	"response_status text, network_transaction_id text, approval_code text, " +
	"commerce_indicator text, initiator_type text, credential_stored bool, stored_credential_used bool, " +
	"mit_reason text, previous_transaction_id text, action_list text, " +
	"product_subtype text, healthcare_amount amount, healthcare_detail_amount amount, healthcare_amount_count int32, " +
	"payment_type text, session_token text, country text, " +
	"installment_id text, plan_id text, ref_network_transaction_id text, ref_authorization_code text, refund_amount amount, " +
	"payment_solution text, wallet_data bool, terminal_id text, " +
	"inspect_version int32, " +
	"card_type text, processor_response_code text, merchant_advice_code text, merchant_advice_code_raw text, " +
	"client_reference text"

// healthcareTotalTypes are the amount types that carry a call's total
// healthcare amount rather than a part of it: Visa's healthcare and
// Mastercard's eligible-total (SDK model
// Ptsv2paymentsHealthCareInformationAmountDetails, amountType).
var healthcareTotalTypes = map[string]bool{"healthcare": true, "eligible-total": true}

// journalFacts inspects one call (its card data already masked) into the
// values of journalFactColumns. An amount that is not a decimal amount is
// NULL and the error names it: an imported line is rejected with it, as a
// bad totalAmount always was.
func journalFacts(method, path string, req, resp map[string]any) ([]any, error) {
	call := calls.Inspect(method, path, req, resp)
	var c converter
	amount := orNull(c.amount("amount", call.TotalAmount))
	var lineItems any
	if call.LineItems > 0 || call.PurchaseLevel != "" {
		lineItems = int32(call.LineItems)
	}
	// Healthcare amounts (SDK model
	// Ptsv2paymentsHealthCareInformationAmountDetails): the total
	// healthcare amount is "healthcare" on Visa and "eligible-total" on
	// Mastercard; the other types (prescription, clinic, dental, vision,
	// Visa's healthcare-transit) are parts of it, so they are summed apart
	// rather than added to it.
	var health, detail, count any
	if n := len(call.HealthcareAmounts); n > 0 {
		var h, d int64
		hSet, dSet := false, false
		for i, a := range call.HealthcareAmounts {
			v, ok := c.amount(fmt.Sprintf("healthCareInformation.amountDetails[%d].amount", i), a.Amount)
			if !ok {
				continue
			}
			if healthcareTotalTypes[a.Type] {
				h, hSet = h+v, true
			} else {
				d, dSet = d+v, true
			}
		}
		if hSet {
			health = h
		}
		if dSet {
			detail = d
		}
		count = int32(n)
	}
	refund := orNull(c.amount("processingInformation.refundOptions.refundAmount", call.RefundAmount))
	a := call.Areas
	return []any{
		string(call.Kind), text(call.TransactionID), text(call.ParentID), text(call.CardBIN), text(call.CardLast4),
		amount, text(call.Currency), text(call.PurchaseLevel), lineItems, text(call.Level3Status),
		text(call.PurchaseOrderNumber), text(call.Level3Missing), text(call.PercentRates),
		text(call.ResponseStatus), text(call.NetworkTransactionID), text(call.ApprovalCode),
		text(a.CommerceIndicator), text(a.Initiator), a.CredentialStored, a.StoredCredentialUsed,
		text(a.MITReason), text(a.PreviousTransactionID), text(a.Actions),
		text(a.ProductSubtype), health, detail, count,
		text(a.PaymentType), text(a.SessionToken), text(a.Country),
		text(a.InstallmentID), text(a.PlanID), text(a.RefNetworkTransactionID), text(a.RefAuthorizationCode), refund,
		text(a.PaymentSolution), a.WalletData, text(a.TerminalID),
		int32(JournalInspectVersion),
		text(call.CardType), text(call.ResponseCode), text(call.MerchantAdviceCode), text(call.MerchantAdviceCodeRaw),
		text(call.ClientReference),
	}, c.err
}

// ReinspectJournal derives the facts again for journal rows an older
// version imported, from their stored path and bodies, masked again
// first; reinspectRows at a time, so that memory stays bounded however
// many rows an upgrade finds. An amount that no longer converts becomes
// NULL. It returns the number of rows inspected.
//
// It ends with a checkpoint: DuckDB holds updated rows in its memory until
// one writes them, and after 158,850 rows of a 1,000-member file (189 MiB
// of it) the checks that follow ran out of memory on a slice of one
// member. The checkpoint took 58 ms.
func ReinspectJournal(ctx context.Context, s *store.Store) (int, error) {
	total := 0
	for {
		n, err := reinspectSome(ctx, s)
		total += n
		if err != nil {
			return total, err
		}
		if n < reinspectRows {
			break
		}
	}
	if total > 0 {
		if err := s.Checkpoint(ctx); err != nil {
			return total, fmt.Errorf("write the journal rows inspected again: %w", err)
		}
	}
	return total, nil
}

var journalToInspectAgain = queries.Must("ingest.sql", "JournalToInspectAgain")

// reinspectSome inspects again up to reinspectRows rows of an older version.
func reinspectSome(ctx context.Context, s *store.Store) (int, error) {
	rows, err := s.Conn().QueryContext(ctx, journalToInspectAgain, JournalInspectVersion, reinspectRows)
	if err != nil {
		return 0, fmt.Errorf("journal rows to inspect again: %w", err)
	}
	again := journalFactsTable.NewBatch()
	for rows.Next() {
		var mid, file string
		var line int32
		var method, path, req, resp sql.NullString
		var status sql.NullInt32
		if err := rows.Scan(&mid, &file, &line, &method, &path, &req, &resp, &status); err != nil {
			rows.Close()
			return 0, fmt.Errorf("journal rows to inspect again: %w", err)
		}
		// By field, as an import masks a line (cardmask.MaskJournalLine).
		req.String, resp.String = cardmask.MaskRecordText(req.String), cardmask.MaskRecordText(resp.String)
		path.String = cardmask.MaskPath(path.String, int(status.Int32), req.String, resp.String)
		facts, _ := journalFacts(method.String, path.String, jsonbody.Object(req.String), jsonbody.Object(resp.String))
		values := []any{mid, file, line, nullString(path), nullJSON(req), nullJSON(resp)}
		again.Add(append(values, facts...)...)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("journal rows to inspect again: %w", err)
	}
	n := again.Len()
	if n == 0 {
		return 0, nil
	}
	err = s.Transact(ctx, func(tx *store.Tx) error { return tx.Update(ctx, again) })
	if err != nil {
		return 0, fmt.Errorf("inspect journal rows again: %w", err)
	}
	return n, nil
}

func nullString(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	return s.String
}

// nullJSON is JSON text read back from a JSON column, for Batch.Add.
func nullJSON(s sql.NullString) any {
	if !s.Valid {
		return nil
	}
	return []byte(s.String)
}
