-- Title: Payment given up
-- Means: The platform stopped retrying a failed payment: the money was not collected.
-- Do: Collect it another way (new card, invoice) or write it off; then reactivate or cancel the subscription.
-- A billing cycle the platform gave up collecting: its payment failed and
-- so did as many retries as the documented schedule allows for the
-- subscription's billing unit (daily 1, weekly 3, monthly 5, yearly 3), with
-- no PAID payment for the cycle; reported while the last retry is dated
-- inside the window. It is the event and the money: the subscription is
-- normally SUSPENDED by it, and stays reported as subscription_suspended,
-- the standing state, whose other causes (a do-not-retry decline, the
-- merchant's suspension) exhaust no retries. Entity:
-- <subscription_id>:<cycle>. Amount: the uncollected payment (billing
-- amount + setup fee + surcharge).
-- Action: collect the amount another way (a new card, an invoice) or write
-- it off; then reactivate the subscription with a working card or cancel
-- it.
WITH failed_cycles AS (
    -- (Only cycles with a retry in the window can qualify, so only they are
    -- aggregated: the check's cost follows the window, not the history.)
    SELECT DISTINCT merchant_id, subscription_id, billing_cycle
    FROM subscription_payments
    WHERE payment_type = 'RETRY' AND status IN ('PAID', 'FAILED')
      AND payment_date >= getvariable('window_start') AND payment_date < getvariable('window_end')
),
cycle_payments AS (
    SELECT merchant_id, subscription_id, billing_cycle,
           count(*) FILTER (WHERE payment_type = 'RETRY' AND status IN ('PAID', 'FAILED')) AS retries,
           count(*) FILTER (WHERE status = 'PAID') AS paid,
           max(payment_date) FILTER (WHERE payment_type = 'RETRY' AND status IN ('PAID', 'FAILED')) AS last_retry_at,
           arg_min(billing_amount + coalesce(setup_fee, 0) + coalesce(surcharge_amount, 0), payment_date)
               FILTER (WHERE status = 'FAILED' AND payment_type = 'STANDARD') AS amount,
           arg_min(currency, payment_date) FILTER (WHERE status = 'FAILED' AND payment_type = 'STANDARD') AS currency,
           min(payment_date) FILTER (WHERE status = 'FAILED' AND payment_type = 'STANDARD') AS first_failed_at
    FROM subscription_payments
    JOIN failed_cycles USING (merchant_id, subscription_id, billing_cycle)
    GROUP BY ALL
)
SELECT
    c.merchant_id,
    c.subscription_id || ':' || c.billing_cycle AS entity_id,
    c.amount,
    c.currency,
    json_object('subscription_id', c.subscription_id, 'billing_cycle', c.billing_cycle, 'status', s.status,
                'retries', c.retries, 'retry_limit', sc.retry_limit,
                'first_failed_at', c.first_failed_at, 'last_retry_at', c.last_retry_at) AS detail
FROM cycle_payments c
JOIN subscription_schedules sc ON sc.merchant_id = c.merchant_id AND sc.subscription_id = c.subscription_id
JOIN subscriptions s ON s.merchant_id = c.merchant_id AND s.subscription_id = c.subscription_id
WHERE c.first_failed_at IS NOT NULL
  AND c.paid = 0
  AND c.retries >= sc.retry_limit
  AND c.last_retry_at >= getvariable('window_start') AND c.last_retry_at < getvariable('window_end')
