-- The statements of package checks around the checks of findings/ and the
-- reports of billing/: which run and members they see, and the findings'
-- day-over-day state. Named blocks, read with queries.Must.

-- name: ClearFindings
-- Run $1's findings, replaced by every computation of them.
DELETE FROM findings WHERE run_id = $1

-- name: PreviousRun
-- The run run $2 (business date $1) is compared with: the latest earlier
-- run of its shard that finished ok or partial. No row for a shard's first
-- run.
SELECT run_id FROM runs
WHERE business_date < $1 AND status IN ('ok', 'partial')
  AND coalesce(shard, '0/1') = coalesce((SELECT shard FROM runs WHERE run_id = $2), '0/1')
ORDER BY business_date DESC, run_id DESC
LIMIT 1

-- name: RecordPreviousRun
-- Run $2 was compared with run $1 (NULL for a shard's first run).
UPDATE runs SET previous_run = $1 WHERE run_id = $2

-- name: PreviousFindings
-- Collects, into a temp table of the store's connection, each member's
-- findings from the latest earlier run of the shard that reconciled it
-- (new, open or acknowledged: an acknowledged finding that comes back is
-- open, not new). $1 is the run, $2 its business date.
CREATE OR REPLACE TEMP TABLE previous_findings AS
WITH last_ok AS (
    SELECT pm.merchant_id, arg_max(pr.run_id, pr.business_date) AS run_id
    FROM run_members pm
    JOIN runs pr ON pr.run_id = pm.run_id
    WHERE pm.status = 'ok' AND pr.business_date < $2 AND pr.status IN ('ok', 'partial')
      AND coalesce(pr.shard, '0/1') = coalesce((SELECT shard FROM runs WHERE run_id = $1), '0/1')
    GROUP BY pm.merchant_id
)
SELECT p.* FROM findings p
JOIN last_ok l ON l.merchant_id = p.merchant_id AND l.run_id = p.run_id
WHERE p.state IN ('new', 'open', 'acknowledged')

-- name: FirstSeen
-- Collects, into a temp table of the store's connection, when each finding
-- (kind, member, entity) of the members run $1 reconciled was first seen
-- in the runs of the business dates before $2. It is read once per run
-- rather than by every check in every slice: the findings table grows with
-- every night, by tens of thousands of rows a night at 2,000 members, and
-- a check's history lookup then read all of it (with 100 nights of history
-- at 2,000 members, the checks took a fifth longer). Dropped once the
-- checks have run (DropFirstSeen).
CREATE OR REPLACE TEMP TABLE first_seen AS
SELECT kind, merchant_id, entity_id, min(first_seen_run) AS first_seen_run
FROM findings
WHERE business_date < $2
  AND merchant_id IN (SELECT merchant_id FROM run_members WHERE run_id = $1 AND status = 'ok')
GROUP BY kind, merchant_id, entity_id

-- name: DropFirstSeen
DROP TABLE IF EXISTS temp.main.first_seen

-- name: CountFindings
-- The findings of run $1 per kind, once the checks have inserted them
-- (all new or open: the resolved ones and the acknowledgements come after).
SELECT kind, count(*) FROM findings WHERE run_id = $1 GROUP BY kind

-- name: ClearFindingKinds
-- finding_kinds is replaced by the catalog of every run.
DELETE FROM finding_kinds

-- name: InsertFindingKind
-- Kind $1, in position $2, means $3; what to do: $4.
INSERT INTO finding_kinds (kind, position, description, action) VALUES ($1, $2, $3, $4)

-- name: CreateFound
-- What the checks find among one slice of members, before it becomes
-- findings (InsertFound, then InsertFindings): a check's rows are only
-- appended here, and the history, groups and states are joined once for
-- the slice rather than once per check (37 such joins made 40 % of the
-- checks' time on a small run).
CREATE OR REPLACE TEMP TABLE found (
    kind        VARCHAR NOT NULL,
    merchant_id VARCHAR,
    entity_id   VARCHAR,
    amount      DECIMAL(18,3),
    currency    VARCHAR,
    detail      JSON
)

-- name: InsertFound
-- Appends what one check (kind $1) finds to found. The check's query
-- (queries/findings/<kind>.sql) takes the place of the comment line inside
-- FROM ( ).
INSERT INTO found (kind, merchant_id, entity_id, amount, currency, detail)
SELECT $1, f.merchant_id, f.entity_id, f.amount, f.currency, f.detail
FROM (
    -- the check's query
) f

-- name: InsertFindings
-- Adds what the checks found among the members $3..$4 of run $1 (business
-- date $2) to the run's findings, each with the run it was first seen in
-- and whether the member's previous findings had it (open) or not (new); a
-- check that reports one entity twice gives one finding. The history
-- (first_seen, previous_findings) is read for the slice's members only.
INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id,
                      amount, currency, detail, first_seen_run, state)
