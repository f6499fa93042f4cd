-- Title: Business card, no Level III
-- Means: A business card was charged without the line-item detail (Level III) that earns the lower card fee.
-- Do: Ask the merchant's developers to send line items for business cards; these payments cost a higher fee.
-- A capture or sale (never an authorization) on a card whose BIN resolves to a
-- business platform (cardPlatform BUSINESS, CORPORATE, COMMERCIAL or
-- GOVERNMENT: all but CONSUMER), which qualifies for Level III, sent
-- without Level III data: neither purchaseLevel 3
-- nor line items. The card's BIN comes from the call itself (a sale carries the
-- card), else from the platform's record of the transaction, else from the
-- authorization the capture refers to (by transaction or by journal line).
-- Action: send line items and purchaseLevel 3 for business cards in the
-- merchant's integration.
WITH calls AS (
    SELECT
        j.*,
        coalesce(j.card_bin, t.card_bin, pt.card_bin, pj.card_bin) AS bin
    FROM journal j
    LEFT JOIN transactions t
           ON t.merchant_id = j.merchant_id AND t.transaction_id = j.transaction_id
    LEFT JOIN transactions pt
           ON pt.merchant_id = j.merchant_id AND pt.transaction_id = j.parent_id
    LEFT JOIN (SELECT merchant_id, transaction_id, any_value(card_bin) AS card_bin
               FROM journal WHERE card_bin IS NOT NULL GROUP BY ALL) pj
           ON pj.merchant_id = j.merchant_id AND pj.transaction_id = j.parent_id
    WHERE j.call_kind IN ('capture', 'sale')
      AND j.status BETWEEN 200 AND 299
      AND j.transaction_id IS NOT NULL
      AND j.time >= getvariable('window_start') AND j.time < getvariable('window_end')
)
SELECT
    c.merchant_id,
    c.transaction_id AS entity_id,
    c.amount,
    c.currency,
    json_object('call_kind', c.call_kind, 'path', c.path, 'time', c.time, 'bin', c.bin,
                'card_product', b.card_product, 'funding_source', b.funding_source,
                'file', c.file, 'line', c.line,
                'client_reference', coalesce(c.request->'clientReferenceInformation'->>'code',
                                              c.response->'clientReferenceInformation'->>'code')) AS detail
FROM calls c
JOIN bin_attributes b ON b.bin = c.bin
WHERE b.lookup_status = 'COMPLETED'
  AND business_card_platform(b.card_platform)
  AND coalesce(c.purchase_level, '') <> '3'
  AND coalesce(c.line_item_count, 0) = 0
QUALIFY row_number() OVER (PARTITION BY c.merchant_id, c.transaction_id ORDER BY c.time, c.file, c.line) = 1
