-- The statements of package pipeline: the run log (runs, and which members
-- an earlier attempt of the date completed). Named blocks, read with
-- queries.Must.

-- name: RunAttempts
-- How many attempts run $1 has had (0 for a new run).
SELECT coalesce(max(attempts), 0) FROM runs WHERE run_id = $1

-- name: InsertRun
-- Records run $1 as started: business date $2, shard $3, window [$4, $5),
-- started at $6, status $7 (running), attempt $8, version $9. A re-run of
-- the date replaces its row.
INSERT OR REPLACE INTO runs
    (run_id, business_date, shard, window_start, window_end, started_at, status, attempts, version)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)

-- name: ResetUnfinishedMembers
-- A resumed run keeps the members an earlier attempt of run $1 completed,
-- and forgets the others.
DELETE FROM run_members WHERE run_id = $1 AND status <> 'ok'

-- name: ResetMembers
-- --force: run $1's member log starts afresh.
DELETE FROM run_members WHERE run_id = $1

-- name: CompletedMembers
-- The members an earlier attempt of run $1 completed.
SELECT merchant_id FROM run_members WHERE run_id = $1 AND status = 'ok'

-- name: UpdateRunEnd
-- Records how run $11 ended: finished at $1, status $2, members total $3,
-- ok $4 (skipped included), failed $5, skipped $6, requests $7, retries $8,
-- findings $9 (new and open), error $10.
UPDATE runs SET finished_at = $1, status = $2, members_total = $3, members_ok = $4,
    members_failed = $5, members_skipped = $6, requests = $7, retries = $8, findings = $9, error = $10
WHERE run_id = $11
