-- Title: Retries off schedule
-- Means: A failed payment was retried too often or at the wrong times.
-- Do: Ask the platform why; retrying too often risks bank penalties and complaints.
-- Retries of a failed subscription payment off the documented schedule:
-- the billing cycle's RETRY payments (PAID or FAILED) number more than the
-- schedule allows for the subscription's billing unit (daily 1, weekly 3,
-- monthly 5, yearly 3; never more than 5), or one came more than a tenth
-- of the interval away from an interval after the attempt before it (daily
-- 1 hour, weekly 1 day, monthly 2 days, yearly 15 days; the first retry is
-- measured from the cycle's first failed STANDARD payment). Custom
-- frequencies follow their unit (subscription_schedules.retry_limit,
-- retry_interval, retry_tolerance). Reported while one of the cycle's
-- retries is dated inside the window. Entity: <subscription_id>:<cycle>.
-- Amount: the failed payment (billing amount + setup fee + surcharge).
-- Action: ask the platform why it retried off its schedule; a card retried
-- too often or too fast risks issuer penalties and customer complaints.
WITH retried AS (
    -- (Only cycles with a retry in the window can qualify, so they are found
    -- first: the check's cost follows the window, not the history.)
    SELECT DISTINCT merchant_id, subscription_id, billing_cycle
    FROM subscription_payments
    WHERE payment_type = 'RETRY' AND status IN ('PAID', 'FAILED')
      AND payment_date >= getvariable('window_start') AND payment_date < getvariable('window_end')
),
base AS (
    SELECT merchant_id, subscription_id, billing_cycle, payment_id, payment_date, payment_number, currency,
           billing_amount + coalesce(setup_fee, 0) + coalesce(surcharge_amount, 0) AS amount
    FROM subscription_payments
    JOIN retried USING (merchant_id, subscription_id, billing_cycle)
    WHERE status = 'FAILED' AND payment_type = 'STANDARD'
    QUALIFY row_number() OVER (PARTITION BY merchant_id, subscription_id, billing_cycle
                               ORDER BY payment_date, payment_number) = 1
),
attempts AS (
    -- The cycle's first failed payment, then its retries (the retries alone
    -- are read from the payments: a join on "this payment or a retry"
    -- cannot be filtered as the table is read).
    SELECT merchant_id, subscription_id, billing_cycle, payment_id, payment_date,
           lag(payment_date) OVER w AS previous_date, retry
    FROM (
        SELECT merchant_id, subscription_id, billing_cycle, payment_id, payment_date, payment_number, false AS retry
        FROM base
        UNION ALL
        SELECT p.merchant_id, p.subscription_id, p.billing_cycle, p.payment_id, p.payment_date, p.payment_number, true
        FROM subscription_payments p
        JOIN base b USING (merchant_id, subscription_id, billing_cycle)
        WHERE p.payment_type = 'RETRY' AND p.status IN ('PAID', 'FAILED')
    )
    WINDOW w AS (PARTITION BY merchant_id, subscription_id, billing_cycle ORDER BY payment_date, payment_number)
),
cycles AS (
    SELECT a.merchant_id, a.subscription_id, a.billing_cycle,
           count(*) FILTER (WHERE a.retry) AS retries,
           count(*) FILTER (WHERE a.retry AND abs(epoch(a.payment_date - a.previous_date) - epoch(sc.retry_interval))
                                              > epoch(sc.retry_tolerance)) AS off_schedule,
           count(*) FILTER (WHERE a.retry AND a.payment_date >= getvariable('window_start')
                                          AND a.payment_date < getvariable('window_end')) AS in_window,
           list(a.payment_date ORDER BY a.payment_date) AS attempts,
           any_value(sc.retry_limit) AS retry_limit, any_value(sc.retry_interval) AS retry_interval,
           any_value(sc.period_unit) AS unit
    FROM attempts a
    JOIN subscription_schedules sc ON sc.merchant_id = a.merchant_id AND sc.subscription_id = a.subscription_id
    GROUP BY ALL
)
SELECT
    c.merchant_id,
    c.subscription_id || ':' || c.billing_cycle AS entity_id,
    b.amount,
    b.currency,
    json_object('subscription_id', c.subscription_id, 'billing_cycle', c.billing_cycle, 'unit', c.unit,
                'retries', c.retries, 'retry_limit', c.retry_limit, 'retry_interval', CAST(c.retry_interval AS VARCHAR),
                'off_schedule', c.off_schedule, 'attempts', c.attempts) AS detail
FROM cycles c
JOIN base b ON b.merchant_id = c.merchant_id AND b.subscription_id = c.subscription_id AND b.billing_cycle = c.billing_cycle
WHERE c.retries > 0
  AND c.in_window > 0
  AND (c.retries > least(c.retry_limit, 5) OR c.off_schedule > 0)
