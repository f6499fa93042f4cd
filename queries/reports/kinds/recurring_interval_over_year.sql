-- The recurring_interval_over_year sheet of the finance workbook
-- (reports/catalog.go): a recurring merchant-initiated transaction more
-- than a year after its credential's previous successful transaction. One
-- row per finding of the kind today (new, open and acknowledged), with the
-- columns a controller needs to act on it (docs/workbook.md lists them).
-- The column names are the sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/recurring_interval_over_year.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the MIT
-- ID: Response ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
WITH calls AS (
    -- The journal line of each of the kind's findings and its card: the
    -- call's own, else that of the platform's record of its transaction,
    -- else of the authorization it follows (as the view journal_cards);
    -- the customer from the platform's record.
    SELECT f.merchant_id, f.entity_id, j.call_kind,
           CASE WHEN j.card_bin IS NOT NULL THEN j.card_bin WHEN t.card_bin IS NOT NULL THEN t.card_bin ELSE pt.card_bin END AS card_bin,
           CASE WHEN j.card_bin IS NOT NULL THEN j.card_last4 WHEN t.card_bin IS NOT NULL THEN t.card_last4 ELSE pt.card_last4 END AS card_last4,
           coalesce(t.customer_id, pt.customer_id) AS customer_id
    FROM kind_findings f
    JOIN LATERAL (SELECT j.call_kind, j.card_bin, j.card_last4, j.transaction_id, j.parent_id FROM journal j
                  WHERE j.merchant_id = f.merchant_id AND j.file = (f.detail->>'file') AND j.line = TRY_CAST(f.detail->>'line' AS INTEGER)) j ON true
    LEFT JOIN LATERAL (SELECT t.card_bin, t.card_last4, t.customer_id FROM transactions t
                       WHERE t.merchant_id = f.merchant_id AND t.transaction_id = j.transaction_id) t ON true
    LEFT JOIN LATERAL (SELECT pt.card_bin, pt.card_last4, pt.customer_id FROM transactions pt
                       WHERE pt.merchant_id = f.merchant_id AND pt.transaction_id = j.parent_id) pt ON true
)
SELECT TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       (f.detail->>'client_reference') AS "Client reference",
       f.entity_id AS "Response ID",
       c.call_kind AS "Call",
       c.customer_id AS "Customer ID",
       b.brand AS "Card brand",
       c.card_bin AS "BIN",
       c.card_last4 AS "Last four",
       b.funding_source AS "Funding source",
       (f.detail->>'previous_id') AS "Previous transaction ID",
       TRY_CAST(f.detail->>'previous_time' AS TIMESTAMPTZ) AS "Previous transaction",
       TRY_CAST(f.detail->>'days' AS INTEGER) AS "Days between",
       (f.detail->>'previous_from') AS "Linked by",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Recurring MIT {} days after the credential''s previous successful transaction ({}, linked by {}): the customer''s consent is over a year old', coalesce(f.detail->>'days', '?'), coalesce(strftime(TRY_CAST(f.detail->>'previous_time' AS TIMESTAMPTZ), '%Y-%m-%d'), '?'), coalesce(f.detail->>'previous_from', '?')) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
LEFT JOIN calls c ON c.merchant_id = f.merchant_id AND c.entity_id = f.entity_id
LEFT JOIN bin_attributes b ON b.bin = c.card_bin
ORDER BY f.merchant_id, "When", f.entity_id
