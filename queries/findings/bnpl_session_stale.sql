-- Title: Pay-later checkout abandoned
-- Means: A customer started a buy-now-pay-later checkout more than a day ago and never finished it.
-- Do: Follow up with the customer or release the order.
-- A buy-now-pay-later session (POST /pts/v2/payment-references answered
-- 2xx with status PENDING) created in the window but longer ago than the
-- session age at the run's cut-off (the end of the window), whose token no
-- authorization answered AUTHORIZED or PENDING carried (as
-- preApprovalToken) up to the cut-off: the customer was sent to the
-- provider and the order never completed. The age is the DuckDB variable
-- bnpl_session_age (reconcile run --bnpl-session-age), 24 hours when unset,
-- so sessions of the last day before the cut-off are not judged yet.
-- Entity: the session id; amount: the session's amount; detail: the
-- session's age_hours at the cut-off, in whole hours elapsed (rounded
-- down, like a person's age: 24 for a session 24 hours and 1 second old,
-- which the default age reports).
-- Action: follow up with the customer or release the order; a session left
-- pending holds stock and a basket nobody will pay.
SELECT
    s.merchant_id,
    s.transaction_id AS entity_id,
    s.amount,
    s.currency,
    -- (Microseconds, in integers: date_diff('hour') would count the hour
    -- boundaries crossed, 25 for 24 hours and 1 second.)
    json_object('time', s.time, 'country', s.country,
                'age_hours', (epoch_us(getvariable('window_end')) - epoch_us(s.time)) // 3600000000,
                'file', s.file, 'line', s.line,
                'client_reference', coalesce(s.request->'clientReferenceInformation'->>'code',
                                              s.response->'clientReferenceInformation'->>'code')) AS detail
FROM journal s
WHERE s.call_kind = 'bnpl_session'
  AND s.status BETWEEN 200 AND 299
  AND s.transaction_id IS NOT NULL
  AND s.response_status = 'PENDING'
  AND s.time >= getvariable('window_start')
  AND s.time < getvariable('window_end') - coalesce(getvariable('bnpl_session_age'), INTERVAL 24 HOUR)
  AND NOT EXISTS (
      SELECT 1 FROM journal a
      WHERE a.merchant_id = s.merchant_id
        AND a.call_kind = 'authorization'
        AND a.session_token = s.session_token
        AND a.status BETWEEN 200 AND 299
        AND a.response_status IN ('AUTHORIZED', 'PENDING')
        AND a.time < getvariable('window_end'))
QUALIFY row_number() OVER (PARTITION BY s.merchant_id, s.transaction_id ORDER BY s.time, s.file, s.line) = 1
