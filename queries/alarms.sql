-- The statements of package alarms: what a run's alarm rules measure, in
-- the run and in the runs before it. Named blocks, read with queries.Must.
--
-- A run's findings are its current ones, state 'new' or 'open' (not
-- 'resolved', nor any other state a later version adds). Its history is
-- the latest earlier runs of the same shard that finished ok or partial,
-- as the findings' day-over-day states compare with (checks.sql,
-- PreviousRun).

-- name: MembersLost
-- The members the previous run (runs.previous_run) reconciled that this
-- run did not: absent from its run_members ('missing'), or 'failed';
-- with the previous run's ID.
-- No rows for a shard's first run.
-- $1 = run ID.
SELECT p.run_id, p.merchant_id, coalesce(t.status, 'missing') AS outcome
FROM run_members p
LEFT JOIN run_members t ON t.run_id = $1 AND t.merchant_id = p.merchant_id
WHERE p.run_id = (SELECT previous_run FROM runs WHERE run_id = $1)
  AND p.status = 'ok'
  AND (t.merchant_id IS NULL OR t.status = 'failed')
ORDER BY p.merchant_id

-- name: MemberOutcomes
-- The run's members and how many of them failed.
-- $1 = run ID.
SELECT count(*), count(*) FILTER (WHERE status = 'failed') FROM run_members WHERE run_id = $1

-- name: KindTotals
-- The run's current findings per kind and currency (NULL for findings
-- without an amount): how many, and their amount; with the run's ID, as
-- KindHistory has it.
-- $1 = run ID.
SELECT run_id, kind, currency, count(*), coalesce(sum(amount), 0)::DOUBLE
FROM findings
WHERE run_id = $1 AND state IN ('new', 'open')
GROUP BY run_id, kind, currency

-- name: KindHistory
-- The same per earlier run, for the trailing medians: the latest $2 runs
-- of the shard before run $1 that finished ok or partial. A run without
-- any current finding still has one row (kind and currency NULL, count 0)
-- so that it counts as a run with zero of every kind.
-- $1 = run ID, $2 = how many earlier runs.
WITH this AS (
    SELECT business_date, coalesce(shard, '0/1') AS shard FROM runs WHERE run_id = $1
),
history AS (
    SELECT r.run_id
    FROM runs r, this
    WHERE r.business_date < this.business_date AND r.status IN ('ok', 'partial')
      AND coalesce(r.shard, '0/1') = this.shard
    ORDER BY r.business_date DESC, r.run_id DESC
    LIMIT $2
)
SELECT h.run_id, f.kind, f.currency, count(f.kind), coalesce(sum(f.amount), 0)::DOUBLE
FROM history h
LEFT JOIN findings f ON f.run_id = h.run_id AND f.state IN ('new', 'open')
GROUP BY h.run_id, f.kind, f.currency
