-- The Acknowledgements sheet of the finance workbook (reports/catalog.go):
-- the acknowledgements in force for the workbook's members, and every
-- change to acknowledgements since the previous run (the audit trail;
-- acknowledgement_audit holds all of it). $1 = run ID, $2 = group ID or
-- NULL (the whole run); each statement starts with the CTEs it uses, word
-- for word as in summary.sql, whose header says what each is.

-- name: InForce
-- The acknowledgements in force, by kind (the catalog's order), member
-- and entity: who handles each, until when and why, the amount
-- acknowledged, the finding's state today ('(not reported today)' when
-- this run did not report it), where it was made, by whom and when.
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
SELECT a.kind, a.merchant_id, mn.name, g.groups, a.entity_id, a.owner, a.until, a.reason, a.ticket,
       a.amount, a.currency,
       CASE WHEN f.state IS NULL OR f.state = 'resolved' THEN '(not reported today)' ELSE f.state END,
       a.source, a.created_by, a.created_at, a.updated_by, a.updated_at
FROM acknowledgements a
JOIN scope s ON s.merchant_id = a.merchant_id
LEFT JOIN kinds k ON k.kind = a.kind
LEFT JOIN scoped_findings f ON f.kind = a.kind AND f.merchant_id = a.merchant_id AND f.entity_id = a.entity_id
LEFT JOIN groups_of g ON g.merchant_id = a.merchant_id
LEFT JOIN merchant_names mn ON mn.run_id = $1 AND mn.merchant_id = a.merchant_id
ORDER BY k.ord NULLS LAST, a.kind, a.merchant_id, a.entity_id

-- name: Changes
-- The changes to the workbook's members' acknowledgements since the
-- previous run finished (all of them when there is none), oldest first:
-- when, who, what (acknowledge, change, revoke, amount_recorded, expire,
-- reopen), from where and which run, the finding, and what changed
-- (last, where a long text has room), written out: the
-- fields of a new acknowledgement, those of one that ended, and of a
-- change the fields that differ ("until: 2026-12-15 → 2027-01-15").
-- $1 = run ID, $2 = group ID or NULL.
WITH scope AS (
    SELECT rm.merchant_id, rm.status, rm.error
    FROM run_members rm
    WHERE rm.run_id = $1
      AND ($2::VARCHAR IS NULL OR EXISTS (
          SELECT 1 FROM group_members gm
          WHERE gm.run_id = $1 AND gm.group_id = $2 AND gm.merchant_id = rm.merchant_id))
),
run AS (SELECT * FROM runs WHERE run_id = $1)
SELECT a.changed_at, a.changed_by, a.action, a.source, a.run_id, a.kind, a.merchant_id, a.entity_id,
       array_to_string(list_filter(list_transform(['owner', 'until', 'reason', 'ticket', 'amount', 'currency'],
           lambda key_name: CASE
               WHEN a.before IS NULL THEN key_name || ': ' || (a.after->>key_name)
               WHEN a.after IS NULL THEN key_name || ': ' || (a.before->>key_name)
               WHEN json_exists(a.after, '$.' || key_name) AND (a.before->>key_name) IS DISTINCT FROM (a.after->>key_name)
                   THEN key_name || ': ' || coalesce(a.before->>key_name, '(none)') || ' → ' || coalesce(a.after->>key_name, '(none)')
           END), lambda line: line IS NOT NULL), '; ')
FROM acknowledgement_audit a
JOIN scope s ON s.merchant_id = a.merchant_id
WHERE a.changed_at > coalesce((SELECT p.finished_at FROM runs p WHERE p.run_id = (SELECT previous_run FROM run)),
                              TIMESTAMPTZ '-infinity')
ORDER BY a.seq
