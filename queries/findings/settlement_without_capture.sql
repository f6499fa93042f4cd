-- Title: Settlement without a capture
-- Means: Money was settled for a request that matches no captured transaction of the merchant.
-- Do: Find where the request came from (another system or a manual capture) and ask the platform if it is unknown.
-- A settlement requested in the window (purchase and refund details, with a
-- batch) whose request id is no transaction of its member, for a member
-- whose transactions of the window were read. Amount: the settled amount.
-- Action: find what was settled: a capture made outside the platform's
-- search, a duplicate submission, or a batch that is not the merchant's.
SELECT
    s.merchant_id,
    s.request_id AS entity_id,
    s.amount,
    s.currency,
    json_object('transaction_type', s.transaction_type, 'request_time', s.request_time,
                'batch_id', s.batch_id, 'batch_time', s.batch_time) AS detail
FROM settlements s
WHERE s.batch_time IS NOT NULL
  AND s.request_time >= getvariable('window_start') AND s.request_time < getvariable('window_end')
  AND EXISTS (SELECT 1 FROM transactions w
              WHERE w.merchant_id = s.merchant_id
                AND w.submit_time >= getvariable('window_start') AND w.submit_time < getvariable('window_end'))
  AND NOT EXISTS (SELECT 1 FROM transactions t
                  WHERE t.merchant_id = s.merchant_id AND t.transaction_id = s.request_id)
