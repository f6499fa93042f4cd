-- Title: Billed twice
-- Means: A customer was charged more than once for the same billing period.
-- Do: Refund the extra payment and ask the platform why the period was billed twice.
-- A billing cycle paid more than once: two or more PAID payments (of any
-- type) for the same cycle of a subscription, reported while a payment
-- after the cycle's first PAID one (by date, then payment number) is dated
-- inside the window. Entity: <subscription_id>:<cycle>. Amount: what the
-- extra payments collected (billing amount + setup fee + surcharge of each
-- PAID payment after the first), in their currency; the detail lists the
-- payments and their transactions.
-- Action: refund the extra payment to the customer and ask the platform
-- why the cycle was billed twice.
WITH twice AS (
    -- (Only cycles with a PAID payment in the window can qualify, so they are
    -- found first: the window function and the lists then see their payments
    -- alone, and the check's cost follows the window, not the history.)
    SELECT DISTINCT merchant_id, subscription_id, billing_cycle
    FROM subscription_payments
    WHERE status = 'PAID'
      AND payment_date >= getvariable('window_start') AND payment_date < getvariable('window_end')
),
paid AS (
    SELECT p.merchant_id, p.subscription_id, p.billing_cycle, p.payment_id, p.transaction_id,
           p.payment_date, p.currency,
           p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0) AS charged,
           row_number() OVER (PARTITION BY p.merchant_id, p.subscription_id, p.billing_cycle
                              ORDER BY p.payment_date, p.payment_number, p.payment_id) AS n
    FROM subscription_payments p
    JOIN twice USING (merchant_id, subscription_id, billing_cycle)
    WHERE p.status = 'PAID'
    -- (Cycles paid once are left out before their lists are built.)
    QUALIFY count(*) OVER (PARTITION BY p.merchant_id, p.subscription_id, p.billing_cycle) > 1
)
SELECT
    merchant_id,
    subscription_id || ':' || billing_cycle AS entity_id,
    sum(charged) FILTER (WHERE n > 1) AS amount,
    arg_min(currency, n) FILTER (WHERE n > 1) AS currency,
    json_object('subscription_id', subscription_id, 'billing_cycle', billing_cycle,
                'payments', list(payment_id ORDER BY n), 'transactions', list(transaction_id ORDER BY n),
                'payment_dates', list(payment_date ORDER BY n)) AS detail
FROM paid
GROUP BY merchant_id, subscription_id, billing_cycle
HAVING count(*) > 1
   AND count(*) FILTER (WHERE n > 1 AND payment_date >= getvariable('window_start')
                                     AND payment_date < getvariable('window_end')) > 0
