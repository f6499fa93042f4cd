-- Title: Billed less than yearly
-- Means: A subscription goes more than 12 months between payments, which card networks do not allow.
-- Do: Move it to a plan billed at least yearly, and take a new payment from the customer first.
-- A subscription still billing (not CANCELLED or COMPLETED) whose interval
-- between payments exceeds the platform's limit of 12 months: its billing
-- period is longer than 12 M, 1 Y, 52 W or 365 D, or its latest
-- transaction (a PAID or FAILED payment) came more than 12 months after the
-- one before it. 12 months are counted as the schedule counts them: the
-- same day of the month, clamped to the month's end, and from a payment
-- on a month end the schedule clamped, the start's day (a yearly
-- subscription started on 29 February bills on 28 February, then on 29
-- February of the leap year: 12 months apart). The platform refuses such
-- a period when a plan is created or amended, so it comes from a legacy
-- plan (created before the limit), or the gap from a subscription left
-- suspended or skipped for over a year; card networks also allow at most
-- a year between the transactions of a stored credential. Entity: the
-- subscription id. Amount: its billing amount per cycle.
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
),
anniversaries AS (
    -- When the previous payment is 12 months old, by the schedule's
    -- month-end rule (docs/billing.md): its day of the month 12 months on,
    -- at its time of day, or that month's last day where the month has no
    -- such day. A previous payment on the last day of a month shorter than
    -- the subscription's start day (a start on the 29th to 31st, clamped
    -- by the schedule) stands for the start's day, clamped again: started
    -- on 29 February 2020, the payment of 28 February 2023 is 12 months old
    -- on 29 February 2024 (previous_date + INTERVAL 12 MONTH would say 28
    -- February, a day early, and report the leap year's payment).
    SELECT p.*, date_trunc('month', p.previous_date) + INTERVAL 12 MONTH AS month_on,
           CASE WHEN CAST(p.previous_date AS DATE) = last_day(CAST(p.previous_date AS DATE))
                 AND day(sc.start_date) > day(p.previous_date)
                THEN day(sc.start_date) ELSE day(p.previous_date) END AS anchor_day
    FROM processed p
    JOIN subscription_schedules sc ON sc.merchant_id = p.merchant_id AND sc.subscription_id = p.subscription_id
),
gaps AS (
    SELECT merchant_id, subscription_id, payment_date, previous_date,
           month_on + to_days(CAST(least(anchor_day, day(last_day(CAST(month_on AS DATE)))) - 1 AS INTEGER))
                    + (previous_date - date_trunc('day', previous_date)) AS twelve_months_on
    FROM anniversaries
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
LEFT JOIN gaps p ON p.merchant_id = s.merchant_id AND p.subscription_id = s.subscription_id
WHERE coalesce(s.status, '') NOT IN ('CANCELLED', 'COMPLETED')
  AND (NOT sc.within_12_months OR p.payment_date > p.twelve_months_on)
