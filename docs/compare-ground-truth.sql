-- Compares the findings of the latest run on the sandbox with the sandbox's
-- ground truth for that date, entity by entity. Run from the folder the run
-- wrote into:
--   go run ./cmd/reconcile sql --file docs/compare-ground-truth.sql
-- Both counts are 0 when the reconciliation found exactly what was planted.
-- Only the run's current findings count (state new or open): the resolved
-- rows are what the previous run reported and this one no longer does.
SET VARIABLE run = (SELECT max(run_id) FROM runs);

WITH gt AS (
    SELECT content::JSON AS j
    FROM read_text('out/sandbox/ground-truth-' || getvariable('run') || '.json')
),
truth AS (
    SELECT k AS kind,
           unnest(from_json(j -> 'findings' -> k, '[{"merchantId":"VARCHAR","entityId":"VARCHAR"}]'), recursive := true)
    FROM gt, unnest(json_keys(j -> 'findings')) AS t(k)
),
found AS (
    SELECT kind, merchant_id, entity_id FROM findings
    WHERE run_id = getvariable('run') AND state IN ('new', 'open')
)
SELECT 'in the ground truth, not found' AS side, count(*) AS findings
FROM (SELECT kind, merchantId, entityId FROM truth EXCEPT SELECT * FROM found)
UNION ALL
SELECT 'found, not in the ground truth', count(*)
FROM (SELECT * FROM found EXCEPT SELECT kind, merchantId, entityId FROM truth)
