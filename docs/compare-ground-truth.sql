-- Compares the findings of a run on the sandbox with the sandbox's ground
-- truth, entity by entity. Run from the folder the run wrote into:
--   go run ./cmd/reconcile sql --file docs/compare-ground-truth.sql
-- Both counts are 0 when the reconciliation found exactly what was planted.
-- Only a run's current findings count (state new or open): the resolved rows
-- are what the previous run reported and this one no longer does.
WITH gt AS (
    SELECT content::JSON AS j FROM read_text('out/sandbox/ground-truth-*.json')
),
truth AS (
    SELECT k AS kind,
           unnest(from_json(j -> 'findings' -> k, '[{"merchantId":"VARCHAR","entityId":"VARCHAR"}]'), recursive := true)
    FROM gt, unnest(json_keys(j -> 'findings')) AS t(k)
)
SELECT 'in the ground truth, not found' AS side, count(*) AS findings
FROM (SELECT kind, merchantId, entityId FROM truth
      EXCEPT SELECT kind, merchant_id, entity_id FROM findings WHERE state IN ('new', 'open'))
UNION ALL
SELECT 'found, not in the ground truth', count(*)
FROM (SELECT kind, merchant_id, entity_id FROM findings WHERE state IN ('new', 'open')
      EXCEPT SELECT kind, merchantId, entityId FROM truth)
