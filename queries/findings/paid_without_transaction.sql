-- Title: Paid, but no money moved
-- Means: A subscription payment is marked paid, but the platform has no matching card payment: the money may not have moved.
-- Do: Open a case with the platform.
-- A PAID subscription payment dated inside the window whose transactionID is
-- not among the platform's transactions (Transaction Search). Amount: what the
-- payment should have collected (billing amount + setup fee + surcharge).
-- Action: open a case with the platform: the money may not have moved.
SELECT
    p.merchant_id,
    p.payment_id AS entity_id,
    p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0) AS amount,
    p.currency,
    json_object('subscription_id', p.subscription_id, 'transaction_id', p.transaction_id,
                'billing_cycle', p.billing_cycle, 'payment_date', p.payment_date) AS detail
FROM subscription_payments p
WHERE p.status = 'PAID'
  AND p.payment_date >= getvariable('window_start') AND p.payment_date < getvariable('window_end')
  AND NOT EXISTS (
      SELECT 1 FROM transactions t
      WHERE t.merchant_id = p.merchant_id AND t.transaction_id = p.transaction_id)
