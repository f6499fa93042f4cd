-- Subscriptions DELINQUENT or SUSPENDED when an earlier run last saw them
-- and ACTIVE (or COMPLETED: the last cycle's retry was paid) now. How, where
-- the data tells: card_updated when the customer token differs from the one
-- the subscription had when it went delinquent; else retry_succeeded when
-- its latest PAID payment, made since the earlier run's cut-off, is a
-- RETRY; else reactivated when it was SUSPENDED (the merchant activated
-- it); else unknown. The payment columns name that latest PAID payment
-- when it was made since the earlier run's cut-off.
-- $1 = run_id, $2 = business date; reads this run's subscription_status_log.
INSERT INTO subscription_recoveries (run_id, business_date, merchant_id, subscription_id, previous_status, status,
                                     previous_run, how, payment_id, paid_at, amount, currency)
WITH entered AS (
    -- when each subscription last went into DELINQUENT or SUSPENDED, and its token then
    SELECT merchant_id, subscription_id, customer_id
    FROM subscription_status_log
    WHERE business_date < $2 AND status IN ('DELINQUENT', 'SUSPENDED')
      AND (previous_status IS NULL OR previous_status NOT IN ('DELINQUENT', 'SUSPENDED'))
    QUALIFY row_number() OVER (PARTITION BY merchant_id, subscription_id ORDER BY business_date DESC, run_id DESC) = 1
),
last_paid AS (
    SELECT merchant_id, subscription_id, payment_id, payment_type, payment_date, currency,
           billing_amount + coalesce(setup_fee, 0) + coalesce(surcharge_amount, 0) AS amount
    FROM subscription_payments
    WHERE status = 'PAID'
    QUALIFY row_number() OVER (PARTITION BY merchant_id, subscription_id
                               ORDER BY payment_date DESC, payment_number DESC, payment_id DESC) = 1
),
changed AS (
    SELECT l.*, e.customer_id AS entered_customer_id,
           CASE WHEN lp.payment_date >= coalesce(pr.window_end, TIMESTAMPTZ '-infinity') THEN lp.payment_id END AS payment_id,
           CASE WHEN lp.payment_date >= coalesce(pr.window_end, TIMESTAMPTZ '-infinity') THEN lp.payment_type END AS payment_type,
           CASE WHEN lp.payment_date >= coalesce(pr.window_end, TIMESTAMPTZ '-infinity') THEN lp.payment_date END AS paid_at,
           CASE WHEN lp.payment_date >= coalesce(pr.window_end, TIMESTAMPTZ '-infinity') THEN lp.amount END AS amount,
           CASE WHEN lp.payment_date >= coalesce(pr.window_end, TIMESTAMPTZ '-infinity') THEN lp.currency END AS currency
    FROM subscription_status_log l
    JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = l.merchant_id AND rm.status = 'ok'
    LEFT JOIN entered e ON e.merchant_id = l.merchant_id AND e.subscription_id = l.subscription_id
    LEFT JOIN last_paid lp ON lp.merchant_id = l.merchant_id AND lp.subscription_id = l.subscription_id
    LEFT JOIN runs pr ON pr.run_id = l.previous_run
    WHERE l.run_id = $1
      AND l.previous_status IN ('DELINQUENT', 'SUSPENDED')
      AND l.status IN ('ACTIVE', 'COMPLETED')
)
SELECT run_id, business_date, merchant_id, subscription_id, previous_status, status, previous_run,
       CASE
           WHEN coalesce(entered_customer_id, previous_customer_id) IS DISTINCT FROM customer_id THEN 'card_updated'
           WHEN payment_type = 'RETRY' THEN 'retry_succeeded'
           WHEN previous_status = 'SUSPENDED' THEN 'reactivated'
           ELSE 'unknown'
       END,
       payment_id, paid_at, amount, currency
FROM changed
