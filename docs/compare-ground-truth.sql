-- Compares the findings of a run on the sandbox with the sandbox's ground
-- truth for that date, entity by entity. reconcile sql opens no file but
-- the database, so the ground truth comes in as a variable; from the folder
-- the run wrote into (the date is the run's):
--   go run ./cmd/reconcile sql --var ground_truth=@out/sandbox/ground-truth-2026-11-20.json \
--       --file docs/compare-ground-truth.sql
-- Both counts are 0 when the reconciliation found exactly what was planted.
-- Only the run's current findings count (state new or open): the resolved
-- rows are what the previous run reported and this one no longer does.
WITH gt AS (
    SELECT CASE WHEN getvariable('ground_truth') IS NULL
                THEN error('no ground truth: give --var ground_truth=@out/sandbox/ground-truth-<date>.json')
                ELSE getvariable('ground_truth') END::JSON AS j
),
truth AS (
    SELECT k AS kind,
           unnest(from_json(j -> 'findings' -> k, '[{"merchantId":"VARCHAR","entityId":"VARCHAR"}]'), recursive := true)
    FROM gt, unnest(json_keys(j -> 'findings')) AS t(k)
),
found AS (
    SELECT kind, merchant_id, entity_id FROM findings
    WHERE run_id = (SELECT j ->> 'businessDate' FROM gt) AND state IN ('new', 'open')
)
SELECT 'in the ground truth, not found' AS side, count(*) AS findings
FROM (SELECT kind, merchantId, entityId FROM truth EXCEPT SELECT * FROM found)
UNION ALL
SELECT 'found, not in the ground truth', count(*)
FROM (SELECT * FROM found EXCEPT SELECT kind, merchantId, entityId FROM truth)
