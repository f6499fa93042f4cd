-- Title: Level III data incomplete
-- Means: Line-item detail (Level III) was sent but incomplete or wrong, so the lower card fee was likely lost.
-- Do: Have the merchant's developers fix the line items; expect a higher fee on these payments.
-- A capture, credit or sale sent with purchaseLevel 3 whose Level III data
-- is incomplete or malformed: a line item left out a field the spec requires
-- for Level III (commodityCode, discountAmount, productCode, quantity,
-- unitOfMeasure, unitPrice; a field counts as left out when absent, null or
-- blank), or no line items were sent at all; or a tax rate (order or line
-- item) or discount rate was written as a percent instead of a fraction. The
-- rule for a percent: a rate above 1 (8.25 for 8.25 percent; the spec writes
-- 1 percent as 0.01, so no real rate exceeds 1). discountRate is required by
-- one network only, which the spec does not name, so its absence is not
-- flagged; its value follows the percent rule. Calls answered 2xx in the
-- window, from the merchants' journals. Entity: the platform's response id;
-- amount: the call's amount; detail: the fields left out and the rates.
-- Action: fix the merchant's Level III mapping (every line item carries the
-- six fields; rates as fractions, 0.0825 for 8.25 %); expect the processor
-- to have downgraded these calls to a higher rate.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'time', j.time, 'missing', j.level3_missing,
                'percent_rates', j.percent_rates, 'line_items', j.line_item_count,
                'level3_status', j.level3_status, 'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE j.call_kind IN ('capture', 'credit', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.transaction_id IS NOT NULL
  AND j.purchase_level = '3'
  AND (j.level3_missing IS NOT NULL OR j.percent_rates IS NOT NULL)
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
