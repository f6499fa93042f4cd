-- Title: Level III not transmitted
-- Means: Line-item detail (Level III) was sent but the processor did not pass it on, so the lower card fee was lost.
-- Do: Ask the platform to re-enable Level III for the merchant ID; expect a higher fee on these payments.
-- A capture or sale that sent Level III data (purchaseLevel 3, or line
-- items) and whose response said Level III data was not transmitted
-- (level3TransmissionStatus "N", or false in older responses): a
-- transmission failure. The platform answers the status on payments and
-- captures only, and N also when the account is not enabled for Level III
-- or the request sent no purchaseLevel, so a call that sent no Level III
-- answered N is not this finding (on a business card it is
-- commercial_card_without_level3). The platform keeps no Level II/III
-- data, so this comes from the merchant's journal; journal.level3_status
-- is normalised to 'Y'/'N' at import.
-- Action: ask the platform to re-enable Level III for the MID; expect a higher
-- rate on these transactions.
SELECT
    j.merchant_id,
    j.transaction_id AS entity_id,
    j.amount,
    j.currency,
    json_object('call_kind', j.call_kind, 'path', j.path, 'time', j.time,
                'purchase_level', j.purchase_level, 'line_items', j.line_item_count,
                'file', j.file, 'line', j.line,
                'client_reference', coalesce(j.request->'clientReferenceInformation'->>'code',
                                              j.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal j
WHERE j.call_kind IN ('capture', 'sale')
  AND j.status BETWEEN 200 AND 299
  AND j.level3_status = 'N'
  AND (j.purchase_level = '3' OR coalesce(j.line_item_count, 0) > 0)
  AND j.transaction_id IS NOT NULL
  AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY j.merchant_id, j.transaction_id ORDER BY j.time, j.file, j.line) = 1
