-- The prelude of every finding kind's sheet (queries/reports/kinds/<kind>.sql):
-- queries.KindSheet puts these CTEs before the kind's own statement, so a
-- kind's file holds only its columns and the lookups they need, and the
-- scope every sheet counts is written once. A kind's file that opens with
-- WITH has its CTEs appended to these ones.
-- $1 = run ID, $2 = group ID or NULL (the whole run), $3 = the kind.
--   scope            the run's members in the workbook's scope (a group's, or all)
--   scoped_findings  the run's findings of those members
--   kind_findings    those of kind $3 in state new, open or acknowledged: the sheet's rows
--   groups_of        each member's groups, as "g1, g2"
--   run              the run's row of runs
-- To run a kind's sheet by hand, paste this file before the kind's file
-- (dropping the kind's own leading WITH for a comma) and write the run ID,
-- NULL and the kind for $1, $2 and $3.
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
