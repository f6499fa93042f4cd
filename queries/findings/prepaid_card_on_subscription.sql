-- Title: Subscription on a prepaid card
-- Means: A subscription is paid with a prepaid card, which may run out of money: it is likely to fail soon.
-- Do: Ask the customer for a credit or debit card, or watch the next payments.
-- A subscription, not cancelled or completed, charged in the window (a
-- payment of its list whose transaction Transaction Search returns, paid or
-- declined) on a card whose BIN's funding source is PREPAID. A prepaid
-- balance runs out: these subscriptions are the likeliest to turn
-- delinquent. Entity: the subscription id; amount: its billing amount;
-- detail: the latest such transaction.
-- Action: ask the customer for a credit or debit card before the balance
-- runs out, or watch the subscription's next payments.
SELECT
    s.merchant_id,
    s.subscription_id AS entity_id,
    s.billing_amount AS amount,
    s.currency,
    json_object('status', s.status, 'code', s.code, 'customer_id', s.customer_id,
                'transaction_id', t.transaction_id, 'submit_time', t.submit_time, 'bin', t.card_bin,
                'card_product', b.card_product) AS detail
FROM subscriptions s
JOIN subscription_payments p ON p.merchant_id = s.merchant_id AND p.subscription_id = s.subscription_id
JOIN transactions t ON t.merchant_id = p.merchant_id AND t.transaction_id = p.transaction_id
JOIN bin_attributes b ON b.bin = t.card_bin
WHERE coalesce(s.status, '') NOT IN ('CANCELLED', 'COMPLETED')
  AND b.funding_source = 'PREPAID'
  AND t.submit_time >= getvariable('window_start') AND t.submit_time < getvariable('window_end')
QUALIFY row_number() OVER (PARTITION BY s.merchant_id, s.subscription_id ORDER BY t.submit_time DESC, t.transaction_id) = 1
