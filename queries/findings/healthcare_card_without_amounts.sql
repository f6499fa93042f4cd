-- Title: HSA/FSA card, no health amounts
-- Means: A health-savings (HSA/FSA) card was charged without saying which part is a healthcare expense; such payments are usually declined.
-- Do: Retry the payment with the healthcare amounts, and have the merchant always send them on these cards.
-- An authorization or sale on a health-care card (its BIN lookup completed
-- with healthCard true: an HSA or FSA card) sent without
-- healthCareInformation.amountDetails. The issuer of a health-care debit
-- card rejects a payment that does not say which part is a healthcare
-- expense (the spec's reason for the healthcare fields), so these are
-- usually declines. The card as in the view journal_cards; calls answered
-- 2xx in the window. Entity: the platform's response id; amount: the call's
-- amount; detail: what the platform answered.
-- Action: send productSubtype HC and the healthcare amounts (at least the
-- healthcare total) on payments with health-care cards; retry the declined
-- ones with them.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'bin', c.card_bin, 'card_product', b.card_product,
                'product_subtype', j.product_subtype, 'response_status', j.response_status,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
JOIN bin_attributes b ON b.bin = c.card_bin
WHERE j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND b.lookup_status = 'COMPLETED' AND b.health_card
  AND coalesce(j.healthcare_amount_count, 0) = 0
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
