-- Title: Payment skipped
-- Means: A subscription payment was skipped on purpose: the amount is not collected.
-- Do: Confirm the skip was intended.
-- A payment the merchant skipped (SCHEDULED_SKIPPED): its billing amount is
-- deferred, not collected.
-- Action: confirm the skip was intended; the amount is not collected.
SELECT
    p.merchant_id,
    p.payment_id AS entity_id,
    p.billing_amount AS amount,
    p.currency,
    json_object('subscription_id', p.subscription_id, 'billing_cycle', p.billing_cycle,
                'payment_date', p.payment_date) AS detail
FROM subscription_payments p
WHERE p.status = 'SCHEDULED_SKIPPED'
