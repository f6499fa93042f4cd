-- The settled_amount_mismatch sheet of the finance workbook (reports/catalog.go):
-- a settlement whose amount or currency differs from its transaction's. One row per finding of the kind today (new, open and
-- acknowledged), with the columns a controller needs to act on it
-- (docs/workbook.md lists them). The column names are the sheet's headers
-- and their types its cell types (outputs.Block.FromQuery); the detail's
-- keys are those of queries/findings/settled_amount_mismatch.sql.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
scoped_findings AS (
    SELECT f.* FROM findings f WHERE f.run_id = $1 AND f.merchant_id IN (SELECT merchant_id FROM scope)
),
kind_findings AS (
    SELECT f.* FROM scoped_findings f WHERE f.kind = $3 AND f.state IN ('new', 'open', 'acknowledged')
),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT TRY_CAST(f.detail->>'request_time' AS TIMESTAMPTZ) AS "When",
       f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "Request ID",
       (f.detail->>'batch_id') AS "Batch ID",
       TRY_CAST(f.detail->>'transaction_amount' AS DECIMAL(18,3)) AS "Captured amount",
       (f.detail->>'transaction_currency') AS "Captured currency",
       TRY_CAST(f.detail->>'difference' AS DECIMAL(18,3)) AS "Difference",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       f.ack_until AS "Acknowledged until",
       f.ack_owner AS "Owner",
       f.ack_reason AS "Acknowledgement reason",
       f.ack_ticket AS "Ticket",
       format('Settled {} {} where {} {} was captured', coalesce(amount_text(f.amount, f.currency), '?'), coalesce(f.currency, ''), coalesce(amount_text(TRY_CAST(f.detail->>'transaction_amount' AS DECIMAL(18,3)), coalesce(f.detail->>'transaction_currency', f.currency)), '?'), coalesce(f.detail->>'transaction_currency', '')) AS "Reason"
FROM kind_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
ORDER BY f.merchant_id, "When", f.entity_id
