-- The finding sheets of the finance workbook (reports/catalog.go): one
-- sheet per finding kind with its totals and its findings today (the
-- columns of a kind with a file in kinds/ are that file's, the others'
-- KindFindings'), and the Resolved sheet.
-- $1 = run ID, $2 = group ID or NULL (the whole run); each statement
-- starts with the CTEs it uses, word for word as in summary.sql, whose
-- header says what each is.

-- name: KindFindings
-- One kind's sheet when the kind has no file of its own in
-- queries/reports/kinds/ (a kind added later, until it gets one): its
-- findings today (new, open and acknowledged), each with the member's
-- name and groups, its amount, state, the business date it was first
-- seen, its acknowledgement, and its detail written out as "key: value"
-- pairs (Facts), by member and entity. The column names are the sheet's
-- headers (outputs.Block.FromQuery).
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
SELECT f.merchant_id AS "Merchant ID",
       mn.name AS "Merchant name",
       g.groups AS "Group",
       f.entity_id AS "Entity ID",
       f.amount AS "Amount",
       f.currency AS "Currency",
       f.state AS "State",
       coalesce(fr.business_date, TRY_CAST(left(f.first_seen_run, 10) AS DATE)) AS "First seen",
       array_to_string(list_transform(json_keys(f.detail), lambda key_name: key_name || ': ' || coalesce(f.detail->>key_name, 'null')), '; ') AS "Facts",
       f.kind AS "Kind ID",
       f.ack_reason AS "Acknowledge: reason",
       f.ack_owner AS "Acknowledge: owner",
       f.ack_until AS "Acknowledge: until",
       f.ack_ticket AS "Acknowledge: ticket"
FROM scoped_findings f
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = f.merchant_id
WHERE f.kind = $3 AND f.state IN ('new', 'open', 'acknowledged')
ORDER BY f.merchant_id, f.entity_id

-- name: KindTotals
-- The totals a kind's sheet opens with: per currency, the findings on the
-- sheet (new, open and acknowledged) and their amount, and of those the
-- acknowledged ones, so that a SUM of the sheet's Amount column over one
-- currency checks them. A kind without amounts has one row, currency
-- '(no amount)'.
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
)
SELECT coalesce(f.currency, '(no amount)'), count(*), sum(f.amount),
       count(*) FILTER (WHERE f.state = 'acknowledged'),
       sum(f.amount) FILTER (WHERE f.state = 'acknowledged')
FROM scoped_findings f
WHERE f.kind = $3 AND f.state IN ('new', 'open', 'acknowledged')
GROUP BY f.currency
ORDER BY f.currency NULLS LAST

-- name: ResolvedFindings
-- The Resolved sheet: the findings the previous run reported that are gone
-- today, every kind (the catalog's order first), with their detail as last
-- seen, written out as "key: value" pairs.
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
       array_to_string(list_transform(json_keys(f.detail), lambda key_name: key_name || ': ' || coalesce(f.detail->>key_name, 'null')), '; ')
FROM scoped_findings f
LEFT JOIN kinds k ON k.kind = f.kind
LEFT JOIN runs fr ON fr.run_id = f.first_seen_run
LEFT JOIN groups_of g ON g.merchant_id = f.merchant_id
WHERE f.state = 'resolved'
ORDER BY k.ord, f.kind, f.merchant_id, f.entity_id
