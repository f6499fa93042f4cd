-- The cleared_below_sent_level sheet of the finance workbook
-- (reports/catalog.go): a transaction that cleared at a lower interchange level than it was sent with, and what the billback cost. One row per finding of the kind
-- today (new, open and acknowledged), with the columns a controller needs
-- to act on it (docs/workbook.md lists them). The column names are the
-- sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/cleared_below_sent_level.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the transaction
-- ID: Request ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "Request ID",
       (f.detail->>'transaction_type') AS "Transaction type",
       (f.detail->>'sent_level') AS "Level sent",
       (f.detail->>'cleared_level') AS "Level cleared",
       (f.detail->>'billback_reason_code') AS "Billback reason code",
       (f.detail->>'billback_reason') AS "Billback reason",
       TRY_CAST(f.detail->>'fee_expected' AS DECIMAL(18,3)) AS "Fee expected",
       TRY_CAST(f.detail->>'fee_charged' AS DECIMAL(18,3)) AS "Fee charged",
       TRY_CAST(f.detail->>'fee_difference' AS DECIMAL(18,3)) AS "Fee difference",
       (f.detail->>'fee_currency') AS "Fee currency",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Sent at level {} and cleared at level {}: {} more interchange ({})', coalesce(f.detail->>'sent_level', '?'), coalesce(f.detail->>'cleared_level', '?'), coalesce(f.detail->>'fee_difference', '?'), coalesce(f.detail->>'billback_reason', f.detail->>'billback_reason_code', 'no reason given')) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
ORDER BY f.merchant_id, "When", f.entity_id
