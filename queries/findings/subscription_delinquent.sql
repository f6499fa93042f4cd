-- Title: Customer behind on payments
-- Means: A customer's payment was declined and the platform is retrying it.
-- Do: Contact the customer for a new card before the retries run out.
-- A subscription whose current status is DELINQUENT: a payment was declined
-- and the platform is retrying it. Amount: the billing amount at risk.
-- Action: contact the customer for a new card before the retries run out.
SELECT
    s.merchant_id,
    s.subscription_id AS entity_id,
    s.billing_amount AS amount,
    s.currency,
    json_object('code', s.code, 'plan_id', s.plan_id, 'customer_id', s.customer_id,
                'start_date', s.start_date) AS detail
FROM subscriptions s
WHERE s.status = 'DELINQUENT'
