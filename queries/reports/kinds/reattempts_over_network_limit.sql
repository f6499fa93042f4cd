-- The reattempts_over_network_limit sheet of the finance workbook
-- (reports/catalog.go): a reattempt of a declined card beyond what its
-- network allows in its window. One row per finding of the kind today
-- (new, open and acknowledged), with the columns a controller needs to act
-- on it (docs/workbook.md lists them): the reattempt, its card, and the
-- limit it broke (the table retry_limits, docs/payments-audit.md) with the
-- count that broke it. The column names are the sheet's headers and their
-- types its cell types (outputs.Block.FromQuery); the detail's keys are
-- those of queries/findings/reattempts_over_network_limit.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the reattempt
-- ID: Transaction ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
WITH reattempts AS (
    -- Each reattempt of the kind's findings with its order number (the
    -- call's, else the platform's record of the transaction, else the
    -- subscription's), its customer, and its limit's window in words
    -- (24 hours, 30 days).
    SELECT f.merchant_id, f.entity_id,
           coalesce(j.client_reference, t.client_reference, s.client_reference) AS client_reference,
           coalesce(t.customer_id, s.customer_id) AS customer_id,
           CASE WHEN w.hours IS NULL THEN (f.detail->>'window')
                WHEN w.hours % 24 = 0 AND w.hours > 72 THEN CAST(w.hours // 24 AS VARCHAR) || ' days'
                ELSE CAST(w.hours AS VARCHAR) || ' hours' END AS window_words
    -- The kind's findings taken first: DuckDB does not push a filter on
    -- the kind through the lateral join below, and joined every finding
    -- of the run with the transactions and subscriptions.
    FROM kind_findings f
    LEFT JOIN LATERAL (SELECT j.client_reference FROM journal j
                       WHERE j.merchant_id = f.merchant_id AND j.file = (f.detail->>'file') AND j.line = TRY_CAST(f.detail->>'line' AS INTEGER)) j ON true
    LEFT JOIN LATERAL (SELECT t.client_reference, t.customer_id FROM transactions t
                       WHERE t.merchant_id = f.merchant_id AND t.transaction_id = f.entity_id) t ON true
    LEFT JOIN LATERAL (SELECT s.client_reference, s.customer_id FROM subscriptions s
                       WHERE s.merchant_id = f.merchant_id AND s.subscription_id = (f.detail->>'subscription_id')) s ON true
    CROSS JOIN LATERAL (SELECT CAST(epoch(TRY_CAST(f.detail->>'window' AS INTERVAL)) // 3600 AS BIGINT) AS hours) w
)
SELECT TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       r.client_reference AS "Client reference",
       f.entity_id AS "Transaction ID",
       replace(f.detail->>'call_kind', '_', ' ') AS "Call",
       (f.detail->>'initiator') AS "Initiated by",
       r.customer_id AS "Customer ID",
       (f.detail->>'subscription_id') AS "Subscription ID",
       coalesce(b.brand, f.detail->>'network') AS "Card brand",
       (f.detail->>'bin') AS "BIN",
       (f.detail->>'last4') AS "Last four",
       f.amount AS "Amount",
       f.currency AS "Currency",
       TRY_CAST(f.detail->>'reattempts' AS INTEGER) AS "Reattempts in the window",
       TRY_CAST(f.detail->>'allowed' AS INTEGER) AS "Limit",
       r.window_words AS "Window",
       CASE (f.detail->>'counted') WHEN 'all' THEN 'all reattempts' ELSE (f.detail->>'counted') || ' only' END AS "Counted",
       (f.detail->>'limit_network') AS "Limit of",
       TRY_CAST(f.detail->>'first_counted' AS TIMESTAMPTZ) AS "First reattempt counted",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('{} reattempts of card {}…{} in {} (since {}{}); {} allows {}', coalesce(f.detail->>'reattempts', '?'), coalesce(f.detail->>'bin', '?'), coalesce(f.detail->>'last4', '?'), coalesce(r.window_words, '?'), coalesce(strftime(TRY_CAST(f.detail->>'first_counted' AS TIMESTAMPTZ), '%Y-%m-%d %H:%M'), '?'), CASE WHEN (f.detail->>'counted') = 'all' THEN '' ELSE ', ' || (f.detail->>'counted') || ' ones counted apart' END, CASE (f.detail->>'limit_network') WHEN '*' THEN 'the limit for any network' ELSE coalesce(f.detail->>'limit_network', 'the network') END, coalesce(f.detail->>'allowed', '?')) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
LEFT JOIN reattempts r ON r.merchant_id = f.merchant_id AND r.entity_id = f.entity_id
LEFT JOIN bin_attributes b ON b.bin = (f.detail->>'bin')
ORDER BY f.merchant_id, "When", f.entity_id
