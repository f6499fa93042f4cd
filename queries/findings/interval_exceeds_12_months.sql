-- A subscription still billing (not CANCELLED or COMPLETED) whose interval
-- between payments exceeds the platform's limit of 12 months: its billing
-- period is longer than 12 M, 1 Y, 52 W or 365 D, or its latest
-- transaction (a PAID or FAILED payment) came more than 12 months after the
-- one before it. The platform refuses such a period when a plan is created
-- or amended, so it comes from a legacy plan (created before the limit),
-- or the gap from a subscription left suspended or skipped for over a
-- year; card networks also allow at most a year between the transactions
-- of a stored credential. Entity: the subscription id. Amount: its billing
-- amount per cycle.
-- Action: move the subscription to a plan billed at least yearly (amend
-- the plan's period with applyTo ALL), and take a new customer-initiated
-- payment before billing a credential unused for over a year.
WITH processed AS (
    -- (The latest two processed payments of each subscription come from one
    -- aggregate, max(payment_date, 2), rather than window functions over every
    -- payment: its state per subscription is small whatever the history.)
    SELECT merchant_id, subscription_id,
           max(payment_date, 2)[1] AS payment_date,
           max(payment_date, 2)[2] AS previous_date
    FROM subscription_payments
    WHERE status IN ('PAID', 'FAILED')
    GROUP BY ALL
)
SELECT
    s.merchant_id,
    s.subscription_id AS entity_id,
    s.billing_amount AS amount,
    s.currency,
    json_object('period', sc.period_length || ' ' || sc.period_unit, 'plan_id', s.plan_id,
                'period_exceeds_12_months', NOT sc.within_12_months,
                'latest_payment', p.payment_date, 'previous_payment', p.previous_date,
                'status', s.status) AS detail
FROM subscriptions s
JOIN subscription_schedules sc ON sc.merchant_id = s.merchant_id AND sc.subscription_id = s.subscription_id
LEFT JOIN processed p ON p.merchant_id = s.merchant_id AND p.subscription_id = s.subscription_id
WHERE coalesce(s.status, '') NOT IN ('CANCELLED', 'COMPLETED')
  AND (NOT sc.within_12_months OR p.payment_date > p.previous_date + INTERVAL 12 MONTH)
