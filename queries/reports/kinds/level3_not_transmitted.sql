-- The level3_not_transmitted sheet of the finance workbook
-- (reports/catalog.go): a call whose response said Level III data was not
-- transmitted. One row per finding of the kind today (new, open and
-- acknowledged), with the columns a controller needs to act on it
-- (docs/workbook.md lists them). The column names are the sheet's headers
-- and their types its cell types (outputs.Block.FromQuery); the detail's
-- keys are those of queries/findings/level3_not_transmitted.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the call
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
       (f.detail->>'call_kind') AS "Call",
       b.brand AS "Card brand",
       c.card_bin AS "BIN",
       c.card_last4 AS "Last four",
       b.funding_source AS "Funding source",
       (f.detail->>'purchase_level') AS "Purchase level",
       TRY_CAST(f.detail->>'line_items' AS INTEGER) AS "Line items",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('The platform answered this {} with level3TransmissionStatus N: its Level III data was not passed on, so it may not get the Level III rate', coalesce(f.detail->>'call_kind', 'call')) AS "Reason",
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