SELECT $1, $2, f.kind, f.merchant_id, f.entity_id, g.group_id, f.amount, f.currency, f.detail,
       coalesce(seen.first_seen_run, $1),
       CASE WHEN p.entity_id IS NULL THEN 'new' ELSE 'open' END
FROM found f
JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = f.merchant_id AND rm.status = 'ok'
LEFT JOIN (SELECT merchant_id, min(group_id) AS group_id FROM group_members GROUP BY merchant_id) g
       ON g.merchant_id = f.merchant_id
LEFT JOIN (SELECT kind, merchant_id, entity_id, first_seen_run
           FROM first_seen WHERE merchant_id BETWEEN $3 AND $4) seen
       ON seen.kind = f.kind AND seen.merchant_id = f.merchant_id AND seen.entity_id = f.entity_id
LEFT JOIN (SELECT DISTINCT kind, merchant_id, entity_id FROM previous_findings
           WHERE merchant_id BETWEEN $3 AND $4) p
       ON p.kind = f.kind AND p.merchant_id = f.merchant_id AND p.entity_id = f.entity_id
QUALIFY row_number() OVER (PARTITION BY f.kind, f.merchant_id, f.entity_id ORDER BY f.entity_id) = 1

-- name: DropFound
DROP TABLE IF EXISTS temp.main.found

-- name: InsertResolvedFindings
-- Keeps under run $1 (business date $2), as resolved, the previous
-- findings of its reconciled members that no check reports now. Only kinds
-- of the catalog ($3): kinds no longer in it are not "resolved", nobody
-- looked.
INSERT INTO findings (run_id, business_date, kind, merchant_id, entity_id, group_id,
                      amount, currency, detail, first_seen_run, state)
SELECT $1, $2, p.kind, p.merchant_id, p.entity_id, p.group_id, p.amount, p.currency, p.detail,
       p.first_seen_run, 'resolved'
FROM previous_findings p
JOIN run_members rm ON rm.run_id = $1 AND rm.merchant_id = p.merchant_id AND rm.status = 'ok'
WHERE list_contains($3::VARCHAR[], p.kind)
  AND NOT EXISTS (SELECT 1 FROM findings c
                  WHERE c.run_id = $1 AND c.kind = p.kind
                    AND c.merchant_id = p.merchant_id AND c.entity_id = p.entity_id)

-- name: ClearInterchangeRates
-- interchange_rates holds the rate table of the latest run.
DELETE FROM interchange_rates

-- name: InsertInterchangeRate
-- Network $1's Level II ($2) and Level III ($3) rate differences, as
-- decimal text, from source $4, loaded at $5.
INSERT INTO interchange_rates (network, level2_rate, level3_rate, source, loaded_at)
VALUES ($1, CAST($2 AS DECIMAL(9,6)), CAST($3 AS DECIMAL(9,6)), $4, $5)

-- name: ClearRetryLimits
-- retry_limits holds the retry-limit table of the latest run.
DELETE FROM retry_limits

-- name: InsertRetryLimit
-- Network $1 allows $2 reattempts within the window $3 (INTERVAL text),
-- counting customer- and merchant-initiated ones apart when $4; from
-- source $5, loaded at $6.
INSERT INTO retry_limits (network, reattempts, window_length, cit_mit_apart, source, loaded_at)
VALUES ($1, $2, CAST($3 AS INTERVAL), $4, $5, $6)

-- name: ClearInterchangeAtRisk
-- Run $1's estimate, replaced by every computation of it
-- (interchange_at_risk.sql).
DELETE FROM interchange_at_risk WHERE run_id = $1
