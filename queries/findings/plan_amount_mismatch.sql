-- Title: Billed off the plan's price
-- Means: A subscription was billed an amount that is neither its own price nor its plan's.
-- Do: Check the plan's and the subscription's changes; refund or re-bill the difference.
-- A PAID subscription payment dated inside the window whose billing amount
-- (in its currency) is neither its subscription's nor its plan's. The
-- subscription's terms are what the platform bills it: the plan's amount
-- when it was created, kept when the plan was amended with applyTo NEW,
-- carried over when amended with applyTo ALL, or the subscription's own
-- price; the plan's current terms cover a payment made after an amendment
-- the subscription record does not show yet. Setup fee and surcharge are
-- not compared (amount_mismatch compares the total with the transaction).
-- Amount: the billing amount billed, in the payment's currency; the detail
-- gives the subscription's and the plan's.
-- Action: check the plan's and the subscription's amendments; refund or
-- re-bill the difference, and correct the subscription's amount.
SELECT
    p.merchant_id,
    p.payment_id AS entity_id,
    p.billing_amount AS amount,
    p.currency,
    json_object('subscription_id', p.subscription_id, 'billing_cycle', p.billing_cycle,
                'payment_date', p.payment_date, 'transaction_id', p.transaction_id,
                'subscription_amount', s.billing_amount, 'subscription_currency', s.currency,
                'plan_id', s.plan_id, 'plan_amount', pl.billing_amount, 'plan_currency', pl.currency,
                'difference', p.billing_amount - s.billing_amount) AS detail
FROM subscription_payments p
JOIN subscriptions s ON s.merchant_id = p.merchant_id AND s.subscription_id = p.subscription_id
LEFT JOIN plans pl ON pl.merchant_id = s.merchant_id AND pl.plan_id = s.plan_id
WHERE p.status = 'PAID'
  AND p.payment_date >= getvariable('window_start') AND p.payment_date < getvariable('window_end')
  AND NOT (p.billing_amount IS NOT DISTINCT FROM s.billing_amount AND p.currency IS NOT DISTINCT FROM s.currency)
  AND NOT coalesce(p.billing_amount = pl.billing_amount AND p.currency = pl.currency, false)
