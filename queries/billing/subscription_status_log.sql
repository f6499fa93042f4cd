-- The subscriptions of the run's reconciled members whose status or
-- customer token differs from what the latest earlier run that saw them
-- recorded, and those no earlier run saw. $1 = run_id, $2 = business date.
-- A member that failed today logs nothing: its data is not today's.
INSERT INTO subscription_status_log (merchant_id, subscription_id, run_id, business_date, status, customer_id,
                                     previous_status, previous_customer_id, previous_run)
WITH last_seen AS (
    SELECT merchant_id, subscription_id, status, customer_id, run_id
    FROM subscription_status_log
    WHERE business_date < $2
    QUALIFY row_number() OVER (PARTITION BY merchant_id, subscription_id ORDER BY business_date DESC, run_id DESC) = 1
)
SELECT s.merchant_id, s.subscription_id, $1, $2, s.status, s.customer_id, l.status, l.customer_id, l.run_id
FROM subscriptions s
JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = s.merchant_id AND rm.status = 'ok'
LEFT JOIN last_seen l ON l.merchant_id = s.merchant_id AND l.subscription_id = s.subscription_id
WHERE l.subscription_id IS NULL
   OR l.status IS DISTINCT FROM s.status
   OR l.customer_id IS DISTINCT FROM s.customer_id
