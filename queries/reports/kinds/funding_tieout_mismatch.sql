-- The funding_tieout_mismatch sheet of the finance workbook (reports/catalog.go):
-- a funding day whose funded total differs from purchases - refunds - fees - chargebacks. One row per finding of the kind today (new, open and
-- acknowledged), with the columns a controller needs to act on it
-- (docs/workbook.md lists them). The column names are the sheet's headers
-- and their types its cell types (outputs.Block.FromQuery); the detail's
-- keys are those of queries/findings/funding_tieout_mismatch.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the funding day
-- ID: Funding
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT TRY_CAST(f.detail->>'funding_day' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "Funding",
       (f.detail->>'group_name') AS "Group name",
       TRY_CAST(f.detail->>'purchases' AS DECIMAL(18,3)) AS "Purchases",
       TRY_CAST(f.detail->>'refunds' AS DECIMAL(18,3)) AS "Refunds",
       TRY_CAST(f.detail->>'fees' AS DECIMAL(18,3)) AS "Fees",
       TRY_CAST(f.detail->>'chargebacks' AS DECIMAL(18,3)) AS "Chargebacks",
       TRY_CAST(f.detail->>'expected' AS DECIMAL(18,3)) AS "Expected",
       TRY_CAST(f.detail->>'funded' AS DECIMAL(18,3)) AS "Funded",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Funded {} {} where purchases - refunds - fees - chargebacks leave {}: a difference of {}', coalesce(amount_text(TRY_CAST(f.detail->>'funded' AS DECIMAL(18,3)), f.currency), '?'), coalesce(f.currency, ''), coalesce(amount_text(TRY_CAST(f.detail->>'expected' AS DECIMAL(18,3)), f.currency), '?'), coalesce(amount_text(f.amount, f.currency), '?')) AS "Reason",
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
