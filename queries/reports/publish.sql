-- What the publish step (reports/publish.go) reads besides the sheets and
-- datasets: which workbooks to write and what the manifest counts.

-- name: RunGroups
-- The groups the run listed that hold at least one of its members: one
-- workbook each with --split-by group.
-- $1 = run ID.
SELECT DISTINCT gm.group_id FROM group_members gm
JOIN run_members rm ON rm.run_id = gm.run_id AND rm.merchant_id = gm.merchant_id
WHERE gm.run_id = $1 ORDER BY 1

-- name: FindingsByState
-- The run's findings per state and kind, for the manifest.
-- $1 = run ID.
SELECT state, kind, count(*) FROM findings WHERE run_id = $1 GROUP BY ALL

-- name: PreviousRun
-- The run the findings' states compare with ('' for the first run).
-- $1 = run ID.
SELECT coalesce(previous_run, '') FROM runs WHERE run_id = $1
