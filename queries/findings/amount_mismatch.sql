-- Title: Charged a different amount
-- Means: A subscription payment was charged at a different amount (or currency) than the plan says it should be.
-- Do: Check the plan and any change to it; refund or re-bill the difference.
-- A PAID subscription payment dated inside the window whose transaction's
-- amount differs from billing amount + setup fee + surcharge (those present),
-- or whose currency differs. Amount: the expected amount; the difference
-- only where the currencies agree.
-- Action: check the plan and any amendment; refund or re-bill the difference.
SELECT
    p.merchant_id,
    p.payment_id AS entity_id,
    p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0) AS amount,
    p.currency,
    json_object('subscription_id', p.subscription_id, 'transaction_id', p.transaction_id,
                'payment_date', p.payment_date,
                'transaction_amount', t.amount, 'transaction_currency', t.currency,
                -- Amounts of two currencies have no difference: none then,
                -- the two currencies say what is wrong.
                'difference', CASE WHEN t.currency IS NOT DISTINCT FROM p.currency
                                   THEN t.amount - (p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0)) END) AS detail
FROM subscription_payments p
JOIN transactions t
  ON t.merchant_id = p.merchant_id AND t.transaction_id = p.transaction_id
WHERE p.status = 'PAID'
  AND p.payment_date >= getvariable('window_start') AND p.payment_date < getvariable('window_end')
  AND (t.amount IS DISTINCT FROM p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0)
       OR t.currency IS DISTINCT FROM p.currency)
