-- Title: Healthcare amounts too high
-- Means: The healthcare part of a payment adds up to more than the payment itself.
-- Do: Have the merchant correct how it splits healthcare amounts; the issuer may decline or reverse them.
-- An authorization or sale whose healthcare amounts exceed its total
-- amount: the healthcare total (amount type healthcare on Visa,
-- eligible-total on Mastercard), or the sum of the other types
-- (prescription, clinic, dental, vision, Visa's healthcare-transit, which
-- are parts of it), is greater than
-- orderInformation.amountDetails.totalAmount.
-- The platform checks each amount alone against the total, not their sum.
-- Calls answered 2xx in the window. Entity: the platform's response id;
-- amount: the call's total; detail: the healthcare sums.
-- Action: correct how the merchant splits the basket into healthcare
-- amounts; the issuer may decline or a later audit reverse the healthcare
-- part.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'healthcare_amount', j.healthcare_amount,
                'other_healthcare_amounts', j.healthcare_detail_amount, 'entries', j.healthcare_amount_count,
                'response_status', j.response_status, 'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE j.call_kind IN ('authorization', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.amount IS NOT NULL
  AND greatest(coalesce(j.healthcare_amount, 0), coalesce(j.healthcare_detail_amount, 0)) > j.amount
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
