-- Title: No PO number on purchase card
-- Means: A purchasing-card payment was sent without the buyer's purchase order number, so it misses the lower card fee.
-- Do: Have the merchant send the purchase order number on purchasing-card payments.
-- A capture, credit or sale on a purchasing or procurement card sent without
-- orderInformation.invoiceDetails.purchaseOrderNumber, which the spec
-- requires for Level II on these cards. A purchasing or procurement card is
-- one whose BIN lookup completed with a card product naming "purchasing" or
-- "procurement" (any case). The card comes from the call, else Transaction
-- Search's record of it, else the authorization a capture follows
-- (view journal_cards). Calls answered 2xx in the window. Entity: the
-- platform's response id; amount: the call's amount.
-- Action: have the merchant send the buyer's purchase order number on
-- purchasing-card captures, sales and credits; without it the call does not
-- qualify for the Level II rate.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'bin', c.card_bin,
                'card_product', b.card_product, 'purchase_level', j.purchase_level,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
JOIN journal_cards c ON c.merchant_id = j.merchant_id AND c.file = j.file AND c.line = j.line
JOIN bin_attributes b ON b.bin = c.card_bin
WHERE j.call_kind IN ('capture', 'credit', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.purchase_order_number IS NULL
  AND b.lookup_status = 'COMPLETED'
  AND (b.card_product ILIKE '%purchas%' OR b.card_product ILIKE '%procure%')
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
