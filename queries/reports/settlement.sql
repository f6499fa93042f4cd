-- The settlement and funding sheets of the finance workbook
-- (reports/settlement.go) and the Summary's waterfall. Each statement takes
-- $1 = run ID and $2 = group ID or NULL (the whole run), and reads the
-- run's window from runs.

-- name: SettlementRequests
-- The settlements of the scope's members requested in the window, and the
-- purchases listed as not settled (from the reporting span): per request
-- its batch, fees and funding, and whether it is settled, in flight
-- (expected within --settlement-days) or late (a capture_not_settled
-- finding of the run).
WITH run AS (SELECT * FROM runs WHERE run_id = $1),
scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
),
late AS (
    SELECT merchant_id, entity_id FROM findings
    WHERE run_id = $1 AND kind = 'capture_not_settled' AND state IN ('new', 'open', 'acknowledged')
)
SELECT s.request_time, s.merchant_id, g.groups, s.request_id, s.transaction_type,
       CASE WHEN s.batch_time IS NOT NULL THEN 'settled'
            WHEN l.entity_id IS NOT NULL THEN 'late (capture_not_settled)'
            ELSE 'in flight (expected)' END AS state,
       s.settlement_status, s.batch_id, s.batch_time, s.amount, s.currency, s.card_type,
       s.interchange_description, s.interchange_amount, s.discount_amount, s.dues_assessments, s.total_fee,
       s.funding_amount, s.funding_currency
FROM settlements s
JOIN scope m ON m.merchant_id = s.merchant_id AND m.status = 'ok'
CROSS JOIN run
LEFT JOIN groups_of g ON g.merchant_id = s.merchant_id
LEFT JOIN late l ON l.merchant_id = s.merchant_id AND l.entity_id = s.request_id
WHERE (s.request_time >= run.window_start AND s.request_time < run.window_end)
   OR (s.batch_time IS NULL AND s.request_time < run.window_end)
ORDER BY s.merchant_id, s.request_time, s.request_id

-- name: FundingDays
-- Per funding day in the window, group (or member read on its own) and
-- currency: purchases, refunds, fees, chargebacks, what they leave
-- (expected), what was funded and the difference: the tie-out that
-- funding_tieout_mismatch reports.
WITH run AS (SELECT * FROM runs WHERE run_id = $1),
scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
days AS (
    SELECT f.*, coalesce(f.purchases, 0) - coalesce(f.refunds, 0) - coalesce(f.fees, 0) - coalesce(f.chargebacks, 0) AS expected
    FROM fundings f CROSS JOIN run
    WHERE f.funding_day >= run.window_start AND f.funding_day < run.window_end
      AND f.merchant_id IN (SELECT merchant_id FROM scope)
      AND ($2::VARCHAR IS NULL OR (f.scope_type = 'group' AND f.scope_id = $2) OR f.scope_type = 'member')
)
SELECT CAST(d.funding_day AS DATE), d.scope_type, d.scope_id, d.group_name, d.currency,
       d.purchases, d.refunds, d.fees, d.chargebacks, d.expected, d.funded, d.funded - d.expected,
       CASE WHEN d.funded = d.expected THEN 'yes' ELSE 'no' END
FROM days d
ORDER BY d.funding_day, d.scope_id, d.currency

