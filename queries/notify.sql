-- The statements of package notify: what the morning digest tells of a
-- run, for the whole run or for one group's members. Named blocks, read
-- with queries.Must.
--
-- Each takes $1 = run ID and $2 = group ID or NULL (the whole run), and
-- starts with the scope CTE of queries/reports/summary.sql (the run's
-- members, or those of group $2 as this run listed them), so that a
-- digest counts what the workbook of the same scope shows.

-- name: MemberCounts
-- The scope's members: all, reconciled, failed.
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
)
SELECT count(*), count(*) FILTER (WHERE status = 'ok'), count(*) FILTER (WHERE status = 'failed')
FROM scope

-- name: FailedMembers
-- The scope's failed members with the reason, the first $3 by merchant ID.
-- $1 = run ID, $2 = group ID or NULL, $3 = how many.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
)
SELECT merchant_id, coalesce(error, '') FROM scope WHERE status = 'failed'
ORDER BY merchant_id LIMIT $3

-- name: FindingStates
-- The scope's findings of the run by state: new, open, resolved, and
-- acknowledged (a state a finding takes when someone acknowledged it;
-- 0 where no finding has it).
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
)
SELECT count(*) FILTER (WHERE state = 'new'), count(*) FILTER (WHERE state = 'open'),
       count(*) FILTER (WHERE state = 'resolved'), count(*) FILTER (WHERE state = 'acknowledged')
FROM findings
WHERE run_id = $1 AND merchant_id IN (SELECT merchant_id FROM scope)

-- name: NewByKind
-- The scope's findings new today per kind (the catalog's order) and
-- currency: how many, and their amount as the digest writes it
-- (1,234.50; NULL for findings without an amount).
-- $1 = run ID, $2 = group ID or NULL, $3 = the catalog's kinds, in order.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
kinds AS (
    SELECT unnest($3::VARCHAR[]) AS kind, generate_subscripts($3::VARCHAR[], 1) AS ord
)
SELECT f.kind, f.currency, count(*), format('{:,.2f}', sum(f.amount))
FROM findings f
JOIN kinds k ON k.kind = f.kind
WHERE f.run_id = $1 AND f.state = 'new' AND f.merchant_id IN (SELECT merchant_id FROM scope)
GROUP BY f.kind, k.ord, f.currency
ORDER BY k.ord, f.currency NULLS FIRST

-- name: RunGroups
-- The groups the run listed, with their names: those a digest can be
-- routed to.
-- $1 = run ID.
SELECT DISTINCT gm.group_id, coalesce(g.name, '')
FROM group_members gm LEFT JOIN groups g ON g.group_id = gm.group_id
WHERE gm.run_id = $1
ORDER BY 1
