-- The Legend sheet of the finance workbook (reports/catalog.go): what each
-- finding kind means and what to do about it, the states, and how to read
-- the workbook. The texts come from the program (the kinds' .sql files
-- and reports/catalog.go) as arrays, so the sheet is written like every
-- other one.

-- name: FindingKinds
-- Each kind of the catalog, in the workbook's order: its sheet's name
-- (the workbook links it to the sheet), what it means and what to do in
-- finance's words, its findings today (new, open and acknowledged) in the
-- workbook's scope, and its id (findings.kind).
-- $1 = run ID, $2 = group ID or NULL (the CTEs of summary.sql),
-- $3 = the kinds, $4 = their sheets, $5 = what they mean,
-- $6 = what to do, the four arrays in the same order.
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
k AS (SELECT unnest($3::VARCHAR[]) AS kind, unnest($4::VARCHAR[]) AS sheet,
             unnest($5::VARCHAR[]) AS descr, unnest($6::VARCHAR[]) AS action,
             generate_subscripts($3::VARCHAR[], 1) AS ord)
SELECT k.sheet, k.descr, k.action, count(f.kind), k.kind
FROM k LEFT JOIN scoped_findings f ON f.kind = k.kind AND f.state IN ('new', 'open', 'acknowledged')
GROUP BY k.kind, k.descr, k.action, k.sheet, k.ord ORDER BY k.ord

-- name: States
-- What the states of a finding mean. No parameters.
SELECT * FROM (VALUES
    ('new', 'Reported today, not by the previous run.'),
    ('open', 'Reported by the previous run too: still to be dealt with. "First seen" says since when.'),
    ('acknowledged', 'New or open, but someone acknowledged it: known and being handled by its owner, for the reason given, until the date given (the Acknowledgements sheet lists them). Not counted as new or open. It is new or open again the day after that date, or as soon as its amount or currency changes.'),
    ('resolved', 'Reported by the previous run, not today (listed on the Resolved sheet). Only for members reconciled today: a failed member''s findings are neither reported nor resolved.')
) AS s(state, meaning)

-- name: ReadingNotes
-- How to read the workbook: topics and notes, in order.
-- $1 = the topics, $2 = the notes, the two arrays in the same order.
SELECT topic, note FROM (SELECT unnest($1::VARCHAR[]) AS topic, unnest($2::VARCHAR[]) AS note,
               generate_subscripts($1::VARCHAR[], 1) AS ord) ORDER BY ord
