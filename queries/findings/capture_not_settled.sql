-- Title: Capture not settled
-- Means: A captured payment has not been settled (paid out by the card network) within the expected business days.
-- Do: Ask the platform why the capture is not in a settlement batch; it may need to be captured again.
-- A capture not settled more than --settlement-days business days (default
-- 3, Monday to Friday) after its day at the business date: a purchase the
-- purchase and refund details list with no batch yet (read from 14 days
-- before the window), or a capture in the window (its applications include
-- ics_bill, not declined) that the details of a member who has any do not
-- list at all. A capture still within its days is expected, not a finding:
-- the Settlement sheet shows it in flight. Amount: the captured amount.
-- Action: ask the processor why the capture was not batched; re-submit it
-- or void it and capture again.
WITH reported AS (
    SELECT DISTINCT merchant_id FROM settlements
),
unsettled AS (
    SELECT s.merchant_id, s.request_id AS entity_id, s.request_time AS captured_at, s.amount, s.currency,
           s.settlement_status AS status, 'listed as not settled' AS seen_as
    FROM settlements s
    WHERE s.transaction_type = 'Purchases' AND s.batch_time IS NULL
      AND s.settlement_status IS DISTINCT FROM 'Settled'
      AND s.request_time < getvariable('window_end')
    UNION ALL
    SELECT t.merchant_id, t.transaction_id, t.submit_time, t.amount, t.currency, t.status, 'not in the settlement reports'
    FROM transactions t
    SEMI JOIN reported r ON r.merchant_id = t.merchant_id
    WHERE contains(coalesce(t.application_names, ''), 'ics_bill')
      AND t.status IS DISTINCT FROM 'DECLINED'
      AND t.submit_time >= getvariable('window_start') AND t.submit_time < getvariable('window_end')
      AND NOT EXISTS (SELECT 1 FROM settlements s
                      WHERE s.merchant_id = t.merchant_id AND s.request_id = t.transaction_id)
)
SELECT
    u.merchant_id,
    u.entity_id,
    u.amount,
    u.currency,
    json_object('captured_at', u.captured_at, 'status', u.status, 'seen_as', u.seen_as,
                'business_days', business_days_between(u.captured_at, getvariable('window_end') - INTERVAL 1 DAY),
                'settlement_days', coalesce(getvariable('settlement_days'), 3)) AS detail
FROM unsettled u
WHERE business_days_between(u.captured_at, getvariable('window_end') - INTERVAL 1 DAY) > coalesce(getvariable('settlement_days'), 3)
