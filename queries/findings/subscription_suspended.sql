-- Title: Subscription suspended
-- Means: A subscription stopped billing: retries ran out, the bank refused, or it was suspended by hand.
-- Do: Update the customer's card and reactivate the subscription, or cancel it.
-- A subscription whose current status is SUSPENDED: retries are exhausted,
-- the issuer said do-not-retry, or the merchant suspended it. Amount: the
-- billing amount no longer collected.
-- Action: update the card and reactivate the subscription, or cancel it.
SELECT
    s.merchant_id,
    s.subscription_id AS entity_id,
    s.billing_amount AS amount,
    s.currency,
    json_object('code', s.code, 'plan_id', s.plan_id, 'customer_id', s.customer_id,
                'start_date', s.start_date) AS detail
FROM subscriptions s
WHERE s.status = 'SUSPENDED'
