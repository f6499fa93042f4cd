-- The bin_unresolved sheet of the finance workbook (reports/catalog.go): a
-- BIN whose lookup ended MULTIPLE or NO MATCH; no amount. One row per
-- finding of the kind today (new, open and acknowledged), with the columns
-- a controller needs to act on it (docs/workbook.md lists them). The
-- column names are the sheet's headers and their types its cell types
-- (outputs.Block.FromQuery); the detail's keys are those of
-- queries/findings/bin_unresolved.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
-- When: (none)
-- ID: BIN
-- It runs after the kinds' prelude, queries/reports/kind_prelude.sql (the
-- CTEs scope, scoped_findings, kind_findings, groups_of and run), which
-- queries.KindSheet puts before it.
SELECT f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "BIN",
       (f.detail->>'lookup_status') AS "Lookup status",
       TRY_CAST(f.detail->>'occurrences' AS INTEGER) AS "Transactions and calls",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       format('Its BIN lookup ended {}: the card attributes of the {} transactions and calls carrying it (commercial, prepaid, health care) are unknown', coalesce(f.detail->>'lookup_status', '?'), coalesce(f.detail->>'occurrences', '?')) AS "Reason",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
ORDER BY f.merchant_id, f.entity_id
