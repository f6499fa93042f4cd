-- The payments audit's sheets of the finance workbook (reports/payments.go,
-- docs/payments-audit.md): Interchange at risk, Funding sources, Wallets
-- and Terminals, each by member, then by group; reconciled members only.
-- $1 = run ID, $2 = group ID or NULL (the whole run); each statement
-- starts with the CTEs it uses, word for word as in summary.sql, whose
-- header says what each is. The per-day views (funding_sources,
-- wallet_mix, terminal_activity) are read for the days of the run's
-- window, which starts and ends at midnight UTC.

-- name: InterchangeByMember
-- The estimated interchange at risk on commercial-card calls that lost
-- Level III or Level II, by member, network and currency.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_list AS (SELECT merchant_id FROM scope WHERE status = 'ok'),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT i.merchant_id, g.groups, i.network, i.calls, i.level3_calls, i.level2_calls, i.amount,
       i.level3_rate, i.level2_rate, i.at_risk, i.currency
FROM interchange_at_risk i
JOIN member_list m ON m.merchant_id = i.merchant_id
LEFT JOIN groups_of g ON g.merchant_id = i.merchant_id
WHERE i.run_id = $1
ORDER BY i.merchant_id, i.network, i.currency

-- name: InterchangeByGroup
-- InterchangeByMember by group and currency: members, calls, amount and
-- the amount at risk.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
)
SELECT mg.group_id, count(DISTINCT i.merchant_id), sum(i.calls), sum(i.amount), sum(i.at_risk), i.currency
FROM member_groups mg
JOIN interchange_at_risk i ON i.run_id = $1 AND i.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
GROUP BY mg.group_id, i.currency ORDER BY mg.group_id, i.currency

-- name: InterchangeRates
-- The rate table behind the estimate: how much lower the Level II and
-- Level III rates are than the standard commercial rate, per network
-- ('*' = other networks, last). No parameters.
SELECT network, level2_rate, level3_rate, source FROM interchange_rates ORDER BY network = '*', network

-- name: FundingByMember
-- The window's transactions by member and by the funding source, card
-- platform, product and health-card flag of the card's BIN ('(unknown)'
-- when the lookup did not resolve, '(no card)' without a card), with the
-- captured ones and their amount per currency.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1),
member_list AS (SELECT merchant_id FROM scope WHERE status = 'ok')
SELECT f.merchant_id, coalesce(f.funding_source, CASE WHEN f.has_card THEN '(unknown)' ELSE '(no card)' END),
       f.card_platform, f.card_product, CASE WHEN f.health_card THEN 'yes' WHEN NOT f.health_card THEN 'no' END,
       sum(f.transactions), sum(f.captured), sum(f.captured_amount), f.currency
FROM funding_sources f JOIN member_list m ON m.merchant_id = f.merchant_id
WHERE day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY ALL ORDER BY 1, 2, 3, 4, 5, 9

-- name: FundingByGroup
-- FundingByMember by group.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT mg.group_id, coalesce(f.funding_source, CASE WHEN f.has_card THEN '(unknown)' ELSE '(no card)' END),
       f.card_platform, f.card_product, CASE WHEN f.health_card THEN 'yes' WHEN NOT f.health_card THEN 'no' END,
       sum(f.transactions), sum(f.captured), sum(f.captured_amount), f.currency
FROM member_groups mg JOIN funding_sources f ON f.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
  AND day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY ALL ORDER BY 1, 2, 3, 4, 5, 9

-- name: WalletsByMember
-- The window's transactions by member and device wallet or network token
-- (processingInformation.paymentSolution), with the captured ones and
-- their amount per currency.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1),
member_list AS (SELECT merchant_id FROM scope WHERE status = 'ok')
SELECT w.merchant_id, w.wallet, w.payment_solution, sum(w.transactions), sum(w.captured), sum(w.captured_amount), w.currency
FROM wallet_mix w JOIN member_list m ON m.merchant_id = w.merchant_id
WHERE day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY ALL ORDER BY 1, w.payment_solution NULLS LAST, 7

-- name: WalletsByGroup
-- WalletsByMember by group.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT mg.group_id, w.wallet, w.payment_solution, sum(w.transactions), sum(w.captured), sum(w.captured_amount), w.currency
FROM member_groups mg JOIN wallet_mix w ON w.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
  AND day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY ALL ORDER BY 1, w.payment_solution NULLS LAST, 7

-- name: TerminalsByMember
-- Contactless acceptance: the window's authorizations and sales by member
-- and terminal (pointOfSaleInformation.terminalId), approved ones and
-- their amount per currency, first and last seen.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1),
member_list AS (SELECT merchant_id FROM scope WHERE status = 'ok'),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT a.merchant_id, g.groups, a.terminal_id, sum(a.transactions), sum(a.approved), sum(a.approved_amount),
       a.currency, min(a.first_time), max(a.last_time)
FROM terminal_activity a JOIN member_list m ON m.merchant_id = a.merchant_id
LEFT JOIN groups_of g ON g.merchant_id = a.merchant_id
WHERE day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY a.merchant_id, g.groups, a.terminal_id, a.currency ORDER BY 1, 3, 7

-- name: TerminalsByGroup
-- TerminalsByMember by group and currency: terminals, transactions,
-- approved ones and their amount.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
member_groups AS (
    SELECT string_agg(gm.group_id, ', ' ORDER BY gm.group_id) AS group_id, s.merchant_id, s.status, s.error
    FROM scope s JOIN group_members gm ON gm.merchant_id = s.merchant_id AND gm.run_id = $1
    GROUP BY s.merchant_id, s.status, s.error
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT mg.group_id, count(DISTINCT a.merchant_id || '/' || a.terminal_id), sum(a.transactions), sum(a.approved),
       sum(a.approved_amount), a.currency
FROM member_groups mg JOIN terminal_activity a ON a.merchant_id = mg.merchant_id
WHERE mg.status = 'ok'
  AND day >= CAST((SELECT window_start FROM run) AS DATE) AND day < CAST((SELECT window_end FROM run) AS DATE)
GROUP BY mg.group_id, a.currency ORDER BY 1, 6
