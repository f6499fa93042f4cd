-- The ageing of every DELINQUENT and SUSPENDED subscription of the run's
-- reconciled members as of the business date. Its failing cycle is the
-- latest cycle with a FAILED payment and no PAID one; the first failure is
-- that cycle's first failed attempt; days count calendar days (UTC) from it
-- to the business date. Retries done are the cycle's RETRY payments;
-- remaining, for a DELINQUENT subscription, what the documented schedule
-- still allows (subscription_schedules.retry_limit), none for a SUSPENDED
-- one; the next retry is due (retries done + 1) intervals after the first
-- failure, as the documented schedule counts them. Amount at
-- risk: the failed payment (billing amount + setup fee + surcharge), or the
-- subscription's billing amount when no payment failed (suspended by the
-- merchant). $1 = run_id, $2 = business date.
INSERT INTO delinquency_ageing (run_id, business_date, merchant_id, subscription_id, status, failed_cycle,
                                first_failed_at, days_since_first_failure, age_bucket, retries_done,
                                retries_remaining, last_attempt_at, next_retry_at, amount_at_risk, currency)
WITH failing AS (
    SELECT merchant_id, subscription_id, billing_cycle AS cycle
    FROM subscription_payments
    GROUP BY merchant_id, subscription_id, billing_cycle
    HAVING count(*) FILTER (WHERE status = 'FAILED') > 0 AND count(*) FILTER (WHERE status = 'PAID') = 0
    QUALIFY row_number() OVER (PARTITION BY merchant_id, subscription_id ORDER BY billing_cycle DESC) = 1
),
attempts AS (
    SELECT f.merchant_id, f.subscription_id, f.cycle,
           min(p.payment_date) AS first_failed_at,
           arg_min(p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0),
                   p.payment_date) AS amount,
           arg_min(p.currency, p.payment_date) AS currency,
           count(*) FILTER (WHERE p.payment_type = 'RETRY') AS retries,
           max(p.payment_date) AS last_attempt_at
    FROM failing f
    JOIN subscription_payments p
      ON p.merchant_id = f.merchant_id AND p.subscription_id = f.subscription_id
     AND p.billing_cycle = f.cycle AND p.status = 'FAILED'
    GROUP BY ALL
),
aged AS (
    SELECT s.merchant_id, s.subscription_id, s.status, a.cycle, a.first_failed_at,
           date_diff('day', CAST(a.first_failed_at AS DATE), CAST($2 AS DATE)) AS days,
           coalesce(a.retries, 0) AS retries,
           CASE WHEN s.status = 'DELINQUENT'
                THEN greatest(coalesce(sc.retry_limit, 5) - coalesce(a.retries, 0), 0) ELSE 0 END AS remaining,
           a.last_attempt_at, sc.retry_interval,
           coalesce(a.amount, s.billing_amount) AS amount,
           coalesce(a.currency, s.currency) AS currency
    FROM subscriptions s
    JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = s.merchant_id AND rm.status = 'ok'
    LEFT JOIN attempts a ON a.merchant_id = s.merchant_id AND a.subscription_id = s.subscription_id
    LEFT JOIN subscription_schedules sc ON sc.merchant_id = s.merchant_id AND sc.subscription_id = s.subscription_id
    WHERE s.status IN ('DELINQUENT', 'SUSPENDED')
)
SELECT $1, $2, merchant_id, subscription_id, status, cycle, first_failed_at, days,
       CASE
           WHEN days IS NULL THEN 'no failed payment'
           WHEN days <= 7 THEN '0-7 days'
           WHEN days <= 14 THEN '8-14 days'
           WHEN days <= 30 THEN '15-30 days'
           WHEN days <= 60 THEN '31-60 days'
           WHEN days <= 90 THEN '61-90 days'
           ELSE 'over 90 days'
       END,
       retries, remaining, last_attempt_at,
       CASE WHEN remaining > 0 THEN first_failed_at + (retries + 1) * retry_interval END,
       amount, currency
FROM aged
