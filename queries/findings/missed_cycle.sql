-- Title: Billing period never billed
-- Means: A billing period fell due and no payment was ever attempted for it.
-- Do: Ask the platform why; bill the period or write it off with the customer's agreement.
-- A billing cycle that fell due with no payment record: by the
-- subscription's schedule (its start date, billing period and number of
-- cycles, projected by the product into expected_cycles; docs/billing.md
-- gives the rules) the cycle fell due before the run's cut-off, yet its
-- payment list holds no payment of any status for it. Expected are all the
-- cycles due of a subscription that is billing (ACTIVE, DELINQUENT,
-- COMPLETED, PENDING), and of a SUSPENDED or CANCELLED one the cycles up to
-- the last it processed (the platform stops billing such a subscription).
-- Over the subscription's whole history, not only the window: a cycle
-- never billed stays reported until the platform lists a payment for it.
-- Entity: <subscription_id>:<cycle>. Amount: what the cycle should have
-- billed (billing amount, plus the setup fee on cycle 1), in the
-- subscription's currency.
-- Action: ask the platform why the cycle was not billed; bill it (or write
-- it off) with the customer's agreement.
WITH last_processed AS (
    SELECT merchant_id, subscription_id, max(billing_cycle) AS cycle
    FROM subscription_payments
    WHERE status IN ('PAID', 'FAILED', 'SKIPPED')
    GROUP BY ALL
)
SELECT
    e.merchant_id,
    e.subscription_id || ':' || e.cycle AS entity_id,
    e.billing_amount + coalesce(e.setup_fee, 0) AS amount,
    e.currency,
    json_object('subscription_id', e.subscription_id, 'billing_cycle', e.cycle, 'due_date', e.due_date,
                'status', s.status, 'period', sc.period_length || ' ' || sc.period_unit,
                'start_date', s.start_date, 'last_processed_cycle', lp.cycle) AS detail
FROM expected_cycles e
JOIN subscriptions s ON s.merchant_id = e.merchant_id AND s.subscription_id = e.subscription_id
LEFT JOIN subscription_schedules sc ON sc.merchant_id = e.merchant_id AND sc.subscription_id = e.subscription_id
LEFT JOIN last_processed lp ON lp.merchant_id = e.merchant_id AND lp.subscription_id = e.subscription_id
WHERE s.payments_pulled_at IS NOT NULL
  AND (s.status IN ('ACTIVE', 'DELINQUENT', 'COMPLETED', 'PENDING')
       OR (s.status IN ('SUSPENDED', 'CANCELLED') AND e.cycle <= lp.cycle))
  -- An anti-join straight on the payments: a DISTINCT of every recorded
  -- cycle first would need a hash table of all of them in memory.
  AND NOT EXISTS (
      SELECT 1 FROM subscription_payments r
      WHERE r.merchant_id = e.merchant_id AND r.subscription_id = e.subscription_id AND r.billing_cycle = e.cycle)