-- name: SettlementWaterfall
-- The Summary's waterfall per currency over the window: billed (PAID and
-- FAILED subscription payments), authorized (approved authorizations and
-- sales), captured (approved captures and sales), settled (settlements
-- with a batch), fees, funded (net fundings of the window's days), each
-- step's gap to the one before and the kinds that explain it, with their
-- findings in that currency.
WITH run AS (SELECT * FROM runs WHERE run_id = $1),
scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
steps AS (
    SELECT 1 AS step, 'billed' AS name, p.currency,
           sum(p.billing_amount + coalesce(p.setup_fee, 0) + coalesce(p.surcharge_amount, 0)) AS amount
    FROM subscription_payments p CROSS JOIN run
    WHERE p.merchant_id IN (SELECT merchant_id FROM scope) AND p.status IN ('PAID', 'FAILED')
      AND p.payment_date >= run.window_start AND p.payment_date < run.window_end
    GROUP BY p.currency
    UNION ALL
    SELECT 2, 'authorized', t.currency, sum(t.amount)
    FROM transactions t CROSS JOIN run
    WHERE t.merchant_id IN (SELECT merchant_id FROM scope) AND contains(coalesce(t.application_names, ''), 'ics_auth')
      AND t.status IS DISTINCT FROM 'DECLINED'
      AND t.submit_time >= run.window_start AND t.submit_time < run.window_end
    GROUP BY t.currency
    UNION ALL
    SELECT 3, 'captured', t.currency, sum(t.amount)
    FROM transactions t CROSS JOIN run
    WHERE t.merchant_id IN (SELECT merchant_id FROM scope) AND contains(coalesce(t.application_names, ''), 'ics_bill')
      AND t.status IS DISTINCT FROM 'DECLINED'
      AND t.submit_time >= run.window_start AND t.submit_time < run.window_end
    GROUP BY t.currency
    UNION ALL
    SELECT 4, 'settled', s.currency, sum(s.amount)
    FROM settlements s CROSS JOIN run
    WHERE s.merchant_id IN (SELECT merchant_id FROM scope) AND s.transaction_type = 'Purchases' AND s.batch_time IS NOT NULL
      AND s.request_time >= run.window_start AND s.request_time < run.window_end
    GROUP BY s.currency
    UNION ALL
    SELECT 5, 'fees', s.currency, sum(s.total_fee)
    FROM settlements s CROSS JOIN run
    WHERE s.merchant_id IN (SELECT merchant_id FROM scope) AND s.transaction_type = 'Purchases' AND s.batch_time IS NOT NULL
      AND s.request_time >= run.window_start AND s.request_time < run.window_end
    GROUP BY s.currency
    UNION ALL
    SELECT 6, 'funded', f.currency, sum(f.funded)
    FROM fundings f CROSS JOIN run
    WHERE f.merchant_id IN (SELECT merchant_id FROM scope)
      AND ($2::VARCHAR IS NULL OR (f.scope_type = 'group' AND f.scope_id = $2) OR f.scope_type = 'member')
      AND f.funding_day >= run.window_start AND f.funding_day < run.window_end
    GROUP BY f.currency
),
step_kinds AS (
    SELECT * FROM (VALUES
        (2, ['paid_without_transaction', 'amount_mismatch', 'subscription_delinquent']),
        (3, ['bnpl_authorized_not_captured']),
        (4, ['capture_not_settled', 'settled_amount_mismatch', 'settlement_without_capture']),
        (5, CAST([] AS VARCHAR[])),
        (6, ['funding_tieout_mismatch'])
    ) v(step, kinds)
),
currencies AS (SELECT DISTINCT currency FROM steps WHERE currency IS NOT NULL),
grid AS (
    SELECT c.currency, n.step, n.name
    FROM currencies c
    CROSS JOIN (VALUES (1, 'billed'), (2, 'authorized'), (3, 'captured'), (4, 'settled'), (5, 'fees'), (6, 'funded')) n(step, name)
),
filled AS (
    SELECT g.currency, g.step, g.name, coalesce(s.amount, 0) AS amount
    FROM grid g LEFT JOIN steps s ON s.currency = g.currency AND s.step = g.step
),
counted AS (
    SELECT f.currency, f.step, f.name, f.amount, k.kinds,
           (SELECT count(*) FROM findings x
            WHERE x.run_id = $1 AND x.state IN ('new', 'open', 'acknowledged') AND x.currency = f.currency
              AND list_contains(k.kinds, x.kind) AND x.merchant_id IN (SELECT merchant_id FROM scope)) AS findings
    FROM filled f LEFT JOIN step_kinds k ON k.step = f.step
)
SELECT currency, step, name, amount,
       CASE WHEN step = 1 THEN NULL
            WHEN step = 5 THEN NULL
            WHEN step = 6 THEN amount - (lag(amount, 2) OVER w - lag(amount, 1) OVER w)
            ELSE amount - lag(amount) OVER w END AS gap,
       CASE WHEN step = 5 THEN 'charged on what settled'
            WHEN step = 6 THEN 'funded - (settled - fees): refunds, chargebacks and the funding delay; tie-out: funding_tieout_mismatch'
            ELSE array_to_string(kinds, ', ') END AS explained_by,
       CASE WHEN step IN (1, 5) THEN NULL ELSE findings END AS findings
FROM counted
WINDOW w AS (PARTITION BY currency ORDER BY step)
ORDER BY currency, step
