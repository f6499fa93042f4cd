-- Title: Settled amount differs
-- Means: A payment settled for a different amount (or currency) than was captured.
-- Do: Check the settlement batch with the platform and correct or refund the difference.
-- A settlement requested in the window (with a batch) whose amount or
-- currency differs from its transaction's. Amount: the settled amount; the
-- difference (settled - captured) only where the currencies agree. A
-- request funded in another currency than it settled in is no mismatch.
-- Action: ask the processor for the batch detail; claim the difference
-- back or adjust the customer's charge.
SELECT
    s.merchant_id,
    s.request_id AS entity_id,
    s.amount,
    s.currency,
    json_object('transaction_amount', t.amount, 'transaction_currency', t.currency,
                'difference', CASE WHEN t.currency IS NOT DISTINCT FROM s.currency THEN s.amount - t.amount END,
                'batch_id', s.batch_id, 'batch_time', s.batch_time, 'request_time', s.request_time) AS detail
FROM settlements s
JOIN transactions t ON t.merchant_id = s.merchant_id AND t.transaction_id = s.request_id
WHERE s.batch_time IS NOT NULL
  AND s.request_time >= getvariable('window_start') AND s.request_time < getvariable('window_end')
  AND (s.amount IS DISTINCT FROM t.amount OR s.currency IS DISTINCT FROM t.currency)
