-- The finding sheets of the finance workbook (reports/catalog.go): one
-- sheet per finding kind with its findings today, and the Resolved sheet.
-- $1 = run ID, $2 = group ID or NULL (the whole run); each statement
-- starts with the CTEs it uses, word for word as in summary.sql, whose
-- header says what each is.

-- name: KindFindings
-- One kind's sheet: its findings today (new and still open), each with
-- the member's groups, the business date it was first seen, and its
-- detail, by member and entity.
-- $1 = run ID, $2 = group ID or NULL, $3 = the finding kind.
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
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT f.merchant_id, g.groups, f.entity_id, f.amount, f.currency, f.state,
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)),
       CAST(f.detail AS VARCHAR)
FROM scoped_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
WHERE f.kind = $3 AND f.state IN ('new', 'open')
ORDER BY f.merchant_id, f.entity_id

-- name: ResolvedFindings
-- The Resolved sheet: the findings the previous run reported that are gone
-- today, every kind (the catalog's order first), with their detail as last
-- seen.
-- $1 = run ID, $2 = group ID or NULL, $3 = the catalog's kinds, in order.
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
kinds AS (
    SELECT unnest($3::VARCHAR[]) AS kind, generate_subscripts($3::VARCHAR[], 1) AS ord
),
groups_of AS (
    SELECT merchant_id, string_agg(group_id, ', ' ORDER BY group_id) AS groups
    FROM group_members WHERE run_id = $1 GROUP BY merchant_id
)
SELECT f.kind, f.merchant_id, g.groups, f.entity_id, f.amount, f.currency,
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)),
       CAST(f.detail AS VARCHAR)
FROM scoped_findings f
LEFT JOIN kinds k ON k.kind = f.kind
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
WHERE f.state = 'resolved'
ORDER BY k.ord, f.kind, f.merchant_id, f.entity_id
