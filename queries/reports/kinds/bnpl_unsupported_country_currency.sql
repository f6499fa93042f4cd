-- The bnpl_unsupported_country_currency sheet of the finance workbook
-- (reports/catalog.go): a buy-now-pay-later session or authorization
-- outside the supported country and currency pairs. One row per finding of
-- the kind today (new, open and acknowledged), with the columns a
-- controller needs to act on it (docs/workbook.md lists them). The column
-- names are the sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/bnpl_unsupported_country_currency.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: the call
-- ID: Response ID
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT TRY_CAST(f.detail->>'time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       (f.detail->>'client_reference') AS "Client reference",
       f.entity_id AS "Response ID",
       (f.detail->>'call_kind') AS "Call",
       (f.detail->>'country') AS "Country",
       (f.detail->>'response_status') AS "Response status",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Buy-now-pay-later {} for {} in {}: not a supported pair (AU AUD, CA CAD, NZ NZD, GB GBP, US USD)', replace(coalesce(f.detail->>'call_kind', 'call'), 'bnpl_session', 'session'), coalesce(f.detail->>'country', 'no country'), coalesce(f.detail->>'currency', 'no currency')) AS "Reason",
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
