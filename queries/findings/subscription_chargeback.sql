-- Title: Chargeback on a subscription
-- Means: A customer disputed a subscription payment with their bank (a chargeback); the response is due by the date shown.
-- Do: Answer the dispute before the due date with the subscription's terms and the customer's consent.
-- A chargeback on a subscription payment: a chargeback of the Reporting
-- API (chargebacks, GET /reporting/v3/chargeback-details) recorded in the
-- window whose request id is the transaction of a subscription payment
-- (subscription_payments.transaction_id) of the same member. One finding
-- per disputed transaction, its latest chargeback in the window. Amount:
-- the chargeback's. The detail names the subscription, its billing cycle,
-- the payment, the reason code and when the response is due.
-- Action: answer the dispute before the due date with the subscription's
-- terms and the customer's consent; a cancelled-recurring reason (Visa 13.2)
-- asks whether the customer had cancelled before the cycle was billed.
SELECT
    cb.merchant_id,
    cb.request_id AS entity_id,
    cb.amount,
    cb.currency,
    json_object('time', cb.time, 'reason_code', cb.reason_code, 'response_due', cb.response_due,
                'subscription_id', p.subscription_id, 'billing_cycle', p.billing_cycle,
                'payment_id', p.payment_id, 'payment_date', p.payment_date) AS detail
FROM chargebacks cb
JOIN subscription_payments p ON p.merchant_id = cb.merchant_id AND p.transaction_id = cb.request_id
WHERE cb.time >= getvariable('window_start') AND cb.time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY cb.merchant_id, cb.request_id ORDER BY cb.time DESC, p.payment_id) = 1
